"""hand_off(), accept(), handoffs_for(): work passed from one agent to another, pointing at the record.

A handoff holds no copy of what it passes: it points at entries, episodes, entities, lessons or
playbooks that exist. (giver:Agent)-[:GAVE]->(h:Handoff {id, at, note})-[:TO]->(receiver:Agent),
(h)-[:POINTS_TO {as_of}]->(thing), and accepted_at on h once its receiver accepted it.
"""

from __future__ import annotations

from redis.exceptions import ResponseError

from . import clock, references
from . import values as limits
from .graphs import read
from .values import Refused
from .write.failures import refuse

MAX_LIMIT = 1_000


# Gives the handoff only when everything it points at exists (the guard on `found`), and links it only
# when this query made it; then gives back what the stored handoff says, to compare with the call.
_GIVE = (
    "WHERE size(found) = $expected "
    "OPTIONAL MATCH (old:Handoff {id: $id}) "
    "WITH found, old "
    "MERGE (h:Handoff {id: $id}) "
    "ON CREATE SET h.at = localdatetime($at), h.recorded_at = localdatetime($now), h.note = $note "
    "WITH found, old, h "
    "CALL { WITH found, old, h "
    "  UNWIND CASE WHEN old IS NULL THEN found ELSE [] END AS pointed "
    "  WITH h, pointed[0] AS target CREATE (h)-[:POINTS_TO {as_of: localdatetime($at)}]->(target) "
    "  RETURN count(*) AS points } "
    "FOREACH (fresh IN CASE WHEN old IS NULL THEN [1] ELSE [] END | "
    "  MERGE (giver:Agent {name: $by}) MERGE (receiver:Agent {name: $to}) "
    "  CREATE (giver)-[:GAVE]->(h)-[:TO]->(receiver)) "
    "WITH old, h "
    "MATCH (gave:Agent)-[:GAVE]->(h)-[:TO]->(taker:Agent) "
    "OPTIONAL MATCH (h)-[:POINTS_TO]->(thing) "
    "RETURN old IS NULL, gave.name, taker.name, h.note, "
    "  collect(CASE WHEN thing IS NULL THEN null ELSE [labels(thing), thing.id, thing.key] END)"
)


def hand_off(
    graph,
    id: object,
    by: object,
    to: object,
    points_to: object = None,
    note: object = None,
    at: object = None,
) -> dict:
    """Passes work to another agent: {"id", "status": "given"}.

    points_to: references (entry ids, ("Episode", id), (Kind, key), ("Lesson", id), ("Playbook",
    "name#version")), at least one, each of which must exist ("missing" otherwise). The same handoff
    again is "unchanged"; another giver, receiver, note or set of things under the same id is a
    "conflict": a handoff is never replaced. at: when it was given (now without one). Refusals are kept
    as WriteFailures.
    """
    content = {"id": id, "by": by, "to": to, "points_to": points_to, "note": note, "at": at}
    try:
        handoff = limits.name(id, "a handoff id")
        giver = limits.name(by, "by")
        receiver = limits.name(to, "the receiver")
        if receiver == giver:
            raise Refused("a handoff passes work to another agent, not to the one that gives it")
        things = references.parse_all(points_to, "points_to")
        if not things:
            raise Refused("a handoff must point at something: an entry, an episode, an entity, a lesson")
        if note is not None:
            limits.text(note, "the note")
        given = clock.stamp(clock.present() if at is None else clock.checked(at))
        limits.measured({"points_to": things, "note": note}, "a handoff")
    except clock.TimeError as error:
        return refuse(graph, "Handoff", id, content, "invalid", str(error), by)
    except Refused as error:
        return refuse(graph, "Handoff", id, content, error.reason, str(error), by)
    params = {"id": handoff, "by": giver, "to": receiver, "note": note, "at": given, "now": clock.now()}
    try:
        result = references.write_where_found(
            graph, things, _GIVE, params, "it points at what does not exist"
        )
    except Refused as error:
        return refuse(graph, "Handoff", handoff, content, error.reason, str(error), giver)
    created, stored_by, stored_to, stored_note, stored_things = result[0]
    if created:
        return {"id": handoff, "status": "given"}
    same = (stored_by, stored_to, stored_note, references.shown(stored_things)) == (
        giver,
        receiver,
        note,
        references.ordered(things),
    )
    if not same:
        reason = f"the handoff {handoff!r} was given with another giver, receiver, note or things"
        return refuse(graph, "Handoff", handoff, content, "conflict", reason, giver)
    return {"id": handoff, "status": "unchanged"}


