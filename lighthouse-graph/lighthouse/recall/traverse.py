"""pointing_at() and similar(): what is found by following relation edges, one round trip each.

The rule of both: the arguments are checked before anything is asked; a bad value raises Refused (a
ValueError), a time of a type that is not a time raises WrongType (a TypeError), and nothing is written.
"""

from __future__ import annotations

from functools import lru_cache

from .. import clock, values
from ..graphs import read
from ..kinds import Kind
from ..read import in_key_order
from ..values import Refused
from .text import STOP_AFTER, bounded, checked_kind, checked_limit, checked_timeout, key_order

MAX_RELATIONS = 200  # relations one similar() may name


def _in_order(item: object) -> tuple[str, object]:
    """Keys of both types in one stable order: whole numbers before names."""
    return (type(item).__name__, item)


def _relation(kind: Kind, relation: object) -> str:
    if type(relation) is not str or relation not in kind.relations:
        raise Refused(f"{kind.label} has no relation {values.printable(relation)}")
    return relation


def _holds(edge: str, at: str) -> str:
    """The edge held at the time the parameter names: begun at or before it, and not ended by then."""
    return (
        f"{edge}.valid_from <= localdatetime(${at}) "
        f"AND ({edge}.valid_to IS NULL OR {edge}.valid_to > localdatetime(${at}))"
    )


@lru_cache(maxsize=1024)
def _pointing_query(kind: Kind, relation: str) -> str:
    target = kind.target(relation)
    # The time is made once, and the keys come back as one list: a team that 750 devices point at
    # cost 750 rows to send and read. A key twice (two edges held at once) is dropped here: DISTINCT in
    # the query cost a tenth of it (0.78 against 0.68 ms in FalkorDB, 225 devices, medians).
    return (
        "WITH localdatetime($at) AS moment "
        f"MATCH (x:`{target.label}` {{key: $target}})<-[r:`{relation}`]-(e:`{kind.label}`) "
        "WHERE r.valid_from <= moment AND (r.valid_to IS NULL OR r.valid_to > moment) "
        "RETURN collect(e.key)"
    )


def pointing_at(graph, kind: Kind, relation: str, key: object, when: object = None) -> list:
    """The keys of the entities of a kind whose relation to the target key held at `when` (now without
    one), sorted (whole numbers first), each once.

    pointing_at(graph, DEVICE, "LOCATED_IN", "r2") gives the devices in room r2 now. Arguments are
    checked first and nothing is written: Refused for
    a relation the kind does not declare ("no relation"), a bad key, or a blank or bad when. Database
    errors pass as ResponseError.
    """
    kind = checked_kind(kind)
    relation = _relation(kind, relation)
    target = values.key(key)
    # None is now; a blank or bad time is refused (TimeError), a type that is not a time is WrongType.
    at = clock.now() if when is None else clock.stamp_of(clock.looked_at(when, "when"))
    result = read(graph, _pointing_query(kind, relation), {"target": target, "at": at})
    return in_key_order(set(result[0][0])) if result else []


@lru_cache(maxsize=1024)
def _similar_query(kind: Kind, relations: tuple[str, ...]) -> str:
    types = "|".join(f"`{relation}`" for relation in relations)
    order = f"ORDER BY shared DESC, {key_order('found')} LIMIT $limit "
    # The entity's relations that hold now, then every edge of the same type into the same target,
    # closed or open, so an entity that shared a target in the past is found too. Peers are counted
    # first and only the best get their pairs listed: a list for every peer costs more than the count.
    return (
        f"MATCH (e:`{kind.label}` {{key: $key}})-[r:{types}]->(x) WHERE {_holds('r', 'now')} "
        "WITH DISTINCT e, type(r) AS rel, x "
        f"MATCH (x)<-[other:{types}]-(peer:`{kind.label}`) WHERE type(other) = rel AND id(peer) <> id(e) "
        "WITH DISTINCT e, peer, rel, x "
        "WITH e, peer, count(*) AS shared "
        f"WITH e, peer, shared, peer.key AS found {order}"
        f"MATCH (e)-[mine:{types}]->(y)<-[theirs:{types}]-(peer) "
        f"WHERE type(mine) = type(theirs) AND {_holds('mine', 'now')} "
        "WITH peer, found, shared, collect(DISTINCT [type(mine), y.key]) AS through "
        f"RETURN found, shared, through {order}"
    )


def _chosen(kind: Kind, relations: object) -> tuple[str, ...]:
    """The relations similar() follows: those named, or all the kind declares; at least one."""
    if relations is None:
        chosen = tuple(sorted(kind.relations))
    elif type(relations) in (list, tuple) and len(relations) <= MAX_RELATIONS:
        chosen = tuple(sorted({_relation(kind, relation) for relation in relations}))
    else:
        raise Refused(f"relations must be None or a list of 1 to {MAX_RELATIONS} relations of the kind")
    if not chosen:
        raise Refused(f"relations must name at least one relation, and {kind.label} has none to follow")
    return chosen


def similar(
    graph,
    kind: Kind,
    key: object,
    relations: object = None,
    limit: int = 10,
    *,
    timeout: int = STOP_AFTER,
) -> list[dict]:
    """Entities of the same kind that share relation targets with an entity, those sharing most first.

    Returns [{"key", "shared": how many (relation, target) pairs, "through": those pairs, sorted}].
    The entity's relations that hold now are compared with every relation the others ever had, so
    entities of the past are found. Ties in key order; the entity itself is never listed, and an
    unknown one gives []. relations: a non-empty list of declared relations (None: all the kind
    declares). Arguments are checked first and nothing is written: Refused for a bad key, relations (also None
    on a kind with none) or limit; timeout (keyword only, milliseconds, at most 5,000): past it, TooSlow.
    """
    kind = checked_kind(kind)
    key = values.key(key)
    chosen = _chosen(kind, relations)
    limit, timeout = checked_limit(limit), checked_timeout(timeout)
    params = {"key": key, "now": clock.now(), "limit": limit}
    found = []
    for peer, shared, through in bounded(graph, _similar_query(kind, chosen), params, timeout):
        pairs = sorted(
            ((rel, target) for rel, target in through), key=lambda pair: (pair[0], *_in_order(pair[1]))
        )
        found.append({"key": peer, "shared": shared, "through": pairs})
    return found
