"""hand_off(), accept(), handoffs_for(): work passed from one agent to another, pointing at the record.

A handoff holds no copy of what it passes: it points at entries, episodes, entities, lessons or
playbooks that exist. (giver:Agent)-[:GAVE]->(h:Handoff {id, by, to, at, recorded_at, accepted_at,
content, v_<name>...})-[:TO]->(receiver:Agent), (h)-[:POINTS_TO {as_of}]->(thing). Its values are kept as
entries keep theirs: JSON in `content` for reads, each under v_<name> for queries.
"""

from __future__ import annotations

import json
from functools import lru_cache

from redis.exceptions import ResponseError

from . import clock, references
from . import values as limits
from .episodes import VALUE_PREFIX
from .errors import Refused, WrongType
from .graphs import read
from .write.failures import refuse, refused

MAX_LIMIT = 1_000

# The names a handoff's values may not use (API 2.6): its own fields as handoffs_for() gives them.
HANDOFF_FIELDS = frozenset({"id", "by", "to", "at", "recorded_at", "accepted_at", "points_to"})

MISSING = "something it points at does not exist"


_GIVEN = "(old:Handoff {id: $id})"


@lru_cache(maxsize=512)
def _giving(names: tuple[str, ...]) -> str:
    """What hand_off() writes, by references.made_where_found(): the handoff between its giver and its
    receiver, every property in its CREATE (a SET after it cost time for each node of the graph)."""
    given = "".join(f", `{VALUE_PREFIX}{name}`: $value_{number}" for number, name in enumerate(names))
    return (
        "MERGE (giver:Agent {name: $by}) "
        "MERGE (receiver:Agent {name: $to}) "
        "CREATE (giver)-[:GAVE]->(h:Handoff {id: $id, by: $by, to: $to, at: localdatetime($at), "
        f"  recorded_at: localdatetime($now), content: $content{given}}})-[:TO]->(receiver)"
    )


def _pointing(node: str) -> str:
    return f"CREATE (h)-[:POINTS_TO {{as_of: localdatetime($at)}}]->({node})"


def hand_off(
    graph,
    handoff_id: object,
    by: object,
    to: object,
    points_to: object,
    values: object = None,
    at: object = None,
) -> dict:
    """Passes work to another agent: {"id", "status": "given"}, or "exists" (the id is taken: nothing
    changes, so its receiver and what it points at are never replaced).

    handoff_id, by and to are checked first: one that is not a name raises Refused (a ValueError) and
    nothing is written. The content never raises: points_to (references to entities and records, at
    least one, each of which must exist: else "missing"), values (names other than id, by, to, at,
    recorded_at, accepted_at, points_to), at (when it was given, now without one) or a size over 200,000
    characters give a refusal receipt kept as a WriteFailure; a database error gives "failed". An agent
    may hand work to itself (to == by), as the API's list of refusals allows. One query when it is given.
    """
    handoff = limits.name(handoff_id, "a handoff id")
    giver = limits.name(by, "by")
    receiver = limits.name(to, "to")
    content: object = {"to": receiver, "points_to": points_to, "values": values, "at": at}
    try:
        content = limits.plain(content, "the handoff")
        things = references.parse_all(content["points_to"], "points_to", entity_label=False)
        if not things:
            raise Refused("a handoff must point at something: an entry, an episode, an entity, a lesson")
        checked = limits.record_values(content["values"], HANDOFF_FIELDS, "handoff")
        given = clock.written_at(content["at"])
        limits.measured({"points_to": things, "values": checked}, "a handoff")
    except Refused as error:
        return refused(graph, "Handoff", handoff, content, error.reason, str(error), giver)
    names = tuple(checked)
    params = {f"value_{number}": checked[name] for number, name in enumerate(names)}
    params.update(
        {
            "id": handoff,
            "by": giver,
            "to": receiver,
            "at": given,
            "now": clock.now(),
            "content": json.dumps(checked, ensure_ascii=False),
        }
    )
    try:
        outcome = references.made_where_found(graph, things, _GIVEN, _giving(names), _pointing, params)
    except ResponseError as error:
        return refused(graph, "Handoff", handoff, content, "failed", str(error), giver)
    if outcome == "missing":
        return refused(graph, "Handoff", handoff, content, "missing", MISSING, giver)
    return {"id": handoff, "status": "given" if outcome == "made" else "exists"}


