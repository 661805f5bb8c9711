"""The shape of one operation, its arguments' types, and how JSON arguments become the library's.

Every HTTP route, MCP tool and quick look of the command line is made from an Operation: its name,
the library function it calls, its scope, its arguments (with their JSON schema), its result, a
description for a model that never read our docs, and flags.
"""

from __future__ import annotations

import difflib
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..problems import Problem

if TYPE_CHECKING:
    from falkordb import Graph
    from lighthouse import Kind, Once

    from ..keys import Principal
    from ..parts import Parts

RECORD_LABELS = ("Entry", "Episode", "Lesson", "Playbook")
PAGE_DEFAULT, PAGE_MOST = 100, 1000

# No "type": [..] lists: some clients' schema checks refuse them; anyOf says the same portably.
_KEY = {
    "anyOf": [{"type": "string"}, {"type": "integer"}],
    "description": "the entity's key: text or a whole number",
}
TIME_FORMAT = "ISO 8601 in UTC, whole seconds, e.g. 2026-01-31T12:00:00Z"
_TIME = {"type": "string", "format": "date-time", "description": f"a time: {TIME_FORMAT}"}
ROW = {
    "type": "object",
    "properties": {
        "key": _KEY,
        "t": {**_TIME, "description": f"when the row became true: {TIME_FORMAT}"},
        "values": {
            "type": "object",
            "description": "value name -> text, a number, true/false or a flat list of them",
        },
        "relations": {
            "type": "object",
            "description": "relation type -> the key of its target, or a list of keys",
            "additionalProperties": {"anyOf": [_KEY, {"type": "array", "items": _KEY}]},
        },
        "entry": {"type": "string", "description": "the id of an entry (a note) this row rests on"},
    },
    "required": ["key", "t"],
    "additionalProperties": False,
}
_REFERENCE = {
    "description": 'a reference: [kind label, key] for an entity, ["Entry"|"Episode"|"Lesson"|"Playbook", id] '
    "for a record, or an entry id as text",
    "anyOf": [
        {"type": "string"},
        {"type": "array", "prefixItems": [{"type": "string"}, _KEY], "minItems": 2, "maxItems": 2},
    ],
}
SCHEMAS: dict[str, dict] = {
    "kind": {"type": "string", "description": "the label of a kind this tenant declared"},
    "kinds": {"type": "array", "items": {"type": "string"}, "description": "labels of declared kinds"},
    "key": _KEY,
    "ref": _REFERENCE,
    "refs": {"type": "array", "items": _REFERENCE, "maxItems": 200},
    "time": _TIME,
    "text": {"type": "string"},
    "texts": {"type": "array", "items": {"type": "string"}},
    "int": {"type": "integer"},
    "bool": {"type": "boolean"},
    "object": {"type": "object"},
    "objects": {"type": "array", "items": {"type": "object"}},
    "rows": {"type": "array", "items": ROW},
}
_JSON_TYPES = {
    "kind": str,
    "kinds": list,
    "key": (str, int),
    "ref": (str, list),
    "refs": list,
    "time": str,
    "text": str,
    "texts": list,
    "int": int,
    "bool": bool,
    "object": dict,
    "objects": list,
    "rows": list,
}
_SAID = {
    "kind": "the label of a declared kind",
    "kinds": "a list of kind labels",
    "key": "text or a whole number",
    "ref": "a reference ([label, key] or an entry id)",
    "refs": "a list of references",
    "time": "an ISO 8601 time as text",
    "text": "text",
    "texts": "a list of text",
    "int": "a whole number",
    "bool": "true or false",
    "object": "a JSON object",
    "objects": "a list of JSON objects",
    "rows": "a list of rows, each a JSON object",
}


@dataclass(frozen=True)
class Param:
    name: str
    type: str
    description: str
    required: bool = False
    to: str | None = None  # the library's parameter name, when it differs
    also: tuple[str, ...] = ()  # other names it is accepted by (the library's), outside the one vocabulary

    def schema(self) -> dict:
        said = self.description
        if self.type == "time":
            said = f"{said} ({TIME_FORMAT})"
        return {**SCHEMAS[self.type], "description": said}


@dataclass(frozen=True)
class Call:
    """What an operation runs with: the process's parts, the caller, and its tenant's graph."""

    parts: Parts
    principal: Principal
    graph: Graph | Once  # on once() for a call with an idempotency key
    page: tuple[int, int] | None = None  # (offset, size) of a paged operation

    def kind(self, label: object) -> Kind:
        return self.parts.kinds.kind(self.principal.tenant, label)


@dataclass(frozen=True)
class Operation:
    name: str
    function: Callable | None  # the library function it calls (None: the service answers itself)
    scope: str
    params: tuple[Param, ...]
    result: str
    description: str
    example: dict = field(default_factory=dict)
    agent_as: str | None = None  # the library parameter that gets the key's agent
    writes: bool = False
    heavy: bool = False
    destructive: bool = False
    idempotent: bool = True
    paged: bool = False
    audited: str | None = None  # the audit action recorded after it ran
    answer: Callable | None = None  # (call, library arguments) -> result, instead of function
    pages_itself: bool = False  # answer reads only call.page and gives {"items", "next_cursor"} itself

    @property
    def read_only(self) -> bool:
        return not self.writes

    @property
    def library_name(self) -> str:
        return self.function.__name__ if self.function is not None else f"(service) {self.name}"

    def all_params(self) -> tuple[Param, ...]:
        if not self.paged:
            return self.params
        return self.params + (
            Param("cursor", "text", "where to go on: the next_cursor of the page before"),
            Param(
                "limit",
                "int",
                f"items per page, 1 to {PAGE_MOST} (default {PAGE_DEFAULT})",
                also=("page_size",),
            ),
        )

    def input_schema(self) -> dict:
        params = self.all_params()
        return {
            "type": "object",
            "properties": {param.name: param.schema() for param in params},
            "required": [param.name for param in params if param.required],
            "additionalProperties": False,
        }

    def __post_init__(self) -> None:
        if self.function is not None and self.answer is None:
            accepted = inspect.signature(self.function).parameters
            for name in [param.to or param.name for param in self.params] + [self.agent_as]:
                if name is not None and name not in accepted:
                    raise AssertionError(f"{self.name}: {self.library_name} has no parameter {name!r}")


