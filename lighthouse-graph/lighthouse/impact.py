"""impact_of_entry(), impact_of_state(), invalidate_entry(): what relied on a fact that turned out wrong.

Every entry cites its evidence, every State points at the entry it came from (FROM), and every lesson
and playbook names its episodes. So what rests on an entry is found by following those edges back: the
entries that cite it, directly or through other entries; the States drawn from any of them; and the
lessons and playbooks whose episodes hold any of them. A lesson is at risk when the episodes left for
it would no longer carry it: its support without the affected episodes is below 1 or no longer above
what is against it. A playbook is at risk when fewer than three unaffected episodes are left.

Entries cite only entries that exist, so citations form no cycle, but they can form a lattice in which
the paths from one entry outnumber the entries by far: FalkorDB's variable-length match follows every
path, so the citers are read a level at a time instead, LEVELS levels per query, each level made
distinct before the next. At most MAX_REACH entries are followed: past it, the nearest.

invalidate_entry() marks an entry (invalidated_at, invalidated_by, invalidated_why) and changes
nothing else. Only these functions and agent_trust() read the mark.
"""

from __future__ import annotations

from functools import lru_cache

from redis.exceptions import ResponseError

from . import clock, references
from . import values as limits
from .errors import Refused, WrongType
from .graphs import read
from .kinds import STATE_KIND, is_kind
from .write.failures import refused

MAX_REACH = 10_000  # entries followed from what is asked about; past it the answer is cut
MAX_DERIVED = 10_000  # States drawn from those entries that an answer lists
LEVELS = 8  # levels of citation that one query follows
PLAYBOOK_NEEDS = 3  # a playbook is at risk when fewer episodes than this would be left (the design's rule)

_ENTRY_FIELDS = "[{0}.id, {0}.serial, {0}.episode, {0}.type, {0}.by, {0}.at, {0}.invalidated_at]"


@lru_cache(maxsize=4)
def _levels_query(levels: int) -> str:
    """The entries of the front, and the entries that cite them, one level after another.

    Each level is a list made distinct before the next is read, so a lattice of citations costs its
    edges, not its paths. Every level has variables of its own (FalkorDB 4.22 lets a name bound inside
    CALL {} clash with the same name later).
    """
    parts = [
        "UNWIND $front AS front_id MATCH (front_entry:Entry {id: front_id}) "
        "WITH collect(DISTINCT front_entry) AS level_0 "
    ]
    for number in range(1, levels + 1):
        before, cited, citing = f"level_{number - 1}", f"cited_{number}", f"citing_{number}"
        parts.append(
            f"CALL {{ WITH {before} UNWIND {before} AS {cited} "
            f"MATCH ({cited})<-[:CITES]-({citing}:Entry) "
            f"WITH collect(DISTINCT {citing}) AS found_{number} "
            f"RETURN found_{number}[..$cap] AS level_{number} }} "
        )
    shown = ", ".join(
        f"[entry_{number} IN level_{number} | {_ENTRY_FIELDS.format(f'entry_{number}')}]"
        for number in range(levels + 1)
    )
    parts.append(f"RETURN [{shown}]")
    return "".join(parts)


def _entry(row: list, depth: int) -> dict:
    entry_id, serial, episode, entry_type, by, at, invalidated_at = row
    return {
        "id": entry_id,
        "serial": serial,
        "episode": episode,
        "type": entry_type,
        "by": by,
        "at": clock.from_store(at),
        "invalidated": invalidated_at is not None,
        "depth": depth,
    }


