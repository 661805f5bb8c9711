"""What the extraction worker keeps in the tenant graph, each write guarded by the claim (claim.py).

(:`lh.Worker` {phase: "extraction"}) holds the mark, the counts, the last error and the worker's look;
(:`lh.Extraction` {note}) each note's state: "answered" (its answer kept before any row is written),
"applied", "set_aside" (with its error), "waiting" (the model could not be asked about it: read first,
wherever the mark is, until judged), "invalidated", "replay" (given back by replay()). Only the worker
that holds the graph writes, so one that lost it mid-round writes nothing more: each write says
whether it was made.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

from lighthouse import notes_by_id, now

from ..reading import rows
from . import items
from .model import ModelFailure

WORKER = "`lh.Worker`"
EXTRACTION = "`lh.Extraction`"
PHASE = "extraction"
# the receipt statuses of the write rule, counted per note (rows_<status>)
STATUSES = (
    *("created", "changed", "inserted", "unchanged", "stale"),
    *("conflict", "missing", "invalid", "failed", "busy"),
)
MAX_ERROR = 2_000  # characters of an error kept


def moment(value: object) -> datetime:
    """A time as FalkorDB gives it back (an aware or naive datetime, or epoch seconds), in UTC."""
    if isinstance(value, datetime):
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    return datetime.fromtimestamp(int(value), UTC)


def notes_named(graph, ids: list[str]) -> list[dict]:
    """The notes of these ids as the library reads them (lighthouse.notes_by_id(), 1,000 at a time),
    oldest first; an id that names no note is left out."""
    found: list[dict] = []
    for start in range(0, len(ids), 1_000):
        found += notes_by_id(graph, ids[start : start + 1_000])
    return sorted(found, key=lambda note: note["serial"])


def mark_of(graph) -> int:
    """The serial of the last note the extraction finished (0 before the first)."""
    found = rows(
        graph, f"OPTIONAL MATCH (w:{WORKER} {{phase: $phase}}) RETURN coalesce(w.mark, 0)", {"phase": PHASE}
    )
    return found[0][0] if found else 0


# Every write of the worker's state starts from this guard: only the worker that holds the graph
# (claim.py) writes, so a worker that lost the graph mid-round (its lease ran out) writes nothing more
# and ends the round when the guard matches nothing.
_HELD = f"MATCH (w:{WORKER} {{phase: $phase}}) WHERE w.owner = $owner "


def _written(graph, query: str, params: dict) -> bool:
    return bool(graph.query(_HELD + query + " RETURN w.owner", {"phase": PHASE, **params}).result_set)


def keep_answer(graph, note: dict, answer: dict, asks: int, owner: str) -> bool:
    return _written(
        graph,
        f"SET w.seen_at = localdatetime($now) WITH w MERGE (x:{EXTRACTION} {{note: $note}}) "
        "SET x.state = 'answered', x.answer = $answer, x.asks = $asks, x.answered_at = localdatetime($now), "
        "x.error = null WITH w, x",
        {
            "owner": owner,
            "note": note["id"],
            "answer": json.dumps(answer, ensure_ascii=False),
            "asks": asks,
            "now": now(),
        },
    )


def _counting(counts: dict[str, int]) -> str:
    return "".join(
        f", w.`rows_{status}` = coalesce(w.`rows_{status}`, 0) + {int(counts[status])}"
        for status in STATUSES
        if counts.get(status)
    )


_MARK_PAST = "SET w.mark = CASE WHEN coalesce(w.mark, 0) > $serial THEN w.mark ELSE $serial END, "
# An error kept, and that it came after the last note read (times are whole seconds: the flag orders
# an error and a read of one second, for the status's "failing").
_ERRED = "w.last_error = $error, w.last_error_at = localdatetime($now), w.erred_since_read = true"


# Moves the mark (never back), counts what the note did, and marks its extraction in one query.
def mark_read(graph, note: dict, applied: items.Applied, failed_asks: int, owner: str) -> bool:
    return _written(
        graph,
        _MARK_PAST + "w.notes_read = coalesce(w.notes_read, 0) + 1, w.seen_at = localdatetime($now), "
        "w.last_read_at = localdatetime($now), w.erred_since_read = false, "
        "w.items_refused = coalesce(w.items_refused, 0) + $refused, "
        "w.asks_failed = coalesce(w.asks_failed, 0) + $failed"
        f"{_counting(applied.rows)} "
        f"WITH w MERGE (x:{EXTRACTION} {{note: $note}}) "
        "SET x.state = 'applied', x.applied_at = localdatetime($now), x.rows = $rows, x.refused = $refused, "
        "x.given_back = null WITH w, x",
        {
            "owner": owner,
            "serial": note["serial"],
            "refused": applied.refused,
            "failed": failed_asks,
            "note": note["id"],
            "now": now(),
            "rows": json.dumps(dict(applied.rows)),
        },
    )


def keep_back(graph, note: dict, applied: items.Applied, owner: str) -> bool:
    """Rows the database refused (or lost to other writers): the note stays "answered" and the mark
    stays before it, so the next round applies the kept answer again (what was written comes back
    unchanged). Nothing is counted yet: the counts come with the application that finishes."""
    error = (
        f"note {note['id']}: {applied.to_try_again} row(s) failed or busy "
        f"({dict(applied.rows)}); its answer is applied again next round"
    )
    return _written(
        graph,
        f"SET {_ERRED}, w.seen_at = localdatetime($now) "
        f"WITH w MERGE (x:{EXTRACTION} {{note: $note}}) SET x.error = $error WITH w, x",
        {"owner": owner, "note": note["id"], "error": error, "now": now()},
    )


def mark_set_aside(graph, note: dict, failure: ModelFailure, owner: str) -> bool:
    error = str(failure)[:MAX_ERROR]
    return _written(
        graph,
        _MARK_PAST + "w.asks_failed = coalesce(w.asks_failed, 0) + $asks, "
        f"{_ERRED}, w.seen_at = localdatetime($now) WITH w MERGE (x:{EXTRACTION} {{note: $note}}) "
        "SET x.state = 'set_aside', x.error = $error, x.error_at = localdatetime($now), x.asks = $asks, "
        "x.given_back = null WITH w, x",
        {
            "owner": owner,
            "serial": note["serial"],
            "asks": failure.asks,
            "error": f"note {note['id']}: {error}",
            "note": note["id"],
            "now": now(),
        },
    )


def mark_waiting(graph, note: dict, failure: ModelFailure, owner: str) -> bool:
    """A note the model could not be asked about waits, read first wherever the mark goes, until the
    model answers another note and the note is judged (extract_notes())."""
    return _written(
        graph,
        f"SET w.seen_at = localdatetime($now) WITH w MERGE (x:{EXTRACTION} {{note: $note}}) "
        "SET x.state = 'waiting', x.error = $error, x.error_at = localdatetime($now), x.answer = null "
        "WITH w, x",
        {
            "owner": owner,
            "note": note["id"],
            "error": f"note {note['id']}: {str(failure)[:MAX_ERROR]}",
            "now": now(),
        },
    )


def skip_invalidated(graph, note: dict, owner: str) -> bool:
    """A note an agent marked wrong is not read: the mark moves past it and it is counted."""
    return _written(
        graph,
        _MARK_PAST + "w.notes_invalidated = coalesce(w.notes_invalidated, 0) + 1, "
        f"w.seen_at = localdatetime($now) WITH w MERGE (x:{EXTRACTION} {{note: $note}}) "
        "SET x.state = 'invalidated', x.skipped_at = localdatetime($now), x.given_back = null WITH w, x",
        {"owner": owner, "serial": note["serial"], "note": note["id"], "now": now()},
    )


def note_error(graph, error: str) -> None:
    """Keeps an error that stopped a round (the notes wait) as the worker's last error."""
    graph.query(
        f"MERGE (w:{WORKER} {{phase: $phase}}) SET {_ERRED}",
        {"phase": PHASE, "error": error[:MAX_ERROR], "now": now()},
    )
