"""Episodes: the record of one event, the entries agents wrote about it with their evidence, and its end.

open_episode() opens an episode about entities; record() appends an entry to it in one query;
close_episode() records its outcome, which ends it; episode() and episodes_about() read them back.

An entry stores its values twice: as JSON text in `content`, which reads give back with their types,
and each as a property named v_<name>, so a query can select entries by a value (MATCH (n:Entry) WHERE
n.v_status = 'hot'). Both hold a float as FalkorDB gives it back, to 15 digits (values.stored_float()).
words holds the letters and digits of its text values, for the full-text index; reads never show it.

Receipts: opened, unchanged, recorded, closed; refusals, each kept as a WriteFailure: invalid, missing
(an entity it is about, or evidence, does not exist), unknown (no such episode), ended (the episode
has its outcome: it takes no entry and is not opened again), conflict (opened again about other
entities), failed (FalkorDB refused the query).
"""

from __future__ import annotations

import json
import uuid

from redis.exceptions import ResponseError

from . import clock, references
from . import values as limits
from .graphs import read
from .values import Refused
from .write.failures import refuse

OUTCOME = "outcome"  # the type of the entry that closes its episode
VALUE_PREFIX = "v_"
ATTEMPTS = 2  # a write that found nothing wrong on a second look is tried again once
MAX_LIMIT = 1_000

# An entry's id is the episode's id, "/" and its number: room is kept so that it is still a name.
MAX_EPISODE_ID = limits.MAX_NAME - 20


def checked_episode_id(given: object) -> str:
    """An episode id: a name of at most 180 characters, so the ids of its entries are names too."""
    checked = limits.name(given, "an episode id")
    if len(checked) > MAX_EPISODE_ID:
        raise Refused(f"an episode id is at most {MAX_EPISODE_ID} characters")
    return checked


def checked_episodes(given: object, what: str) -> list[str]:
    """Episode ids, each once, in the order given; at most 200."""
    if given is None:
        return []
    if isinstance(given, str) or not isinstance(given, list | tuple):
        raise Refused(f"{what} must be a list of episode ids")
    if len(given) > limits.MAX_REFERENCES:
        raise Refused(f"{what} holds more than {limits.MAX_REFERENCES} episodes")
    found: list[str] = []
    for one in given:
        checked = checked_episode_id(one)
        if checked not in found:
            found.append(checked)
    return found


def not_ended(seen: list) -> tuple[str, str] | None:
    """Why episodes named as ended cannot count: ("missing", reason) when one does not exist, else ("open",
    reason) when one has not ended; None when each one ended. seen: [id, exists, ended] for each."""
    absent = [wanted for wanted, exists, _ended in seen if not exists]
    if absent:
        return "missing", f"an episode that does not exist: {', '.join(map(repr, absent[:5]))}"
    still_open = [wanted for wanted, _exists, ended in seen if not ended]
    if still_open:
        return "open", f"an episode that has not ended: {', '.join(map(repr, still_open[:5]))}"
    return None


def _moment(at: object) -> str:
    """The time a caller gave (now without one), checked, as the text localdatetime() reads."""
    try:
        return clock.stamp(clock.present() if at is None else clock.checked(at))
    except clock.TimeError as error:
        raise Refused(str(error)) from None


def _about_references(about: object) -> list[references.Reference]:
    """What an episode is about: entities only, each once."""
    found = references.parse_all(about, "about")
    for label, _key in found:
        if references.is_record(label):
            raise Refused(f"an episode is about entities, not a {label}")
    return found


# Opens the episode only when every entity it is about exists (the guard on `found`), and links them
# only when this query made it; it then gives back what the stored episode is about, to compare.
_OPEN = (
    "WHERE size(found) = $expected "
    "OPTIONAL MATCH (old:Episode {id: $id}) "
    "WITH found, old "
    "MERGE (ep:Episode {id: $id}) "
    "ON CREATE SET ep.by = $by, ep.opened_at = localdatetime($at), ep.recorded_at = localdatetime($now), "
    "  ep.seq = 0 "
    "WITH found, old, ep "
    "CALL { WITH found, old, ep "
    "  UNWIND CASE WHEN old IS NULL THEN found ELSE [] END AS subject "
    "  WITH ep, subject[0] AS target CREATE (ep)-[:ABOUT]->(target) "
    "  RETURN count(*) AS linked } "
    "WITH old, ep "
    "OPTIONAL MATCH (ep)-[:ABOUT]->(thing) "
    "RETURN old IS NULL, ep.closed_at IS NOT NULL, "
    "  collect(CASE WHEN thing IS NULL THEN null ELSE [labels(thing), thing.id, thing.key] END)"
)


