"""remember(): rows in waves and queries of 500, each decided against the current State and written."""

from __future__ import annotations

from collections import defaultdict
from functools import lru_cache

from redis.exceptions import ResponseError

from .. import clock, values
from ..graphs import read
from ..kinds import Kind
from ..values import Refused
from .failures import REFUSALS, Failure, record_failures
from .late import edges_from, holding, read_around, relation_types, stored_values
from .plans import Around, StateView, apply_plans, decide, relations_from
from .rows import Row, prepare, typed

QUERY_ROWS = 500  # rows in one query: a batch is atomic per query, not across queries
ATTEMPTS = 5  # reads of a row that each found another writer, before it is busy


@lru_cache(maxsize=256)
def _current_query(kind: Kind) -> str:
    return (
        "UNWIND $keys AS k "
        f"OPTIONAL MATCH (e:`{kind.label}` {{key: k}}) "
        # No label on s, and the relation types in the pattern: each halved what its step cost FalkorDB.
        "OPTIONAL MATCH (e)-[:HAS_STATE]->(s) WHERE s.valid_to IS NULL "
        "WITH k, e, s "
        f"OPTIONAL MATCH (e)-[r{relation_types(kind)}]->(x) WHERE r.valid_to IS NULL "
        f"RETURN k, e.rev, properties(e), id(s), s.valid_from, s.seen_last, "
        "collect([type(r), x.key, id(r), r.valid_from, r.valid_to])"
    )


def read_current(graph, kind: Kind, keys: list) -> dict:
    """For each key: the entity's revision, its current values, its current State and open edges."""
    result = read(graph, _current_query(kind), {"keys": keys})
    found = {typed(key): Around() for key in keys}  # a graph that does not exist yet answers nothing
    for key, rev, props, sid, start, seen_last, listed in result:
        edges = edges_from(listed)
        around = Around(rev=rev or 0, props=stored_values(kind, props or {}))
        if sid is not None:
            held = holding(edges, clock.from_store(start))
            around.current = StateView(
                sid,
                clock.from_store(start),
                None,
                clock.from_store(seen_last),
                around.props,
                relations_from(held, kind),
            )
            around.prev = around.current
            around.edges_prev = {pair: edge for pair, edge in held.items()}
        found[typed(key)] = around
    return found


def check_entries(graph, rows: list[Row]) -> set[str]:
    """The entry ids that the rows name and that exist: one read for the batch."""
    named = sorted({row.entry for row in rows if row.entry is not None})
    if not named:
        return set()
    result = read(graph, "UNWIND $ids AS id MATCH (n:Entry {id: id}) RETURN n.id", {"ids": named})
    return {row[0] for row in result}


def write_rows(
    graph, kind: Kind, by: str, rows: list[Row], statuses: dict, refusals: list, partial=None
) -> None:
    """Decides and writes rows of distinct keys; retried against a new read while another writer won.

    partial: for update(), a function that completes a row from what the current State holds.
    """
    pending = {row.index: row for row in rows}
    for _attempt in range(ATTEMPTS):
        current = read_current(graph, kind, [row.key for row in pending.values()])
        if partial is not None:
            for index, row in list(pending.items()):
                try:
                    pending[index] = partial(row, current[typed(row.key)])
                except Refused as error:
                    statuses[index] = error.reason
                    refusals.append(
                        Failure(error.reason, kind.label, row.key, row.raw, str(error), by, index=index)
                    )
                    del pending[index]
        late = [row for row in pending.values() if partial is None and _is_late(row, current)]
        arounds = read_around(graph, kind, late, current)
        late_indexes = {row.index for row in late}
        plans = {"now": [], "late": []}
        decided = {}
        for index, row in pending.items():
            if index in late_indexes and index not in arounds:
                continue  # a late row that the second read did not find: read again
            around = arounds.get(index) or current[typed(row.key)]
            status, plan = decide(kind, row, around, partial=partial is not None)
            decided[index] = status
            if plan is not None:
                plans["late" if index in arounds else "now"].append(plan)
            else:
                statuses[index] = status
                if status in REFUSALS:
                    refusals.append(
                        Failure(status, kind.label, row.key, row.raw, _why(status), by, index=index)
                    )
        for group in ("now", "late"):  # a receipt is given as soon as its query is written
            for index in apply_plans(graph, kind, by, plans[group]):
                statuses[index] = decided[index]
        for index in [index for index in pending if index in statuses]:
            del pending[index]
        if not pending:
            return
    for index, row in pending.items():
        statuses[index] = "busy"
        refusals.append(Failure("busy", kind.label, row.key, row.raw, _why("busy"), by, index=index))


