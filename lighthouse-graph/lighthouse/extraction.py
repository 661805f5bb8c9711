"""extract(): rows drawn from the text of entries by the application's extractor, off the write path.

Every entry takes the next serial of the graph when it is stored, so a job that has seen serial n has
seen every entry before it. extract() keeps a mark on the Stamp for each kind and set of types, reads
the serials past it through their index a slice at a time, and moves the mark past what it did. An
extractor that raises (or answers with something that is not a list of rows) stops the call and its
entry waits; after `attempts` failures on one entry the entry is set aside as a WriteFailure, the mark
moves past it, and extract_again() gives it back. Nothing is passed over silently.
"""

from __future__ import annotations

import hashlib
from collections import Counter

from . import clock
from . import values as limits
from .episodes import stored_entry
from .graphs import read
from .kinds import Kind
from .values import Refused
from .write.batches import check_call, write_ready
from .write.failures import Failure, record_failures
from .write.rows import prepare

MAX_ROWS = 1_000  # rows one entry may give
RAISED = "extractor_raised"
SET_ASIDE = "set_aside"


def _mark_name(kind: Kind, types: list[str] | None) -> str:
    """The Stamp property that holds how far extraction of this kind and these types has come."""
    scope = kind.label + "\x1f" + ("*" if types is None else "\x1f".join(sorted(types)))
    return "extract_" + hashlib.sha256(scope.encode()).hexdigest()[:16]


def _entries_query(mark: str) -> str:
    return (
        "MATCH (st:Stamp) "
        f"WITH st, coalesce(st.`{mark}`, 0) AS since, st.serial AS last "
        "OPTIONAL MATCH (n:Entry) WHERE n.serial > since AND n.serial <= since + $slice "
        "  AND n.words <> '' AND ($types IS NULL OR n.type IN $types) "
        "  AND NOT (n)-[:READ_BY {kind: $kind}]->(:Agent) "
        "WITH since, last, n ORDER BY n.serial "
        "RETURN since, last, collect([n.id, n.seq, n.type, n.by, n.at, n.content, n.episode, n.serial])"
    )


def _entry(row: list) -> dict:
    """An entry as an extractor gets it, from n.id, n.seq, n.type, n.by, n.at, n.content, n.episode, n.serial."""
    *fields, episode, serial = row
    return {**stored_entry(*fields), "episode": episode, "serial": serial}


def _pending(graph, kind: Kind, types: list[str] | None, slice_size: int) -> tuple[int, int, list[dict]]:
    found = read(
        graph,
        _entries_query(_mark_name(kind, types)),
        {"slice": slice_size, "types": types, "kind": kind.label},
    )
    if not found:
        return 0, 0, []
    since, last, listed = found[0]
    return since or 0, last or 0, [_entry(row) for row in listed if row[0] is not None]


def _answer(given: object) -> list:
    if not isinstance(given, list) or len(given) > MAX_ROWS:
        raise Refused(
            f"an extractor answers with a list of at most {MAX_ROWS:,} rows, not {type(given).__name__}"
        )
    return given


def _progress(graph, kind: Kind, types, by: str, mark: int, done: list[dict]) -> None:
    """Moves the mark and gives each entry read its READ_BY edge, in one query."""
    name = _mark_name(kind, types)
    graph.query(
        f"MATCH (st:Stamp) SET st.`{name}` = CASE WHEN coalesce(st.`{name}`, 0) > $mark "
        f"THEN st.`{name}` ELSE $mark END "
        "WITH st UNWIND $done AS one "
        "MATCH (n:Entry {id: one.id}) MERGE (reader:Agent {name: $by}) "
        "CREATE (n)-[:READ_BY {kind: $kind, at: localdatetime($now), rows: one.rows}]->(reader)",
        {"mark": mark, "done": done, "by": by, "kind": kind.label, "now": clock.now()},
    )


def _raised_before(graph, kind: Kind, entry_id: str) -> int:
    found = read(
        graph,
        "MATCH (f:WriteFailure {reason: $reason, kind: $kind, key: $key}) RETURN f.times - coalesce(f.cleared, 0)",
        {"reason": RAISED, "kind": kind.label, "key": entry_id},
    )
    return found[0][0] if found else 0


def _rows_of(kind: Kind, by: str, entry: dict, answer: list, start: int) -> tuple[list, list[Failure]]:
    """The rows an entry gave, each from the entry and true from its time unless it says otherwise,
    and a Failure "invalid" for each row that cannot be written."""
    ready, refused = [], []
    present = clock.present()
    for offset, given in enumerate(answer):
        index = start + offset
        try:
            if isinstance(given, dict):
                given = {**given, "entry": entry["id"]}
            ready.append(prepare(kind, index, given, present, default_t=entry["at"]))
        except Refused as error:
            refused.append(Failure("invalid", kind.label, _key_of(given), given, str(error), by, index=index))
    return ready, refused


def _checked_types(types: object) -> list[str] | None:
    if types is None:
        return None
    if not isinstance(types, list | tuple) or not types or len(types) > limits.MAX_REFERENCES:
        raise Refused("types is a list of 1 to 200 entry types")
    return sorted({limits.name(one, "an entry type") for one in types})


