"""notes_set_aside(), extraction_progress(), extraction_states(): what the job of reading notes with a
model did and what waits (note_extraction.py writes it). Nothing is written.

The rule: the arguments are checked before anything is read: a limit out of its range, or note ids
that are not a list of at most 1,000 entry ids, raise Refused (a ValueError) or WrongType (a TypeError).
"""

from __future__ import annotations

import json

from . import clock, values
from .errors import Refused, WrongType
from .graphs import read
from .note_extraction import EXTRACTION, MARK_BEFORE, NOTE_MARK, STATUSES, UNFINISHED, named_notes
from .note_extraction_hold import PHASE, WORKER
from .notes_waiting import notes_waiting
from .stamp_marks import mark_read

MAX_LIMIT = 1_000
MAX_IDS = 1_000


def notes_set_aside(graph, limit=100) -> list[dict]:
    """Up to `limit` (1 to 1,000) notes set aside, oldest first: [{"note", "text", "at", "error",
    "error_at", "asks"}]."""
    limit = values.whole(limit, "limit", 1, MAX_LIMIT)
    aside = read(
        graph,
        f"MATCH (x:{EXTRACTION} {{state: 'set_aside'}}) RETURN x.note, x.error, x.error_at, x.asks",
    )
    kept = {note_id: rest for note_id, *rest in aside}
    listed = []
    for found in named_notes(graph, list(kept))[:limit]:
        error, error_at, asks = kept[found["id"]]
        listed.append(
            {
                "note": found["id"],
                "text": found.get("text"),
                "at": found["at"],
                "error": error,
                "error_at": clock.from_store(error_at),
                "asks": asks,
            }
        )
    return listed


def _erring(job: dict) -> bool:
    """The job's last error came after the last note it read (or it never read one). Times are whole
    seconds, so an error and a read of one second are ordered by the flag that both writes set."""
    if job.get("last_error_at") is None:
        return False
    if job.get("last_read_at") is None:
        return True
    erred, read_at = clock.from_store(job["last_error_at"]), clock.from_store(job["last_read_at"])
    return erred > read_at or (erred == read_at and bool(job.get("erred_since_read")))


def extraction_progress(graph) -> dict:
    """The job of one graph: {"owner", "model", "seen_at", "mark", "notes_waiting", "oldest_waiting",
    "notes_read", "rows": {status: count}, "items_refused", "asks_failed", "notes_set_aside",
    "notes_invalidated", "last_read_at", "last_error", "last_error_at", "erring"}. Times are UTC
    datetimes or None; erring: the last error came after the last note read (or none was read).

    A note waits when it lies past the mark, or is begun and not finished behind it (given back, an
    answer kept when a worker stopped, left waiting), and no agent invalidated it."""
    found = read(
        graph,
        f"OPTIONAL MATCH (st:Stamp) OPTIONAL MATCH (w:{WORKER} {{phase: $phase}}) "
        f"RETURN properties(w), {mark_read(NOTE_MARK, MARK_BEFORE)}",
        {"phase": PHASE},
    )
    job, mark = (found[0][0] or {}, found[0][1] or 0) if found else ({}, 0)
    past = notes_waiting(graph, mark)
    waiting, oldest = past["count"], past["oldest"]
    begun = read(
        graph,
        f"MATCH (x:{EXTRACTION}) WHERE x.state IN $states RETURN x.note, x.state = 'set_aside'",
        {"states": [*UNFINISHED, "set_aside"]},
    )
    aside_ids = {note_id for note_id, is_aside in begun if is_aside}
    aside = 0
    for note in named_notes(graph, [note_id for note_id, _ in begun]):
        if "invalidated_at" in note:
            continue
        if note["id"] in aside_ids:
            aside += 1
        elif note["serial"] <= mark:  # those past the mark are counted already
            waiting += 1
            if oldest is None or note["recorded_at"] < oldest:
                oldest = note["recorded_at"]
    return {
        "owner": job.get("owner"),
        "model": job.get("model"),
        "seen_at": clock.from_store(job.get("seen_at")),
        "mark": mark,
        "notes_waiting": waiting,
        "oldest_waiting": oldest,
        "notes_read": job.get("notes_read", 0),
        "rows": {status: job[f"rows_{status}"] for status in STATUSES if job.get(f"rows_{status}")},
        "items_refused": job.get("items_refused", 0),
        "asks_failed": job.get("asks_failed", 0),
        "notes_set_aside": aside,
        "notes_invalidated": job.get("notes_invalidated", 0),
        "last_read_at": clock.from_store(job.get("last_read_at")),
        "last_error": job.get("last_error"),
        "last_error_at": clock.from_store(job.get("last_error_at")),
        "erring": _erring(job),
    }


# The time each state was reached, as kept on the note's extraction.
_STATE_AT = "CASE x.state WHEN 'applied' THEN x.applied_at WHEN 'set_aside' THEN x.error_at "
_STATE_AT += "WHEN 'waiting' THEN x.error_at WHEN 'replay' THEN x.replayed_at "
_STATE_AT += "WHEN 'invalidated' THEN x.skipped_at ELSE x.answered_at END"


def extraction_states(graph, note_ids) -> dict:
    """Where each of these notes (a list of at most 1,000 note ids) is in the job: {note id: {"state",
    "at", "error", "asks", "rows"}}; an id that names no note is left out. state: None (not read yet),
    "answered" (the model's answer kept, its rows not all written), "waiting" (the model could not be
    asked), "replay" (given back after being set aside), "applied", "set_aside" (error: why) or
    "invalidated" (an agent marked it wrong: not read). at: when it got there; rows: receipts by status
    once applied."""
    if type(note_ids) not in (list, tuple):
        raise WrongType(f"note_ids is a list of note ids, not {values.sort_of(note_ids)}")
    if len(note_ids) > MAX_IDS:
        raise Refused(f"at most {MAX_IDS:,} note ids in one call, not {len(note_ids):,}")
    asked = sorted({values.entry_id(one, "a note id") for one in note_ids})
    notes = named_notes(graph, asked)
    found = read(
        graph,
        f"UNWIND $ids AS id MATCH (x:{EXTRACTION} {{note: id}}) "
        f"RETURN id, x.state, {_STATE_AT}, x.error, x.asks, x.rows",
        {"ids": [note["id"] for note in notes]},
    )
    kept = {note_id: rest for note_id, *rest in found}
    states = {}
    for note in notes:
        state, at, error, asks, rows = kept.get(note["id"], (None, None, None, None, None))
        states[note["id"]] = {
            "state": state,
            "at": clock.from_store(at),
            "error": error,
            "asks": asks or 0,
            "rows": json.loads(rows) if state == "applied" and rows else {},
        }
    return states