def _reach(graph, seeds: list[str]) -> tuple[dict[str, dict], dict[str, dict], bool]:
    """The seeds as found, and every entry that cites one of them directly or through other entries.

    Returns (seeds found: id -> entry, citers: id -> entry with its depth, cut short). A level read as
    the last of a query is the front of the next, without the entries already expanded: every entry
    seen is either expanded (its citers read) or in the front, so an empty front means all were read.
    """
    found: dict[str, dict] = {}
    starts: dict[str, dict] = {}
    expanded: set[str] = set()
    front, depth, first = list(seeds), 0, True
    while front:
        result = read(graph, _levels_query(LEVELS), {"front": front, "cap": MAX_REACH + 1})
        levels = result[0][0] if result else [[] for _ in range(LEVELS + 1)]
        if first:
            starts = {row[0]: _entry(row, 0) for row in levels[0]}
            found.update(starts)
            first = False
        expanded.update(row[0] for row in levels[0])
        for number, level in enumerate(levels[1:], 1):
            for row in level:
                found.setdefault(row[0], _entry(row, depth + number))
            if number < LEVELS:
                expanded.update(row[0] for row in level)
        depth += LEVELS
        cut = any(len(level) > MAX_REACH for level in levels)
        if cut or len(found) - len(starts) > MAX_REACH:
            return starts, _nearest({k: v for k, v in found.items() if k not in starts}), True
        front = [row[0] for row in levels[-1] if row[0] not in expanded]
    return starts, {k: v for k, v in found.items() if k not in starts}, False


def _nearest(citers: dict[str, dict]) -> dict[str, dict]:
    kept = sorted(citers.values(), key=lambda entry: (entry["depth"], entry["serial"] or 0))[:MAX_REACH]
    return {entry["id"]: entry for entry in kept}


# What rests on a set of entries and their episodes: the States drawn from the entries, the handoffs
# not yet accepted that point at any of them (API 2.12: an accepted one has been taken up), the lessons
# supported by the episodes (with how many of their episodes are affected), and the playbooks drawn from
# them (with how many they are drawn from in all, and how many of those are affected).
_RESTS = (
    "CALL { UNWIND $entries AS drawn_id "
    "  MATCH (:Entry {id: drawn_id})<-[:FROM]-(drawn_state:State) "
    f"  WITH drawn_state, drawn_id ORDER BY drawn_state.`{STATE_KIND}`, drawn_state.valid_from, drawn_id "
    f"  WITH collect([drawn_state.`{STATE_KIND}`, drawn_state.valid_from, drawn_id]) AS drawn_all "
    "  RETURN drawn_all[..$cap] AS states } "
    "CALL { UNWIND $entries AS pointed_entry_id "
    "  MATCH (:Entry {id: pointed_entry_id})<-[:POINTS_TO]-(entry_handoff:Handoff) "
    "  WHERE entry_handoff.accepted_at IS NULL "
    "  RETURN collect(DISTINCT entry_handoff.id) AS entry_handoffs } "
    "CALL { UNWIND $episodes AS pointed_episode_id "
    "  MATCH (:Episode {id: pointed_episode_id})<-[:POINTS_TO]-(episode_handoff:Handoff) "
    "  WHERE episode_handoff.accepted_at IS NULL "
    "  RETURN collect(DISTINCT episode_handoff.id) AS episode_handoffs } "
    "CALL { UNWIND $episodes AS support_id "
    "  MATCH (:Episode {id: support_id})<-[:SUPPORTED_BY]-(lesson:Lesson) "
    "  WITH lesson, count(DISTINCT support_id) AS lesson_hit "
    "  RETURN collect([lesson.id, lesson.support, lesson.against, lesson_hit]) AS lessons } "
    "CALL { UNWIND $episodes AS source_id "
    "  MATCH (:Episode {id: source_id})<-[:SUPPORTED_BY]-(book:Playbook) "
    "  WITH book, count(DISTINCT source_id) AS book_hit "
    "  MATCH (book)-[:SUPPORTED_BY]->(book_source:Episode) "
    "  WITH book, book_hit, count(DISTINCT book_source) AS book_drawn "
    "  RETURN collect([book.id, book.name, book.version, book_drawn, book_hit]) AS playbooks } "
    "RETURN states, entry_handoffs + episode_handoffs, lessons, playbooks"
)


