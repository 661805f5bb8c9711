"""The extraction worker of one tenant graph: the notes past its mark, oldest first, each asked of the
model once for all the tenant's kinds, its facts written by the write rule as candidates.

The graph is the queue and holds the job's state, through the library's public functions of the job
(lighthouse/note_extraction.py): the mark, each note's answer kept BEFORE any row is written (so after a
kill -9 the next run applies the kept answer again instead of asking the model again; the write rule
makes that replay `unchanged`), "applied" in the query that moves the mark, "set_aside" with its error
(replay() gives it back), "invalidated" for a note an agent marked wrong (skipped, counted). A note whose
rows the database refused (receipts failed or busy) stays "answered" behind the mark and the round ends:
the next round applies its answer again. Every write is guarded by the worker that holds the graph
(lighthouse.hold_extraction()): a worker that lost the graph writes nothing more and ends its round.
- A note the model cannot be asked about (unreachable, rate limited, refusing our settings: WAITING) may
  be the model's fault or the note's (a model that drops the connection on that note alone). The note
  is kept "waiting" (read first, wherever the mark goes) and the round goes on to the next note. If
  the model answers that one, the waiting note is asked again, model_attempts times with backoff,
  and set aside with its error if every ask fails, whatever the cause. If the next note fails in such
  a way too, the model is to blame: the round ends and the notes wait (the status says "failing").
- A round also ends after SET_ASIDE_IN_A_ROW notes set aside one after another for one kind of failure.
"""

from __future__ import annotations

import contextlib
import threading
from collections import Counter

from lighthouse import (
    Kind,
    ensure_schema,
    finish_note,
    give_note_back,
    hold_note_back,
    keep_extraction_error,
    keep_note_answer,
    leave_note_waiting,
    notes_set_aside,
    notes_to_extract,
    set_note_aside,
    skip_note,
    write_note_rows,
)

from ..declarations import SCHEMA_LOCK
from . import items, prompt
from .model import WAITING, Model, ModelFailure

BATCH = 50  # notes one round reads
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


def _note(found: dict) -> dict:
    """A note as lighthouse.notes_to_extract() gives it, with its extraction's state at the top."""
    extraction = found["extraction"] or {}
    return {
        "id": found["id"],
        "serial": found["serial"],
        "at": found["at"],
        "recorded_at": found["recorded_at"],
        "text": found.get("text") if isinstance(found.get("text"), str) else "",
        "source": found.get("source"),
        "invalidated": "invalidated_at" in found,  # an agent marked it wrong (invalidate_entry): not read
        "state": extraction.get("state"),
        "answer": extraction.get("answer"),
        "asks": extraction.get("asks", 0),
    }


def waiting_notes(graph, limit: int = BATCH) -> list[dict]:
    """The notes to read now, oldest first (lighthouse.notes_to_extract())."""
    return [_note(found) for found in notes_to_extract(graph, limit)]


def by_of(model: Model) -> str:
    return f"model:{model.name or 'unnamed'}"


LOST_CLAIM = "lost_claim"  # another worker took the graph: this one writes nothing more
WRITE_FAILED = "write_failed"  # rows failed or busy: the note's answer is applied again next round
SET_ASIDE_IN_A_ROW = 3  # notes set aside one after another for one kind of failure that end a round


def _answer_of(graph, kinds, model, note, prompt_entities, meaning, stop, patient=False):
    """The note's answer (kept from an earlier round, or asked now) and its failed asks; ModelFailure."""
    if note["state"] == "answered" and note["answer"] is not None:
        return note["answer"], max(note["asks"] - 1, 0), False
    troubles: list[str] = []
    known = prompt.found_entities(
        graph, kinds, note["text"], prompt_entities, meaning, at=note["at"], troubles=troubles
    )
    if troubles:  # the prompt carries less; the status shows why
        keep_extraction_error(graph, f"note {note['id']}: " + "; ".join(troubles))
    messages = prompt.messages(kinds, note, known)
    asked = model.ask(messages, shaped=items.facts_of, stop=stop, patient=patient)
    return asked.answer, asked.asks - 1, True