def reference(call: Call, given: object, what: str) -> object:
    """(Kind, key) for an entity, (label, id) for a record, the text of an entry id as it is."""
    if isinstance(given, str):
        return given
    if not isinstance(given, list) or len(given) != 2 or not isinstance(given[0], str):
        raise Problem("invalid_argument", f"{what} must be [label, key] or an entry id")
    label, key = given
    if label in RECORD_LABELS:
        return (label, key)
    return (call.kind(label), key)


def closest(name: object, names) -> str | None:
    """The one of names most like name (one holding the other first, then difflib's likeness), or None."""
    names = list(names)
    if not isinstance(name, str) or not name:
        return None
    holding = [other for other in names if name in other or other in name]
    if holding:
        return min(holding, key=lambda other: abs(len(other) - len(name)))
    found = difflib.get_close_matches(name, names, n=1, cutoff=0.4)
    return found[0] if found else None


def unknown_name(what: str, name: object, names) -> str:
    """A refusal's words for a name that is not among names: the closest one, and all of them."""
    names = list(names)
    near = closest(name, names)
    hint = f" (the closest: {near!r})" if near else ""
    return f"no {what} {str(name)[:100]!r}{hint}; there are: {', '.join(names) or 'none'}"


def _one_vocabulary(params: dict, arguments: dict) -> dict:
    """The arguments with every other accepted name (Param.also) turned into the vocabulary's."""
    given = dict(arguments)
    for param in params.values():
        for other in param.also:
            if other in given:
                if param.name in given:
                    raise Problem("invalid_argument", f"{param.name} and {other} are one argument: give one")
                given[param.name] = given.pop(other)
    return given


def converted(operation: Operation, call: Call, arguments: object) -> tuple[dict, tuple[int, int] | None]:
    """The library's keyword arguments from JSON ones, and the page (offset, size) of a paged result."""
    if not isinstance(arguments, dict):
        raise Problem("invalid_body", "the arguments must be a JSON object")
    params = {param.name: param for param in operation.all_params()}
    arguments = _one_vocabulary(params, arguments)
    unknown = sorted(set(arguments) - set(params))
    if unknown:
        if operation.agent_as is not None and operation.agent_as in unknown:
            raise Problem(
                "invalid_argument", f"{operation.agent_as} is the agent of the key and cannot be given"
            )
        said = unknown_name("argument", unknown[0], params)
        raise Problem("invalid_argument", f"{operation.name} has {said}")
    for param in params.values():
        if param.required and arguments.get(param.name) is None:
            raise Problem("invalid_argument", f"{param.name} is required")
    page = None
    if operation.paged:
        cursor, size = arguments.get("cursor"), arguments.get("limit", PAGE_DEFAULT)
        if cursor is not None and (
            type(cursor) is not str or not (cursor.isdecimal() and cursor.isascii()) or len(cursor) > 12
        ):
            raise Problem("invalid_argument", "cursor must be the next_cursor of an earlier page")
        if type(size) is not int or not 1 <= size <= PAGE_MOST:
            raise Problem("invalid_argument", f"limit must be a whole number from 1 to {PAGE_MOST}")
        page = (int(cursor or 0), size)
    library: dict = {}
    for name, value in arguments.items():
        param = params[name]
        if name in ("cursor", "limit") and operation.paged or value is None:
            continue
        wanted = _JSON_TYPES[param.type]
        if not isinstance(value, wanted) or (isinstance(value, bool) and param.type in ("int", "key")):
            raise Problem("invalid_argument", f"{name} must be {_SAID[param.type]}")
        library[param.to or name] = _library_value(call, param, value)
    if operation.agent_as is not None:
        library[operation.agent_as] = call.principal.agent
    return library, page


def _library_value(call: Call, param: Param, value: object) -> object:
    if param.type == "kind":
        return call.kind(value)
    if param.type == "kinds":
        return [call.kind(label) for label in value]
    if param.type == "ref":
        return reference(call, value, param.name)
    if param.type == "refs":
        return [reference(call, item, param.name) for item in value]
    return value


def page_of(items: list, page: tuple[int, int]) -> dict:
    """The page of items read from the page's offset, at most one more than its size: that one more
    says a next page exists."""
    offset, size = page
    more = len(items) > size
    return {"items": items[:size], "next_cursor": str(offset + size) if more else None}


def paged(result: object, page: tuple[int, int]) -> dict:
    """One page of a list: {"items", "next_cursor"} (next_cursor None on the last page)."""
    items = list(result or [])
    offset, size = page
    chosen = items[offset : offset + size]
    more = offset + size < len(items)
    return {"items": chosen, "next_cursor": str(offset + size) if more else None}
