"""Notes for the tests of the job of reading notes with a model: a graph with some notes said at one
time, its extraction held by one owner."""

from __future__ import annotations

from lighthouse import ensure_schema, hold_extraction, note

OWNER = "here:1:a"
SAID = "2026-11-27T16:00:00Z"


def held_notebook(graph, count: int, model: str | None = None) -> tuple[object, list[str]]:
    """The graph with `count` notes ("note 0", ...) said at SAID, held by OWNER asking `model`; their ids."""
    ensure_schema(graph)
    ids = [note(graph, f"note {n}", "agent", at=SAID)["id"] for n in range(count)]
    assert hold_extraction(graph, OWNER, model) is None
    return graph, ids
