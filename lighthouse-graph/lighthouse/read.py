"""history(), as_of(), related(): what an entity held, at any time, in one round trip each."""

from __future__ import annotations

from functools import lru_cache

from . import clock, values
from .graphs import read
from .kinds import OWNED_NAMES, Kind
from .values import Refused

# What a State shows besides its values; words stay inside the graph.
_TIMES = ("valid_from", "valid_to", "seen_last", "recorded_at")


def checked_entity(kind: object, key: object) -> str | int:
    """The key of an entity of a kind, checked: what every read by key starts from."""
    if not isinstance(kind, Kind):
        raise Refused(f"kind must be a Kind, not {type(kind).__name__}")
    return values.key(key)


def moment(at: object) -> str:
    """The time a read asks at (now without one), as localdatetime() reads it, or Refused."""
    if at is None:
        return clock.now()
    try:
        return clock.stamp(clock.parse(at))
    except clock.TimeError as error:
        raise Refused(str(error)) from None


def shown(kind: Kind, props: dict, entry: str | None) -> dict:
    """A State as the reads give it: its values, when it held, who wrote it, and the entry it came from."""
    found: dict = {}
    for name, item in props.items():
        if name in _TIMES or name in kind.times:
            found[name] = clock.from_store(item)
        elif name == "by" or name not in OWNED_NAMES:
            found[name] = item
    found.setdefault("valid_to", None)
    found.setdefault("seen_last", None)
    found["entry"] = entry
    return found


@lru_cache(maxsize=256)
def _history_query(kind: Kind) -> str:
    return (
        # A State keeps the id of the entry it came from (beside its FROM edge): one step less to read.
        f"MATCH (e:`{kind.label}` {{key: $key}})-[:HAS_STATE]->(s:State) "
        "RETURN properties(s), s.entry ORDER BY s.valid_from"
    )


def history(graph, kind: Kind, key: object) -> list[dict]:
    """Every version of an entity, oldest first: its values, valid_from, valid_to, seen_last, by, entry."""
    key = checked_entity(kind, key)
    result = read(graph, _history_query(kind), {"key": key})
    return [shown(kind, props, entry) for props, entry in result]


@lru_cache(maxsize=256)
def _as_of_query(kind: Kind) -> str:
    # (s) without :State: with the label, FalkorDB 4.22 started from the index on State.valid_from and
    # read every State before the time (150 ms a call in a graph of 10,000 entities, not 0.4 ms).
    return (
        f"MATCH (e:`{kind.label}` {{key: $key}})-[:HAS_STATE]->(s) "
        "WHERE s.valid_from <= localdatetime($at) AND (s.valid_to IS NULL OR s.valid_to > localdatetime($at)) "
        "RETURN properties(s), s.entry LIMIT 1"
    )


def as_of(graph, kind: Kind, key: object, at: object = None) -> dict | None:
    """The State that held at a time (now without one), or None when the entity did not exist then."""
    key = checked_entity(kind, key)
    result = read(graph, _as_of_query(kind), {"key": key, "at": moment(at)})
    if not result:
        return None
    props, entry = result[0]
    return shown(kind, props, entry)


@lru_cache(maxsize=1024)
def _related_query(kind: Kind, relation: str) -> str:
    target = kind.target(relation)
    return (
        f"MATCH (e:`{kind.label}` {{key: $key}})-[r:`{relation}`]->(x:`{target.label}`) "
        "WHERE r.valid_from <= localdatetime($at) AND (r.valid_to IS NULL OR r.valid_to > localdatetime($at)) "
        "RETURN DISTINCT x.key"
    )


def related(graph, kind: Kind, key: object, relation: str, at: object = None) -> list:
    """The targets of a relation that held at a time (now without one), sorted."""
    key = checked_entity(kind, key)
    if not isinstance(relation, str) or relation not in kind.relations:
        raise Refused(f"{kind.label} has no relation {values.shown(relation)}")
    result = read(graph, _related_query(kind, relation), {"key": key, "at": moment(at)})
    return sorted((row[0] for row in result), key=lambda item: (type(item).__name__, item))
