"""impact_of_entry(), impact_of_state(), invalidate_entry(): what relied on a fact that turned out wrong.

Every entry cites its evidence, every State points at the entry it came from (FROM), and every lesson
and playbook names its episodes. So what rests on an entry is found by following those edges back: the
entries that cite it, directly or through other entries; the States drawn from any of them; and the
lessons and playbooks whose episodes hold any of them. A lesson is at risk when the episodes left for
it would no longer carry it: its support without the affected episodes is below 1 or no longer above
what is against it. A playbook is at risk when fewer unaffected episodes than it needs (3 by default)
are left.

Entries cite only entries that exist, so citations form no cycle, but they can form a lattice in which
the paths from one entry outnumber the entries by far: FalkorDB's variable-length match follows every
path, so the citers are read a level at a time instead, LEVELS levels per query, each level made
distinct before the next. At most MAX_REACH entries are followed; an answer that stopped there says
"truncated".

invalidate_entry() marks an entry (invalidated_at, invalidated_by, invalidated_reason) and changes
nothing else. Only these functions and agent_trust() read the mark.
"""

from __future__ import annotations

from functools import lru_cache

from redis.exceptions import ResponseError

from . import clock, references
from . import values as limits
from .graphs import read
from .values import Refused
from .write.failures import refuse

MAX_REACH = 10_000  # entries followed from what is asked about; past it the answer is cut
MAX_STATES = 10_000  # States drawn from those entries that an answer lists
LEVELS = 8  # levels of citation that one query follows
DEFAULT_NEEDS = 3  # the episodes a playbook needs when it names no number

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


# What rests on a set of entries and their episodes: the States drawn from the entries, the lessons
# supported by the episodes (with how many of their episodes are affected), and the playbooks drawn
# from them (with how many they are drawn from in all, and how many of those are affected).
_RESTS = (
    "CALL { UNWIND $entries AS drawn_id "
    "  MATCH (:Entry {id: drawn_id})<-[:FROM]-(drawn_state:State) "
    "  WITH drawn_state, drawn_id ORDER BY drawn_state.kind, drawn_state.key, drawn_state.valid_from "
    "  WITH collect([drawn_state.kind, drawn_state.key, drawn_state.valid_from, drawn_state.valid_to, "
    "    drawn_state.by, drawn_id]) AS drawn_all "
    "  RETURN drawn_all[..$cap] AS states, size(drawn_all) AS state_count } "
    "CALL { UNWIND $episodes AS support_id "
    "  MATCH (:Episode {id: support_id})<-[:SUPPORTED_BY]-(lesson:Lesson) "
    "  WITH lesson, count(DISTINCT support_id) AS lesson_hit "
    "  RETURN collect([lesson.id, lesson.statement, lesson.support, lesson.against, lesson_hit, "
    "    lesson.retired_at]) AS lessons } "
    "CALL { UNWIND $episodes AS source_id "
    "  MATCH (:Episode {id: source_id})<-[:DRAWN_FROM]-(book:Playbook) "
    "  WITH book, count(DISTINCT source_id) AS book_hit "
    "  MATCH (book)-[:DRAWN_FROM]->(book_source:Episode) "
    "  WITH book, book_hit, count(DISTINCT book_source) AS book_drawn "
    "  RETURN collect([book.id, book.name, book.version, book.enabled, book.needs, book_drawn, "
    "    book_hit]) AS playbooks } "
    "RETURN states, state_count, lessons, playbooks"
)


def _lesson(row: list) -> dict:
    lesson_id, statement, support, against, hit, retired_at = row
    support, against = support or 0, against or 0
    left = support - hit
    return {
        "id": lesson_id,
        "statement": statement,
        "support": support,
        "against": against,
        "affected": hit,
        "left": left,
        "retired": retired_at is not None,
        "at_risk": left < 1 or left <= against,
    }


def _playbook(row: list) -> dict:
    book_id, name, version, enabled, needs, drawn, hit = row
    needs = DEFAULT_NEEDS if needs is None else needs
    return {
        "id": book_id,
        "name": name,
        "version": version,
        "enabled": enabled,
        "needs": needs,
        "drawn_from": drawn,
        "affected": hit,
        "left": drawn - hit,
        "at_risk": drawn - hit < needs,
    }


def _state(row: list) -> dict:
    kind, key, valid_from, valid_to, by, entry = row
    return {
        "kind": kind,
        "key": key,
        "valid_from": clock.from_store(valid_from),
        "valid_to": clock.from_store(valid_to),
        "by": by,
        "entry": entry,
    }


def _shown_entry(entry: dict) -> dict:
    return {name: entry[name] for name in ("id", "episode", "type", "by", "at", "invalidated")}


def _resting(graph, starts: dict[str, dict], citers: dict[str, dict], cut: bool) -> dict:
    """The entries, episodes, States, lessons and playbooks that rest on the given entries."""
    every = {**starts, **citers}
    episodes = sorted({entry["episode"] for entry in every.values() if entry["episode"] is not None})
    result = read(graph, _RESTS, {"entries": sorted(every), "episodes": episodes, "cap": MAX_STATES})
    states, state_count, lessons, playbooks = result[0] if result else ([], 0, [], [])
    ordered = sorted(citers.values(), key=lambda entry: (entry["serial"] or 0, entry["id"]))
    return {
        "entries": [_shown_entry(entry) for entry in ordered],
        "episodes": episodes,
        "states": [_state(row) for row in states],
        "lessons": sorted((_lesson(row) for row in lessons), key=lambda item: item["id"]),
        "playbooks": sorted((_playbook(row) for row in playbooks), key=lambda item: item["id"]),
        "truncated": cut or state_count > MAX_STATES,
    }


