"""history(), as_of(), related(): what an entity held, at any time, in one round trip each.

Arguments are checked before the read: a bad key or time, or a kind that is not a Kind, raises Refused
(a ValueError); a time of a type that is not a time raises WrongType (a TypeError). Database errors pass
as redis.exceptions.ResponseError.
"""

from __future__ import annotations

from functools import lru_cache

from . import clock, values
from .errors import WrongType
from .graphs import read
from .kinds import ENGINE_NAMES, TRUST, TRUST_SHOWN, Kind, is_kind, is_owned, trust_shown
from .values import Refused

# What a State shows besides its values (only those that are set); words stay inside the graph.
_TIMES = ("valid_from", "valid_to", "seen_last", "recorded_at")
_SHOWN = ("by", "fp", "entry")


def checked_entity(kind: object, key: object) -> str | int:
    """The key of an entity of a kind, checked: what every read by key starts from."""
    if not is_kind(kind):
        raise Refused(f"kind must be a Kind, not {values.sort_of(kind)}")
    return values.key(key)


def moment(at: object) -> str:
    """The time a read asks at (now without one), as localdatetime() reads it; Refused or WrongType."""
    if at is None:
        return clock.now()
    return clock.stamp_of(clock.looked_at(at, "when"))


def before_every_time(when: object) -> bool:
    """True for a time (as stamp() takes one) before any the library stores (clock.EARLIEST): nothing held
    then, so a read at it finds nothing, where the database could not compare it right. False for
    anything else, which clock.looked_at() then checks and refuses as it should."""
    try:
        return clock.given(when) and clock.moment_of(when) < clock.EARLIEST
    except (Refused, WrongType):
        return False


def shown(kind: Kind, props: dict) -> dict:
    """A State as the reads give it: its values (declared times as datetime), valid_from, valid_to once
    closed, recorded_at, by, fp, seen_last once set, entry when it has evidence, and trust (with review)
    when a model drew it or a person reviewed it (kinds.trust_shown())."""
    found: dict = {}
    for name, item in props.items():
        if item is None:
            continue
        if name in _TIMES or name in kind.times:
            found[name] = clock.from_store(item)
        elif name in _SHOWN or not is_owned(name):
            found[name] = item
    found.update(trust_shown(props, clock.from_store))
    return found


@lru_cache(maxsize=256)
def _history_query(kind: Kind) -> str:
    return (
        f"MATCH (e:`{kind.label}` {{key: $key}})-[:HAS_STATE]->(s:State) "
        "RETURN properties(s) ORDER BY s.valid_from"
    )


def history(graph, kind, key) -> list[dict]:
    """Every State of an entity, oldest first (by valid_from); [] for an entity that does not exist.

    Refused (a ValueError) for a bad key or a kind that is not a Kind.
    Nothing is written; database errors pass as ResponseError.
    """
    key = checked_entity(kind, key)
    result = read(graph, _history_query(kind), {"key": key})
    return [shown(kind, props) for (props,) in result]


@lru_cache(maxsize=256)
def _as_of_query(kind: Kind) -> str:
    # (s) without :State: with the label, FalkorDB 4.22 started from the index on State.valid_from and
    # read every State before the time (150 ms a call in a graph of 10,000 entities, not 0.4 ms).
    return (
        f"MATCH (e:`{kind.label}` {{key: $key}})-[:HAS_STATE]->(s) "
        "WHERE s.valid_from <= localdatetime($at) AND (s.valid_to IS NULL OR s.valid_to > localdatetime($at)) "
        "RETURN properties(s) LIMIT 1"
    )


# The States of `s` that count at $at: begun by then, and not rejected by a person.
COUNTED_AT = f"s.valid_from <= localdatetime($at) AND coalesce(s.`{TRUST}`, '') <> 'rejected'"


@lru_cache(maxsize=256)
def _counted_as_of_query(kind: Kind) -> str:
    # The newest State begun by the time that a person did not reject: its window, as counted, runs on
    # until the next State that counts, which begins after the time (else it would be the newest).
    return (
        f"MATCH (e:`{kind.label}` {{key: $key}}) WITH e "
        "MATCH (e)-[:HAS_STATE]->(s) "
        f"WHERE {COUNTED_AT} RETURN properties(s) ORDER BY s.valid_from DESC LIMIT 1"
    )


