"""Episodes: the record of one event, the entries agents wrote about it with their evidence, and its end.

open_episode() opens an episode about entities; record() appends an entry to it; close_episode() records
its outcome, which ends it; episode() and episodes_about() read them back. Each write is one query: what
must exist is looked up in the query that writes, and the receipt is decided from what it gives back.

(:Episode {id, by, opened_at, recorded_at, entry_count, closed_at once closed})-[:ABOUT]->(entity) (one
written before may keep its count and end on a loop edge, (ep)-[:LH_TALLY {entries, closed_at}]->(ep)),
(ep)-[:HAS]->(:Entry {id: "<episode>/<seq>", episode, seq, serial, type, by, at, recorded_at, words,
content, v_<name>...}), entries chained by NEXT, (:Agent)-[:WROTE]->(entry), (entry)-[:CITES {as_of}]->(x).
An entry keeps its values twice: as JSON in `content`, which reads give back with their types, and each
under v_<name>, so a query can select entries by a value. Every value name the API allows is stored
under the prefix, so none can meet a property of the library's own.
"""

from __future__ import annotations

import json
import uuid
from functools import lru_cache

from redis.exceptions import ResponseError

from . import clock, references
from . import values as limits
from .errors import Refused
from .graphs import read
from .tally_layout import COUNTS_ON_NODES, append_in_any_layout, entry_made
from .write.failures import refused

OUTCOME = "outcome"  # the type of the entry that closes its episode


def closed_at(ep: str) -> str:
    """Cypher for when a bound episode was closed, null while open: on a tally, where a graph written
    before the move of ensure_schema() keeps it, else on the node, where close_episode() keeps it. For a
    WITH or a RETURN: FalkorDB 4.22.1 reads no pattern comprehension in a WHERE."""
    return (
        f"coalesce(head([({ep})-[{ep}_end:LH_TALLY]->({ep}) WHERE {ep}_end.closed_at IS NOT NULL "
        f"| {ep}_end.closed_at]), {ep}.closed_at)"
    )


VALUE_PREFIX = "v_"
MAX_ENTRIES = 5_000  # entries of one episode
MAX_LIMIT = 1_000


# The names an entry's values may not use (API 2.5): the entry's own fields as reads give them.
ENTRY_FIELDS = frozenset({"id", "seq", "serial", "type", "at", "recorded_at", "by", "cites", "words"})

MISSING = "something it refers to does not exist"
CLOSED = "the episode is closed"
UNKNOWN = "the episode does not exist"


def checked_episode_id(given: object) -> str:
    """An episode id: a name (its entries' ids are longer: values.entry_id())."""
    return limits.name(given, "an episode id")


def text_of(checked: dict) -> str:
    """The text values of an entry, in the order of their names, one per line."""
    return "\n".join(item for _name, item in sorted(checked.items()) if isinstance(item, str))


# What open_episode() writes by references.made_where_found(), only when the episode is new and every
# entity it is about exists: the episode with its count of entries, an ABOUT edge to each.
_OPENED = "(old:Episode {id: $id})"
_OPENING = (
    "CREATE (ep:Episode {id: $id, by: $by, opened_at: localdatetime($at), recorded_at: localdatetime($now), "
    "  entry_count: 0})"
)


def _about(node: str) -> str:
    return f"CREATE (ep)-[:ABOUT]->({node})"


def open_episode(graph, episode_id: object, by: object, about: object = (), at: object = None) -> dict:
    """Opens an episode about entities: {"id", "status": "opened"}, or "exists" (nothing changes).

    episode_id and by are checked first: one that is not a name raises Refused (a ValueError) and nothing
    is written. The content never raises: about (a list of (Kind, key), entities only) and at (when it
    began, now without one) give an "invalid" receipt, an entity that does not exist "missing", a
    database error "failed", each kept as a WriteFailure. One query when it is written.
    """
    episode_key = checked_episode_id(episode_id)
    writer = limits.name(by, "by")
    content: object = {"about": about, "at": at}
    try:
        content = limits.plain({"about": about, "at": at}, "the episode")
        subjects = references.parse_all(content["about"], "about", entity_label=False)
        for label, _key in subjects:
            if references.is_record(label):
                raise Refused(f"an episode is about entities, not a {label}")
        started = clock.written_at(content["at"])
    except Refused as error:
        return refused(graph, "Episode", episode_key, content, error.reason, str(error), writer)
    params = {"id": episode_key, "by": writer, "at": started, "now": clock.now()}
    try:
        outcome = references.made_where_found(graph, subjects, _OPENED, _OPENING, _about, params)
    except ResponseError as error:
        return refused(graph, "Episode", episode_key, content, "failed", str(error), writer)
    if outcome == "missing":
        return refused(graph, "Episode", episode_key, content, "missing", MISSING, writer)
    return {"id": episode_key, "status": "opened" if outcome == "made" else "exists"}


