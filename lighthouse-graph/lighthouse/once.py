"""once(): a graph on which one call of the library's writes is done once for a request, however often
it is made again, through a crash of the caller at any point.

Each query the call sends is a step, numbered in order. A write query is sent with a clause added at its
end that keeps, in the same query, its own reply and the replies of the reads since the write before, on
an `lh.Reply` node of the request: what the write did and what the call learnt to do it are kept in one
query, or neither is. The same call made again on once(graph, request) gets, step by step, the kept
replies instead of sending the queries again: it decides what it decided the first time, writes nothing
twice, and gives the answer of the first time; once past the last kept step it goes on as a first call
does (the writes of a call cut short before them are made). A step whose query is not the one kept
(another call, or another shape of it) raises StepMismatch: nothing more is sent. once_settled() drops
the replies of a request whose answer is kept elsewhere (or that must write again).

The library's write queries answer plain values: text, numbers, booleans, lists, maps, localdatetime
values (at the top of a row, in a list or a map), and nodes (kept as their id, labels and properties).
"""

from __future__ import annotations

import base64
import hashlib
import json
from datetime import UTC, datetime

from falkordb.node import Node
from redis.exceptions import ResponseError

from . import values as limits
from .errors import StepMismatch
from .graphs import read
from .wire import parameters_header, read_rows

REPLY = "`lh.Reply`"


# A row as it is kept: toJSON() cannot write a localdatetime, so a time goes as its text, in a list or a
# map too; a node as its id, labels and properties (each time in them as text). FalkorDB 4.22.1 types
# every branch of a CASE, so each reads a value of its own type or an empty one. The expression is
# written once for every cell of a row (a comprehension), and binds each value it reads again to a name:
# FalkorDB compiles a plan once per query text and graph, in time that grows fast with the text and with
# comprehensions nested; a clause written out per cell took seconds to compile after a restart.
def _time(v: str) -> str:
    return (
        f"CASE typeOf({v}) WHEN 'Datetime' THEN "
        f"{{lh_time: toString(CASE typeOf({v}) WHEN 'Datetime' THEN {v} END)}} ELSE {v} END"
    )


def _map(m: str) -> str:
    return f"[lh_m IN [{m}] | [lh_k IN keys(lh_m) | [lh_k, {_time('lh_m[lh_k]')}]]][0]"


_NODE = "CASE typeOf(lh_x) WHEN 'Node' THEN lh_x END"
_AS_MAP = "CASE typeOf(lh_x) WHEN 'Map' THEN lh_x ELSE {} END"
_CELL = (
    "CASE typeOf(lh_x) "
    "WHEN 'List' THEN {lh_list: [lh_i IN CASE typeOf(lh_x) WHEN 'List' THEN lh_x ELSE [] END | "
    f"{_time('lh_i')}]}} "
    f"WHEN 'Map' THEN {{lh_map: {_map(_AS_MAP)}}} "
    f"WHEN 'Node' THEN [lh_n IN [{_NODE}] | "
    f"{{lh_node: [id(lh_n), labels(lh_n), {_map('coalesce(properties(lh_n), {})')}]}}][0] "
    f"ELSE {_time('lh_x')} END"
)
_KEPT_ROW = f"[lh_x IN lh_row | {_CELL}]"  # per row, before collect(): one comprehension less to compile


_LOAD = f"MATCH (r:{REPLY} {{request: $request}}) RETURN r.step, r.sig, r.rows, r.reads"
_DROP = f"MATCH (r:{REPLY} {{request: $request}}) DELETE r RETURN count(r)"


class Replayed:
    """The kept reply of a step, read as a query's result: its rows in result_set."""

    def __init__(self, rows: list) -> None:
        self.result_set = rows


class _Written:
    """A write's result as the query alone would give it: the kept reply's node not counted."""

    def __init__(self, result) -> None:
        self._result = result
        self.result_set = result.result_set

    @property
    def nodes_created(self) -> int:
        return self._result.nodes_created - 1

    def __getattr__(self, name: str):
        return getattr(self._result, name)


def once(graph, request: object) -> Once:
    """A graph to call the library's writes on, so that the call is done once for request (a name: 1 to
    200 characters). Only the library's queries go through it; one call at a time (the caller holds the
    request). Refused for a request that is not a name."""
    return Once(graph, limits.name(request, "a request"))


def once_settled(graph, request: object) -> int:
    """Drops the kept replies of request: how many steps it had. A later call on once(graph, request)
    then writes as a first call does."""
    checked = limits.name(request, "a request")
    return graph.query(_DROP, {"request": checked}).result_set[0][0]


