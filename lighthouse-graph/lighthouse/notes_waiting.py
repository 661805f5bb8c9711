"""notes_after(), notes_by_id(), notes_waiting(): the notes as a worker reads them off the write path.

Every entry takes the next serial of the graph when it is stored, so a worker that keeps the serial of
the last note it finished (its mark) finds the rest past it: notes_after() lists them oldest first,
notes_by_id() those it began and left behind its mark, and notes_waiting() counts what waits and says
since when. A note comes as search_entries() gives an entry (id, seq, serial, type, at, recorded_at,
by, text, source, and invalidated_at/_by/_why once an agent marked it wrong). Nothing is written.

The rule: the arguments are checked before anything is read. A serial that is not a whole number from 0,
a limit out of its range or ids that are not a list of entry ids raise Refused (a ValueError) or
WrongType (a TypeError).
"""

from __future__ import annotations

from . import clock, values
from .errors import Refused, WrongType
from .graphs import read
from .notes import NOTE
from .recall.text import entry_fields, entry_shown

MAX_LIMIT = 1_000  # notes one call of notes_after() lists
MAX_IDS = 1_000  # ids one call of notes_by_id() looks up
MAX_SERIAL = 2**62


def _serial(serial: object) -> int:
    return values.whole(serial, "serial", 0, MAX_SERIAL)


def notes_after(graph, serial=0, limit=100) -> list[dict]:
    """Up to `limit` (1 to 1,000) notes stored past `serial`, oldest first, those an agent invalidated
    included (a worker passes them over and moves past them). [] for a graph not made yet."""
    since, limit = _serial(serial), values.whole(limit, "limit", 1, MAX_LIMIT)
    found = read(
        graph,
        f"MATCH (n:Entry) WHERE n.serial > $since AND n.type = '{NOTE}' "
        f"WITH n ORDER BY n.serial LIMIT $limit RETURN {entry_fields('n')}",
        {"since": since, "limit": limit},
    )
    return [entry_shown(row) for (row,) in found]


def notes_by_id(graph, ids) -> list[dict]:
    """The notes of these ids (at most 1,000), oldest first; an id that names no note is left out."""
    if type(ids) not in (list, tuple):
        raise WrongType(f"ids is a list of note ids, not {values.sort_of(ids)}")
    if len(ids) > MAX_IDS:
        raise Refused(f"at most {MAX_IDS:,} note ids in one call, not {len(ids):,}")
    asked = sorted({values.entry_id(one, "a note id") for one in ids})
    if not asked:
        return []
    found = read(
        graph,
        f"UNWIND $ids AS id MATCH (n:Entry {{id: id}}) WHERE n.type = '{NOTE}' "
        f"WITH n ORDER BY n.serial RETURN {entry_fields('n')}",
        {"ids": asked},
    )
    return [entry_shown(row) for (row,) in found]


def notes_waiting(graph, serial=0) -> dict:
    """{"count", "oldest"}: the notes stored past `serial` that no agent invalidated, and the time the
    first of them was recorded (None when none waits)."""
    since = _serial(serial)
    found = read(
        graph,
        f"MATCH (n:Entry) WHERE n.serial > $since AND n.type = '{NOTE}' AND n.invalidated_at IS NULL "
        "RETURN count(n), min(n.recorded_at)",
        {"since": since},
    )
    count, oldest = found[0] if found else (0, None)
    return {"count": count, "oldest": clock.from_store(oldest)}
