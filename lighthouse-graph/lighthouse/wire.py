"""What travels between the library and FalkorDB, in a faster form than the client's where that form is
exact: a query's parameters written as its "CYPHER ..." header by the json module (C), and the rows of a
read decoded here from FalkorDB's compact reply.

Both give what the client gives, or leave the work to the client: parameters_header() returns None for
what its form cannot carry exactly, and a reply holding a node, an edge, a path, a point, a vector or a
duration is parsed by the client's own QueryResult. On the same replies of a change's read (some 29
values a row), the client's parser took 29 to 45 µs a row and this decoder 13 to 32.
"""

from __future__ import annotations

import json
import re
from collections import OrderedDict
from datetime import UTC, datetime
from operator import itemgetter

from falkordb import Graph
from falkordb.exceptions import SchemaVersionMismatchException
from falkordb.query_result import QueryResult
from redis.exceptions import ResponseError

from .round_trip import sent as round_trip

# A JSON string token: the name of a map entry when a plain identifier and a ":" follow (group 1 the
# name), else a string left as JSON wrote it (group 3). One C pass, no Python call per token.
_JSON_STRING = re.compile(r'"([A-Za-z_][A-Za-z0-9_]*)"(:)|("[^"\\]*(?:\\.[^"\\]*)*")')
# A map name, in JSON that holds no escaped quote: there every quote opens or closes a string, a string
# followed by ":" is a map name, and no text inside a string can look like one. It skips the strings
# instead of matching each of them: half the time of the pass above.
_MAP_NAME = re.compile(r'"([A-Za-z_][A-Za-z0-9_]*)":')
# A \u escape that JSON wrote (not a text's own backslash and "u": that is an even run of backslashes
# before it): the control characters without a short escape, the only ones json.dumps() writes so when
# it keeps every other character as it is.
_U_ESCAPE = re.compile(r"(?<!\\)((?:\\\\)*)\\u([0-9a-fA-F]{4})")


def _raw_control(found: re.Match) -> str:
    """The character of a \\u escape, put back as it is: FalkorDB reads it so, as the client sends it."""
    code = int(found.group(2), 16)
    if not 0 < code < 0x20:  # NUL, or a form json.dumps() does not write here: the client's way
        raise ValueError(code)
    return found.group(1) + chr(code)


# One encoder for every value: json.dumps() with these options makes a new one each call, which cost a
# short read more than the client's own quoting (55 µs against 15 for say()'s ten parameters; 11 µs here).
_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode


def parameters_header(params: dict) -> str | None:
    """The "CYPHER name=value ..." header of a query's parameters, written by the json module (C) rather
    than the client's Python, or None when this form cannot carry them exactly (the client's form then).

    FalkorDB reads a JSON string as the client's quoting does: the escapes \\" \\\\ \\n \\r \\t \\b \\f
    decode; \\u does not, so a control character that JSON writes with \\u goes as the character itself,
    as the client sends it (a session's key holds one: say()); NUL goes the client's way. Map names are
    written bare, and only plain identifiers are; any other name goes the client's way.
    """
    parts = []
    try:
        for name, value in params.items():
            text = _encode(value)
            if "\\u" in text:
                text = _U_ESCAPE.sub(_raw_control, text)
            if '":' in text:  # else no map name, and nothing to unquote (a list of lists, say)
                # A quote inside a string: only the whole pass tells it from a map name.
                text = _JSON_STRING.sub(r"\1\2\3", text) if '\\"' in text else _MAP_NAME.sub(r"\1:", text)
                if '":' in text:  # a map name that is not a plain identifier stayed quoted: the client's way
                    return None
            parts.append(f"{name}={text}")
    except (TypeError, ValueError):  # a datetime, a NaN: the client's way
        return None
    return "CYPHER " + " ".join(parts) + " "


class _ForTheClient(Exception):
    """A value of a kind this decoder leaves to the client's parser (it needs the graph's schema)."""


# The compact reply's kinds of value (FalkorDB's VALUE_* numbering, as the client reads it).
_NULL = 1
_STRING = 2
_INTEGER = 3
_BOOLEAN = 4
_DOUBLE = 5
_ARRAY = 6
_MAP = 10
_DATETIME = 13
_DATE = 14
_TIME = 15
TEXT_CELL = _STRING  # the kind of a text's cell, for a caller that reads cells itself


def _text(raw: object) -> str:
    if type(raw) is str:
        return raw
    return raw.decode() if isinstance(raw, bytes) else str(raw)


def cell_value(cell: list) -> object:
    """One [kind, value] of the compact reply, as the client's parse_scalar() gives it (a node, an edge, a
    path, a point, a vector, a duration are left to the client: rows_read() and decoded() see to it)."""
    sort, raw = cell
    if sort == _STRING:
        return raw if type(raw) is str else _text(raw)
    if sort == _INTEGER:
        return raw if type(raw) is int else int(raw)
    if sort == _NULL:
        return None
    if sort == _ARRAY:
        return _listed(raw)
    if sort == _BOOLEAN:
        return _text(raw) == "true"
    if sort == _DOUBLE:
        return float(raw)
    if sort == _DATETIME:
        return _moment(raw)
    if sort == _MAP:
        return _mapped(raw)
    if sort == _DATE:
        return datetime.fromtimestamp(raw, tz=UTC).date()
    if sort == _TIME:
        return datetime.fromtimestamp(raw, tz=UTC).time()
    raise _ForTheClient(sort)


