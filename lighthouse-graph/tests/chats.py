"""Conversations the tests hold: the kinds they mention, and a graph whose indexes are built."""

from __future__ import annotations

import fcntl
import os
import tempfile
import time
from pathlib import Path

from lighthouse.graphs import ensure_schema
from lighthouse.kinds import Kind

PUMP = Kind("Pump", key="tag")
VALVE = Kind("Valve", key="number")


def ready(graph, kinds):
    """ensure_schema(), then a wait until every index is built.

    FalkorDB 4.22 builds a new index in the background: found here, a query that used one still under
    construction crashed the server (SIGSEGV in RediSearch_GetResultsIterator) or missed a node.
    """
    # One at a time across the xdist workers of a run: found here (09:10-09:31 UTC, 2026-12-01), two
    # GRAPH.CONSTRAINT CREATE at once from ensure_schema() crashed FalkorDB 4.22.1 (SIGSEGV).
    lock = (
        Path(tempfile.gettempdir()) / f"lighthouse-schema-{os.environ.get('FALKORDB_PORT', 'default')}.lock"
    )
    with open(lock, "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        ensure_schema(graph, kinds)
    deadline = time.monotonic() + 30
    query = "CALL db.indexes() YIELD status RETURN status"
    while any(status != "OPERATIONAL" for (status,) in graph.query(query).result_set):
        assert time.monotonic() < deadline, "the indexes were not built in 30 seconds"
        time.sleep(0.01)
    return graph


class Counting:
    """A falkordb Graph that counts the queries sent through it and forwards everything to the graph."""

    def __init__(self, graph):
        self.graph = graph
        self.sent: list[str] = []

    def query(self, *args, **kwargs):
        self.sent.append(args[0] if args else kwargs.get("q", ""))
        return self.graph.query(*args, **kwargs)

    def ro_query(self, *args, **kwargs):
        self.sent.append(args[0] if args else kwargs.get("q", ""))
        return self.graph.ro_query(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.graph, name)


def _raises(*_args, **_kwargs):
    raise RuntimeError("a hostile object was read")


class HostileText(str):
    """A str whose printing, measuring and iterating raise."""

    __str__ = __repr__ = __len__ = __iter__ = __format__ = _raises
    __hash__ = str.__hash__


class HostileNumber(int):
    """An int whose printing raises."""

    __str__ = __repr__ = __format__ = __index__ = _raises
    __hash__ = int.__hash__


class HostileMap(dict):
    """A dict whose items, keys, length and iteration raise."""

    items = keys = values = __len__ = __iter__ = __repr__ = _raises


class HostileList(list):
    """A list whose iteration, length and printing raise."""

    __iter__ = __len__ = __repr__ = __getitem__ = _raises


class Hostile:
    """An object that fails whenever it is printed or compared."""

    __str__ = __repr__ = __eq__ = _raises
    __hash__ = object.__hash__


def hostile_objects() -> list:
    """One of each hostile object, filled as an honest one would be."""
    return [
        HostileText("hello"),
        HostileNumber(7),
        HostileMap({"a": 1}),
        HostileList(["a"]),
        Hostile(),
    ]
