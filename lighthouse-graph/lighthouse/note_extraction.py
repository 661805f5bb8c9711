"""The job state of reading notes with a model: which notes to read, each note's answer kept before its
rows are written, and the mark moved in the query that finishes a note (extract_notes(), in
note_extraction_round.py, is the round over them).

The graph holds the job (the worker that holds it: note_extraction_hold.py):
- The mark, the serial of the last note finished, on the Stamp as `lh.extract_notes` (stamp_marks.py,
  the way extract() keeps its marks); a graph written when it was the job node's `mark` is read there
  until the first note finished moves it. It moves in the query that finishes a note, never back.
- (:`lh.Worker` {phase: "extraction"}): notes read, rows by receipt status (rows_<status>), items
  refused, failed asks, the last error and its time, counted in the query that moves the mark.
- (:`lh.Extraction` {note}) for each note begun: its state. "answered": the model's answer is kept
  (keep_note_answer(), before any row is written), so after a kill -9 the next worker applies the kept
  answer again instead of asking the model again (the write rule makes that replay `unchanged`).
  "applied" (finish_note()), "set_aside" with its error (set_note_aside()), "invalidated" (skip_note():
  an agent marked the note wrong): finished, the mark moved past it. "waiting" (leave_note_waiting():
  the model could not be asked about it) and "replay" (give_note_back()) are begun and not finished:
  notes_to_extract() gives those first, wherever the mark is. hold_note_back() keeps an error on a note
  whose rows the database refused: it stays "answered" behind the mark, applied again next time.

Every write of a worker is guarded by its owner: it returns False, and writes nothing, when another
worker holds the graph. The rule: the arguments are checked before anything is written: a bad owner,
note id, count or error raises Refused (a ValueError) or WrongType (a TypeError), and Refused
("unknown") for an id that names no note.
"""

from __future__ import annotations

import json
import re

from . import clock, values
from .errors import Refused, WrongType
from .graphs import read
from .note_extraction_hold import PHASE, WORKER, checked_owner
from .notes import NOTE
from .notes_waiting import notes_after, notes_by_id
from .stamp_marks import mark_moved, mark_read

EXTRACTION = "`lh.Extraction`"  # one per note begun: its state, its kept answer, its error
NOTE_MARK = "lh.extract_notes"  # the Stamp's mark of the job: the serial of the last note finished
MARK_BEFORE = "w.mark"  # where a graph written before kept it: on the job node, bound as `w`
# The receipt statuses of the write rule (its refusals: write/failures.py), counted per note (rows_<status>).
STATUSES = (
    *("created", "changed", "inserted", "unchanged", "stale"),
    *("conflict", "missing", "invalid", "failed", "busy", "unknown"),
)
UNFINISHED = ("replay", "answered", "waiting")  # begun and not finished: read first, wherever the mark is
FINISHED = ("applied", "set_aside", "invalidated")
MOST_UNFINISHED = 1_000  # notes begun and not finished one call of notes_to_extract() looks at
MAX_LIMIT = 1_000
MAX_ERROR = 2_000  # characters of an error kept
MAX_ANSWER = 2_000_000  # characters of a kept answer, as JSON
MAX_COUNT = 10**9
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def named_notes(graph, ids: list[str]) -> list[dict]:
    """The notes of these ids (notes_by_id(), 1,000 at a time), oldest first; an id of no note left out."""
    found: list[dict] = []
    for start in range(0, len(ids), 1_000):
        found += notes_by_id(graph, ids[start : start + 1_000])
    return sorted(found, key=lambda note: note["serial"])


def mark_of(graph) -> int:
    """The serial of the last note the job finished (0 before the first)."""
    found = read(
        graph,
        f"OPTIONAL MATCH (st:Stamp) OPTIONAL MATCH (w:{WORKER} {{phase: $phase}}) "
        f"RETURN {mark_read(NOTE_MARK, MARK_BEFORE)}",
        {"phase": PHASE},
    )
    return found[0][0] if found else 0


def _state(listed: list) -> dict:
    state, answer, asks, given_back = listed
    return {
        "state": state,
        "answer": None if answer is None else json.loads(answer),
        "asks": asks or 0,
        "given_back": bool(given_back),
    }


_STATE = "x.state, x.answer, x.asks, coalesce(x.given_back, false)"


