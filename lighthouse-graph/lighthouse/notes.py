"""note(), notes(): free text from an agent, kept at once as entries of an episode, for a worker to read.

A note is an Entry of type "note" whose values are its text and its source, dated by when it was said
(the caller's time, else its arrival) and recorded at its arrival, never at the time a worker reads it.
Its episode (by default "notes:<source>:<day of arrival>") is made on first use. Each episode's notes go
in one query: the episode, the serials (every Entry takes the next serial of the graph, so a worker that
has read serial n has read every note before it), the entries, their NEXT chain and who wrote them. The
graph is the queue: extraction reads the notes past its mark; search_entries() finds them by their words
at once, and nearest_entries() by meaning once embed_entries() has embedded them.

The rule: `by` and the batch's container are arguments and raise (Refused, a ValueError; WrongType, a
TypeError) before anything is written. What an item holds is content: an item that cannot be stored gets
an "invalid" receipt and a WriteFailure, the others are stored. A database error gives "failed" to the
notes of that query, and a closed episode "closed", each kept as a WriteFailure.
"""

from __future__ import annotations

import json
import uuid
from collections import defaultdict

from redis.exceptions import ResponseError

from . import clock
from . import values as limits
from .episodes import VALUE_PREFIX, checked_episode_id, text_of
from .errors import Refused, WrongType
from .tally_layout import EPISODE_COUNT, EPISODE_END, STAMP_LAST
from .write.failures import Failure, record_failures

NOTE = "note"  # the type of the entries notes are
MAX_NOTES = 1_000  # notes one call takes
QUERY_NOTES = 500  # notes one query writes
QUERY_CHARS = 1_000_000  # characters of text one query carries
ITEM_FIELDS = frozenset({"text", "source", "at", "episode"})
DEFAULT_SOURCE = "agent"

# The whole step for one episode: the episode (made on first use), its count and the graph's serial moved
# on by the number of notes, then each note with its serial, writer and place in the episode's chain. The
# counts are on the Episode and the Stamp, as record() keeps them; one a graph written before kept on a
# tally is read from there, and the tally deleted (tally_layout.py).
_NOTES_QUERY = (
    "MERGE (ep:Episode {id: $episode}) "
    "ON CREATE SET ep.by = $by, ep.opened_at = localdatetime($opened), ep.recorded_at = localdatetime($now) "
    "WITH ep OPTIONAL MATCH (ep)-[tally:LH_TALLY]->(ep) "
    "WITH ep, collect(tally) AS tallies "
    f"WITH ep, tallies WHERE {EPISODE_END} IS NULL "
    f"WITH ep, tallies, {EPISODE_COUNT} AS count "
    "OPTIONAL MATCH (last:Entry {id: $episode + '/' + toString(count)}) "
    "OPTIONAL MATCH (st:Stamp) "
    "OPTIONAL MATCH (st)-[serials:LH_TALLY]->(st) "
    "WITH ep, tallies, count, last, st, collect(serials) AS stamped "
    f"WITH ep, tallies, count, last, st, stamped, {STAMP_LAST} AS base "
    "FOREACH (old IN tallies | DELETE old) "
    "FOREACH (old IN stamped | DELETE old) "
    "SET ep.entry_count = count + size($notes) "
    "FOREACH (kept IN CASE WHEN st IS NULL THEN [] ELSE [st] END | SET kept.serial = base + size($notes)) "
    "FOREACH (stamping IN CASE WHEN st IS NULL THEN [1] ELSE [] END | "
    "  CREATE (:Stamp {id: $stamp, serial: base + size($notes)})) "
    "MERGE (writer:Agent {name: $by}) "
    "WITH ep, count, last, base, writer "
    "UNWIND $notes AS note "
    "CREATE (ep)-[:HAS]->(n:Entry {id: $episode + '/' + toString(count + note.i + 1), episode: $episode, "
    "  seq: count + note.i + 1, serial: base + note.i + 1, type: 'note', by: $by, at: localdatetime(note.at), "
    f"  recorded_at: localdatetime($now), words: note.words, content: note.content, `{VALUE_PREFIX}text`: note.text, "
    f"  `{VALUE_PREFIX}source`: note.source}}) "
    "CREATE (writer)-[:WROTE]->(n) "
    "WITH last, n ORDER BY n.seq "
    "WITH last, collect(n) AS made "
    "FOREACH (earlier IN CASE WHEN last IS NULL THEN [] ELSE [last] END | "
    "  FOREACH (first IN [made[0]] | CREATE (earlier)-[:NEXT]->(first))) "
    "FOREACH (place IN range(0, size(made) - 2) | "
    "  FOREACH (before IN [made[place]] | FOREACH (after IN [made[place + 1]] | CREATE (before)-[:NEXT]->(after)))) "
    "RETURN [made_note IN made | made_note.seq]"
)