def _given(names: tuple[str, ...]) -> str:
    """An entry's values as properties of its CREATE, each under the prefix, from $value_0, $value_1..."""
    return "".join(f", `{VALUE_PREFIX}{name}`: $value_{number}" for number, name in enumerate(names))


@lru_cache(maxsize=512)
def _append_query(names: tuple[str, ...], closes: bool) -> str:
    """The query that appends an entry whose values have these names (each a checked property name) to an
    episode whose count and end are on its node and the graph's serial on the Stamp, in a graph whose Stamp
    says every counter is there (tally_layout.COUNTS_ON_NODES); closes: the entry is an outcome, and the
    episode ends.

    Everything is read first, then written in one FOREACH only when all is well. Write queries run one at
    a time, so the numbers read are taken by no other writer, and a refused entry takes none. A graph
    whose counters may still be on tallies, or with two Stamps, is not `ready`: nothing is written, and
    tally_layout.append_in_any_layout() writes it.
    """
    return (
        "OPTIONAL MATCH (ep:Episode {id: $episode}) "
        "OPTIONAL MATCH (stamp:Stamp) "
        "WITH found, ep, collect(stamp) AS stamps "
        "WITH found, ep, stamps[0] AS stamp, coalesce(ep.entry_count, 0) AS count, "
        "  ep.closed_at IS NOT NULL AS closed, "
        f"  ep IS NULL OR (size(stamps) = 1 AND stamps[0].`{COUNTS_ON_NODES}` = true) AS ready "
        "OPTIONAL MATCH (last:Entry {id: $episode + '/' + toString(count)}) "
        "WITH found, ep, stamp, closed, count, last, ready, stamp.serial + 1 AS serial, "
        "  ep IS NOT NULL AND ready AND NOT closed AND count < $most AND size(found) = $expected AS writing "
        "FOREACH (appending IN CASE WHEN writing THEN [1] ELSE [] END | "
        + entry_made(_given(names))
        + "SET stamp.serial = serial, ep.entry_count = count + 1"
        + (", ep.closed_at = localdatetime($at)" if closes else "")
        + ") RETURN ep IS NOT NULL, closed AND NOT writing, count, size(found) = $expected, ready"
    )


def _append(graph, episode_id, entry_type, by, values, cites, at) -> dict:
    """record() and close_episode() after their names were checked: the receipt of one entry."""
    episode_key = checked_episode_id(episode_id)
    kind = limits.name(entry_type, "an entry's type")
    writer = limits.name(by, "by")
    content: object = {"type": kind, "values": values, "cites": cites, "at": at}
    try:
        content = limits.plain(content, "the entry")
        checked = limits.record_values(content["values"], ENTRY_FIELDS, "entry")
        evidence = references.parse_all(content["cites"], "cites", entity_label=False)
        observed = clock.written_at(content["at"])
        limits.measured({"type": kind, "values": checked, "cites": evidence}, "an entry")
    except Refused as error:
        return refused(graph, "Entry", episode_key, content, error.reason, str(error), writer)
    names = tuple(checked)
    clause, params = references.finding(evidence)
    params.update({f"value_{number}": checked[name] for number, name in enumerate(names)})
    params.update(
        {
            "expected": len(evidence),
            "episode": episode_key,
            "type": kind,
            "by": writer,
            "at": observed,
            "now": clock.now(),
            "stamp": uuid.uuid4().hex,
            "words": limits.words(text_of(checked)),
            "content": json.dumps(checked, ensure_ascii=False),
            "most": MAX_ENTRIES,
        }
    )
    try:
        known, closed, count, complete, ready = graph.query(
            clause + _append_query(names, kind == OUTCOME), params
        ).result_set[0]
        if not ready:  # nothing written: counters in a layout written before, in a second query
            known, closed, count, complete = append_in_any_layout(
                graph, clause, _given(names), kind == OUTCOME, params
            )
    except ResponseError as error:
        return refused(graph, "Entry", episode_key, content, "failed", str(error), writer)
    if not known:
        return refused(graph, "Entry", episode_key, content, "unknown", UNKNOWN, writer)
    if closed:
        return refused(graph, "Entry", episode_key, content, "closed", CLOSED, writer)
    if count >= MAX_ENTRIES:
        reason = f"the episode already has {MAX_ENTRIES:,} entries"
        return refused(graph, "Entry", episode_key, content, "full", reason, writer)
    if not complete:
        return refused(graph, "Entry", episode_key, content, "missing", MISSING, writer)
    return {"id": f"{episode_key}/{count + 1}", "seq": count + 1, "status": "recorded"}