def notes_to_extract(graph, limit=50) -> list[dict]:
    """The notes to read now: up to `limit` (1 to 1,000) begun and not finished (an answer kept, left
    waiting, or given back), wherever the mark is, then up to `limit` past the mark, oldest first. Each
    is a note as notes_after() gives it, with "extraction": {"state", "answer", "asks", "given_back"}
    (state None for a note not begun). A note an agent invalidated is given too: skip_note() passes it."""
    limit = values.whole(limit, "limit", 1, MAX_LIMIT)
    begun = read(
        graph,
        f"MATCH (x:{EXTRACTION}) WHERE x.state IN $unfinished RETURN x.note, {_STATE} LIMIT $most",
        {"unfinished": list(UNFINISHED), "most": MOST_UNFINISHED},
    )
    states = {note_id: _state(rest) for note_id, *rest in begun}
    begun_notes = named_notes(graph, list(states))[:limit]
    chosen = {note["id"]: note | {"extraction": states[note["id"]]} for note in begun_notes}
    past = notes_after(graph, mark_of(graph), limit)
    kept = read(
        graph,
        f"UNWIND $ids AS id MATCH (x:{EXTRACTION} {{note: id}}) RETURN id, {_STATE}",
        {"ids": [note["id"] for note in past]},
    )
    states = {note_id: _state(rest) for note_id, *rest in kept}
    for note in past:
        state = states.get(note["id"])
        if state is not None and state["state"] in FINISHED and not state["given_back"]:
            continue  # finished already (never past the mark: the two move in one query)
        chosen.setdefault(note["id"], note | {"extraction": state})
    return list(chosen.values())


def error_text(error: object) -> str:
    """An error as it is kept: text, cut to 2,000 characters, what cannot be stored replaced."""
    if type(error) is not str:
        raise WrongType(f"error must be text, not {values.sort_of(error)}")
    cut = error[:MAX_ERROR]
    return _UNSTORABLE.sub("\ufffd", cut)


def _count(given: object, what: str) -> int:
    return values.whole(given, what, 0, MAX_COUNT)


# Every write of a worker starts from this guard: only the owner that holds the graph writes, and only
# about a note that exists.
_HELD = (
    f"MATCH (w:{WORKER} {{phase: $phase}}) WHERE w.owner = $owner "
    f"MATCH (n:Entry {{id: $note}}) WHERE n.type = '{NOTE}' "
)
_MARK_PAST = f"MATCH (st:Stamp) SET {mark_moved(NOTE_MARK, 'n.serial', MARK_BEFORE)}, "
# An error kept, and that it came after the last note read (times are whole seconds: the flag orders
# an error and a read of one second).
_ERRED = "w.last_error = $error, w.last_error_at = localdatetime($now), w.erred_since_read = true"


def _written(graph, owner: object, note_id: object, query: str, params: dict) -> bool:
    """Runs a guarded write: True when made, False when another worker holds the graph; Refused
    ("unknown") when no note has the id (nothing is written then either)."""
    owner, note_id = checked_owner(owner), values.entry_id(note_id, "a note id")
    arguments = {"phase": PHASE, "owner": owner, "note": note_id, "now": clock.now(), **params}
    if graph.query(_HELD + query + " RETURN w.owner", arguments).result_set:
        return True
    if not notes_by_id(graph, [note_id]):
        raise Refused(f"no note {note_id!r}", "unknown")
    return False


def _answer_json(answer: object) -> str:
    if type(answer) is not dict:
        raise WrongType(f"answer must be a dict (a JSON object), not {values.sort_of(answer)}")
    try:
        kept = json.dumps(answer, ensure_ascii=False)
    except TypeError as error:
        raise WrongType(f"answer must hold only JSON values: {str(error)[:200]}") from None
    except (ValueError, RecursionError) as error:
        raise Refused(f"answer cannot be kept as JSON: {str(error)[:200]}") from None
    # A lone surrogate (the model's JSON may hold one) cannot be stored as text: escaped, it reads back
    # the same, and it only ever stands inside a JSON string.
    kept = _LONE_SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", kept)
    if len(kept) > MAX_ANSWER:
        raise Refused(f"answer is longer than {MAX_ANSWER:,} characters as JSON")
    return kept


def keep_note_answer(graph, owner, note_id, answer, asks=1) -> bool:
    """Keeps the model's answer for a note before any of its rows is written (state "answered"), so
    the answer is applied again, not asked again, if the worker stops before finish_note(). answer: a
    dict of JSON values (at most 2,000,000 characters as JSON); asks: how many asks it took (1 or more).
    """
    kept = _answer_json(answer)
    asks = values.whole(asks, "asks", 1, MAX_COUNT)
    return _written(
        graph,
        owner,
        note_id,
        f"SET w.seen_at = localdatetime($now) WITH w, n MERGE (x:{EXTRACTION} {{note: n.id}}) "
        "SET x.state = 'answered', x.answer = $answer, x.asks = $asks, x.answered_at = localdatetime($now), "
        "x.error = null WITH w, x",
        {"answer": kept, "asks": asks},
    )


def _rows(rows: object) -> dict[str, int]:
    if rows is None:
        return {}
    if type(rows) is not dict:
        raise WrongType(f"rows must be a dict of receipt statuses and counts, not {values.sort_of(rows)}")
    for status in rows:
        if status not in STATUSES:
            raise Refused(
                f"rows counts receipt statuses ({', '.join(STATUSES)}), not {values.printable(status)}"
            )
    return {status: _count(rows[status], f"rows[{status!r}]") for status in STATUSES if rows.get(status)}


