"""The library's one family of exceptions, each also the built-in that callers of the published API catch.

    LighthouseError
    ├── Refused (ValueError): input the library will not take
    │   ├── TimeError: a time it cannot use as given
    │   ├── EmbedderError: an embedder's answer that cannot be stored
    │   └── RerankerError: a reranker's answer that is not the results it was given
    ├── WrongType (TypeError): an argument of the wrong sort
    ├── SchemaNotReady (RuntimeError): an index not ready in time
    ├── ReceiptMismatch (RuntimeError): receipts that do not match their rows
    ├── StepMismatch (RuntimeError): once() asked to send another query than the one kept
    ├── ExtractorFailed (RuntimeError): raised BY an application's extractor: it failed on this note
    │   └── ExtractorUnavailable: it could not be asked now (its model down, busy, refusing the settings)
    └── TooSlow (redis ResponseError): a read stopped at its time limit

The rule every public function follows:

- Its arguments are checked before anything is written. A bad value raises Refused (a ValueError); a
  container or callable of the wrong sort raises WrongType (a TypeError). Nothing is written then, and
  no WriteFailure is stored.
- The content of a write (values, references, times, sizes) never raises: it becomes a refusal receipt,
  {"status": <refusal>, "reason": ...}, and a WriteFailure is stored with it.
- The database's own errors pass as redis.exceptions.ResponseError (in the receipt-returning writes
  they become the status "failed"); a read stopped by its time limit raises TooSlow, a ResponseError.
- What the application's own functions (extractor, embedder, rule) raise passes unchanged, except the
  two an extractor of notes raises to tell extract_notes() what became of a note: ExtractorFailed (the
  note is set aside) and ExtractorUnavailable (the note waits).
"""

from __future__ import annotations

from redis.exceptions import ResponseError


class LighthouseError(Exception):
    """Every exception the library raises of its own."""


class Refused(LighthouseError, ValueError):
    """Input the library will not take. Raised for an argument; for the content of a write, it is the
    refusal receipt instead. reason is the receipt's status ("invalid" unless said otherwise)."""

    def __init__(self, message: str, reason: str = "invalid") -> None:
        super().__init__(message)
        self.reason = reason

    def __reduce__(self):  # a copy or a pickle keeps the reason
        return (type(self), (str(self), self.reason))


class TimeError(Refused):
    """A time that the library cannot use as given."""


class EmbedderError(Refused):
    """An embedder's answer that cannot be stored: nothing of it was. A Refused, so a ValueError."""


class RerankerError(Refused):
    """A reranker's answer that is not the results it was given, in another order. A Refused."""


class WrongType(LighthouseError, TypeError):
    """An argument of the wrong sort: a container, flag or callable where another is needed."""


class SchemaNotReady(LighthouseError, RuntimeError):
    """ensure_schema(): an index is not operational in time, has failed, or has another dimension."""


class ReceiptMismatch(LighthouseError, RuntimeError):
    """The database answered a write with receipts that do not match its rows: an internal invariant."""


class StepMismatch(LighthouseError, RuntimeError):
    """A call made again on once() sent another query than the one kept for that step."""


class ExtractorFailed(LighthouseError, RuntimeError):
    """What an application's extractor of notes raises for a note it failed on, every ask of it
    (extract_notes() sets the note aside with the message). reason: how, a short word ("server",
    "malformed"; notes set aside one after another for one reason end the round); asks: how many asks
    of the note failed (1 or more)."""

    def __init__(self, message: str, reason: str = "failed", asks: int = 1) -> None:
        super().__init__(message)
        self.reason = reason
        self.asks = asks

    def __reduce__(self):  # a copy or a pickle keeps the reason and the asks
        return (type(self), (str(self), self.reason, self.asks))


class ExtractorUnavailable(ExtractorFailed):
    """What an application's extractor of notes raises when it could not be asked about a note now (its
    model unreachable, rate limited, refusing the settings): not the note's fault, as far as it knows.
    extract_notes() leaves the note waiting and judges it by the next note: when the extractor answers
    that one, it asks the note again (patient=True), and what it raises then sets the note aside."""


class TooSlow(LighthouseError, ResponseError):
    """A read that the server stopped at its time limit (5 seconds by default). No partial answer."""