def _lesson(row: list) -> dict:
    lesson_id, support, against, hit = row
    support, against = support or 0, against or 0
    left = support - hit
    return {
        "id": lesson_id,
        "support": support,
        "tainted_support": hit,
        "at_risk": left < 1 or left <= against,
    }


def _playbook(row: list) -> dict:
    book_id, name, version, drawn, hit = row
    return {
        "id": book_id,
        "name": name,
        "version": version,
        "support": drawn,
        "tainted_support": hit,
        "at_risk": drawn - hit < PLAYBOOK_NEEDS,
    }


def _state(row: list) -> dict:
    label, valid_from, entry = row
    return {"label": label, "valid_from": clock.from_store(valid_from), "from_entry": entry}


def _resting(graph, starts: dict[str, dict], citers: dict[str, dict]) -> dict:
    """The entries, episodes, handoffs, States, lessons and playbooks that rest on the given entries."""
    every = {**starts, **citers}
    episodes = sorted({entry["episode"] for entry in every.values() if entry["episode"] is not None})
    result = read(graph, _RESTS, {"entries": sorted(every), "episodes": episodes, "cap": MAX_DERIVED})
    states, handoffs, lessons, playbooks = result[0] if result else ([], [], [], [])
    return {
        "downstream_entries": sorted(citers),
        "derived_states": [_state(row) for row in states],
        "episodes": episodes,
        "handoffs": sorted(set(handoffs)),
        "lessons": sorted((_lesson(row) for row in lessons), key=lambda item: item["id"]),
        "playbooks": sorted((_playbook(row) for row in playbooks), key=lambda item: item["id"]),
    }


def impact_of_entry(graph, entry_id: object) -> dict | None:
    """Everything that rested on an entry; None when there is no such entry.

    {"id", "invalidated": whether it is marked, "downstream_entries": the ids of the entries that cite
    it, directly or through other entries, sorted; "derived_states": the States drawn from it or them
    ({"label", "valid_from", "from_entry"}); "episodes", "handoffs": the sorted ids of the episodes that
    hold any of them and of the handoffs not yet accepted that point at any of those entries or
    episodes; "lessons": those the episodes support ({"id", "support", "tainted_support", "at_risk"});
    "playbooks": those drawn from the episodes ({"id", "name", "version", "support", "tainted_support",
    "at_risk"})}.
    At most MAX_REACH entries and MAX_DERIVED States are followed. A few queries: one per LEVELS levels
    of citation, and one for the rest. An id that is not a name raises Refused (a ValueError) before
    anything is read; database errors propagate.
    """
    checked = limits.entry_id(entry_id)
    starts, citers, _cut = _reach(graph, [checked])
    if checked not in starts:
        return None
    return {
        "id": checked,
        "invalidated": starts[checked]["invalidated"],
        **_resting(graph, {checked: starts[checked]}, citers),
    }


@lru_cache(maxsize=256)
def _cited_query(label: str) -> str:
    # The entries that cite the entity at a time in [since, until): the entity first, by its key.
    return (
        f"MATCH {references.pattern(label, 'thing', '$key')}<-[cite:CITES]-(citing:Entry) "
        "WHERE cite.as_of >= localdatetime($since) AND cite.as_of < localdatetime($until) "
        "WITH DISTINCT citing.id AS citing_id LIMIT $cap "
        "RETURN collect(citing_id)"
    )