def finish_note(graph, owner, note_id, rows=None, refused=0, failed_asks=0) -> bool:
    """A note read: its rows written. Marks it "applied", moves the mark past it (never back) and counts
    what it did, in one query. rows: {receipt status: count}; refused: items refused; failed_asks: asks
    of the model that failed before the answer."""
    counted = _rows(rows)
    refused, failed_asks = _count(refused, "refused"), _count(failed_asks, "failed_asks")
    counting = "".join(
        f", w.`rows_{status}` = coalesce(w.`rows_{status}`, 0) + $rows_{status}" for status in counted
    )
    return _written(
        graph,
        owner,
        note_id,
        _MARK_PAST + "w.notes_read = coalesce(w.notes_read, 0) + 1, w.seen_at = localdatetime($now), "
        "w.last_read_at = localdatetime($now), w.erred_since_read = false, "
        "w.items_refused = coalesce(w.items_refused, 0) + $refused, "
        f"w.asks_failed = coalesce(w.asks_failed, 0) + $failed{counting} "
        f"WITH w, n MERGE (x:{EXTRACTION} {{note: n.id}}) "
        "SET x.state = 'applied', x.applied_at = localdatetime($now), x.rows = $rows, x.refused = $refused, "
        "x.given_back = null, x.error = null WITH w, x",
        {"refused": refused, "failed": failed_asks, "rows": json.dumps(counted)}
        | {f"rows_{status}": count for status, count in counted.items()},
    )


def hold_note_back(graph, owner, note_id, error) -> bool:
    """Rows the database refused or lost to other writers: the note stays "answered" behind the mark,
    so its kept answer is applied again next time (what was written comes back unchanged). The error
    is kept on the note and as the job's last error; nothing is counted yet."""
    return _written(
        graph,
        owner,
        note_id,
        f"SET {_ERRED}, w.seen_at = localdatetime($now) "
        f"WITH w, n MERGE (x:{EXTRACTION} {{note: n.id}}) SET x.error = $error WITH w, x",
        {"error": error_text(error)},
    )


def set_note_aside(graph, owner, note_id, error, asks=1) -> bool:
    """A note the model failed on every time: "set_aside" with its error and the asks that failed, the
    mark moved past it; give_note_back() gives it back."""
    kept, asks = error_text(error), values.whole(asks, "asks", 1, MAX_COUNT)
    return _written(
        graph,
        owner,
        note_id,
        _MARK_PAST + "w.asks_failed = coalesce(w.asks_failed, 0) + $asks, "
        f"{_ERRED}, w.seen_at = localdatetime($now) WITH w, n MERGE (x:{EXTRACTION} {{note: n.id}}) "
        "SET x.state = 'set_aside', x.error = $error, x.error_at = localdatetime($now), x.asks = $asks, "
        "x.given_back = null WITH w, x",
        {"error": kept, "asks": asks},
    )


def leave_note_waiting(graph, owner, note_id, error) -> bool:
    """A note the model could not be asked about waits ("waiting", its answer dropped), given first by
    notes_to_extract() wherever the mark goes; the mark does not move."""
    return _written(
        graph,
        owner,
        note_id,
        f"SET w.seen_at = localdatetime($now) WITH w, n MERGE (x:{EXTRACTION} {{note: n.id}}) "
        "SET x.state = 'waiting', x.error = $error, x.error_at = localdatetime($now), x.answer = null "
        "WITH w, x",
        {"error": error_text(error)},
    )


def skip_note(graph, owner, note_id) -> bool:
    """A note an agent marked wrong is not read: "invalidated", the mark moved past it, counted."""
    return _written(
        graph,
        owner,
        note_id,
        _MARK_PAST + "w.notes_invalidated = coalesce(w.notes_invalidated, 0) + 1, "
        f"w.seen_at = localdatetime($now) WITH w, n MERGE (x:{EXTRACTION} {{note: n.id}}) "
        "SET x.state = 'invalidated', x.skipped_at = localdatetime($now), x.given_back = null WITH w, x",
        {},
    )


def keep_extraction_error(graph, error) -> None:
    """Keeps an error that stopped the job (its notes wait) as its last error, whoever holds the graph."""
    graph.query(
        f"MERGE (w:{WORKER} {{phase: $phase}}) SET {_ERRED}",
        {"phase": PHASE, "error": error_text(error), "now": clock.now()},
    )


def give_note_back(graph, note_id) -> dict:
    """Gives a set-aside note back: notes_to_extract() gives it first, and the model is asked anew.
    {"note", "status": "replayed"}, or "unknown" (no such note), or "not_set_aside". Refused for a
    note_id that is no entry id."""
    note_id = values.entry_id(note_id, "a note id")
    if not notes_by_id(graph, [note_id]):
        return {"note": note_id, "status": "unknown"}
    given = graph.query(
        f"MATCH (x:{EXTRACTION} {{note: $note, state: 'set_aside'}}) "
        "SET x.state = 'replay', x.given_back = true, x.replayed_at = localdatetime($now), x.answer = null "
        "RETURN x.note",
        {"note": note_id, "now": clock.now()},
    ).result_set
    return {"note": note_id, "status": "replayed" if given else "not_set_aside"}
