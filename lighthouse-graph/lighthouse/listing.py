"""Lists a person pages through: a kind's entities with what holds for each now, the kinds that hold an
entity of a key, the episodes newest first, the notes newest first with the facts drawn from each, and
the users who have conversations.

What holds now is the rule of the reads (read.as_of(..., rejected=False)): the newest State begun by the
time that a person did not reject; a candidate holds, marked as one. Pages are by offset (at most
100,000) and limit (1 to 1,000); a page asks for one more than it shows, so the caller knows whether
another follows. Arguments are checked first (Refused or WrongType); nothing is written; database errors
pass as ResponseError.
"""

from __future__ import annotations

import json
from functools import lru_cache

from . import clock, values
from .algorithms.scope import checked_kinds
from .graphs import read
from .kinds import STATE_KIND, TRUST, Kind
from .read import COUNTED_AT, checked_entity, moment, shown
from .recall.text import checked_kind

MOST_OFFSET = 100_000  # how far a list pages by offset; past it a search finds what is wanted
MOST_LIMIT = 1_000


def _writer_and_window(by: object, since: object, until: object) -> dict:
    """The filters by writer and time window [since, until) as the queries take them, each checked."""
    return {
        "by": None if by is None else values.name(by, "by"),
        "since": None if since is None else clock.stamp_of(clock.looked_at(since, "since")),
        "until": None if until is None else clock.stamp_of(clock.looked_at(until, "until")),
    }


def _page(offset: object, limit: object) -> tuple[int, int]:
    return values.whole(offset, "offset", 0, MOST_OFFSET), values.whole(limit, "limit", 1, MOST_LIMIT)


@lru_cache(maxsize=256)
def _entities_query(kind: Kind) -> str:
    # The page of keys first, then per entity the newest State that counts by the time, found by its start.
    return (
        f"MATCH (e:`{kind.label}`:Entity) WITH e ORDER BY e.key SKIP $skip LIMIT $n "
        "OPTIONAL MATCH (e)-[:HAS_STATE]->(s) "
        f"WHERE {COUNTED_AT} "
        "WITH e, max(s.valid_from) AS newest "
        "OPTIONAL MATCH (e)-[:HAS_STATE]->(s) WHERE s.valid_from = newest "
        "RETURN e.key, properties(s) ORDER BY e.key"
    )


# Of each entity's States (s), the one that holds (the newest that counts by the time), kept when it fits
# the filters of entities_now() (each None when not chosen); then the page of those, by key.
_HOLDING_AND_CHOSEN = (
    f"WHERE {COUNTED_AT} "
    "WITH e, max(s.valid_from) AS newest "
    "MATCH (e)-[:HAS_STATE]->(s) WHERE s.valid_from = newest "
    f"WITH e, s WHERE ($trust IS NULL OR coalesce(s.`{TRUST}`, 'confirmed') = $trust) "
    "AND ($by IS NULL OR s.by = $by) AND ($since IS NULL OR s.valid_from >= localdatetime($since)) "
    "AND ($until IS NULL OR s.valid_from < localdatetime($until)) "
    "RETURN e.key, properties(s) ORDER BY e.key SKIP $skip LIMIT $n"
)


@lru_cache(maxsize=256)
def _candidate_entities_query(kind: Kind) -> str:
    # Only entities with a candidate, found through the index on the mark; then those whose State that
    # counts is one.
    return (
        f"MATCH (c:State) WHERE c.`{TRUST}` = 'candidate' AND c.`{STATE_KIND}` = $label "
        f"MATCH (e:`{kind.label}`:Entity)-[:HAS_STATE]->(c) WITH DISTINCT e "
        "MATCH (e)-[:HAS_STATE]->(s) " + _HOLDING_AND_CHOSEN
    )


@lru_cache(maxsize=256)
def _chosen_entities_query(kind: Kind) -> str:
    # Every entity of the kind is read to find the State that holds: a filter costs the kind's size.
    return f"MATCH (e:`{kind.label}`:Entity)-[:HAS_STATE]->(s) " + _HOLDING_AND_CHOSEN


ENTITY_TRUSTS = (None, "confirmed", "candidate")  # what entities_now() filters the State that holds by


def entities_now(
    graph, kind, offset=0, limit=50, *, at=None, trust=None, by=None, since=None, until=None
) -> list[dict]:
    """A page of a kind's entities by key, each with the State that holds now (or at `at`) by the rule of
    the reads: [{"key", "state"}], state shaped as history() gives it (its "trust" says "candidate" for
    one a model drew and nobody reviewed), or None where no State holds. Filters of the State that holds
    (an entity where none holds fits none): trust="candidate" (a model drew it and nobody reviewed it)
    or "confirmed" (any other); by: its writer; since, until: it began in [since, until). One more than
    limit when more follow."""
    kind = checked_kind(kind)
    offset, limit = _page(offset, limit)
    if trust not in ENTITY_TRUSTS:
        raise values.Refused(f"trust is None, 'confirmed' or 'candidate', not {values.printable(trust)}")
    params = {
        "skip": offset,
        "n": limit + 1,
        "at": moment(at),
        "label": kind.label,
        "trust": trust,
        **_writer_and_window(by, since, until),
    }
    if trust == "candidate":
        query = _candidate_entities_query(kind)
    elif trust is None and by is None and since is None and until is None:
        query = _entities_query(kind)
    else:
        query = _chosen_entities_query(kind)
    found = read(graph, query, params)
    return [{"key": key, "state": shown(kind, props) if props else None} for key, props in found]