def open_episode(graph, id: object, by: object, about: object = None, at: object = None) -> dict:
    """Opens an episode about entities: {"id", "status": "opened"}.

    Opened again with the same about: "unchanged" (at is then ignored); with another about: "conflict".
    An episode that ended cannot be opened again: "ended". Every entity it is about must exist, else
    "missing". at is when it began (now without one). Every refusal is kept as a WriteFailure.
    """
    content = {"id": id, "by": by, "about": about, "at": at}
    try:
        checked_id = checked_episode_id(id)
        checked_by = limits.name(by, "by")
        subjects = _about_references(about)
        started = _moment(at)
    except Refused as error:
        return refuse(graph, "Episode", id, content, error.reason, str(error), by)
    params = {"id": checked_id, "by": checked_by, "at": started, "now": clock.now()}
    try:
        result = references.write_where_found(
            graph, subjects, _OPEN, params, "an entity the episode is about does not exist"
        )
    except Refused as error:
        return refuse(graph, "Episode", checked_id, content, error.reason, str(error), checked_by)
    created, ended, stored = result[0]
    if created:
        return {"id": checked_id, "status": "opened"}
    if ended:
        reason = f"the episode {checked_id!r} has ended: it cannot be opened again"
        return refuse(graph, "Episode", checked_id, content, "ended", reason, checked_by)
    if references.shown(stored) != references.ordered(subjects):
        reason = f"the episode {checked_id!r} is open about other entities"
        return refuse(graph, "Episode", checked_id, content, "conflict", reason, checked_by)
    return {"id": checked_id, "status": "unchanged"}


def text_of(checked: dict) -> str:
    """The text values of an entry, in the order of their names, one per line."""
    return "\n".join(item for _name, item in sorted(checked.items()) if isinstance(item, str))


# Writes only when every cited node exists (the guard on `found`) and the episode is open. The
# episode's next number and the graph's next serial are taken in this query, so writers that run at
# the same moment never share a number, and a refused entry takes none.
_APPEND = (
    "WHERE size(found) = $expected "
    "MATCH (ep:Episode {id: $episode}) WHERE ep.closed_at IS NULL "
    "MERGE (st:Stamp) ON CREATE SET st.id = $stamp, st.serial = 0 "
    "SET ep.seq = coalesce(ep.seq, 0) + 1, st.serial = coalesce(st.serial, 0) + 1 "
    "WITH ep, found, ep.seq AS seq, st.serial AS serial "
    "CREATE (ep)-[:HAS]->(n:Entry {id: $episode + '/' + toString(seq), episode: $episode, seq: seq, "
    "  serial: serial, type: $type, by: $by, at: localdatetime($at), recorded_at: localdatetime($now), "
    "  words: $words, content: $content}) "
    "SET n += $props "
    "SET ep.closed_at = CASE WHEN $closes THEN localdatetime($at) ELSE ep.closed_at END "
    "MERGE (writer:Agent {name: $by}) "
    "CREATE (writer)-[:WROTE]->(n) "
    "WITH n, found, seq "
    "OPTIONAL MATCH (before:Entry {id: $episode + '/' + toString(seq - 1)}) "
    "FOREACH (link IN CASE WHEN before IS NULL THEN [] ELSE [1] END | CREATE (before)-[:NEXT]->(n)) "
    "WITH n, found "
    "CALL { WITH n, found UNWIND found AS cited "
    "  WITH n, cited[0] AS evidence, cited[1] AS place "
    "  CREATE (n)-[:CITES {as_of: localdatetime($at), place: place}]->(evidence) "
    "  RETURN count(*) AS cites } "
    "RETURN n.id, n.seq"
)