def rows_read(reply: list, read_row) -> list | None:
    """read_row(cells) of each row of a compact reply (read_reply()), or None where one of them met a
    value of a kind that cell_value() leaves to the client: decoded() reads that reply whole."""
    try:
        return [read_row(row) for row in reply[1]]
    except _ForTheClient:
        return None


# The datetimes of the epoch seconds read lately: a read of States or nodes meets the same few times in
# every row (recorded_at, valid_from), and making one took 1.5 µs, a third of what the rest of a row cost.
_moments: dict = {}
_MOMENTS = 4_096


def _moment(raw: int) -> datetime:
    found = _moments.get(raw)
    if found is None:
        found = datetime.fromtimestamp(raw, tz=UTC)
        if len(_moments) >= _MOMENTS:
            _moments.clear()
        _moments[raw] = found
    return found


_SORT = itemgetter(0)
_RAW = itemgetter(1)
_PLAIN = {_INTEGER: int, _STRING: str}  # the Python type of every value of a long list of one kind
_AS_IS = frozenset({_INTEGER, _NULL})  # kinds whose value the reply carries as the Python value itself
_LONG = 32  # items from which a list is first looked at whole: below, one pass over its items is less


def _listed(raw: list) -> list:
    """A list of the compact reply. A long list of only whole numbers or only texts (node ids, keys: a
    snapshot of 3,000 devices reads 28,000 ids) is taken in a few passes in C, not a call per item."""
    if len(raw) < _LONG:
        return [
            one[1]
            if (sort := one[0]) in _AS_IS or (sort == _STRING and type(one[1]) is str)
            else cell_value(one)
            for one in raw
        ]
    sorts = set(map(_SORT, raw))
    if len(sorts) == 1:
        plain = _PLAIN.get(next(iter(sorts)))
        found = list(map(_RAW, raw))
        if plain is not None and set(map(type, found)) == {plain}:
            return found
    return [cell_value(one) for one in raw]


def _mapped(raw: list) -> OrderedDict:
    """A map of the compact reply (names and [kind, value] cells in turn), as the client's OrderedDict:
    its names and its texts taken as they are, a call only for a value of another kind."""
    names = raw[0::2]
    if set(map(type, names)) != {str}:
        names = list(map(_text, names))
    found = [
        one[1] if (sort := one[0]) in _AS_IS or (sort == _STRING and type(one[1]) is str) else cell_value(one)
        for one in raw[1::2]
    ]
    return OrderedDict(zip(names, found, strict=True))


def decoded(graph, response: list) -> list[list]:
    """The rows of a compact reply: decoded here, or by the client's QueryResult (which also raises what
    the client raises for an error in the reply) when a row holds a kind of value left to it."""
    if len(response) < 3 or isinstance(response[0], ResponseError) or isinstance(response[-1], ResponseError):
        return QueryResult(graph, response).result_set
    try:
        return [[cell_value(cell) for cell in row] for row in response[1]]
    except _ForTheClient:
        return QueryResult(graph, response).result_set


def read_rows(graph, query: str, params: dict | None = None, timeout: int | None = None) -> list[list]:
    """The rows of a read-only query, as graph.ro_query(query, params, timeout=timeout).result_set gives
    them. For the client's own Graph, the parameters go as parameters_header() writes them and the reply
    is decoded here; a stand-in for a graph (one that counts or times its queries) is asked by its
    ro_query(), and so are parameters this header cannot carry. Raises what the client raises."""
    header = parameters_header(params) if params else ""
    if not isinstance(graph, Graph) or header is None or (timeout is not None and type(timeout) is not int):
        return graph.ro_query(query, params, timeout=timeout).result_set
    return _sent(graph, "GRAPH.RO_QUERY", header + query, timeout)


def written_rows(graph, query: str, params: dict | None = None) -> list[list]:
    """The rows a write query answers, as graph.query(query, params).result_set gives them, the same two
    ways read_rows() goes: the header and this decoder for the client's own Graph, else graph.query()."""
    header = parameters_header(params) if params else ""
    if not isinstance(graph, Graph) or header is None:
        return graph.query(query, params).result_set
    return _sent(graph, "GRAPH.QUERY", header + query, None)


def read_reply(graph, query: str, params: dict | None = None, timeout: int | None = None) -> list | None:
    """The compact reply of a read-only query as it came, for a caller that reads its rows itself
    (reply[1], each cell [kind, value] for cell_value()), with the client's errors raised as read_rows()
    raises them; None where read_rows() would ask the client (a stand-in graph, parameters its header
    cannot carry): read_rows() then."""
    header = parameters_header(params) if params else ""
    if not isinstance(graph, Graph) or header is None or (timeout is not None and type(timeout) is not int):
        return None
    response = _reply(graph, "GRAPH.RO_QUERY", header + query, timeout)
    if len(response) < 3 or isinstance(response[0], ResponseError) or isinstance(response[-1], ResponseError):
        QueryResult(graph, response)  # raises what the client raises for an error in the reply
        if len(response) < 3:
            return [[], [], response[-1]]  # no rows: a reply of the same shape
    return response


def _reply(graph, command: str, text: str, timeout: int | None) -> list:
    sent = [command, graph.name, text, "--compact"]
    if timeout is not None:
        sent += ["timeout", timeout]
    try:
        return round_trip(graph, *sent)
    except SchemaVersionMismatchException as error:  # what the client does for it, as its _query() does
        graph.schema.refresh(error.version)
        raise


def _sent(graph, command: str, text: str, timeout: int | None) -> list[list]:
    return decoded(graph, _reply(graph, command, text, timeout))
