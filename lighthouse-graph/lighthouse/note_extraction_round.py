"""extract_notes(): one round of reading a graph's notes with the application's extractor: each note read
once, its answer kept before its rows, its facts written as candidates with the note as their evidence
(write_note_rows()), the mark moved in the query that finishes it (note_extraction.py keeps the state).

The extractor is the application's function extractor(note, patient=False) of a note as
notes_to_extract() gives it. It answers with the note's facts, a list of at most 1,000 items of JSON
values ({"kind", "key", "t", "values", "relations"} each), or with (facts, asks) to say how many asks
they took. For a note it has no facts for, it raises one of the library's two (errors.py):
- ExtractorFailed(message, reason, asks): every ask of the note failed. The note is set aside with its
  error (give_note_back() gives it back) and the round goes on; SET_ASIDE_IN_A_ROW notes set aside one
  after another for one reason end it ("repeated:<reason>"): the extractor is to blame, not the notes.
- ExtractorUnavailable: it could not be asked now. That may be its fault or the note's (a model that
  drops the connection on that note alone), so the note is left waiting (given first, wherever the mark
  goes) and the round goes on. When the extractor then answers a note, the waiting one is asked again
  with patient=True (ask as for any failure: what it raises now sets the note aside); when the next note
  is unavailable too, the extractor is to blame: the round ends (its reason) and the notes wait.
Whatever else it raises passes unchanged, and its note stays as it was.

A kept answer is applied again instead of asked again (after a stop or a kill -9 between the answer
and the note's end): the write rule makes what was written come back `unchanged`. Rows the database
refused or lost to other writers (receipts failed or busy) leave the note answered behind the mark, and
the round ends (WRITE_FAILED): the next round applies the answer again. Every write is guarded by the
owner that holds the graph (hold_extraction()): one that lost it writes nothing more (LOST_CLAIM).

The rule: the arguments are checked before anything is read or written: kinds that are not Kinds, an
extractor or writing that cannot be called, or a stop without is_set() raise WrongType (a TypeError);
an owner or by that is not a name, or a limit out of 1 to 1,000, raise Refused (a ValueError). An answer
that is not a list of at most 1,000 facts raises WrongType, one that cannot be kept as JSON WrongType or
Refused, and nothing of that note is stored.
"""

from __future__ import annotations

import contextlib
import copy
import threading
from collections import Counter

from . import note_extraction as job
from . import values
from .errors import ExtractorFailed, ExtractorUnavailable, WrongType
from .note_extraction_hold import checked_owner
from .note_extraction_rows import MAX_FACTS, checked_kinds, write_note_rows

LOST_CLAIM = "lost_claim"  # another worker took the graph: this one wrote nothing more
WRITE_FAILED = "write_failed"  # rows failed or busy: the note's answer is applied again next round
STOPPED = "stop"  # the stop was set between two notes
SET_ASIDE_IN_A_ROW = 3  # notes set aside one after another for one reason that end a round
MAX_REASON = 100  # characters of a failure's reason kept in the round's answer


def _text(failure: BaseException) -> str:
    try:
        return str(failure)
    except Exception:  # an exception whose str() raises still leaves its type
        return type(failure).__name__


def _reason(failure: ExtractorFailed) -> str:
    reason = getattr(failure, "reason", None)
    return reason[:MAX_REASON] if type(reason) is str and reason else "failed"


def _asks(failure: ExtractorFailed) -> int:
    asks = getattr(failure, "asks", None)
    return asks if type(asks) is int and 1 <= asks <= job.MAX_COUNT else 1


def _answer(given: object) -> tuple[list, int]:
    """The extractor's answer: its facts and the asks they took; WrongType or Refused for another."""
    facts, asks = given, 1
    if type(given) is tuple and len(given) == 2:
        facts, asks = given
        asks = values.whole(asks, "the asks an extractor answers with", 1, job.MAX_COUNT)
    if type(facts) is not list or len(facts) > MAX_FACTS:
        raise WrongType(
            f"an extractor answers with a list of at most {MAX_FACTS:,} facts, or (facts, asks), "
            f"not {values.printable(given)}"
        )
    return facts, asks