def record(
    graph,
    episode_id: object,
    entry_type: object,
    by: object,
    values: object = None,
    cites: object = (),
    at: object = None,
) -> dict:
    """Appends an entry to an open episode: {"id": "<episode>/<seq>", "seq", "status": "recorded"}.

    episode_id, entry_type and by are checked first: one that is not a name, or the type "outcome"
    (close_episode() writes that one), raises Refused (a ValueError) and nothing is written. The content
    never raises: values (names other than id, seq, serial, type, at, recorded_at, by, cites, words, to
    storable values), cites (entry ids, (Kind, key), (label, id) of records, each of which must exist) and
    at (when it was observed, now without one) give a refusal receipt kept as a WriteFailure, using no
    number: invalid, unknown (no such episode), closed, full (5,000 entries), missing, failed. One query;
    two in a graph written before whose counters ensure_schema() has not moved yet (tally_layout.py).
    """
    if type(entry_type) is str and entry_type == OUTCOME:
        raise Refused("an entry of type 'outcome' is written by close_episode()")
    return _append(graph, episode_id, entry_type, by, values, cites, at)


def close_episode(
    graph, episode_id: object, by: object, outcome: object = None, cites: object = (), at: object = None
) -> dict:
    """Records the outcome of an episode (an entry of type "outcome", whose values are outcome) and closes
    it in the same query: the receipt of record(), {"id", "seq", "status": "recorded"}. A refused close
    leaves the episode open; names raise and content gives receipts as in record()."""
    return _append(graph, episode_id, OUTCOME, by, outcome, cites, at)


# An entry's fields as the reads below collect them, without serial and words.
_ENTRY = (
    "[{0}.id, {0}.seq, {0}.type, {0}.by, {0}.at, {0}.recorded_at, {0}.content, {0}.invalidated_at, "
    "{0}.invalidated_by, {0}.invalidated_why]"
)
_EPISODE_FIELDS = "ep.id, ep.by, ep.opened_at, ep.recorded_at, entry_count, closed_at"
# From a bound `ep`: its count and its end, from its tally or, for an episode kept before, the node.
_COUNT = (
    "OPTIONAL MATCH (ep)-[tally:LH_TALLY]->(ep) "
    "WITH ep, coalesce(max(tally.entries), ep.entry_count, 0) AS entry_count, "
    "  coalesce(max(tally.closed_at), ep.closed_at) AS closed_at "
)

# From a bound `ep`: what it is about, and each entry with what it cites.
_EPISODE = (
    _COUNT + "OPTIONAL MATCH (ep)-[:ABOUT]->(subject) "
    "WITH ep, entry_count, closed_at, collect(CASE WHEN subject IS NULL THEN null "
    "  ELSE [labels(subject), subject.id, subject.key] END) AS about "
    "OPTIONAL MATCH (ep)-[:HAS]->(n:Entry) "
    "OPTIONAL MATCH (n)-[:CITES]->(cited) "
    "WITH ep, entry_count, closed_at, about, n, collect(CASE WHEN cited IS NULL THEN null "
    "  ELSE [labels(cited), cited.id, cited.key] END) AS cites "
    f"RETURN {_EPISODE_FIELDS}, about, "
    f"  collect(CASE WHEN n IS NULL THEN null ELSE {_ENTRY.format('n')} + [cites] END)"
)