_WHY_NOT = (
    "OPTIONAL MATCH (ep:Episode {id: $episode}) "
    "RETURN [pair IN found | pair[1]], ep IS NOT NULL, ep.closed_at IS NOT NULL"
)


def _why_not(graph, clause: str, params: dict, cites: list) -> tuple[str, str] | None:
    """Why the write found nothing to do: (status, reason), or None when nothing is wrong any more."""
    result = read(graph, clause + _WHY_NOT, params)
    found, exists, ended = result[0] if result else ([], False, False)
    if not exists:
        return "unknown", f"the episode {params['episode']!r} does not exist: open it first"
    if ended:
        return "ended", f"the episode {params['episode']!r} has ended: it takes no more entries"
    seen = set(found)
    absent = [cites[place] for place in range(len(cites)) if place not in seen]
    if absent:
        shown = ", ".join(references.describe(one) for one in absent[:5])
        return "missing", f"evidence that does not exist: {shown}"
    return None


def record(
    graph,
    episode_id: object,
    type: object,
    by: object,
    values: object = None,
    cites: object = None,
    at: object = None,
) -> dict:
    """Appends an entry to an open episode: {"id": "<episode>/<seq>", "seq", "status": "recorded"}.

    values: names to text, numbers, bools or lists of them. cites: the evidence, each an entry id, an
    (Kind, key) or (label, key) of an entity, or ("Lesson", id), ("Playbook", "name#version"), and every
    one must exist. at: when it was observed (now without one). An entry of type "outcome" closes the
    episode and its receipt says "closed". Refusals, kept as WriteFailures and using no number: invalid,
    unknown (no such episode), ended (the episode is closed), missing (evidence), failed.
    """
    content = {"episode": episode_id, "type": type, "by": by, "values": values, "cites": cites, "at": at}
    try:
        episode_key = checked_episode_id(episode_id)
        entry_type = limits.name(type, "an entry's type")
        writer = limits.name(by, "by")
        checked = limits.values(values)
        evidence = references.parse_all(cites, "cites")
        observed = _moment(at)
        limits.measured({"type": entry_type, "values": checked, "cites": evidence}, "an entry")
    except Refused as error:
        return _refused(graph, episode_id, content, error.reason, str(error), by)
    clause, params = references.finding(evidence)
    params.update(
        {
            "expected": len(evidence),
            "episode": episode_key,
            "type": entry_type,
            "by": writer,
            "at": observed,
            "now": clock.now(),
            "stamp": uuid.uuid4().hex,
            "words": limits.words(text_of(checked)),
            "content": json.dumps(checked, ensure_ascii=False),
            "props": {VALUE_PREFIX + name: item for name, item in checked.items()},
            "closes": entry_type == OUTCOME,
        }
    )
    for _attempt in range(ATTEMPTS):
        try:
            result = graph.query(clause + _APPEND, params).result_set
        except ResponseError as error:
            return _refused(graph, episode_key, content, "failed", str(error), writer)
        if result:
            entry, seq = result[0]
            return {"id": entry, "seq": seq, "status": "closed" if entry_type == OUTCOME else "recorded"}
        why = _why_not(graph, clause, params, evidence)
        if why is not None:
            return _refused(graph, episode_key, content, why[0], why[1], writer)
    return _refused(graph, episode_key, content, "failed", "the episode changed while it was written", writer)


def _refused(graph, episode: object, content: dict, status: str, reason: str, by: object) -> dict:
    receipt = refuse(graph, "Entry", episode, content, status, reason, by)
    return {"id": None, "seq": None, "status": status, "reason": receipt["reason"]}


def close_episode(
    graph, id: object, by: object, outcome: object = None, cites: object = None, at: object = None
) -> dict:
    """Records the outcome of an episode, which ends it: the receipt of record(), with status "closed"."""
    return record(graph, id, OUTCOME, by, values=outcome, cites=cites, at=at)