def extract_notes(
    graph,
    kinds: dict[str, Kind],
    model: Model,
    *,
    owner: str,
    prompt_entities: int = 20,
    meaning=None,
    stop: threading.Event | None = None,
    writing=contextlib.nullcontext,
    limit: int = BATCH,
) -> dict:
    """One round on one tenant graph: up to `limit` waiting notes read, each asked once (or its stored
    answer applied again), its rows written, the mark moved. Returns {"read", "set_aside",
    "invalidated", "rows", "refused", "stopped"}: stopped names why the round ended early (stop, the
    model unreachable or refusing our settings, SET_ASIDE_IN_A_ROW notes set aside for one kind of
    failure "repeated:<kind>", WRITE_FAILED, LOST_CLAIM).

    owner: the worker that holds the graph (claim.py); every write of the worker's state is guarded by
    it. kinds: the tenant's Kinds by label; meaning: the Embedder or None; writing: a
    context manager held while rows are written (the tenant's writers' gate in a serve).
    """
    stop = stop or threading.Event()
    _indexes(graph)
    by = by_of(model)
    done = {"read": 0, "set_aside": 0, "invalidated": 0, "rows": Counter(), "refused": 0, "stopped": None}
    in_a_row: tuple[str | None, int] = (None, 0)  # the kind of the last failures that set notes aside
    suspect: tuple[dict, ModelFailure] | None = None  # failed as if the model were down: judged by the next

    def finish(note: dict, answer: dict, failed_asks: int, fresh: bool) -> str | None:
        """The note's answer kept (when fresh), its rows written, the mark moved; why the round ends, or None."""
        if fresh and not keep_note_answer(graph, owner, note["id"], answer, failed_asks + 1):
            return LOST_CLAIM
        with writing():
            written = write_note_rows(graph, kinds, note["id"], items.facts_of(answer), by)
        if written["again"]:
            error = (
                f"note {note['id']}: {written['again']} row(s) failed or busy "
                f"({written['rows']}); its answer is applied again next round"
            )
            return WRITE_FAILED if hold_note_back(graph, owner, note["id"], error) else LOST_CLAIM
        if not finish_note(graph, owner, note["id"], written["rows"], written["refused"], failed_asks):
            return LOST_CLAIM
        done["read"] += 1
        done["rows"].update(written["rows"])
        done["refused"] += written["refused"]
        return None

    def judged(waited: dict, first: ModelFailure) -> str | None:
        """The model answers other notes: the note that failed before is asked again, patiently, and set
        aside with its error if all model_attempts asks fail too. Why the round ends, or None."""
        try:
            again, failed, _ = _answer_of(graph, kinds, model, waited, prompt_entities, meaning, stop, True)
        except ModelFailure as failure:
            if failure.kind == "stopped":
                return "stop"
            failure.asks += first.asks
            if not _set_aside(graph, owner, waited, failure):
                return LOST_CLAIM
            done["set_aside"] += 1
            return None
        return finish(waited, again, failed + first.asks, True)

    for note in waiting_notes(graph, limit):
        if stop.is_set():
            done["stopped"] = "stop"
            break
        if note["invalidated"]:
            if not skip_note(graph, owner, note["id"]):
                done["stopped"] = LOST_CLAIM
                break
            done["invalidated"] += 1
            continue
        try:
            answer, failed_asks, fresh = _answer_of(graph, kinds, model, note, prompt_entities, meaning, stop)
        except ModelFailure as failure:
            if failure.kind in WAITING:
                if suspect is None and failure.kind != "stopped":  # the note's fault, or the model's?
                    suspect = (note, failure)
                    if not leave_note_waiting(graph, owner, note["id"], f"note {note['id']}: {failure}"):
                        done["stopped"] = LOST_CLAIM
                        break
                    continue
                keep_extraction_error(
                    graph, f"note {note['id']} waits: {failure}"
                )  # two in a row: the model's
                done["stopped"] = failure.kind
                break
            if not _set_aside(graph, owner, note, failure):
                done["stopped"] = LOST_CLAIM
                break
            done["set_aside"] += 1
            in_a_row = (failure.kind, in_a_row[1] + 1 if in_a_row[0] == failure.kind else 1)
            if in_a_row[1] >= SET_ASIDE_IN_A_ROW:  # the model, not the notes: the rest wait
                keep_extraction_error(
                    graph, f"{in_a_row[1]} notes in a row set aside ({failure}); the rest wait"
                )
                done["stopped"] = f"repeated:{failure.kind}"
                break
            continue
        in_a_row = (None, 0)
        if fresh and suspect is not None:  # kept first: a crash while judging does not ask it again
            if not keep_note_answer(graph, owner, note["id"], answer, failed_asks + 1):
                done["stopped"] = LOST_CLAIM
                break
            fresh, suspect, ended = False, None, judged(*suspect)
            if ended is not None:
                done["stopped"] = ended
                break
        if (ended := finish(note, answer, failed_asks, fresh)) is not None:
            done["stopped"] = ended
            break
    if suspect is not None and done["stopped"] is None:  # no other note answered: it waits
        keep_extraction_error(graph, f"note {suspect[0]['id']} waits: {suspect[1]}")
        done["stopped"] = suspect[1].kind
    done["rows"] = dict(done["rows"])
    return done


def _set_aside(graph, owner: str, note: dict, failure: ModelFailure) -> bool:
    return set_note_aside(graph, owner, note["id"], f"note {note['id']}: {failure}", max(failure.asks, 1))


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
