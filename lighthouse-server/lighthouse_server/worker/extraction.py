"""The extraction worker of one tenant graph: the notes past its mark, oldest first, each asked of the
model once for all the tenant's kinds, its facts written by the write rule as candidates.

The graph is the queue and holds the worker's state (progress.py writes it):
- (:`lh.Worker` {phase: "extraction"}): the mark (the serial of the last note done), notes read, rows by
  receipt status (rows_<status>), items refused, failed asks, the last error and its time, the worker
  that holds the graph and when it last looked (owner, seen_at: claim.py). It changes in the query
  that moves the mark.
- (:`lh.Extraction` {note}) for each note asked: the model's answer, stored BEFORE any row is written
  (state "answered"), then "applied" in the query that moves the mark. After a kill -9 anywhere in
  between, the next run applies the stored answer again instead of asking the model again; the write
  rule makes that replay `unchanged`. A note whose asks all failed is "set_aside" with its error (the
  mark moves past it); replay() makes it "replay", and the worker reads it again first. A note begun
  and not finished ("answered", "replay" or "waiting") is read first wherever the mark is. A note whose rows the
  database refused (receipts failed or busy) stays "answered" behind the mark and the round ends: the
  next round applies its answer again. A note an agent invalidated is skipped ("invalidated"), counted.
- Every write of that state is guarded by the owner of the claim (claim.py): a worker that lost the
  graph writes nothing more and ends its round.
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
import json
import threading
from collections import Counter

from lighthouse import Kind, ensure_schema, notes_after, notes_by_id, now

from ..declarations import SCHEMA_LOCK
from ..reading import rows
from . import items, progress, prompt
from .model import WAITING, Model, ModelFailure
from .progress import EXTRACTION, moment

BATCH = 50  # notes one round reads
_indexed: set[str] = set()
_indexed_lock = threading.Lock()


def _indexes(graph) -> None:
    """The lookups of a note's extraction by its id and state; once per graph and process, built in the
    library's schema turn (FalkorDB 4.22.1 crashed when two clients changed schemas at once)."""
    with _indexed_lock, SCHEMA_LOCK:  # never beside another schema change of this process either
        if graph.name in _indexed:
            return
        ensure_schema(graph, indexes=[("lh.Extraction", "note"), ("lh.Extraction", "state")])
        _indexed.add(graph.name)


UNFINISHED = "['replay', 'answered', 'waiting']"  # begun and not finished: read first, wherever the mark is
MOST_UNFINISHED = 1_000  # notes begun and not finished one round looks at


def _note(found: dict, state=None, answer=None, asks=None, given_back=False) -> dict:
    """A note as the library gives it (lighthouse.notes_after()), with its extraction's state."""
    return {
        "id": found["id"],
        "serial": found["serial"],
        "at": moment(found["at"]),
        "recorded_at": moment(found["recorded_at"]),
        "text": found.get("text") if isinstance(found.get("text"), str) else "",
        "source": found.get("source"),
        "invalidated": "invalidated_at" in found,  # an agent marked it wrong (invalidate_entry): not read
        "state": state,
        "answer": answer,
        "asks": asks or 0,
        "given_back": bool(given_back),  # by replay(): it lies behind the mark
    }


_STATE = "x.state, x.answer, x.asks, coalesce(x.given_back, false)"


def waiting_notes(graph, limit: int = BATCH) -> list[dict]:
    """The notes to read now, oldest first: those begun and not finished (an answer kept, or given
    back by replay()), wherever the mark is, then those past the mark."""
    begun = rows(
        graph,
        f"MATCH (x:{EXTRACTION}) WHERE x.state IN {UNFINISHED} RETURN x.note, {_STATE} LIMIT $most",
        {"most": MOST_UNFINISHED},
    )
    states = {note_id: state for note_id, *state in begun}
    unfinished = [_note(found, *states[found["id"]]) for found in progress.notes_named(graph, list(states))]
    past = notes_after(graph, progress.mark_of(graph), limit)
    kept = rows(
        graph,
        f"UNWIND $ids AS id OPTIONAL MATCH (x:{EXTRACTION} {{note: id}}) RETURN id, {_STATE}",
        {"ids": [found["id"] for found in past]},
    )
    states = {note_id: state for note_id, *state in kept}
    chosen: dict[str, dict] = {}
    for found in unfinished[:limit] + [_note(found, *states.get(found["id"], ())) for found in past]:
        chosen.setdefault(found["id"], found)
    return list(chosen.values())


def by_of(model: Model) -> str:
    return f"model:{model.name or 'unnamed'}"


LOST_CLAIM = "lost_claim"  # another worker took the graph: this one writes nothing more
WRITE_FAILED = "write_failed"  # rows failed or busy: the note's answer is applied again next round
SET_ASIDE_IN_A_ROW = 3  # notes set aside one after another for one kind of failure that end a round


