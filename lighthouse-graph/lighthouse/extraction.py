"""extract(): rows drawn from the text of entries by the application's extractor, off the write path.

Every entry takes the next serial of the graph when it is stored, so a job that has seen serial n has
seen every entry before it. extract() keeps a mark on the Stamp for each kind and set of types, reads
the serials past it through their index a slice at a time, and moves the mark past what it did. An
extractor that raises, or answers with something that is not a list of at most 1,000 rows, stops the
call with that error: the entries before it are done and its entry waits. Only when the caller asks
for it (attempts=n) is an entry that failed n times set aside as a WriteFailure, the mark moved past
it, and extract_again() gives it back. Nothing is passed over silently.

The rule: the arguments are checked before anything is read or written. A bad value raises Refused (a
ValueError), an extractor that cannot be called raises WrongType (a TypeError), and nothing is stored.
What the extractor answers is content: each row is copied as plain values first, and a row that cannot
be stored (a hostile object included) costs one "invalid" row and one WriteFailure, never an exception.
"""

from __future__ import annotations

import copy
import hashlib
from collections import Counter

from . import clock, values
from .errors import Refused, WrongType
from .graphs import STAMP_SERIAL, read
from .kinds import Kind
from .recall.text import checked_kind, entry_fields, entry_shown
from .stamp_marks import mark_moved, mark_read
from .write.batches import write_ready
from .write.failures import Failure, record_failures
from .write.rows import prepare

MAX_ROWS = 1_000  # rows one entry may give
MAX_LIMIT = 1_000  # entries one call reads
MAX_ATTEMPTS = 100
RAISED = "extractor_raised"
SET_ASIDE = "set_aside"
# What extract_again() keeps on a WriteFailure, beside the names the design gives it: the count it cleared.
CLEARED, GIVEN_BACK_AT = "lh.cleared", "lh.given_back_at"


def _scope(kind: Kind, types: list[str] | None) -> str:
    scope = kind.label + "\x1f" + ("*" if types is None else "\x1f".join(sorted(types)))
    return hashlib.sha256(scope.encode()).hexdigest()[:16]


def _mark_name(kind: Kind, types: list[str] | None) -> str:
    """The Stamp property that holds how far extraction of this kind and these types has come: the kind's
    label in it, so a reader of the Stamp tells the kinds apart, and a digest of the label and types."""
    return f"extract_{kind.label}_{_scope(kind, types)}"


def _mark_before(kind: Kind, types: list[str] | None) -> str:
    """The name a graph written before the label was in it keeps the same mark under."""
    return "extract_" + _scope(kind, types)


def _mark_read(kind: Kind, types: list[str] | None) -> str:
    """Cypher for the mark of a bound `st`, 0 when there is none."""
    return mark_read(_mark_name(kind, types), f"st.`{_mark_before(kind, types)}`")


def _entries_query(mark: str) -> str:
    return (
        "MATCH (st:Stamp) " + STAMP_SERIAL + f"WITH st, {mark} AS since, last_serial AS last "
        "OPTIONAL MATCH (n:Entry) WHERE n.serial > since AND n.serial <= since + $slice "
        "  AND n.words <> '' AND ($types IS NULL OR n.type IN $types) "
        "  AND NOT (n)-[:READ_BY {kind: $kind}]->(:Agent) "
        "WITH since, last, n ORDER BY n.serial "
        f"RETURN since, last, collect(CASE WHEN n IS NULL THEN null ELSE {entry_fields('n')} END)"
    )


def _pending(graph, kind: Kind, types: list[str] | None, slice_size: int) -> tuple[int, int, list[dict]]:
    found = read(
        graph,
        _entries_query(_mark_read(kind, types)),
        {"slice": slice_size, "types": types, "kind": kind.label},
    )
    if not found:
        return 0, 0, []
    since, last, listed = found[0]
    entries = [entry_shown(row) for row in listed if row is not None]
    return since or 0, last or 0, sorted(entries, key=lambda entry: entry["serial"])


def _answer(given: object) -> list:
    """The extractor's answer: exactly a list of at most 1,000 rows, else WrongType."""
    if type(given) is not list or len(given) > MAX_ROWS:
        raise WrongType(
            f"an extractor answers with a list of at most {MAX_ROWS:,} rows, not {values.printable(given)}"
        )
    return given