# Reads the receiver and marks the handoff in one query, so two agents that accept at the same moment
# cannot both be the one that accepted it.
_ACCEPT = (
    "MATCH (h:Handoff {id: $id})-[:TO]->(taker:Agent) "
    "WITH h, taker, h.accepted_at AS before "
    "FOREACH (mark IN CASE WHEN taker.name = $by AND before IS NULL THEN [1] ELSE [] END | "
    "  SET h.accepted_at = localdatetime($now)) "
    "RETURN taker.name, before IS NOT NULL"
)


def accept(graph, id: object, by: object) -> dict:
    """The receiver takes the handoff: {"id", "status": "accepted"}, once.

    The receiver accepting again is "unchanged" (its first time stays). Refusals, kept as WriteFailures:
    "denied" (by is not its receiver), "unknown" (no such handoff), "invalid", "failed".
    """
    content = {"id": id, "by": by}
    try:
        handoff = limits.name(id, "a handoff id")
        taker = limits.name(by, "by")
    except Refused as error:
        return refuse(graph, "Handoff", id, content, error.reason, str(error), by)
    try:
        result = graph.query(_ACCEPT, {"id": handoff, "by": taker, "now": clock.now()}).result_set
    except ResponseError as error:
        return refuse(graph, "Handoff", handoff, content, "failed", str(error), taker)
    if not result:
        return refuse(
            graph, "Handoff", handoff, content, "unknown", f"there is no handoff {handoff!r}", taker
        )
    receiver, before = result[0]
    if receiver != taker:
        return refuse(
            graph,
            "Handoff",
            handoff,
            content,
            "denied",
            "only the receiver of a handoff can accept it",
            taker,
        )
    return {"id": handoff, "status": "unchanged" if before else "accepted"}


# The agent first: with the filter on h in the same MATCH, FalkorDB 4.22 read every Handoff.
_FOR = (
    "MATCH (taker:Agent {name: $agent}) WITH taker "
    "MATCH (taker)<-[:TO]-(h:Handoff)<-[:GAVE]-(gave:Agent) "
    "WHERE $accepted IS NULL OR $accepted = (h.accepted_at IS NOT NULL) "
    "WITH h, gave ORDER BY h.at, h.id LIMIT $limit "
    "OPTIONAL MATCH (h)-[:POINTS_TO]->(thing) "
    "RETURN h.id, gave.name, h.at, h.note, h.accepted_at, "
    "  collect(CASE WHEN thing IS NULL THEN null ELSE [labels(thing), thing.id, thing.key] END)"
)


def handoffs_for(graph, agent: object, accepted: bool | None = False, limit: int = 100) -> list[dict]:
    """The handoffs given to an agent, oldest first: id, by, to, at, note, accepted_at, points_to.

    accepted=False (the default) gives those still waiting, True those accepted, None all of them.
    points_to holds references sorted by label, then key. One round trip.
    """
    receiver = limits.name(agent, "the agent")
    if accepted is not None and not isinstance(accepted, bool):
        raise Refused("accepted is True, False or None")
    limit = limits.whole(limit, "limit", 1, MAX_LIMIT)
    result = read(graph, _FOR, {"agent": receiver, "accepted": accepted, "limit": limit})
    found = [
        {
            "id": handoff,
            "by": giver,
            "to": receiver,
            "at": clock.from_store(at),
            "note": note,
            "accepted_at": clock.from_store(accepted_at),
            "points_to": references.shown(things),
        }
        for handoff, giver, at, note, accepted_at, things in result
    ]
    return sorted(found, key=lambda item: (item["at"], item["id"]))