def as_of(graph, kind, key, when, *, rejected: bool = True) -> dict | None:
    """The State with valid_from <= when < valid_to, shaped as history() gives it, or None.

    when is required: None, blank or unparseable raises Refused (a ValueError), as a bad key or a kind
    that is not a Kind does; a type that is not a time, WrongType (a TypeError). A time before any stored
    one (before 2000) finds None. Nothing is written;
    database errors pass as ResponseError.

    rejected (keyword only): False leaves out the States a person rejected (review.py), as the present
    counts them: the State before a rejected one holds on through its window, so the answer is the newest
    State begun by `when` that was not rejected (its stored valid_to may lie before `when`).
    """
    key = checked_entity(kind, key)
    if type(rejected) is not bool:
        raise WrongType("rejected is True or False")
    if before_every_time(when):
        return None
    at = clock.stamp_of(clock.looked_at(when, "when"))
    query = _as_of_query(kind) if rejected else _counted_as_of_query(kind)
    result = read(graph, query, {"key": key, "at": at})
    if not result:
        return None
    return shown(kind, result[0][0])


@lru_cache(maxsize=1024)
def _related_query(kind: Kind, relation: str) -> str:
    target = kind.target(relation)
    # The time is made once, not for each edge and each of its two tests.
    return (
        "WITH localdatetime($at) AS moment "
        f"MATCH (e:`{kind.label}` {{key: $key}})-[r:`{relation}`]->(x:`{target.label}`) "
        "WHERE r.valid_from <= moment AND (r.valid_to IS NULL OR r.valid_to > moment) "
        "RETURN DISTINCT x.key"
    )


def in_key_order(keys: list) -> list:
    """Keys sorted whole numbers first, then names: keys of one type sort as they are (in C, with no
    sort key made for each)."""
    try:
        return sorted(keys)
    except TypeError:  # whole numbers and names together
        return sorted(keys, key=lambda item: (type(item).__name__, item))


def related(graph, kind, key, relation, when=None) -> list:
    """The targets of a relation, sorted: the open edges, or with when, the edges valid then (none before
    2000, before any stored time).

    Refused (a ValueError) for a relation the kind does not declare ("no relation 'X'"), a bad key or a
    blank or unparseable when, or a kind that is not a Kind. Nothing is written; database
    errors pass as ResponseError.
    """
    key = checked_entity(kind, key)
    if type(relation) is not str or relation not in kind.relations:
        raise values.Refused(f"{kind.label} has no relation {values.printable(relation)}")
    if before_every_time(when):
        return []
    result = read(graph, _related_query(kind, relation), {"key": key, "at": moment(when)})
    return in_key_order([row[0] for row in result])


MAX_AMONG = 1_000  # keys one call of entity_keys() looks for
MAX_KEYS = 1_000_000  # keys one call of entity_keys() lists


def entity_keys(graph, kind, among=None, skip=0, limit=None, *, timeout=None) -> list:
    """The keys of the kind's entities, in the order FalkorDB sorts them (names, then whole numbers);
    with among (a list of at most 1,000 keys), only those of them that are entities of the kind. skip
    and limit (None: every one, at most 1,000,000) page the list; timeout: milliseconds, None for the
    server's. A kind that is not a Kind, a key of among that is not a key, or a skip or limit out of
    range raise Refused; among that is not a list or tuple raises WrongType. Nothing is written."""
    if not is_kind(kind):
        raise Refused(f"kind must be a Kind, not {values.sort_of(kind)}")
    if among is not None:
        if type(among) not in (list, tuple):
            raise WrongType(f"among is a list of keys, not {values.sort_of(among)}")
        if len(among) > MAX_AMONG:
            raise Refused(f"among holds at most {MAX_AMONG:,} keys, not {len(among):,}")
        among = list(dict.fromkeys(values.key(one, "a key of among") for one in among))
    skip = values.whole(skip, "skip", 0, MAX_KEYS)
    limit = MAX_KEYS if limit is None else values.whole(limit, "limit", 0, MAX_KEYS)
    found = read(
        graph,
        f"MATCH (e:Entity:`{kind.label}`) WHERE $among IS NULL OR e.key IN $among "
        "RETURN e.key ORDER BY e.key SKIP $skip LIMIT $limit",
        {"among": among, "skip": skip, "limit": limit},
        timeout,
    )
    return [row[0] for row in found]


_NOT_VALUES = ENGINE_NAMES | set(TRUST_SHOWN)


def state_values(kind, state) -> dict:
    """The entity's own values in a State as history() and as_of() give it: without what the library
    shows beside them (valid_from, valid_to, recorded_at, by, fp, seen_last, entry, trust, review) and
    without the key. A kind that is not a Kind raises Refused; a state that is not a dict raises
    WrongType. Nothing is read."""
    if not is_kind(kind):
        raise Refused(f"kind must be a Kind, not {values.sort_of(kind)}")
    if type(state) is not dict:
        raise WrongType(f"state is a State as history() gives it, not {values.sort_of(state)}")
    return {name: item for name, item in state.items() if name not in _NOT_VALUES and name != kind.key}