def extract(
    graph, kind: Kind, extractor, by: str, types: list[str] | None = None, limit: int = 100, attempts: int = 3
) -> dict:
    """Reads up to `limit` entries with text that this kind has not read, oldest first, and writes their rows.

    Returns {"read", "rows": {status: count}, "waiting", "set_aside", "stopped"}: stopped names the entry
    whose extractor failed and why, or is None.
    """
    by = check_call(graph, kind, by, [])
    types = _checked_types(types)
    if not callable(extractor):
        raise Refused("extractor must be a function of one entry that gives rows")
    limit = limits.whole(limit, "limit", 1, 10_000)
    attempts = limits.whole(attempts, "attempts", 1, 100)
    counts: Counter = Counter()
    read_count = set_aside = 0
    stopped = None
    while read_count < limit and stopped is None:
        since, last, entries = _pending(graph, kind, types, limit)
        if since >= last:
            break
        mark = min(since + limit, last)  # every serial of the slice is handled unless the loop stops early
        done, rows, refusals, aside = [], [], [], []
        for entry in entries:
            if read_count + len(done) >= limit:
                mark = entry["serial"] - 1
                break
            try:
                answer = _answer(extractor(entry))
            except Exception as error:  # the application's code: any failure is kept, never passed over
                message = f"{type(error).__name__}: {error}"
                record_failures(
                    graph, [Failure(RAISED, kind.label, entry["id"], {"entry": entry["id"]}, message, by)]
                )
                if _raised_before(graph, kind, entry["id"]) >= attempts:
                    aside.append(
                        Failure(SET_ASIDE, kind.label, entry["id"], {"entry": entry["id"]}, message, by)
                    )
                    continue
                stopped = {"entry": entry["id"], "error": message}
                mark = entry["serial"] - 1
                break
            ready, refused = _rows_of(kind, by, entry, answer, len(rows) + len(refusals))
            rows.extend(ready)
            refusals.extend(refused)
            done.append({"id": entry["id"], "rows": len(answer)})
        statuses: dict[int, str] = {}
        write_ready(graph, kind, by, rows, statuses, refusals)
        counts.update(statuses.values())
        counts.update(
            "invalid" for failure in refusals if failure.index is not None and failure.index not in statuses
        )
        record_failures(graph, refusals + aside)
        _progress(graph, kind, types, by, mark, done)
        read_count += len(done)
        set_aside += len(aside)
    return {
        "read": read_count,
        "rows": dict(counts),
        "waiting": _waiting(graph, kind, types),
        "set_aside": set_aside,
        "stopped": stopped,
    }


def _key_of(given: object) -> object:
    return given.get("key") if isinstance(given, dict) else None


def _waiting(graph, kind: Kind, types: list[str] | None) -> int:
    found = read(
        graph,
        f"MATCH (st:Stamp) WITH coalesce(st.`{_mark_name(kind, types)}`, 0) AS since "
        "MATCH (n:Entry) WHERE n.serial > since AND n.words <> '' AND ($types IS NULL OR n.type IN $types) "
        "  AND NOT (n)-[:READ_BY {kind: $kind}]->(:Agent) RETURN count(n)",
        {"types": types, "kind": kind.label},
    )
    return found[0][0] if found else 0


def extract_again(graph, kind: Kind, extractor, by: str, entry_id: str) -> dict:
    """Gives a set-aside entry back: runs the extractor on it now and writes its rows, as extract() would."""
    by = check_call(graph, kind, by, [])
    entry_id = limits.name(entry_id, "an entry id")
    found = read(
        graph,
        "MATCH (n:Entry {id: $id}) RETURN n.id, n.seq, n.type, n.by, n.at, n.content, n.episode, n.serial",
        {"id": entry_id},
    )
    if not found:
        raise Refused(f"no entry {entry_id!r}", "unknown")
    entry = _entry(found[0])
    answer = _answer(extractor(entry))
    ready, refused = _rows_of(kind, by, entry, answer, 0)
    statuses: dict[int, str] = {}
    refusals = list(refused)
    write_ready(graph, kind, by, ready, statuses, refusals)
    record_failures(graph, refusals)
    graph.query(
        "OPTIONAL MATCH (f:WriteFailure {kind: $kind, key: $key}) WHERE f.reason IN [$raised, $aside] "
        "SET f.cleared = f.times, f.given_back_at = localdatetime($now) "
        "WITH count(f) AS given_back MATCH (n:Entry {id: $key}) MERGE (reader:Agent {name: $by}) "
        "CREATE (n)-[:READ_BY {kind: $kind, at: localdatetime($now), rows: $rows}]->(reader)",
        {
            "kind": kind.label,
            "key": entry_id,
            "raised": RAISED,
            "aside": SET_ASIDE,
            "by": by,
            "now": clock.now(),
            "rows": len(answer),
        },
    )
    counts = Counter(statuses.values())
    counts.update("invalid" for _ in refused)
    return {"id": entry_id, "rows": dict(counts), "status": "read"}
