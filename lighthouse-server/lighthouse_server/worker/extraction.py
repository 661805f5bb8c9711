"""The extraction worker's part of a round on one tenant graph: the model, asked about one note with the
one prompt, as the extractor of lighthouse.extract_notes(), which runs the round (the notes to read,
each answer kept before its rows, set-aside and replay, the suspect note judged by the next, the mark).

A ModelFailure is said to the library as what it means for the note: "unreachable", "rate_limited",
"misconfigured" and "stopped" (model.WAITING) may be the model's fault rather than the note's, so the
note waits (lighthouse.ExtractorUnavailable); every other kind, once model_attempts asks failed, sets
the note aside (lighthouse.ExtractorFailed). An embedder that fails on the prompt's entities leaves the
prompt with what words find, and its error is kept as the job's last error, so the status shows it.
"""

from __future__ import annotations

import contextlib
import threading

from lighthouse import (
    ExtractorFailed,
    ExtractorUnavailable,
    Kind,
    ensure_schema,
    extract_notes,
    give_note_back,
    keep_extraction_error,
    notes_set_aside,
)

from ..declarations import SCHEMA_LOCK
from ..embedders import Embedder
from . import items, prompt
from .model import WAITING, Model, ModelFailure

BATCH = 50  # notes one round reads
LOST_CLAIM = "lost_claim"  # lighthouse.extract_notes()'s word for a graph another worker took
_indexed: set[str] = set()
_indexed_lock = threading.Lock()


def _indexes(graph) -> None:
    """The graph's schema, with the lookups of the job's notes by id and state (made by ensure_schema()),
    once per graph and process: a graph an earlier version wrote may lack them. In the library's schema
    turn (FalkorDB 4.22.1 crashed when two clients changed schemas at once)."""
    with _indexed_lock, SCHEMA_LOCK:  # never beside another schema change of this process either
        if graph.name in _indexed:
            return
        ensure_schema(graph)
        _indexed.add(graph.name)


def by_of(model: Model) -> str:
    return f"model:{model.name or 'unnamed'}"


def model_extractor(
    graph,
    kinds: dict[str, Kind],
    model: Model,
    prompt_entities: int,
    meaning: Embedder | None,
    stop: threading.Event,
):
    """The extractor of lighthouse.extract_notes(): the note's prompt (the kinds, the note, the entities
    it finds as they were when it was said) asked of the model; its facts and the asks they took."""

    def extractor(found: dict, patient: bool = False) -> tuple[list, int]:
        text = found.get("text") if isinstance(found.get("text"), str) else ""
        troubles: list[str] = []
        known = prompt.found_entities(
            graph, kinds, text, prompt_entities, meaning, at=found["at"], troubles=troubles
        )
        if troubles:  # the prompt carries less; the status shows why
            keep_extraction_error(graph, f"note {found['id']}: " + "; ".join(troubles))
        note = {"at": found["at"], "source": found.get("source"), "text": text}
        try:
            asked = model.ask(
                prompt.messages(kinds, note, known), shaped=items.facts_of, stop=stop, patient=patient
            )
        except ModelFailure as failure:
            said = ExtractorUnavailable if failure.kind in WAITING else ExtractorFailed
            raise said(str(failure), failure.kind, failure.asks) from None
        return items.facts_of(asked.answer), asked.asks

    return extractor


def extract_notes_with(
    graph,
    kinds: dict[str, Kind],
    model: Model,
    *,
    owner: str,
    prompt_entities: int = 20,
    meaning: Embedder | None = None,
    stop: threading.Event | None = None,
    writing=contextlib.nullcontext,
    limit: int = BATCH,
) -> dict:
    """One round on one tenant graph (lighthouse.extract_notes()) with the model as its extractor, by
    "model:<name>". Returns {"read", "set_aside", "invalidated", "rows", "refused", "stopped"}.

    owner: the worker that holds the graph (loop.py); kinds: the tenant's Kinds by label; meaning: the
    Embedder or None; writing: a context manager held while rows are written (the tenant's writers'
    gate in a serve)."""
    stop = stop or threading.Event()
    _indexes(graph)
    extractor = model_extractor(graph, kinds, model, prompt_entities, meaning, stop)
    return extract_notes(
        graph, kinds, extractor, owner=owner, by=by_of(model), limit=limit, stop=stop, writing=writing
    )


def replay(graph, note_id: object) -> dict:
    """Gives a set-aside note back (lighthouse.give_note_back()): the worker reads it again first,
    asking the model anew. {"note", "status": "replayed"}, or "unknown" (no such note), or
    "not_set_aside"."""
    if not isinstance(note_id, str) or not 0 < len(note_id) <= 200:
        return {"note": note_id if isinstance(note_id, str) else None, "status": "unknown"}
    return give_note_back(graph, note_id)  # Refused for what is no note id at all (a NUL, a lone surrogate)


def set_aside(graph, limit: int = 100) -> list[dict]:
    """The notes set aside, oldest first: [{"note", "text", "at", "error", "error_at", "asks"}]."""
    return notes_set_aside(graph, limit)