# From a bound `ep`: what it is about, and each entry with what it cites. Variables have names of their
# own, and a missing optional match gives null, not a list of nulls.
_EPISODE = (
    "OPTIONAL MATCH (ep)-[:ABOUT]->(subject) "
    "WITH ep, collect(CASE WHEN subject IS NULL THEN null "
    "  ELSE [labels(subject), subject.id, subject.key] END) AS about "
    "OPTIONAL MATCH (ep)-[:HAS]->(n:Entry) "
    "OPTIONAL MATCH (n)-[c:CITES]->(cited) "
    "WITH ep, about, n, collect(CASE WHEN cited IS NULL THEN null "
    "  ELSE [c.place, labels(cited), cited.id, cited.key] END) AS cites "
    "RETURN ep.id, ep.by, ep.opened_at, ep.closed_at, about, "
    "  collect(CASE WHEN n IS NULL THEN null "
    "    ELSE [n.id, n.seq, n.type, n.by, n.at, n.content, cites] END)"
)


def stored_entry(entry_id, seq, entry_type, by, at, content) -> dict:
    """An entry as reads give it, from n.id, n.seq, n.type, n.by, n.at, n.content: id, seq, type, by, at, values."""
    return {
        "id": entry_id,
        "seq": seq,
        "type": entry_type,
        "by": by,
        "at": clock.from_store(at),
        "values": json.loads(content),
    }


def _entry(listed: list) -> dict:
    *fields, cites = listed
    cited = sorted((item for item in cites if item is not None), key=lambda item: item[0])
    return {**stored_entry(*fields), "cites": [references.from_store(*item[1:]) for item in cited]}


def _episode(row: list) -> dict:
    ep_id, by, opened_at, closed_at, about, listed = row
    entries = sorted((_entry(item) for item in listed if item is not None), key=lambda entry: entry["seq"])
    ending = [entry for entry in entries if entry["type"] == OUTCOME]
    return {
        "id": ep_id,
        "by": by,
        "opened_at": clock.from_store(opened_at),
        "closed_at": clock.from_store(closed_at),
        "about": references.shown(about),
        "outcome": ending[-1]["values"] if ending else None,
        "entries": entries,
    }


def episode(graph, id: object) -> dict | None:
    """An episode: id, by, opened_at, closed_at, about, outcome (None while open), and its entries by seq.

    Each entry: id, seq, type, by, at, values, and cites as references in the order they were given.
    None when there is no such episode.
    """
    result = read(graph, "MATCH (ep:Episode {id: $id}) " + _EPISODE, {"id": checked_episode_id(id)})
    return _episode(result[0]) if result else None


def episodes_by_id(graph, ids: list) -> dict[str, dict]:
    """Several episodes in one round trip, as episode() gives each: id -> episode (unknown ids left out)."""
    if not isinstance(ids, list | tuple) or len(ids) > MAX_LIMIT:
        raise Refused(f"ids is a list of at most {MAX_LIMIT:,} episode ids")
    wanted = sorted({checked_episode_id(one) for one in ids})
    rows = read(graph, "UNWIND $ids AS wanted MATCH (ep:Episode {id: wanted}) " + _EPISODE, {"ids": wanted})
    return {found["id"]: found for found in map(_episode, rows)}


def episodes_about(graph, kind: object, key: object, limit: int = 20) -> list[dict]:
    """The episodes about an entity, newest first (by when they opened, then id), each as episode() gives it.

    kind is a Kind or an entity's label. One round trip.
    """
    label, checked_key = references.parse((kind, key))
    if references.is_record(label):
        raise Refused(f"an episode is about entities, not a {label}")
    limit = limits.whole(limit, "limit", 1, MAX_LIMIT)
    query = (
        f"MATCH {references.pattern(label, 'thing', '$key')}<-[:ABOUT]-(ep:Episode) "
        "WITH DISTINCT ep ORDER BY ep.opened_at DESC, ep.id LIMIT $limit " + _EPISODE
    )
    found = [_episode(row) for row in read(graph, query, {"key": checked_key, "limit": limit})]
    found.sort(key=lambda item: item["id"])
    found.sort(key=lambda item: item["opened_at"], reverse=True)
    return found