def _progress(graph, kind: Kind, types, by: str, mark: int, done: list[dict]) -> None:
    """Moves the mark (from where a graph written before kept it, too) and gives each entry read its
    READ_BY edge, in one query."""
    moved = mark_moved(_mark_name(kind, types), "$mark", f"st.`{_mark_before(kind, types)}`")
    graph.query(
        f"MATCH (st:Stamp) SET {moved} "
        "WITH st UNWIND $done AS one "
        "MATCH (n:Entry {id: one.id}) MERGE (reader:Agent {name: $by}) "
        "CREATE (n)-[:READ_BY {kind: $kind, at: localdatetime($now), rows: one.rows}]->(reader)",
        {"mark": mark, "done": done, "by": by, "kind": kind.label, "now": clock.now()},
    )


def _raised_before(graph, kind: Kind, entry_id: str) -> int:
    found = read(
        graph,
        f"MATCH (f:WriteFailure {{reason: $reason, kind: $kind, key: $key}}) RETURN f.times - coalesce(f.`{CLEARED}`, f.cleared, 0)",
        {"reason": RAISED, "kind": kind.label, "key": entry_id},
    )
    return found[0][0] if found else 0


def _rows_of(kind: Kind, by: str, entry: dict, answer: list, start: int) -> tuple[list, list[Failure]]:
    """The rows an entry gave, each from the entry and true from its time unless it says otherwise,
    and a Failure "invalid" for each row that cannot be written (a hostile one included)."""
    ready, refused = [], []
    present = clock.present()
    for offset, given in enumerate(answer):
        index = start + offset
        row: object = None
        try:
            row = values.plain(given, "a row")
            if type(row) is dict:
                row["entry"] = entry["id"]  # whatever entry the extractor named: the one it read
                if "t" not in row:  # as text: a refusal keeps the row as it shows it, time included
                    row["t"] = clock.stamp(entry["at"])
            ready.append(prepare(kind, index, row, present))
        except (Refused, WrongType) as error:
            key = row.get("key") if type(row) is dict else None
            content = row if row is not None else f"<{type(given).__name__} that cannot be read>"
            refused.append(Failure("invalid", kind.label, key, content, str(error), by, index=index))
    return ready, refused


def _checked_types(types: object) -> list[str] | None:
    if types is None:
        return None
    if type(types) not in (list, tuple) or len(types) > values.MAX_REFERENCES:
        raise Refused(f"types must be None or a list of at most {values.MAX_REFERENCES} entry types")
    return sorted({values.name(one, "an entry type of types") for one in types})


def _checked(kind, extractor, by, types, limit, attempts, detail) -> tuple:
    kind = checked_kind(kind)
    by = values.name(by, "by")
    if not callable(extractor):
        raise WrongType("extractor must be a function of one entry that gives rows")
    types = _checked_types(types)
    limit = values.whole(limit, "limit", 1, MAX_LIMIT)
    if attempts is not None:
        attempts = values.whole(attempts, "attempts", 1, MAX_ATTEMPTS)
    if type(detail) is not bool:
        raise WrongType("detail must be True or False")
    return kind, by, types, limit, attempts


