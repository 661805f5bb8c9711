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
from .graphs import read
from .kinds import OWNED_NAMES, Kind
from .values import Refused
from .write.rows import typed

MAX_STATES = 100_000  # States that began in the window: more is refused, ask for a shorter window


def _window(start: object, end: object) -> tuple[datetime, datetime]:
    try:
        begin, finish = clock.parse(start), clock.parse(end)
    except clock.TimeError as error:
        raise Refused(str(error)) from None
    if begin >= finish:
        raise Refused("the window is (start, end]: start must be before end")
    return begin, finish


def _kinds(kinds: object) -> dict[str, Kind]:
    return {kind.label: kind for kind in checked_kinds(kinds)}


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
        "  AND began.kind IN $labels "
        "WITH began LIMIT $cap "
        "MATCH (thing:Entity)-[:HAS_STATE]->(began) "
        "WITH thing, began ORDER BY began.valid_from "
        "WITH thing, collect(began) AS inside "
        "WITH thing, inside, inside[0] AS first_inside, inside[size(inside) - 1] AS last_inside "
        "OPTIONAL MATCH (before:State)-[:NEXT]->(first_inside) "
        "WITH thing, inside, last_inside, before "
        f"{relations}"
        "RETURN last_inside.kind, thing.key, size(inside), properties(before), properties(last_inside), "
        f"{listed}"
    )


def _values(kind: Kind, props: dict | None) -> dict:
    if props is None:
        return {}
    return {
        name: clock.from_store(item) if name in kind.times else item
        for name, item in props.items()
        if name not in OWNED_NAMES and name != kind.key
    }


def _changes(before: dict, after: dict) -> dict:
    """{name: {"before", "after"}} for each value that differs, with types (1, 1.0 and True differ)."""
    changed = {}
    for name in sorted(set(before) | set(after)):
        old, new = before.get(name), after.get(name)
        if (old is None) != (new is None) or (old is not None and typed(old) != typed(new)):
            changed[name] = {"before": old, "after": new}
    return changed


def _order(item: dict) -> tuple:
    return (item["kind"], isinstance(item["key"], str), item["key"])


def _target(item: dict) -> tuple:
    return (isinstance(item["target"], str), item["target"])


def diff_between(graph, kinds: object, start: object, end: object) -> dict:
    """What changed in the window (start, end] for the entities of the given kinds.

    {"start", "end": the window as UTC datetimes,
     "began": entities whose first State began in the window,
     "changed": entities that existed at start and had a State begin in the window,
     "relations": {"began": [...], "ended": [...]}: relation edges that began or ended in it}.
    An entity is {"kind", "key", "versions": States that began in the window, "values": {name:
    {"before", "after"}} for each value that differs between start and end (before is None for an
    entity that began)}. A relation is {"kind", "key", "relation", "target_kind", "target", "at"}.
    The library never ends an entity, so none is listed as ended; relations end. One query; a window
    in which more than MAX_STATES States began is refused (Refused), as are times that cannot be read
    and a window whose start is not before its end.
    """
    chosen = _kinds(kinds)
    window = _window(start, end)
    types = tuple(sorted({relation for kind in chosen.values() for relation in kind.relations}))
    params = {
        "start": clock.stamp_of(window[0]),
        "end": clock.stamp_of(window[1]),
        "labels": sorted(chosen),
        "cap": MAX_STATES + 1,
    }
    rows = read(graph, _diff_query(types), params)
    if sum(row[2] for row in rows) > MAX_STATES:
        raise Refused(f"more than {MAX_STATES:,} versions began in the window: ask for a shorter one")
    found: dict = {"began": [], "changed": [], "relations": {"began": [], "ended": []}}
    for label, key, versions, before, after, links in rows:
        kind = chosen[label]
        entity = {
            "kind": label,
            "key": key,
            "versions": versions,
            "values": _changes(_values(kind, before), _values(kind, after)),
        }
        found["began" if before is None else "changed"].append(entity)
        for relation, target, valid_from, valid_to in (one for one in links if one):
            if relation not in kind.relations:  # another kind's relation of the same name
                continue
            link = {
                "kind": label,
                "key": key,
                "relation": relation,
                "target_kind": kind.target(relation).label,
                "target": target,
            }
            opened, closed = clock.from_store(valid_from), clock.from_store(valid_to)
            if window[0] < opened <= window[1]:
                found["relations"]["began"].append({**link, "at": opened})
            if closed is not None and window[0] < closed <= window[1]:
                found["relations"]["ended"].append({**link, "at": closed})
    for name in ("began", "changed"):
        found[name].sort(key=_order)
    for name in ("began", "ended"):
        found["relations"][name].sort(
            key=lambda item: (*_order(item), item["at"], item["relation"], *_target(item))
        )
    return {"start": window[0], "end": window[1], **found}