def _is_late(row: Row, current: dict) -> bool:
    held = current[typed(row.key)].current
    return held is not None and row.t < held.valid_from


def _why(status: str) -> str:
    return {
        "stale": "a later row repeated the State this time falls in: its place in history is unknown",
        "conflict": "another row of the same time says something else",
        "busy": f"lost to other writers {ATTEMPTS} times",
        "missing": "the entry the row names does not exist",
    }.get(status, status)


def check_call(graph, kind: object, by: object, rows: object, what: str = "rows") -> str:
    """The arguments of a call, or Refused (kept as one WriteFailure) when they cannot be used at all."""
    try:
        if not isinstance(kind, Kind):
            raise Refused(f"kind must be a Kind, not {type(kind).__name__}")
        checked_by = values.name(by, "by")
        if not isinstance(rows, list | tuple):
            raise Refused(f"{what} must be a list, not {type(rows).__name__}")
        return checked_by
    except Refused as error:
        label = kind.label if isinstance(kind, Kind) else "?"
        record_failures(graph, [Failure(error.reason, label, None, {"by": by, what: rows}, str(error))])
        raise


def remember(graph, kind: Kind, by: str, rows: list[dict]) -> list[dict]:
    """Writes rows by the write rule; one receipt per row, in order: {"key", "status"} (and "reason")."""
    by = check_call(graph, kind, by, rows)
    present = clock.present()
    statuses: dict[int, str] = {}
    refusals: list[Failure] = []
    messages: dict[int, str] = {}
    prepared: list[Row] = []
    for index, raw in enumerate(rows):
        try:
            prepared.append(prepare(kind, index, raw, present))
        except Refused as error:
            statuses[index], messages[index] = error.reason, str(error)
            key = raw.get("key") if isinstance(raw, dict) else None
            refusals.append(Failure(error.reason, kind.label, key, raw, str(error), by, index=index))
    existing = check_entries(graph, prepared)
    ready = []
    for row in prepared:
        if row.entry is not None and row.entry not in existing:
            statuses[row.index], messages[row.index] = "missing", f"the entry {row.entry!r} does not exist"
            refusals.append(
                Failure("missing", kind.label, row.key, row.raw, messages[row.index], by, index=row.index)
            )
        else:
            ready.append(row)
    write_ready(graph, kind, by, ready, statuses, refusals)
    record_failures(graph, refusals)
    messages.update({failure.index: failure.message for failure in refusals if failure.index is not None})
    return [_receipt(raw, index, statuses, messages) for index, raw in enumerate(rows)]


def write_ready(
    graph, kind: Kind, by: str, ready: list[Row], statuses: dict, refusals: list, partial=None
) -> None:
    """Rows in waves (the n-th row of each key in wave n), each wave in queries of 500 rows."""
    waves: dict[object, list[Row]] = defaultdict(list)
    for row in ready:
        waves[typed(row.key)].append(row)
    depth = max((len(listed) for listed in waves.values()), default=0)
    for level in range(depth):
        wave = [listed[level] for listed in waves.values() if len(listed) > level]
        for start in range(0, len(wave), QUERY_ROWS):
            chunk = wave[start : start + QUERY_ROWS]
            try:
                write_rows(graph, kind, by, chunk, statuses, refusals, partial)
            except ResponseError as error:
                for row in chunk:
                    if row.index not in statuses:
                        statuses[row.index] = "failed"
                        refusals.append(
                            Failure("failed", kind.label, row.key, row.raw, str(error), by, index=row.index)
                        )


def _receipt(raw: object, index: int, statuses: dict, messages: dict) -> dict:
    key = raw.get("key") if isinstance(raw, dict) else None
    receipt = {"key": key, "status": statuses[index]}
    if statuses[index] in REFUSALS:
        receipt["reason"] = messages.get(index) or _why(statuses[index])
    return receipt