class Once:
    def __init__(self, graph, request: str) -> None:
        self.graph = graph
        self.request = request
        self.step = 0
        self._kept: dict[int, tuple[str, object]] | None = None
        self._reads: list = []  # [step, sig, rows] of the reads since the last write, kept with the next
        self._wrote = False

    @property
    def keeps(self) -> bool:
        """Whether replies of the request are kept: this call wrote, or found some kept before."""
        return self._wrote or bool(self._kept)

    @property
    def name(self) -> str:
        return self.graph.name

    def __getattr__(self, name: str):
        return getattr(self.graph, name)

    def _steps(self) -> dict[int, tuple[str, object]]:
        if self._kept is None:
            self._kept = {}
            for step, sig, rows, reads in read(self.graph, _LOAD, {"request": self.request}):
                self._kept[step] = (sig, _cells(json.loads(rows)))
                for read_step, read_sig, answered in json.loads(base64.b64decode(reads)):
                    failed = isinstance(answered, dict) and "lh_error" in answered
                    self._kept[read_step] = (
                        read_sig,
                        ResponseError(answered["lh_error"]) if failed else _decoded(answered),
                    )
        return self._kept

    def _replayed(self, sig: str):
        """The kept reply of this step (None when it has none), the step counted; a kept error raised."""
        step, self.step = self.step, self.step + 1
        kept = self._steps().get(step)
        if kept is None:
            return step, None
        if kept[0] != sig:
            raise StepMismatch(
                f"step {step} of request {self.request!r} sent another query than the first time"
            )
        if isinstance(kept[1], ResponseError):
            raise kept[1]
        return step, Replayed(kept[1])

    def ro_query(self, q: str, params: dict | None = None, timeout: int | None = None):
        sig = _sig("r", q)
        step, replayed = self._replayed(sig)
        if replayed is not None:
            return replayed
        try:
            rows = read_rows(self.graph, q, params, timeout)
        except ResponseError as error:
            self._reads.append([step, sig, {"lh_error": str(error)}])
            raise
        self._reads.append([step, sig, _encoded(rows)])
        return Replayed(rows)

    def query(self, q: str, params: dict | None = None, timeout: int | None = None):
        sig = _sig("w", q)
        step, replayed = self._replayed(sig)
        if replayed is not None:
            return replayed
        reads = base64.b64encode(json.dumps(self._reads).encode()).decode()  # no quote to escape in a header
        mine = {"lh_request": self.request, "lh_step": step, "lh_sig": sig, "lh_reads": reads}
        kept = _keeping(q)
        try:
            if q.startswith("CYPHER ") and params is None:
                header = parameters_header(mine)
                if header is None:  # a request a header cannot carry exactly: refused as a name would be
                    raise StepMismatch(f"the request {self.request!r} cannot travel in a query's header")
                result = self.graph.query(header + kept[len("CYPHER ") :], None, timeout)
            else:
                result = self.graph.query(kept, {**(params or {}), **mine}, timeout)
        except ResponseError as error:  # nothing written: said again in its place, kept with the next write
            self._reads.append([step, sig, {"lh_error": str(error)}])
            raise
        self._reads, self._wrote = [], True
        return _Written(result)


def _sig(sort: str, q: str) -> str:
    """What a step is, for a call made again: read or write, and its query without its header."""
    return hashlib.sha256((sort + _without_header(q)).encode()).hexdigest()[:24]


def _scan(q: str, start: int = 0):
    """(index, char, depth) of each char of q outside strings and backquoted names, brackets counted."""
    depth, index, length = 0, start, len(q)
    while index < length:
        char = q[index]
        if char in "'\"`":
            close = q.find(char, index + 1)
            while close != -1 and char != "`" and q[close - 1] == "\\" and not _even_backslashes(q, close):
                close = q.find(char, close + 1)
            index = length if close == -1 else close + 1
            continue
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        yield index, char, depth
        index += 1


def _even_backslashes(q: str, at: int) -> bool:
    count = 0
    while at - 1 - count >= 0 and q[at - 1 - count] == "\\":
        count += 1
    return count % 2 == 0


def _without_header(q: str) -> str:
    """q without a leading "CYPHER name=value ..." header: from its first word with no "=" at its top."""
    if not q.startswith("CYPHER "):
        return q
    word_start, has_equal = len("CYPHER "), False
    for index, char, depth in _scan(q, len("CYPHER ")):
        if depth == 0 and char == " ":
            if index > word_start and not has_equal:
                return q[word_start:]
            word_start, has_equal = index + 1, False
        elif depth == 0 and char == "=":
            has_equal = True
    return q[word_start:]


