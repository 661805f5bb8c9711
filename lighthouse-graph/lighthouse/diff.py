"""diff_between(): what changed between two times.

A State begins when its entity's values or relations change, and a relation edge begins or ends only
when a State of its entity begins (the write rule moves both together). So every change in a window is
found from the States that began in it, read through the range index on State.valid_from: the cost is
what changed, not the size of the graph. Times are those at which things were true, as the graph
knows them now: a late row that was put into the window shows there.
"""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache

from . import clock
from .algorithms.scope import checked_kinds
from .episodes import closed_at
from .graphs import read
from .kinds import STATE_KIND, Kind, is_owned
from .values import Refused
from .write.rows import typed

MAX_VERSIONS = 100_000  # States that began in the window: more is refused, ask for a shorter window


def _window(start: object, end: object) -> tuple[datetime, datetime]:
    begin, finish = clock.looked_at(start, "t1"), clock.looked_at(end, "t2")
    if begin > finish:
        raise Refused("the window is (t1, t2]: t1 must not be later than t2")
    return begin, finish


@lru_cache(maxsize=256)
def _diff_query(relation_types: tuple[str, ...]) -> str:
    # States that began in the window, by the index; per entity: the first and the last of them, the
    # State before the first (through NEXT: States of an entity follow one another without a gap), and
    # the relation edges that began or ended in the window. The types are plain names from Kinds.
    relations = ""
    if relation_types:
        joined = "|".join(f"`{name}`" for name in relation_types)
        relations = (
            f"OPTIONAL MATCH (thing)-[link:{joined}]->(target:Entity) "
            "WHERE (link.valid_from > localdatetime($start) AND link.valid_from <= localdatetime($end)) "
            "  OR (link.valid_to > localdatetime($start) AND link.valid_to <= localdatetime($end)) "
        )
    listed = (
        "collect(CASE WHEN link IS NULL THEN null ELSE "
        "[type(link), target.key, link.valid_from, link.valid_to] END)"
        if relation_types
        else "[]"
    )
    return (
        "MATCH (began:State) "
        "WHERE began.valid_from > localdatetime($start) AND began.valid_from <= localdatetime($end) "
        f"  AND began.`{STATE_KIND}` IN $labels "
        "WITH began LIMIT $cap "
        "MATCH (thing:Entity)-[:HAS_STATE]->(began) "
        "WITH thing, began ORDER BY began.valid_from "
        "WITH thing, collect(began) AS inside "
        "WITH thing, inside, inside[0] AS first_inside, inside[size(inside) - 1] AS last_inside "
        "OPTIONAL MATCH (before:State)-[:NEXT]->(first_inside) "
        "WITH thing, inside, last_inside, before "
        f"{relations}"
        f"RETURN last_inside.`{STATE_KIND}`, thing.key, size(inside), properties(before), properties(last_inside), "
        f"{listed}"
    )


def _values(kind: Kind, props: dict | None) -> dict:
    if props is None:
        return {}
    return {
        name: clock.from_store(item) if name in kind.times else item
        for name, item in props.items()
        if not is_owned(name) and name != kind.key
    }


_EPISODES = (
    f"MATCH (ep:Episode) WITH ep, {closed_at('ep')} AS ended "
    "WHERE (ep.opened_at > localdatetime($start) AND ep.opened_at <= localdatetime($end)) "
    "  OR (ended > localdatetime($start) AND ended <= localdatetime($end)) "
    "RETURN ep.id, ep.opened_at > localdatetime($start) AND ep.opened_at <= localdatetime($end), "
    "  ended IS NOT NULL AND ended > localdatetime($start) AND ended <= localdatetime($end)"
)


def _changed_keys(before: dict, after: dict) -> list[str]:
    """The names of the values that differ, with types (1, 1.0 and True differ), sorted."""
    return [
        name
        for name in sorted(set(before) | set(after))
        if (name in before) != (name in after) or typed(before[name]) != typed(after[name])
    ]


def _order(entity: tuple) -> tuple:
    return (entity[0], isinstance(entity[1], str), entity[1])


def diff_between(graph, kinds: list, t1: object, t2: object) -> dict:
    """What changed in the window (t1, t2] for the entities of the given kinds; t1 == t2 is allowed.

    {"from_time", "to_time": the window as 'YYYY-MM-DDTHH:MM:SS' text,
     "entities_added": [{"entity": (label, key), "values"}]: entities whose first State began in it,
     "values_changed": [{"entity", "before", "after", "changed_keys"}]: entities that existed at t1 and
       whose values differ at t2 (before and after are their values then),
     "relations_opened": [{"from", "relation", "to", "since"}], "relations_closed": [{"from",
       "relation", "to", "until"}]: relation edges that began or ended in it,
     "episodes_opened", "episodes_closed": the sorted ids of the episodes opened or closed in it}.
    Two queries, each through an index or the episodes; a window in which more than MAX_VERSIONS States
    began is refused. Arguments are checked before anything is read: kinds not a list or tuple of Kind
    raises WrongType, an empty kinds ("at least one kind"), a missing or bad time or t1 later than t2
    ("not be later") Refused. Database errors propagate.
    """
    chosen = {kind.label: kind for kind in checked_kinds(kinds)}
    window = _window(t1, t2)
    types = tuple(sorted({relation for kind in chosen.values() for relation in kind.relations}))
    params = {
        "start": clock.stamp_of(window[0]),
        "end": clock.stamp_of(window[1]),
        "labels": sorted(chosen),
        "cap": MAX_VERSIONS + 1,
    }
    rows = read(graph, _diff_query(types), params) if window[0] < window[1] else []
    if sum(row[2] for row in rows) > MAX_VERSIONS:
        raise Refused(f"more than {MAX_VERSIONS:,} versions began in the window: ask for a shorter one")
    added, changed, opened, closed = [], [], [], []
    for label, key, _versions, before, after, links in rows:
        kind = chosen[label]
        entity = (label, key)
        now_values = _values(kind, after)
        if before is None:
            added.append({"entity": entity, "values": now_values})
        else:
            was = _values(kind, before)
            keys = _changed_keys(was, now_values)
            if keys:
                changed.append({"entity": entity, "before": was, "after": now_values, "changed_keys": keys})
        for relation, target, valid_from, valid_to in (one for one in links if one):
            if relation not in kind.relations:  # another kind's relation of the same name
                continue
            step = {"from": entity, "relation": relation, "to": (kind.target(relation).label, target)}
            began, ended = clock.from_store(valid_from), clock.from_store(valid_to)
            if window[0] < began <= window[1]:
                opened.append({**step, "since": began})
            if ended is not None and window[0] < ended <= window[1]:
                closed.append({**step, "until": ended})
    episodes = read(graph, _EPISODES, params) if window[0] < window[1] else []
    added.sort(key=lambda item: _order(item["entity"]))
    changed.sort(key=lambda item: _order(item["entity"]))
    for listed, moment in ((opened, "since"), (closed, "until")):
        listed.sort(
            key=lambda item: (*_order(item["from"]), item[moment], item["relation"], *_order(item["to"]))
        )
    return {
        "from_time": params["start"],
        "to_time": params["end"],
        "entities_added": added,
        "values_changed": changed,
        "relations_opened": opened,
        "relations_closed": closed,
        "episodes_opened": sorted(row[0] for row in episodes if row[1]),
        "episodes_closed": sorted(row[0] for row in episodes if row[2]),
    }
