"""Operations on notes: free text an agent drops as it works, kept at once, found by words and meaning.

A note is stored by the library in one query as an entry of type "note"; the call returns its entry id
and the note is then on disk with the rest of the graph, the queue that the extraction worker reads.
Its `by` is the key's agent.
"""

from __future__ import annotations

from lighthouse import Refused, entry_dimensions, fuse, nearest_entries, note, notes, search_entries

from .recall import LIMIT, QUESTION
from .table import Operation, Param

NOTE = "note"  # the entry type the library gives notes
RECEIPT = (
    '{"id": "<episode>/<seq>", "seq", "status": "recorded"}, or a refusal {"id": null, "status": '
    '"invalid" | "closed" | "failed", "reason"} kept as a WriteFailure'
)


def _meaning(call, question: str, limit: int) -> tuple[list, str]:
    """The notes nearest in meaning, and what came of asking: used, not configured, not embedded yet,
    or failing with the embedder's error (the words still answer then)."""
    try:
        configured = call.parts.embedder.load()
        if configured is None:
            return [], "not configured"
        embedder, model, dimensions = configured
        if entry_dimensions(call.graph) != dimensions:
            return [], "not embedded yet"
        found = nearest_entries(
            graph=call.graph, question=question, embedder=embedder, model=model, limit=limit, types=[NOTE]
        )
    except Refused:  # a graph with no vector index for entries yet: the embedding worker makes it
        return [], "not embedded yet"
    except Exception as error:  # noqa: BLE001 - an embedder that fails; the answer says it
        return [], f"failing: {str(error)[:300]}"
    return found, "used"


def _search_notes(call, arguments: dict) -> dict:
    question, limit = arguments["question"], arguments.get("limit", 10)
    words = search_entries(graph=call.graph, question=question, limit=limit, match="any", types=[NOTE])
    meaning, asked = _meaning(call, question, limit)
    rankings = {"words": [{"key": hit["id"], **hit} for hit in words]}
    if meaning:
        rankings["meaning"] = [{"key": hit["id"], **hit} for hit in meaning]
    entries = {hit["id"]: hit["entry"] for hit in words + meaning}
    fused = fuse(rankings=rankings, limit=limit)
    return {
        "notes": [
            {"id": hit["key"], "score": hit["score"], "places": hit["places"], "entry": entries[hit["key"]]}
            for hit in fused
        ],
        "meaning": asked,
    }


def _note(call, arguments: dict) -> dict:
    receipt = note(call.graph, **arguments)
    call.parts.noted()
    return receipt


def _notes(call, arguments: dict) -> list:
    receipts = notes(call.graph, **arguments)
    call.parts.noted()
    return receipts


OPERATIONS = [
    Operation(
        "note",
        note,
        "write",
        (
            Param("text", "text", "the note: free text, at most 100,000 characters", required=True),
            Param("source", "text", 'where it comes from, a name: "agent" (the default), "chat", ...'),
            Param("at", "time", "when it was said or seen; the time it arrives if not given"),
            Param("episode", "text", "the episode it joins; by default notes:<source>:<day it arrives>"),
        ),
        RECEIPT,
        "Keep one note: anything worth remembering, in plain words, as you work. It is stored at once and "
        "returns its entry id; it is found by its words at once and by meaning once embedded, and facts are "
        "drawn from it later.",
        example={"text": "The pump in room r1 leaks a little since this morning.", "source": "agent"},
        agent_as="by",
        writes=True,
        idempotent=False,
        answer=_note,
    ),
    Operation(
        "notes",
        notes,
        "write",
        (
            Param(
                "items",
                "objects",
                'the notes, at most 1,000: each {"text", "source"?, "at"?, "episode"?} as note takes them',
                required=True,
            ),
        ),
        f"one receipt per note, in order: {RECEIPT}",
        "Keep many notes in one call. A note that cannot be stored gets its refusal and the others are kept.",
        example={"items": [{"text": "Room r2 is cold."}, {"text": "Fan of d1 replaced.", "source": "chat"}]},
        agent_as="by",
        writes=True,
        idempotent=False,
        answer=_notes,
    ),
    Operation(
        "search_notes",
        None,
        "read",
        (QUESTION, LIMIT),
        '{"notes": [{"id", "score", "places": {"words"|"meaning": place}, "entry"}] best first, "meaning": '
        '"used" | "not configured" | "not embedded yet" | "failing: <why>"}',
        "Find notes by their words and (with an embedder, once they are embedded) by meaning, fused.",
        example={"question": "leaking pump"},
        answer=_search_notes,
    ),
]
