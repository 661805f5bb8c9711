"""The hostile objects the attack tests give every argument and every answer: each lies about its type
or fails when it is read, printed, measured or compared, so one of them must cost one refusal."""

from __future__ import annotations

import pytest
from lighthouse import Kind


def _raises(*_args, **_kwargs):
    raise RuntimeError("a hostile object was read")


class HostileText(str):
    """A str whose printing, measuring, indexing, iterating, comparing and hashing raise."""

    __str__ = __repr__ = __len__ = __iter__ = __format__ = __getitem__ = __eq__ = __hash__ = _raises


class HostileNumber(int):
    """An int whose printing, conversion, use as an index, comparing and hashing raise."""

    __str__ = __repr__ = __format__ = __index__ = __int__ = __eq__ = __hash__ = _raises


class HostileFloat(float):
    """A float whose printing and conversion raise."""

    __str__ = __repr__ = __format__ = __float__ = _raises
    __hash__ = float.__hash__


class HostileMap(dict):
    """A dict whose items, keys, length, lookups and iteration raise."""

    items = keys = values = get = __len__ = __iter__ = __repr__ = __getitem__ = __contains__ = _raises


class HostileList(list):
    """A list whose iteration, length, indexing and printing raise."""

    __iter__ = __len__ = __repr__ = __getitem__ = _raises


class Hostile:
    """An object that fails whenever it is printed, compared, measured or asked its class."""

    __str__ = __repr__ = __eq__ = __len__ = __iter__ = _raises
    __hash__ = object.__hash__

    @property
    def __class__(self):
        raise RuntimeError("a hostile object was asked its class")


class PosingAsText:
    """An object that gives str as its class, so isinstance() takes it for text."""

    __class__ = str

    def __getattr__(self, name):
        raise RuntimeError(name)


class PosingAsKind:
    """An object that gives Kind as its class, so isinstance() takes it for one: its label would put
    Cypher of its own into a query."""

    label = "Device`) DETACH DELETE (n"
    key = "key"
    times = text = ()
    relations: dict = {}
    dimensions = 4

    @property
    def __class__(self):
        return Kind


def hostile_things() -> list:
    """One of each hostile object that can be filled, and plain containers that hold one."""
    return [
        HostileText("x"),
        HostileNumber(3),
        HostileMap(a=1),
        HostileList([1]),
        {"a": HostileText("x")},
        [HostileNumber(1)],
        (HostileText("d1"),),
    ]


# Hostile objects where a name is asked for: each must raise "must be text" and write nothing.
HOSTILE_NAMES = [HostileText("ann"), HostileNumber(1), HostileMap(), HostileList()]


def sort_of(given: object) -> str:
    """A test id that reads nothing of a hostile object but its type."""
    return type(given).__name__


def hostile_objects() -> list:
    """One of each hostile object, filled as an honest one would be."""
    return [
        HostileText("hello"),
        HostileNumber(7),
        HostileFloat(0.5),
        HostileMap({"key": "d1"}),
        HostileList(["a"]),
        Hostile(),
        PosingAsText(),
    ]


def hostile_params() -> list:
    """The hostile objects as parameters of a test, each named by its type: pytest would otherwise ask
    an object its class, and one of them raises when asked."""
    return [pytest.param(each, id=type(each).__name__) for each in hostile_objects()]