def impact_of_entry(graph, entry_id: object) -> dict | None:
    """Everything that rested on an entry; None when there is no such entry.

    {"entry": the entry (id, episode, type, by, at, invalidated), "entries": those that cite it,
    directly or through other entries, oldest first; "episodes": the ids of the episodes that hold it
    or them; "states": the States drawn from any of them (kind, key, valid_from, valid_to, by, entry);
    "lessons": those the episodes support (id, statement, support, against, affected, left, retired,
    at_risk); "playbooks": those drawn from the episodes (id, name, version, enabled, needs, drawn_from,
    affected, left, at_risk); "truncated": True when more than MAX_REACH entries or MAX_STATES States
    rested on it and the lists stop there}. A few queries: one per LEVELS levels of citation, and one
    for the rest. An id that cannot be an entry's raises Refused.
    """
    checked = limits.name(entry_id, "an entry id")
    starts, citers, cut = _reach(graph, [checked])
    if checked not in starts:
        return None
    return {
        "entry": _shown_entry(starts[checked]),
        **_resting(graph, {checked: starts[checked]}, citers, cut),
    }


@lru_cache(maxsize=256)
def _held_query(label: str) -> str:
    # The State that held at the time, the entry it came from (kept on it as `entry`), and the entries
    # that cite the entity at a time inside that State. The entity first, its States without the label
    # State: with the label and one filter more, FalkorDB 4.22 starts from the index on State.valid_from
    # and reads every State.
    return (
        f"MATCH {references.pattern(label, 'thing', '$key')} WITH thing "
        "MATCH (thing)-[:HAS_STATE]->(held) "
        "WHERE held.valid_from <= localdatetime($at) "
        "  AND (held.valid_to IS NULL OR held.valid_to > localdatetime($at)) "
        "WITH thing, held LIMIT 1 "
        "OPTIONAL MATCH (thing)<-[cite:CITES]-(citing:Entry) "
        "WHERE cite.as_of >= held.valid_from AND (held.valid_to IS NULL OR cite.as_of < held.valid_to) "
        "WITH held, collect(DISTINCT citing.id) AS citing_ids "
        "RETURN held.kind, held.key, held.valid_from, held.valid_to, held.by, held.entry, "
        "  citing_ids[..$cap], size(citing_ids)"
    )


def impact_of_state(graph, kind: object, key: object, at: object = None) -> dict | None:
    """What rested on the State of an entity that held at a time (now without one); None when none did.

    {"state": the State (kind, key, valid_from, valid_to, by, entry), "entries": the entries that cite
    the entity at a time inside that State, and those that cite them, oldest first; then "episodes",
    "states", "lessons", "playbooks" and "truncated" as impact_of_entry() gives them for those entries.
    kind is a Kind or an entity's label. Arguments that cannot be used raise Refused.
    """
    label, checked_key = references.parse((kind, key))
    if references.is_record(label):
        raise Refused(f"a State belongs to an entity, not to a {label}")
    try:
        moment = clock.stamp(clock.present() if at is None else clock.parse(at))
    except clock.TimeError as error:
        raise Refused(str(error)) from None
    result = read(graph, _held_query(label), {"key": checked_key, "at": moment, "cap": MAX_REACH + 1})
    if not result:
        return None
    *held, citing_ids, citing_count = result[0]
    if citing_ids:
        direct, further, cut = _reach(graph, citing_ids)
    else:
        direct, further, cut = {}, {}, False
    citers = {**further, **direct}
    cut = cut or citing_count > MAX_REACH
    if cut:
        citers = _nearest(citers)
    return {"state": _state(held), **_resting(graph, {}, citers, cut)}


_MARK = (
    "MATCH (n:Entry {id: $id}) WHERE n.invalidated_at IS NULL "
    "SET n.invalidated_at = localdatetime($now), n.invalidated_by = $by, n.invalidated_reason = $reason "
    "RETURN n.id"
)


def invalidate_entry(graph, entry_id: object, by: object, reason: object) -> dict:
    """Marks an entry as wrong: {"id", "status": "invalidated", "impact": what rested on it}.

    The mark is invalidated_at (now), invalidated_by and invalidated_reason on the entry; nothing else
    changes, and the entry stays where recall, lessons and playbooks find it. impact is what
    impact_of_entry() gives, read before the mark is written. Marked before: {"id", "status":
    "exists"}, with nothing written. Refusals, each kept as a WriteFailure: invalid (an argument that
    cannot be used), unknown (no such entry), failed (FalkorDB refused a query; nothing is marked).
    """
    content = {"id": entry_id, "by": by, "reason": reason}
    try:
        checked = limits.name(entry_id, "an entry id")
        marker = limits.name(by, "by")
        why = limits.text(reason, "the reason")
        if not why.strip():
            raise Refused("an entry is marked wrong with a reason: the reason is empty")
    except Refused as error:
        return refuse(graph, "Entry", entry_id, content, error.reason, str(error), by)
    try:
        marked = read(graph, "MATCH (n:Entry {id: $id}) RETURN n.invalidated_at IS NOT NULL", {"id": checked})
        if not marked:
            return refuse(
                graph, "Entry", checked, content, "unknown", f"there is no entry {checked!r}", marker
            )
        if marked[0][0]:
            return {"id": checked, "status": "exists"}
        impact = impact_of_entry(graph, checked)
        params = {"id": checked, "by": marker, "reason": why, "now": clock.now()}
        written = graph.query(_MARK, params).result_set
    except ResponseError as error:
        return refuse(graph, "Entry", checked, content, "failed", str(error), marker)
    if not written:  # another call marked it between the read and the write
        return {"id": checked, "status": "exists"}
    return {"id": checked, "status": "invalidated", "impact": impact}