def kinds_holding(graph, kinds, key) -> list[str]:
    """The labels of the kinds (a list of Kind) that hold an entity of this key, in the order given."""
    chosen = checked_kinds(kinds, empty=True)
    holding = []
    for kind in chosen:
        key = checked_entity(kind, key)
        if read(graph, f"MATCH (e:`{kind.label}`:Entity {{key: $key}}) RETURN 1 LIMIT 1", {"key": key}):
            holding.append(kind.label)
    return holding


_EPISODES_QUERY = (
    # The page first, then the count and end of each of its episodes (on the node, or on the tally a graph
    # written before kept them on).
    "MATCH (ep:Episode) WHERE ($by IS NULL OR ep.by = $by) "
    "  AND ($since IS NULL OR ep.opened_at >= localdatetime($since)) "
    "  AND ($until IS NULL OR ep.opened_at < localdatetime($until)) "
    "WITH ep ORDER BY ep.opened_at DESC, ep.id SKIP $skip LIMIT $n "
    "OPTIONAL MATCH (ep)-[tally:LH_TALLY]->(ep) "
    "WITH ep, coalesce(max(tally.entries), ep.entry_count, 0) AS entry_count, "
    "  coalesce(max(tally.closed_at), ep.closed_at) AS closed_at "
    "RETURN ep.id, ep.by, ep.opened_at, entry_count, closed_at ORDER BY ep.opened_at DESC, ep.id"
)


def recent_episodes(graph, offset=0, limit=50, *, by=None, since=None, until=None) -> list[dict]:
    """A page of episodes, newest opened first: [{"id", "by", "opened_at", "entry_count", "closed_at"}]
    (closed_at None while open). by: only episodes this writer opened; since, until: only those opened
    in [since, until). One more than limit when more follow."""
    offset, limit = _page(offset, limit)
    params = {"skip": offset, "n": limit + 1, **_writer_and_window(by, since, until)}
    found = read(graph, _EPISODES_QUERY, params)
    return [
        {
            "id": ident,
            "by": by,
            "opened_at": clock.from_store(opened),
            "entry_count": int(count),
            "closed_at": clock.from_store(closed),
        }
        for ident, by, opened, count, closed in found
    ]


_USERS_QUERY = (
    "MATCH (s:Session) OPTIONAL MATCH (s)-[tally:LH_TALLY]->(s) "
    "WITH s, max(tally.active_at) AS tallied_at "
    "WITH s.user AS user, count(s) AS sessions, max(coalesce(tallied_at, s.active_at)) AS active "
    "RETURN user, sessions, active ORDER BY user SKIP $skip LIMIT $n"
)


def conversation_users(graph, offset=0, limit=50) -> list[dict]:
    """A page of the users who have sessions, by name: [{"user", "sessions", "active_at"}]. One more than
    limit when more follow."""
    offset, limit = _page(offset, limit)
    found = read(graph, _USERS_QUERY, {"skip": offset, "n": limit + 1})
    return [
        {"user": user, "sessions": int(count), "active_at": clock.from_store(active)}
        for user, count, active in found
    ]


_NOTES_QUERY = (
    # The page of notes by arrival first, then the States drawn from each (through FROM, the evidence).
    "MATCH (n:Entry) WHERE n.type = 'note' AND ($by IS NULL OR n.by = $by) "
    "  AND ($since IS NULL OR n.at >= localdatetime($since)) AND ($until IS NULL OR n.at < localdatetime($until)) "
    "WITH n ORDER BY n.serial DESC SKIP $skip LIMIT $n "
    "OPTIONAL MATCH (s:State)-[:FROM]->(n) "
    f"WITH n, collect(CASE WHEN s IS NULL THEN null ELSE [s.`{STATE_KIND}`, s.key, s.valid_from, s.`{TRUST}`] END) AS drawn "
    "RETURN n.id, n.episode, n.by, n.at, n.recorded_at, n.content, n.invalidated_at, n.invalidated_why, drawn "
    "ORDER BY n.serial DESC"
)


def recent_notes(graph, offset=0, limit=50, *, by=None, since=None, until=None) -> list[dict]:
    """A page of notes, the last arrived first: [{"id", "episode", "by", "at" (when it was said),
    "recorded_at" (when it arrived), "text", "invalidated_at", "invalidated_why", "drawn": [{"kind", "key",
    "valid_from", "trust"}]}], drawn being the States that name the note as their evidence ("confirmed"
    for one nobody marked). by: only notes of this writer; since, until: only notes said in [since,
    until). One more than limit when more follow."""
    offset, limit = _page(offset, limit)
    params = {
        "skip": offset,
        "n": limit + 1,
        "by": None if by is None else values.name(by, "by"),
        "since": None if since is None else clock.stamp_of(clock.looked_at(since, "since")),
        "until": None if until is None else clock.stamp_of(clock.looked_at(until, "until")),
    }
    listed = []
    for ident, episode, writer, at, recorded, content, marked_at, marked_why, drawn in read(
        graph, _NOTES_QUERY, params
    ):
        try:
            text = json.loads(content).get("text") if content else None
        except (ValueError, AttributeError):
            text = None
        facts = [
            {"kind": kind, "key": key, "valid_from": clock.from_store(start), "trust": trust or "confirmed"}
            for kind, key, start, trust in drawn
        ]
        listed.append(
            {
                "id": ident,
                "episode": episode,
                "by": writer,
                "at": clock.from_store(at),
                "recorded_at": clock.from_store(recorded),
                "text": text,
                "invalidated_at": clock.from_store(marked_at),
                "invalidated_why": marked_why,
                "drawn": sorted(facts, key=lambda fact: (fact["kind"], str(fact["key"]), fact["valid_from"])),
            }
        )
    return listed