def _top_words(q: str) -> list[tuple[int, str]]:
    """(index, upper-cased word) of each word at the top of q (outside brackets, strings and names)."""
    found, begin = [], None
    for index, char, depth in _scan(q):
        if depth == 0 and (char.isalnum() or char == "_"):
            if begin is None:
                begin = index
            continue
        if begin is not None:
            found.append((begin, q[begin:index].upper()))
            begin = None
    if begin is not None:
        found.append((begin, q[begin:].upper()))
    return found


def _items(text: str) -> list[str]:
    """The comma-separated items of a RETURN, split only at its top."""
    parts, last = [], 0
    for index, char, depth in _scan(text):
        if depth == 0 and char == ",":
            parts.append(text[last:index].strip())
            last = index + 1
    parts.append(text[last:].strip())
    return parts


def _keeping(q: str) -> str:
    """q with a clause that keeps its reply (and $lh_reads) on an lh.Reply node, answering the same rows."""
    words = _top_words(q)
    returns = [index for index, word in words if word == "RETURN"]

    def keep(rows: str) -> str:
        return f"CREATE (:{REPLY} {{request: $lh_request, step: $lh_step, sig: $lh_sig, reads: $lh_reads, rows: {rows}}})"

    if not returns:
        return f"{q} WITH count(*) AS lh_count " + keep("'[]'")
    start = returns[-1]
    after = [(index, word) for index, word in words if index > start]
    distinct = bool(after) and after[0][1] == "DISTINCT" and q[start + 6 : after[0][0]].strip() == ""
    body_from = after[0][0] + len("DISTINCT") if distinct else start + len("RETURN")
    tail_at = next((index for index, word in after if word in ("ORDER", "SKIP", "LIMIT")), len(q))
    names = []
    projected = []
    for number, item in enumerate(_items(q[body_from:tail_at])):
        alias_words = [(index, word) for index, word in _top_words(item) if word == "AS"]
        if alias_words:
            name = item[alias_words[-1][0] + 2 :].strip()
            expression = item[: alias_words[-1][0]].strip()
        else:
            name, expression = f"lh_c{number}", item
        names.append(name)
        projected.append(f"{expression} AS {name}")
    shown = ", ".join(f"lh_row[{number}] AS {name}" for number, name in enumerate(names))
    return (
        f"{q[:start]}WITH {'DISTINCT ' if distinct else ''}{', '.join(projected)} {q[tail_at:]} "
        f"WITH [{', '.join(names)}] AS lh_row "
        f"WITH collect(lh_row) AS lh_rows, collect({_KEPT_ROW}) AS lh_kept "
        + keep("toJSON(lh_kept)")
        + f" WITH lh_rows UNWIND lh_rows AS lh_row RETURN {shown}"
    )


def _encoded(value: object) -> object:
    """A read's value as JSON that _decoded() gives back as it was."""
    if value is None or type(value) in (bool, int, str):
        return value
    if type(value) is float:
        return {"lh_float": repr(value)}
    if isinstance(value, list):
        return [_encoded(item) for item in value]
    if isinstance(value, dict):
        return {"lh_map": [[key, _encoded(item)] for key, item in value.items()]}
    if isinstance(value, datetime):
        return {"lh_time": value.astimezone(UTC).replace(tzinfo=None).isoformat()}
    if isinstance(value, Node):
        return {
            "lh_node": [
                value.id,
                list(value.labels or []),
                [[k, _encoded(v)] for k, v in value.properties.items()],
            ]
        }
    raise StepMismatch(f"a read answered a value this call cannot keep: {type(value).__name__}")


def _decoded(value: object) -> object:
    if isinstance(value, list):
        return [_decoded(item) for item in value]
    if not isinstance(value, dict):
        return value
    if "lh_time" in value:
        return datetime.fromisoformat(value["lh_time"]).replace(tzinfo=UTC)
    if "lh_float" in value:
        return float(value["lh_float"])
    if "lh_list" in value:
        return [_decoded(item) for item in value["lh_list"]]
    if "lh_map" in value:
        return {key: _decoded(item) for key, item in value["lh_map"]}
    if "lh_node" in value:
        node_id, labels, properties = value["lh_node"]
        return Node(node_id=node_id, labels=labels, properties={k: _decoded(v) for k, v in properties})
    return {key: _decoded(item) for key, item in value.items()}


def _cells(rows: list) -> list:
    return [[_decoded(cell) for cell in row] for row in rows]
