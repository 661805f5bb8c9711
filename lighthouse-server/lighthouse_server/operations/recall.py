"""Operations that find things: by words, by the graph, and both fused."""

from __future__ import annotations

from lighthouse import fuse, pointing_at, search, search_entries, search_history, similar

from .rows import KEY, KIND
from .table import Operation, Param

QUESTION = Param("question", "text", "the words to look for", required=True)
LIMIT = Param("limit", "int", "how many to give, 1 to 1000 (default 10)")
MATCH = Param("match", "text", '"all" (every word must occur, the default) or "any"')


def _recall(call, arguments: dict) -> list:
    """Words, then the graph around what the words found, fused by rank."""
    kind, limit = arguments["kind"], arguments.get("limit", 10)
    words = search(graph=call.graph, kind=kind, question=arguments["question"], limit=limit, match="any")
    rankings = {"words": words}
    if kind.relations and words:
        rankings["graph"] = similar(graph=call.graph, kind=kind, key=words[0]["key"], limit=limit)
    fused = fuse(rankings=rankings, limit=limit)
    values = {hit["key"]: hit["values"] for hit in words}
    return [{**hit, "values": values.get(hit["key"])} for hit in fused]


OPERATIONS = [
    Operation(
        "search",
        search,
        "read",
        (KIND, QUESTION, LIMIT, MATCH),
        '[{"key", "score", "values"}] best first',
        "Find entities of a kind whose current text values hold the words of a question.",
        example={"kind": "Device", "question": "pump"},
    ),
    Operation(
        "search_history",
        search_history,
        "read",
        (KIND, QUESTION, LIMIT, MATCH),
        '[{"key", "score", "state"}] best first; state shaped as history gives it',
        "Find past and current versions of entities whose text held the words.",
        example={"kind": "Device", "question": "pump"},
    ),
    Operation(
        "search_entries",
        search_entries,
        "read",
        (QUESTION, LIMIT, MATCH),
        '[{"id", "score", "entry"}] best first',
        "Find entries of episodes (notes, observations) whose values hold the words.",
        example={"question": "leak"},
    ),
    Operation(
        "pointing_at",
        pointing_at,
        "read",
        (
            KIND,
            Param("relation", "text", "a relation type of the kind", required=True),
            KEY,
            Param("when", "time", "a time; now if not given"),
        ),
        "the sorted keys of the entities of the kind whose relation points at the key",
        "Which entities of a kind point at a given entity through a relation (for example every device "
        "LOCATED_IN a room).",
        example={"kind": "Device", "relation": "LOCATED_IN", "key": "r1"},
        paged=True,
    ),
    Operation(
        "similar",
        similar,
        "read",
        (KIND, KEY, Param("relations", "texts", "the relation types to compare by; all if not given"), LIMIT),
        '[{"key", "shared", "through": [[relation, target], ...]}] most shared first',
        "Entities of the same kind that share the most relation targets with a given one.",
        example={"kind": "Device", "key": "d1"},
    ),
    Operation(
        "recall",
        fuse,
        "read",
        (KIND, QUESTION, LIMIT),
        '[{"key", "score", "places": {ranking: place}, "values"}] best first',
        "Recall entities for a question: a words search fused with the graph around the best hit. Use it "
        "first when you do not know which search fits.",
        example={"kind": "Device", "question": "pump sensor"},
        answer=_recall,
    ),
]