def impact_of_state(graph, kind: object, key: object, since: object, until: object) -> dict:
    """What rested on what an entity held in [since, until): never None (an unknown entity gives empty
    lists).

    {"entity": (label, key), "direct_entries": the ids of the entries that cite the entity at a time
    in the window, "downstream_entries": those that cite them, directly or through others; then
    "derived_states", "episodes", "handoffs", "lessons" and "playbooks" as impact_of_entry() gives them
    for all those entries}. Arguments are checked before anything is read: kind not a Kind raises
    WrongType (a TypeError); a bad key, a missing or bad time, or since not earlier than until raise
    Refused (a ValueError). Database errors propagate.
    """
    if not is_kind(kind):
        raise WrongType(f"kind must be a Kind, not {type(kind).__name__}")
    checked_key = limits.key(key, f"the key of a {kind.label}")
    begin, end = clock.looked_at(since, "since"), clock.looked_at(until, "until")
    if begin >= end:
        raise Refused("since must be earlier than until")
    params = {"key": checked_key, "since": clock.stamp_of(begin), "until": clock.stamp_of(end)}
    result = read(graph, _cited_query(kind.label), {**params, "cap": MAX_REACH + 1})
    citing_ids = result[0][0] if result else []
    direct, further, _cut = _reach(graph, citing_ids[:MAX_REACH]) if citing_ids else ({}, {}, False)
    further = {entry_id: entry for entry_id, entry in further.items() if entry_id not in direct}
    return {
        "entity": (kind.label, checked_key),
        "direct_entries": sorted(direct),
        **_resting(graph, direct, further),
    }


_MARK = (
    "MATCH (n:Entry {id: $id}) WHERE n.invalidated_at IS NULL "
    "SET n.invalidated_at = localdatetime($at), n.invalidated_by = $by, n.invalidated_why = $why "
    "RETURN n.id"
)

MAX_REASON = 2_000


def _reason(reason: object) -> str:
    why = limits.text(reason, "the reason", MAX_REASON)
    if not why.strip():
        raise Refused("an entry is marked wrong with a reason: the reason is blank")
    # API 2.12: its first 200 characters after stripping are a name (so they end in no space either)
    limits.name(why.strip()[: limits.MAX_NAME], "the start of the reason")
    return why


def invalidate_entry(graph, entry_id: object, by: object, reason: object, at: object = None) -> dict:
    """Marks an entry as wrong: {"id", "status": "invalidated", "impact": what rested on it}.

    The mark is invalidated_at (at, or now), invalidated_by and invalidated_why on the entry; nothing
    else changes, and the entry stays where recall, lessons and playbooks find it. impact is what
    impact_of_entry() gives, read after the mark is written (so "invalidated": True). Marked before:
    {"id", "status": "exists"}, with nothing written. Refusals {"id": None, "status", "reason"}, each kept as a
    WriteFailure: invalid (a reason that is blank, not text, over 2,000 characters, holds a NUL, or does
    not start with a name; a bad or future at), unknown (no such entry), failed (FalkorDB refused a
    query: nothing is marked, or, when the reason says so, the entry is marked and only the read of its
    impact failed). entry_id and by are identity: one that is not a name raises Refused
    (a ValueError) before anything is written.
    """
    checked = limits.entry_id(entry_id)
    marker = limits.name(by, "by")
    try:
        content = limits.plain({"reason": reason, "at": at}, "the invalidation")
        why = _reason(content["reason"])
        when = clock.written_at(content["at"])
    except (Refused, WrongType) as error:
        return refused(graph, "Entry", checked, {"reason": reason, "at": at}, "invalid", str(error), marker)
    try:
        marked = read(graph, "MATCH (n:Entry {id: $id}) RETURN n.invalidated_at IS NOT NULL", {"id": checked})
        if not marked:
            return refused(
                graph, "Entry", checked, content, "unknown", f"there is no entry {checked!r}", marker
            )
        if marked[0][0]:
            return {"id": checked, "status": "exists"}
        written = graph.query(_MARK, {"id": checked, "by": marker, "why": why, "at": when}).result_set
    except ResponseError as error:
        return refused(graph, "Entry", checked, content, "failed", str(error), marker)
    if not written:  # another call marked it between the read and the write
        return {"id": checked, "status": "exists"}
    try:
        impact = impact_of_entry(graph, checked)
    except ResponseError as error:  # the mark stays: the receipt says so, and a retry finds it "exists"
        reason = f"the entry is marked, but what rests on it could not be read: {error}"
        return refused(graph, "Entry", checked, content, "failed", reason, marker)
    return {"id": checked, "status": "invalidated", "impact": impact}