def _answer_of(graph, kinds, model, note, prompt_entities, meaning, stop, patient=False):
    """The note's answer (kept from an earlier round, or asked now) and its failed asks; ModelFailure."""
    if note["state"] == "answered" and note["answer"] is not None:
        return json.loads(note["answer"]), max(note["asks"] - 1, 0), False
    troubles: list[str] = []
    known = prompt.found_entities(
        graph, kinds, note["text"], prompt_entities, meaning, at=note["at"], troubles=troubles
    )
    if troubles:  # the prompt carries less; the status shows why
        progress.note_error(graph, f"note {note['id']}: " + "; ".join(troubles))
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
        if fresh and not progress.keep_answer(graph, note, answer, failed_asks + 1, owner):
            return LOST_CLAIM
        with writing():
            applied = items.apply(graph, kinds, note, by, items.facts_of(answer))
        if applied.to_try_again:
            return WRITE_FAILED if progress.keep_back(graph, note, applied, owner) else LOST_CLAIM
        if not progress.mark_read(graph, note, applied, failed_asks, owner):
            return LOST_CLAIM
        done["read"] += 1
        done["rows"].update(applied.rows)
        done["refused"] += applied.refused
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
            if not progress.mark_set_aside(graph, waited, failure, owner):
                return LOST_CLAIM
            done["set_aside"] += 1
            return None
        return finish(waited, again, failed + first.asks, True)

    for note in waiting_notes(graph, limit):
        if stop.is_set():
            done["stopped"] = "stop"
            break
        if note["state"] in ("applied", "set_aside", "invalidated") and not note["given_back"]:
            continue  # finished already (never past the mark: the two move in one query)
        if note["invalidated"]:
            if not progress.skip_invalidated(graph, note, owner):
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
                    if not progress.mark_waiting(graph, note, failure, owner):
                        done["stopped"] = LOST_CLAIM
                        break
                    continue
                progress.note_error(graph, f"note {note['id']} waits: {failure}")  # two in a row: the model's
                done["stopped"] = failure.kind
                break
            if not progress.mark_set_aside(graph, note, failure, owner):
                done["stopped"] = LOST_CLAIM
                break
            done["set_aside"] += 1
            in_a_row = (failure.kind, in_a_row[1] + 1 if in_a_row[0] == failure.kind else 1)
            if in_a_row[1] >= SET_ASIDE_IN_A_ROW:  # the model, not the notes: the rest wait
                progress.note_error(
                    graph, f"{in_a_row[1]} notes in a row set aside ({failure}); the rest wait"
                )
                done["stopped"] = f"repeated:{failure.kind}"
                break
            continue
        in_a_row = (None, 0)
        if fresh and suspect is not None:  # kept first: a crash while judging does not ask it again
            if not progress.keep_answer(graph, note, answer, failed_asks + 1, owner):
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
        progress.note_error(graph, f"note {suspect[0]['id']} waits: {suspect[1]}")
        done["stopped"] = suspect[1].kind
    done["rows"] = dict(done["rows"])
    return done


def replay(graph, note_id: object) -> dict:
    """Gives a set-aside note back: the worker reads it again first, asking the model anew.
    {"note", "status": "replayed"}, or "unknown" (no such note), or "not_set_aside"."""
    if not isinstance(note_id, str) or not 0 < len(note_id) <= 200:
        return {"note": note_id if isinstance(note_id, str) else None, "status": "unknown"}
    known = notes_by_id(graph, [note_id])  # Refused for what is no note id at all (a NUL, a lone surrogate)
    if not known:
        return {"note": note_id, "status": "unknown"}
    found = rows(graph, f"MATCH (x:{EXTRACTION} {{note: $note}}) RETURN x.state", {"note": note_id})
    if not found or found[0][0] != "set_aside":
        return {"note": note_id, "status": "not_set_aside"}
    graph.query(
        f"MATCH (x:{EXTRACTION} {{note: $note, state: 'set_aside'}}) "
        "SET x.state = 'replay', x.given_back = true, x.replayed_at = localdatetime($now), x.answer = null",
        {"note": note_id, "now": now()},
    )
    return {"note": note_id, "status": "replayed"}


def set_aside(graph, limit: int = 100) -> list[dict]:
    """The notes set aside, oldest first: [{"note", "text", "at", "error", "error_at", "asks"}]."""
    aside = rows(
        graph,
        f"MATCH (x:{EXTRACTION} {{state: 'set_aside'}}) RETURN x.note, x.error, x.error_at, x.asks",
    )
    kept = {note_id: rest for note_id, *rest in aside}
    listed = []
    for found in progress.notes_named(graph, list(kept))[:limit]:
        error, error_at, asks = kept[found["id"]]
        listed.append(
            {
                "note": found["id"],
                "text": found.get("text"),
                "at": moment(found["at"]),
                "error": error,
                "error_at": None if error_at is None else moment(error_at),
                "asks": asks,
            }
        )
    return listed
