"""Operations that find things: by words, by the graph, and both fused."""

from __future__ import annotations

from lighthouse import embed, pointing_at, search, search_entries, search_history, similar

from ..problems import Problem
from .rows import KEY, KIND, trusted
from .table import Operation, Param

QUESTION = Param("question", "text", "the words to look for", required=True)
LIMIT = Param("limit", "int", "how many to give, 1 to 1000 (default 10)")
MATCH = Param("match", "text", '"all" (every word must occur, the default) or "any"')


def _meaning(call, kind):
    """The configured embedder, when the kind keeps vectors of its size; None otherwise."""
    configured = call.parts.embedder.load()
    if configured is None or not kind.dimensions:
        return None
    if configured[2] != kind.dimensions:
        raise Problem(
            "invalid_argument",
            f"kind {kind.label!r} has {kind.dimensions} dimensions; the embedder gives {configured[2]}",
        )
    return configured


def _embed(call, arguments: dict) -> dict:
    meaning = _meaning(call, arguments["kind"])
    if meaning is None:
        raise Problem(
            "invalid_argument",
            'no embedder is configured (embedder = "local" or "http"), or the kind has no dimensions',
        )
    embedder, model, _ = meaning
    return embed(
        graph=call.graph,
        kind=arguments["kind"],
        embedder=embedder,
        model=model,
        limit=arguments.get("limit", 100),
    )


def _search_history(call, arguments: dict) -> list:
    found = search_history(graph=call.graph, **arguments)
    return [{**hit, "state": trusted(hit["state"])} for hit in found]


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
        answer=_search_history,
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
            Param("at", "time", "a time; now if not given", to="when", also=("when",)),
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
        "embed",
        embed,
        "write",
        (KIND, Param("limit", "int", "how many entities to embed, 1 to 1000 (default 100)")),
        '{"embedded", "waiting"}: how many got their vectors now and how many still wait',
        "Give the entities of a kind with dimensions their meaning vectors (the configured embedder), so "
        "recall finds them by meaning. Needs an embedder (embedder = local or http).",
        example={"kind": "Note"},
        writes=True,
        answer=_embed,
    ),
]
