"""Operations between agents: handoffs of work and a queue of tasks."""

from __future__ import annotations

from lighthouse import accept, add_task, claim, complete, hand_off, handoffs_for, release, tasks

from .table import Operation, Param

HANDOFF = Param("handoff_id", "text", "the handoff's id", required=True)
TASK = Param("task_id", "text", "the task's id", required=True)


def _handoffs_for(call, arguments: dict) -> list:
    arguments.setdefault("agent", call.principal.agent)
    return handoffs_for(graph=call.graph, **arguments)


OPERATIONS = [
    Operation(
        "hand_off",
        hand_off,
        "write",
        (
            HANDOFF,
            Param("to", "text", "the agent that takes the work over", required=True),
            Param("points_to", "refs", "what the work is about: entities and records", required=True),
            Param("values", "object", "notes for the receiver"),
            Param("at", "time", "when; now if not given"),
        ),
        '{"id", "status": "given" or "exists"}, or a refusal',
        "Hand work over to another agent, pointing at what it is about.",
        example={
            "handoff_id": "h1",
            "to": "night-shift",
            "points_to": [["Device", "d1"]],
            "values": {"note": "watch the pump"},
        },
        agent_as="by",
        writes=True,
    ),
    Operation(
        "accept",
        accept,
        "write",
        (HANDOFF,),
        '{"id", "status": "accepted" or "exists"}, or a refusal (refused: you are not the receiver)',
        "Accept a handoff given to you.",
        example={"handoff_id": "h1"},
        agent_as="by",
        writes=True,
    ),
    Operation(
        "handoffs_for",
        handoffs_for,
        "read",
        (
            Param("agent", "text", "whose handoffs; yours if not given"),
            Param("waiting_only", "bool", "only those not accepted yet (default true)"),
        ),
        "the handoffs given to the agent, oldest first, each with points_to",
        "The handoffs given to an agent (you, by default) that wait to be accepted.",
        example={},
        paged=True,
        answer=_handoffs_for,
    ),
    Operation(
        "add_task",
        add_task,
        "write",
        (
            TASK,
            Param("kind", "text", "the sort of task, as a name (not a kind label)", required=True),
            Param("ref", "key", "the key of what the task is about"),
            Param("after", "texts", "ids of tasks that must be done first"),
        ),
        "true when added, false when the id exists already",
        "Put a task in the queue, optionally after other tasks.",
        example={"task_id": "t1", "kind": "inspection", "ref": "d1"},
        writes=True,
    ),
    Operation(
        "tasks",
        tasks,
        "read",
        (
            Param("kind", "text", "only tasks of this sort"),
            Param("state", "text", "only tasks in this state: open, claimed or done"),
            Param("limit", "int", "how many, 1 to 1000 (default 100)"),
        ),
        '[{"id", "kind", "state", "created_at", "ref"?, "owner"?, "until"?, "done_at"?, "after", "claims"}] in '
        "the order claim takes them",
        "The task queue: who holds what, what is open, what is done.",
        example={"kind": "inspection"},
    ),
    Operation(
        "claim",
        claim,
        "write",
        (
            Param("kind", "text", "the sort of task to take", required=True),
            Param(
                "lease",
                "int",
                "seconds you hold it, 1 to 604800; without a lease you hold it until you complete or "
                "release it, and nobody else can take it",
            ),
        ),
        '{"id", "kind", "ref", "until"} of the task you now hold, or null when none is free',
        "Take the oldest free task of a sort. Give a lease: once it runs out another agent may take the task.",
        example={"kind": "inspection", "lease": 600},
        agent_as="agent",
        writes=True,
        idempotent=False,
    ),
    Operation(
        "complete",
        complete,
        "write",
        (TASK,),
        "true when you held the task and it is now done",
        "Mark a task you hold as done.",
        example={"task_id": "t1"},
        agent_as="agent",
        writes=True,
    ),
    Operation(
        "release",
        release,
        "write",
        (TASK,),
        "true when you held the task and it is free again",
        "Give a task you hold back to the queue.",
        example={"task_id": "t1"},
        agent_as="agent",
        writes=True,
    ),
]
