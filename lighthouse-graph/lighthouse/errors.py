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
    └── TooSlow (redis ResponseError): a read stopped at its time limit

The rule every public function follows:

- Its arguments are checked before anything is written. A bad value raises Refused (a ValueError); a
  container or callable of the wrong sort raises WrongType (a TypeError). Nothing is written then, and
  no WriteFailure is stored.
- The content of a write (values, references, times, sizes) never raises: it becomes a refusal receipt,
  {"status": <refusal>, "reason": ...}, and a WriteFailure is stored with it.
- The database's own errors pass as redis.exceptions.ResponseError (in the receipt-returning writes
  they become the status "failed"); a read stopped by its time limit raises TooSlow, a ResponseError.
- What the application's own functions (extractor, embedder, rule) raise passes unchanged.
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


class TooSlow(LighthouseError, ResponseError):
    """A read that the server stopped at its time limit (5 seconds by default). No partial answer."""