# Reads the receiver and marks the handoff in one query, so two agents that accept at the same moment
# cannot both be the one that accepted it.
_ACCEPT = (
    "OPTIONAL MATCH (h:Handoff {id: $id}) "
    "WITH h, h.to AS receiver, h.accepted_at IS NOT NULL AS before "
    "FOREACH (taking IN CASE WHEN receiver = $by AND NOT before THEN [h] ELSE [] END | "
    "  SET taking.accepted_at = localdatetime($now)) "
    "RETURN h IS NOT NULL, receiver, before"
)


def accept(graph, handoff_id: object, by: object) -> dict:
    """The receiver takes the handoff: {"id", "status": "accepted"}, once; "exists" when it already did.

    Names that are not names raise Refused (a ValueError). Refusals, each kept as a WriteFailure: "refused"
    (by is not the receiver, the giver included), "unknown" (no such handoff). A database error raises
    redis.exceptions.ResponseError. One query when it is accepted.
    """
    handoff = limits.name(handoff_id, "a handoff id")
    taker = limits.name(by, "by")
    known, receiver, before = graph.query(
        _ACCEPT, {"id": handoff, "by": taker, "now": clock.now()}
    ).result_set[0]
    if not known:
        refuse(graph, "Handoff", handoff, {"accept": handoff}, "unknown", "the handoff does not exist", taker)
        return {"id": None, "status": "unknown", "reason": "the handoff does not exist"}
    if receiver != taker:
        reason = "only the receiver of a handoff can accept it"
        refuse(graph, "Handoff", handoff, {"accept": handoff}, "refused", reason, taker)
        return {"id": None, "status": "refused", "reason": reason}
    return {"id": handoff, "status": "exists" if before else "accepted"}


# The agent first: with the filter on h in the same MATCH, FalkorDB 4.22 read every Handoff.
_FOR = (
    "MATCH (taker:Agent {{name: $agent}}) WITH taker "
    "MATCH (taker)<-[:TO]-(h:Handoff) "
    "WHERE NOT $waiting OR h.accepted_at IS NULL "
    "WITH h ORDER BY h.at, h.id{limit} "
    "OPTIONAL MATCH (h)-[:POINTS_TO]->(thing) "
    "RETURN h.id, h.by, h.to, h.at, h.recorded_at, h.accepted_at, h.content, "
    "  collect(CASE WHEN thing IS NULL THEN null ELSE [labels(thing), thing.id, thing.key] END)"
)


def _shown(row: list) -> dict:
    handoff, giver, receiver, at, recorded_at, accepted_at, content, things = row
    shown = {**json.loads(content or "{}"), "id": handoff, "by": giver, "to": receiver}
    shown.update({"at": clock.from_store(at), "recorded_at": clock.from_store(recorded_at)})
    if accepted_at is not None:
        shown["accepted_at"] = clock.from_store(accepted_at)
    shown["points_to"] = references.stored_references(things)
    return shown


def handoffs_for(graph, agent: object, waiting_only: bool = True, *, limit: int | None = None) -> list[dict]:
    """The handoffs given to an agent, oldest first (at, then id): id, by, to, at, recorded_at,
    accepted_at once accepted, the handoff's values, and points_to (reference pairs).

    waiting_only=True leaves out the accepted ones. A bad agent raises Refused, a waiting_only that is not
    a bool WrongType. limit (ours): at most that many, 1 to 1,000; all of them without one. One query.
    Nothing is written; database errors pass as ResponseError.
    """
    receiver = limits.name(agent, "the agent")
    if type(waiting_only) is not bool:
        raise WrongType(f"waiting_only must be True or False, not {type(waiting_only).__name__}")
    params: dict = {"agent": receiver, "waiting": waiting_only}
    if limit is not None:
        params["limit"] = limits.whole(limit, "limit", 1, MAX_LIMIT)
    query = _FOR.format(limit=" LIMIT $limit" if limit is not None else "")
    found = [_shown(row) for row in read(graph, query, params)]
    return sorted(found, key=lambda item: (item["at"], item["id"]))
