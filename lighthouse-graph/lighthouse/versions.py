"""An entity's versions as a person reads them: the newest States with their count, the windows of its
relation edges, and the differences between two versions or between two times.

A difference is {"before", "after", "values": {"added", "changed", "removed"}, "relations": {"added",
"removed"}}: before and after are States shaped as history() gives them (or None); changed maps a name to
[old, new]; relations are [relation, target label, target key], those valid at each State's start (edges
begin and end only where States begin). At two
times the States compared are those that count (read.as_of(..., rejected=False)); two versions are the
States that began at the two times, whatever their trust. Arguments are checked first (Refused or
WrongType); nothing is written; database errors pass as ResponseError.
"""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache

from . import clock, values
from .graphs import read
from .kinds import ENGINE_NAMES, TRUST_SHOWN, Kind
from .read import as_of, checked_entity, shown

MOST_STATES = 10_000  # States one read gives at most
MOST_WINDOWS = 5_000  # relation edges one read gives at most
NOT_VALUES = ENGINE_NAMES | set(TRUST_SHOWN) | {"valid_to"}


def values_of(state: dict | None) -> dict:
    """The values of a State as history() gives it, without what the engine and a review add."""
    return {name: value for name, value in (state or {}).items() if name not in NOT_VALUES}


@lru_cache(maxsize=256)
def _newest_query(kind: Kind) -> str:
    return (
        f"MATCH (e:`{kind.label}` {{key: $key}})-[:HAS_STATE]->(s:State) WITH e, count(s) AS total "
        "MATCH (e)-[:HAS_STATE]->(s:State) WITH total, s ORDER BY s.valid_from DESC LIMIT $last "
        "RETURN total, properties(s)"
    )


def recent_history(graph, kind, key, last=2_000) -> dict:
    """The newest `last` States of an entity (1 to 10,000), oldest first and shaped as history() gives
    them, and how many it has in all: {"states", "total"}. One query, so a long history costs only its
    window."""
    key = checked_entity(kind, key)
    last = values.whole(last, "last", 1, MOST_STATES)
    found = read(graph, _newest_query(kind), {"key": key, "last": last})
    return {
        "states": [shown(kind, props) for _total, props in reversed(found)],
        "total": found[0][0] if found else 0,
    }


@lru_cache(maxsize=256)
def _windows_query(kind: Kind) -> str:
    return (
        f"MATCH (e:`{kind.label}`:Entity {{key: $key}})-[r]->(x:Entity) WHERE type(r) IN $types "
        "RETURN type(r), x.key, r.valid_from, r.valid_to, r.by, r.recorded_at "
        "ORDER BY type(r), x.key, r.valid_from LIMIT $most"
    )


def relation_windows(graph, kind, key, limit=MOST_WINDOWS) -> list[dict]:
    """Every edge of the kind's relations from the entity, by relation, target and start: [{"relation",
    "target", "target_label", "valid_from", "valid_to" (None while open), "by", "recorded_at"}]. limit 1
    to 5,000."""
    key = checked_entity(kind, key)
    limit = values.whole(limit, "limit", 1, MOST_WINDOWS)
    if not kind.relations:
        return []
    found = read(graph, _windows_query(kind), {"key": key, "types": sorted(kind.relations), "most": limit})
    return [
        {
            "relation": relation,
            "target": target,
            "target_label": kind.target(relation).label,
            "valid_from": clock.from_store(since),
            "valid_to": clock.from_store(until),
            "by": by,
            "recorded_at": clock.from_store(recorded),
        }
        for relation, target, since, until, by, recorded in found
    ]


def relations_at(windows: list[dict], moment: datetime | None) -> set[tuple]:
    """The (relation, target label, target) valid at a moment among windows as relation_windows() gives."""
    if moment is None:
        return set()
    return {
        (w["relation"], w["target_label"], w["target"])
        for w in windows
        if w["valid_from"] is not None
        and w["valid_from"] <= moment
        and (w["valid_to"] is None or w["valid_to"] > moment)
    }


def differences(before: dict | None, after: dict | None, linked_before: set, linked_after: set) -> dict:
    """The difference of two States and the relations valid with each, in the shape the module names."""
    old, new = values_of(before), values_of(after)
    return {
        "before": before,
        "after": after,
        "values": {
            "added": {name: new[name] for name in sorted(new) if name not in old},
            "changed": {
                name: [old[name], new[name]] for name in sorted(new) if name in old and old[name] != new[name]
            },
            "removed": {name: old[name] for name in sorted(old) if name not in new},
        },
        "relations": {
            "added": [list(link) for link in sorted(linked_after - linked_before, key=repr)],
            "removed": [list(link) for link in sorted(linked_before - linked_after, key=repr)],
        },
    }


def entity_diff(graph, kind, key, t1, t2) -> dict:
    """What changed for an entity from t1 to t2: the States that count at each time (None where none
    holds) and the relations valid at each."""
    key = checked_entity(kind, key)
    first, second = clock.looked_at(t1, "t1"), clock.looked_at(t2, "t2")
    windows = relation_windows(graph, kind, key)
    before = as_of(graph, kind, key, first, rejected=False)
    after = as_of(graph, kind, key, second, rejected=False)
    # Edges begin and end only where States begin: a State's relations are those valid at its start (a
    # rejected State after it may have ended them since, and does not count).
    linked = [relations_at(windows, state["valid_from"]) if state else set() for state in (before, after)]
    return differences(before, after, linked[0], linked[1])


@lru_cache(maxsize=256)
def _began_query(kind: Kind) -> str:
    return (
        f"MATCH (:`{kind.label}` {{key: $key}})-[:HAS_STATE]->(s) "
        "WHERE s.valid_from = localdatetime($from) RETURN properties(s) LIMIT 1"
    )


def version_began(graph, kind: Kind, key, given: object, name: str) -> dict:
    """The State of a checked entity that began at the time given (its argument's name), shaped as
    history() gives it; Refused when none did."""
    start = clock.stamp_of(clock.looked_at(given, name))
    rows = read(graph, _began_query(kind), {"key": key, "from": start})
    if not rows:
        raise values.Refused(
            f"{kind.label} {values.printable(key)} has no version beginning at {start}Z ({name})"
        )
    return shown(kind, rows[0][0])


def version_diff(graph, kind, key, from1, from2) -> dict:
    """What changed from the version that began at from1 to the one that began at from2 (their trust
    whatever it is); Refused when the entity has no version beginning at one of them."""
    key = checked_entity(kind, key)
    found = [version_began(graph, kind, key, from1, "from1"), version_began(graph, kind, key, from2, "from2")]
    windows = relation_windows(graph, kind, key)
    before, after = found
    linked = [relations_at(windows, state["valid_from"]) for state in found]
    return differences(before, after, linked[0], linked[1])