def _entry(listed: list) -> dict:
    """An entry as episode() gives it: its values at the top level beside its own fields."""
    entry_id, seq, kind, by, at, recorded_at, content, marked_at, marked_by, marked_why, cites = listed
    given = json.loads(content)
    shown = {**given, "id": entry_id, "seq": seq, "type": kind, "at": clock.from_store(at)}
    shown.update({"recorded_at": clock.from_store(recorded_at), "by": by})
    if marked_at is not None:
        marks = {"invalidated_at": clock.from_store(marked_at), "invalidated_by": marked_by}
        shown.update(marks, invalidated_why=marked_why)
    shown["cites"] = references.stored_references(cites)
    return shown


def _episode_fields(ep_id, by, opened_at, recorded_at, entry_count, closed_at) -> dict:
    shown = {"id": ep_id, "by": by, "opened_at": clock.from_store(opened_at)}
    shown.update({"recorded_at": clock.from_store(recorded_at), "entry_count": entry_count})
    if closed_at is not None:
        shown["closed_at"] = clock.from_store(closed_at)
    return shown


def _episode(row: list) -> dict:
    *fields, about, listed = row
    entries = [_entry(item) for item in listed if item is not None]
    entries.sort(key=lambda entry: entry["seq"])
    return {**_episode_fields(*fields), "about": references.stored_references(about), "entries": entries}


def episode(graph, episode_id: object) -> dict | None:
    """An episode: id, by, opened_at, recorded_at, entry_count, closed_at once closed, about (reference
    pairs) and its entries in order (id, seq, type, at, recorded_at, by, the values, the invalidation
    marks if marked, cites). None when there is none. A bad id raises Refused. One query. Nothing is
    written; database errors pass as ResponseError.
    """
    result = read(graph, "MATCH (ep:Episode {id: $id}) " + _EPISODE, {"id": checked_episode_id(episode_id)})
    return _episode(result[0]) if result else None


def episodes_by_id(graph, ids: list) -> dict[str, dict]:
    """Several episodes in one round trip, each exactly as episode() gives it (what promotion's rule
    gets): id -> episode, unknown ids left out. Refused for ids that are not a list of episode ids."""
    if type(ids) not in (list, tuple) or len(ids) > MAX_LIMIT:
        raise Refused(f"ids is a list of at most {MAX_LIMIT:,} episode ids")
    wanted = sorted({checked_episode_id(one) for one in ids})
    rows = read(graph, "UNWIND $ids AS wanted MATCH (ep:Episode {id: wanted}) " + _EPISODE, {"ids": wanted})
    return {shown["id"]: shown for shown in (_episode(row) for row in rows)}


# The outcome is the last entry of a closed episode, found by its id through the index.
_ABOUT = (
    "WITH DISTINCT ep ORDER BY ep.opened_at DESC, ep.id DESC{limit} "
    + _COUNT
    + "OPTIONAL MATCH (o:Entry {{id: ep.id + '/' + toString(entry_count)}}) WHERE closed_at IS NOT NULL "
    "OPTIONAL MATCH (o)-[:CITES]->(cited) "
    "WITH ep, entry_count, closed_at, o, collect(CASE WHEN cited IS NULL THEN null ELSE [labels(cited), cited.id, cited.key] END) AS cites "
    f"RETURN {_EPISODE_FIELDS}, CASE WHEN o IS NULL THEN null ELSE {_ENTRY.format('o')} + [cites] END"
)


def episodes_about(graph, kind: object, key: object, *, limit: int | None = None) -> list[dict]:
    """The episodes about an entity, newest first (opened_at, then id, descending): each with the
    Episode's fields and "outcome", its outcome entry as episode() gives entries, or None while open.

    kind is a Kind or an entity's label; a bad key raises Refused. limit (ours): at most that many, 1 to
    1,000; all of them without one. One query. Refused (a ValueError) also for a record's label or a bad
    limit. Nothing is written; database errors pass as ResponseError.
    """
    label, checked_key = references.parse((kind, key))
    if references.is_record(label):
        raise Refused(f"an episode is about entities, not a {label}")
    params: dict = {"key": checked_key}
    if limit is not None:
        params["limit"] = limits.whole(limit, "limit", 1, MAX_LIMIT)
    query = f"MATCH {references.pattern(label, 'thing', '$key')}<-[:ABOUT]-(ep:Episode) " + _ABOUT.format(
        limit=" LIMIT $limit" if limit is not None else ""
    )
    found = [
        {**_episode_fields(*fields), "outcome": None if outcome is None else _entry(outcome)}
        for *fields, outcome in read(graph, query, params)
    ]
    return sorted(found, key=lambda item: (item["opened_at"], item["id"]), reverse=True)