def extract(
    graph,
    kind: Kind,
    extractor,
    by: str,
    types: list[str] | None = None,
    limit: int = 100,
    *,
    attempts: int | None = None,
    detail: bool = False,
) -> dict:
    """Reads up to `limit` entries with text that this kind has not read, oldest first, and writes the
    rows extractor(entry) gives for each by the write rule. Returns {"read", "rows", "waiting"}: rows
    counts the receipts' statuses that occurred ({} when none).

    The extractor gets the entry as search_entries() gives it (id, seq, type, at, serial, recorded_at,
    by and the values). A row without "t" holds from the entry's at; its "entry" is always the entry
    read. A row that cannot be stored counts as "invalid" and the entry still counts as read.
    Arguments are checked before anything is read or written, and nothing is stored then: Refused for
    kind, by, types (None or a list of names) or limit (1 to 1,000), WrongType for an
    extractor that cannot be called, WrongType when an answer is not a list of at most 1,000 rows (and
    nothing is written for that entry), and whatever the extractor raises: the entries before it are
    done, and its entry waits.
    Keyword only: attempts=n sets an entry aside (a WriteFailure "set_aside", for extract_again())
    after its n-th failure instead of raising, so the entries after it go on; detail=True adds
    "set_aside", the ids this call set aside.
    One caller at a time for a graph and kind: an entry is marked read when its rows are written, so two
    calls at once read the same entries and ask the extractor twice (the service's worker claims a tenant
    first).
    """
    kind, by, types, limit, attempts = _checked(kind, extractor, by, types, limit, attempts, detail)
    counts: Counter = Counter()
    read_count, aside_ids = 0, []
    stopped: BaseException | None = None
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
                answer = _answer(extractor(copy.deepcopy(entry)))
            except BaseException as error:  # the application's code: its entry waits, or is set aside
                counted = attempts is not None and isinstance(error, Exception)
                if counted and _failed_enough(graph, kind, by, entry, error, attempts):
                    aside.append(_set_aside(kind, by, entry, error))
                    continue
                stopped, mark = error, entry["serial"] - 1
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
        aside_ids += [failure.key for failure in aside]
    if stopped is not None:
        raise stopped  # the extractor's own exception (or WrongType for its answer), unchanged
    result = {"read": read_count, "rows": dict(counts), "waiting": _waiting(graph, kind, types)}
    return {**result, "set_aside": aside_ids} if detail else result


def _failed_enough(graph, kind: Kind, by: str, entry: dict, error: Exception, attempts: int) -> bool:
    """Keeps this failure of an entry (counted on one WriteFailure) and says if it reached attempts."""
    record_failures(
        graph, [Failure(RAISED, kind.label, entry["id"], {"entry": entry["id"]}, _why(error), by)]
    )
    return _raised_before(graph, kind, entry["id"]) >= attempts


def _set_aside(kind: Kind, by: str, entry: dict, error: Exception) -> Failure:
    return Failure(SET_ASIDE, kind.label, entry["id"], {"entry": entry["id"]}, _why(error), by)


def _why(error: Exception) -> str:
    try:
        return f"{type(error).__name__}: {error}"[:2_000]
    except Exception:  # an exception whose str() raises still leaves its type
        return type(error).__name__


def _waiting(graph, kind: Kind, types: list[str] | None) -> int:
    found = read(
        graph,
        f"MATCH (st:Stamp) WITH {_mark_read(kind, types)} AS since "
        "MATCH (n:Entry) WHERE n.serial > since AND n.words <> '' AND ($types IS NULL OR n.type IN $types) "
        "  AND NOT (n)-[:READ_BY {kind: $kind}]->(:Agent) RETURN count(n)",
        {"types": types, "kind": kind.label},
    )
    return found[0][0] if found else 0


def extract_again(graph, kind: Kind, extractor, by: str, entry_id: str) -> dict:
    """Gives a set-aside entry back: runs the extractor on it now and writes its rows, as extract()
    would, and clears its count of failures. Returns {"id", "rows", "status": "read"}.

    Arguments are checked before anything is written; it raises as extract() does, and Refused ("unknown") for
    an entry that does not exist.
    """
    kind, by, _types, _limit, _attempts = _checked(kind, extractor, by, None, 1, None, False)
    entry_id = values.entry_id(entry_id)
    found = read(graph, f"MATCH (n:Entry {{id: $id}}) RETURN {entry_fields('n')}", {"id": entry_id})
    if not found:
        raise Refused(f"no entry {entry_id!r}", "unknown")
    entry = entry_shown(found[0][0])
    answer = _answer(extractor(copy.deepcopy(entry)))
    ready, refused = _rows_of(kind, by, entry, answer, 0)
    statuses: dict[int, str] = {}
    refusals = list(refused)
    write_ready(graph, kind, by, ready, statuses, refusals)
    record_failures(graph, refusals)
    graph.query(
        "OPTIONAL MATCH (f:WriteFailure {kind: $kind, key: $key}) WHERE f.reason IN [$raised, $aside] "
        f"SET f.`{CLEARED}` = f.times, f.`{GIVEN_BACK_AT}` = localdatetime($now) "
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
