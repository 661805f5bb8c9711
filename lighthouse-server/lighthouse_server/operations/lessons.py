"""Operations on what was learned: lessons that rest on episodes, and playbooks of steps."""

from __future__ import annotations

from lighthouse import learn, lessons_about, playbooks_for, weigh, write_playbook

from .rows import KEY, KIND
from .table import Operation, Param

AT = Param("at", "time", "when; now if not given")
SUPPORT = Param("supported_by", "texts", "the ids of the ended episodes it rests on", required=True)

OPERATIONS = [
    Operation(
        "learn",
        learn,
        "write",
        (
            Param("lesson_id", "text", "the lesson's id", required=True),
            Param("statement", "text", "the lesson, in a sentence", required=True),
            SUPPORT,
            Param("about", "refs", "the entities it is about, as [kind, key]"),
            Param("values", "object", "more about it"),
            AT,
        ),
        '{"id", "status": "learned" or "exists"}, or a refusal',
        "Keep a lesson drawn from ended episodes, about some entities.",
        example={
            "lesson_id": "l1",
            "statement": "pumps leak after a cold night",
            "supported_by": ["ep1"],
            "about": [["Device", "d1"]],
        },
        agent_as="by",
        writes=True,
    ),
    Operation(
        "weigh",
        weigh,
        "review",
        (
            Param("lesson_id", "text", "the lesson's id", required=True),
            Param("episode_id", "text", "an ended episode", required=True),
            Param("agrees", "bool", "whether the episode agrees with the lesson", required=True),
            AT,
        ),
        '{"id", "status": "weighed" or "exists"}, or a refusal',
        "Count an ended episode for or against a lesson.",
        example={"lesson_id": "l1", "episode_id": "ep1", "agrees": True},
        agent_as="by",
        writes=True,
    ),
    Operation(
        "lessons_about",
        lessons_about,
        "read",
        (
            KIND,
            KEY,
            Param("at_least", "int", "the least weight (default 1)"),
            Param("since", "time", "only lessons touched since"),
        ),
        "the lessons about the entity, heaviest first, each with its weight",
        "What was learned about an entity.",
        example={"kind": "Device", "key": "d1"},
        paged=True,
    ),
    Operation(
        "write_playbook",
        write_playbook,
        "write",
        (
            Param("name", "text", "the playbook's name", required=True),
            Param("trigger", "object", "the situation it fits: property -> value", required=True),
            Param("steps", "objects", "the steps, in order", required=True),
            SUPPORT,
            Param("needs", "int", "how many ended episodes it must rest on (default 3)"),
            AT,
        ),
        '{"id": "<name>#<version>", "version", "status": "written"}, or a refusal',
        "Write a new version of a playbook: the steps to take in a situation.",
        example={
            "name": "leak",
            "trigger": {"alarm": "leak"},
            "steps": [{"do": "close the valve"}],
            "supported_by": ["ep1"],
            "needs": 1,
        },
        agent_as="by",
        writes=True,
        idempotent=False,
    ),
    Operation(
        "playbooks_for",
        playbooks_for,
        "read",
        (Param("situation", "object", "property -> value of the situation", required=True),),
        "the enabled playbooks whose trigger fits the situation, best first",
        "Which playbooks fit a situation.",
        example={"situation": {"alarm": "leak"}},
        paged=True,
    ),
]