class _Round:
    """One round's reading and what it counts: the note the extractor could not be asked about, to be
    judged by the next, and the notes set aside in a row for one reason."""

    def __init__(self, graph, kinds, extractor, owner: str, by: str, stop, writing) -> None:
        self.graph, self.kinds, self.extractor = graph, kinds, extractor
        self.owner, self.by, self.stop, self.writing = owner, by, stop, writing
        self.done = {"read": 0, "set_aside": 0, "invalidated": 0, "rows": Counter(), "refused": 0}
        self.in_a_row: tuple[str | None, int] = (None, 0)
        self.suspect: tuple[dict, ExtractorUnavailable] | None = None

    def facts_of(self, note: dict, patient: bool) -> tuple[list, int, bool]:
        """The note's facts (its kept answer, or the extractor's now), the asks that failed before them,
        and whether they were asked now."""
        extraction = note["extraction"] or {}
        kept = extraction.get("answer")
        if extraction.get("state") == "answered" and type(kept) is dict and type(kept.get("facts")) is list:
            return kept["facts"], max(extraction.get("asks", 1) - 1, 0), False
        facts, asks = _answer(self.extractor(copy.deepcopy(note), patient=patient))
        return facts, asks - 1, True

    def finish(self, note: dict, facts: list, failed: int, fresh: bool) -> str | None:
        """The answer kept (when asked now), the rows written, the note finished; why the round ends."""
        graph, owner, note_id = self.graph, self.owner, note["id"]
        if fresh and not job.keep_note_answer(
            graph, owner, note_id, {"facts": facts}, min(failed + 1, job.MAX_COUNT)
        ):
            return LOST_CLAIM
        with self.writing():
            written = write_note_rows(graph, self.kinds, note_id, facts, self.by)
        if written["again"]:
            error = (
                f"note {note_id}: {written['again']} row(s) failed or busy "
                f"({written['rows']}); its answer is applied again next round"
            )
            return WRITE_FAILED if job.hold_note_back(graph, owner, note_id, error) else LOST_CLAIM
        if not job.finish_note(graph, owner, note_id, written["rows"], written["refused"], failed):
            return LOST_CLAIM
        self.done["read"] += 1
        self.done["rows"].update(written["rows"])
        self.done["refused"] += written["refused"]
        return None

    def set_aside(self, note: dict, failure: ExtractorFailed, asks: int) -> str | None:
        if not job.set_note_aside(
            self.graph, self.owner, note["id"], f"note {note['id']}: {_text(failure)}", asks
        ):
            return LOST_CLAIM
        self.done["set_aside"] += 1
        return None

    def judged(self, waited: dict, first: ExtractorUnavailable) -> str | None:
        """The extractor answers other notes: the one that waited is asked again, patiently, and set aside
        if that fails too. Why the round ends, or None."""
        try:
            facts, failed, _ = self.facts_of(waited, True)
        except ExtractorFailed as failure:
            if isinstance(failure, ExtractorUnavailable) and self.stop.is_set():
                return _reason(failure)  # stopped while it asked: the note waits
            return self.set_aside(waited, failure, min(_asks(failure) + _asks(first), job.MAX_COUNT))
        return self.finish(waited, facts, min(failed + _asks(first), job.MAX_COUNT - 1), True)

    def unavailable(self, note: dict, failure: ExtractorUnavailable) -> str | None:
        if self.stop.is_set():
            return _reason(failure)  # stopped while it asked: the note stays as it was
        if self.suspect is None:  # the note's fault, or the extractor's? The next note tells
            self.suspect = (note, failure)
            said = f"note {note['id']}: {_text(failure)}"
            return None if job.leave_note_waiting(self.graph, self.owner, note["id"], said) else LOST_CLAIM
        job.keep_extraction_error(self.graph, f"note {note['id']} waits: {_text(failure)}")  # two in a row
        return _reason(failure)

    def failed(self, note: dict, failure: ExtractorFailed) -> str | None:
        if (ended := self.set_aside(note, failure, _asks(failure))) is not None:
            return ended
        reason = _reason(failure)
        count = self.in_a_row[1] + 1 if self.in_a_row[0] == reason else 1
        self.in_a_row = (reason, count)
        if count < SET_ASIDE_IN_A_ROW:
            return None
        job.keep_extraction_error(
            self.graph, f"{count} notes in a row set aside ({_text(failure)}); the rest wait"
        )
        return f"repeated:{reason}"

    def read(self, note: dict) -> str | None:
        """One note read, passed (invalidated), left waiting or set aside; why the round ends, or None."""
        if "invalidated_at" in note:  # an agent marked it wrong: not read
            if not job.skip_note(self.graph, self.owner, note["id"]):
                return LOST_CLAIM
            self.done["invalidated"] += 1
            return None
        try:
            facts, failed, fresh = self.facts_of(note, False)
        except ExtractorUnavailable as failure:
            return self.unavailable(note, failure)
        except ExtractorFailed as failure:
            return self.failed(note, failure)
        self.in_a_row = (None, 0)
        if fresh and self.suspect is not None:  # kept first: a crash while judging does not ask it again
            if not job.keep_note_answer(self.graph, self.owner, note["id"], {"facts": facts}, failed + 1):
                return LOST_CLAIM
            fresh, (waited, first), self.suspect = False, self.suspect, None
            if (ended := self.judged(waited, first)) is not None:
                return ended
        return self.finish(note, facts, failed, fresh)

    def run(self, limit: int) -> dict:
        stopped = None
        # notes_to_extract() gives up to `limit` begun notes and as many past the mark: the round reads
        # the first `limit`, begun first (the rest stay where they are: begun, or past the mark).
        for note in job.notes_to_extract(self.graph, limit)[:limit]:
            if self.stop.is_set():
                stopped = STOPPED
                break
            if (stopped := self.read(note)) is not None:
                break
        if self.suspect is not None and stopped is None:  # no other note answered: it waits
            waited, failure = self.suspect
            job.keep_extraction_error(self.graph, f"note {waited['id']} waits: {_text(failure)}")
            stopped = _reason(failure)
        return {**self.done, "rows": dict(self.done["rows"]), "stopped": stopped}