def _checked_item(item: object, arrival: str) -> dict:
    """One note as it is stored: text, source, said-time, episode, words and content; Refused if not."""
    if not isinstance(item, dict):
        raise Refused(f"a note is an object with text (and source, at, episode), not {limits.sort_of(item)}")
    unknown = sorted(set(map(str, item)) - ITEM_FIELDS)
    if unknown:
        raise Refused(f"a note has no field {unknown[0][:80]!r}; it has text, source, at, episode")
    text = item.get("text")
    if type(text) is not str or not text.strip():
        raise Refused("a note needs its text: a non-blank str")
    source = item.get("source")  # not given (or None): the default; anything else is checked as a name
    source = limits.name(DEFAULT_SOURCE if source is None else source, "a note's source")
    said = item.get("at")
    if said is not None and not clock.given(said):  # left out is now; a blank time is no time, as elsewhere
        raise clock.TimeError("a note's at is a time, or left out: not blank text")
    said = clock.written_at(said)
    episode = item.get("episode")
    if episode is None:
        episode = f"notes:{source}:{arrival[:10]}"
    episode = checked_episode_id(episode)
    checked = limits.record_values({"text": text, "source": source}, frozenset(), "entry")
    limits.measured({"type": NOTE, "values": checked, "cites": []}, "a note")
    return {
        "episode": episode,
        "at": said,
        "text": checked["text"],
        "source": source,
        "words": limits.words(text_of(checked)),
        "content": json.dumps(checked, ensure_ascii=False),
    }


def _queries(listed: list[tuple[int, dict]]) -> list[list[tuple[int, dict]]]:
    """The notes of one episode cut into queries of at most QUERY_NOTES notes and QUERY_CHARS characters."""
    found: list[list[tuple[int, dict]]] = []
    chunk: list[tuple[int, dict]] = []
    chars = 0
    for index, item in listed:
        size = 2 * len(item["text"])  # the text travels twice: as itself and as its words
        if chunk and (len(chunk) >= QUERY_NOTES or chars + size > QUERY_CHARS):
            found.append(chunk)
            chunk, chars = [], 0
        chunk.append((index, item))
        chars += size
    if chunk:
        found.append(chunk)
    return found


def _write(graph, episode: str, chunk: list[tuple[int, dict]], by: str, now: str) -> list[int] | str:
    """Writes one query's notes: their seqs in order, "closed" for a closed episode; ResponseError passes."""
    params = {
        "episode": episode,
        "by": by,
        "now": now,
        "opened": min(item["at"] for _index, item in chunk),
        "stamp": uuid.uuid4().hex,
        "notes": [
            {key: item[key] for key in ("at", "text", "source", "words", "content")} | {"i": place}
            for place, (_index, item) in enumerate(chunk)
        ],
    }
    result = graph.query(_NOTES_QUERY, params).result_set
    return "closed" if not result else result[0][0]


def notes(graph, items, by) -> list[dict]:
    """Keeps many notes: one receipt per item, in order: {"id": "<episode>/<seq>", "seq", "status":
    "recorded"}, or {"id": None, "status": "invalid" | "closed" | "failed", "reason"} (kept as a
    WriteFailure). items: a list or tuple of {"text", "source"?, "at"?, "episode"?}, at most 1,000.

    text: non-blank, at most 100,000 characters; source: a name (default "agent"); at: when it was said
    (now without one; blank text is invalid; at most five minutes ahead); episode: the episode it belongs to (default
    "notes:<source>:<YYYY-MM-DD of arrival>", made on first use). by (a name) and items (a list of at most
    1,000) raise Refused or WrongType and nothing is written. One query per episode (500 notes at most).
    """
    writer = limits.name(by, "by")
    if type(items) not in (list, tuple):
        raise WrongType(f"items is a list of notes, not {limits.sort_of(items)}")
    if len(items) > MAX_NOTES:
        raise Refused(f"at most {MAX_NOTES:,} notes in one call, not {len(items):,}")
    now = clock.now()
    receipts: list[dict | None] = [None] * len(items)
    failures: list[Failure] = []
    episodes: dict[str, list[tuple[int, dict]]] = defaultdict(list)
    for index, raw in enumerate(items):
        try:
            item = _checked_item(limits.plain(raw, "a note"), now)
        except Refused as error:
            receipts[index] = {"id": None, "status": error.reason, "reason": str(error)}
            failures.append(Failure(error.reason, "Entry", None, raw, str(error), writer, index=index))
            continue
        episodes[item["episode"]].append((index, item))
    for episode, listed in episodes.items():
        for chunk in _queries(listed):
            try:
                written = _write(graph, episode, chunk, writer, now)
            except ResponseError as error:
                written, reason = "failed", str(error)
            else:
                reason = f"the episode {episode!r} is closed"
            for place, (index, item) in enumerate(chunk):
                if isinstance(written, list):
                    seq = written[place]
                    receipts[index] = {"id": f"{episode}/{seq}", "seq": seq, "status": "recorded"}
                else:
                    receipts[index] = {"id": None, "status": written, "reason": reason}
                    failures.append(Failure(written, "Entry", episode, item, reason, writer, index=index))
    if failures:
        record_failures(graph, failures)
    return receipts  # type: ignore[return-value]


def note(graph, text, by, source: str = DEFAULT_SOURCE, at=None, *, episode=None) -> dict:
    """Keeps one note: the receipt notes() gives for it. text is the note; source where it came from (a
    name, "agent" by default); at when it was said (now without one); episode (keyword only) the episode
    it joins. by that is not a name raises Refused (a ValueError); everything else is content."""
    item: dict = {"text": text, "source": source, "at": at}
    if episode is not None:
        item["episode"] = episode
    return notes(graph, [item], by)[0]