def _checked_stop(stop: object):
    if stop is None:
        return threading.Event()
    if not callable(getattr(stop, "is_set", None)):
        raise WrongType(f"stop must be None or an event (with is_set()), not {values.sort_of(stop)}")
    return stop


def extract_notes(graph, kinds, extractor, *, owner, by, limit=50, stop=None, writing=None) -> dict:
    """One round on the graph's notes: up to `limit` (1 to 1,000) of those notes_to_extract() gives, each
    asked of extractor(note, patient=False) once (or its kept answer applied again), its facts written
    as candidates of the given kinds by `by` (who drew them: the model), the mark moved past it. Returns
    {"read", "set_aside", "invalidated", "rows": {status: count}, "refused", "stopped"}: refused counts
    the items refused; stopped is None, or why the round ended early: "stop" (the stop was set between
    two notes), the reason of an ExtractorUnavailable (two notes in a row, or one with none after it,
    could not be asked, or the stop came while it asked: the notes wait), "repeated:<reason>"
    (SET_ASIDE_IN_A_ROW notes set aside in a row for one reason), "write_failed" (rows failed or busy:
    the note's answer is applied again next round) or "lost_claim" (another owner holds the graph).

    kinds: the Kinds the facts may name (a list, tuple or dict by label); owner: the worker that holds
    the graph (hold_extraction()); stop: None or an event, looked at between two notes (a stop the
    extractor sees while it asks ends the round once it raises ExtractorUnavailable); writing: None or
    a function that gives a context manager held while a note's rows are written.
    """
    kinds = checked_kinds(kinds)
    if not callable(extractor):
        raise WrongType("extractor must be a function of a note that gives its facts")
    owner, by = checked_owner(owner), values.name(by, "by")
    limit = values.whole(limit, "limit", 1, job.MAX_LIMIT)
    stop = _checked_stop(stop)
    if writing is not None and not callable(writing):
        raise WrongType("writing must be None or a function that gives a context manager")
    writing = contextlib.nullcontext if writing is None else writing
    return _Round(graph, kinds, extractor, owner, by, stop, writing).run(limit)
