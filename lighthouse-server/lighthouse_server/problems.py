"""Every error the service answers with, in one shape: {"error": {"code", "status", "message"}}.

HTTP answers with the status and this body; MCP tools answer with this body as an error result; the
command line prints the message. The codes are stable: clients may branch on them.
"""

from __future__ import annotations

from lighthouse import Refused, TooSlow, WrongType
from redis.exceptions import ClusterError, ReadOnlyError, RedisClusterException, ResponseError, TryAgainError
from redis.exceptions import ConnectionError as DatabaseDown
from redis.exceptions import TimeoutError as DatabaseTimeout

# code -> HTTP status. The one table of them: tests pin it.
CODES = {
    "invalid_argument": 400,
    "invalid_body": 422,
    "unauthorized": 401,
    "forbidden": 403,
    "not_found": 404,
    "method_not_allowed": 405,
    "body_timeout": 408,
    "body_too_large": 413,
    "rate_limited": 429,
    "database_error": 500,
    "internal": 500,
    "database_unavailable": 503,
    "model_unavailable": 503,
    "too_slow": 504,
}


# A cluster shard failing over: its master gone, a replica not yet promoted, a demoted master's refusal.
_FAILING_OVER = ClusterError | RedisClusterException | TryAgainError | ReadOnlyError
_FAILOVER_REPLIES = ("CLUSTERDOWN", "MOVED", "ASK", "TRYAGAIN", "NOREPLICAS", "READONLY", "MASTERDOWN")
DATABASE_RETRY_AFTER = 1  # seconds a client of database_unavailable is told to wait


class Unavailable(RuntimeError):
    """A model the service was configured to ask (an embedder, an embeddings or chat endpoint) that
    cannot answer: its message says which and why. Said as model_unavailable, 503."""


class Problem(Exception):
    """An answer of the service that is not a result: a code of CODES and a message for a person."""

    def __init__(self, code: str, message: str, *, retry_after: int | None = None) -> None:
        if code not in CODES:
            raise ValueError(f"no problem code {code!r}")
        super().__init__(message)
        self.code = code
        self.message = message
        self.retry_after = retry_after  # seconds, for rate_limited and database_unavailable

    @property
    def status(self) -> int:
        return CODES[self.code]

    def body(self) -> dict:
        return {"error": {"code": self.code, "status": self.status, "message": self.message}}


def problem_of(error: BaseException) -> Problem:
    """The Problem an exception stands for. The library's refusals of arguments are the caller's fault
    (400); a read the server stopped is 504; a database that cannot be reached is 503."""
    if isinstance(error, Problem):
        return error
    if isinstance(error, TooSlow):
        return Problem("too_slow", str(error) or "the question ran out of time and was stopped")
    if isinstance(error, Refused | WrongType):
        return Problem("invalid_argument", str(error))
    if isinstance(error, UnicodeEncodeError):  # text that cannot be sent: a lone surrogate of JSON's \ud800
        if error.encoding == "ascii":  # an HTTP header: a key or a tenant id of the command line
            return Problem("invalid_argument", "a key or a tenant id is ASCII text")
        return Problem("invalid_argument", "text must not hold a lone surrogate (half of a UTF-16 pair)")
    if isinstance(error, RecursionError):
        return Problem("invalid_argument", "what was given is nested too deep")
    if isinstance(error, Unavailable):
        return Problem("model_unavailable", str(error)[:500] or "the configured model cannot answer")
    if isinstance(error, DatabaseDown | DatabaseTimeout | ConnectionRefusedError | _FAILING_OVER) or (
        isinstance(error, ResponseError) and str(error).startswith(_FAILOVER_REPLIES)
    ):
        # a serve starts its embedded FalkorDB again within seconds (supervision.py): worth a retry soon
        return Problem(
            "database_unavailable", "the database cannot be reached", retry_after=DATABASE_RETRY_AFTER
        )
    if isinstance(error, ResponseError):
        if "timed out" in str(error).lower() or "timeout" in str(error).lower():
            return Problem("too_slow", "the question ran out of time and was stopped")
        if "read-only" in str(error).lower() or "read only" in str(error).lower():
            return Problem("invalid_argument", f"only reading queries are allowed: {str(error)[:300]}")
        if "failed to parse query parameter" in str(error).lower():  # a NUL, which FalkorDB cannot read
            return Problem("invalid_argument", f"a value cannot be sent to the database: {str(error)[:300]}")
        return Problem("database_error", str(error)[:500])
    return Problem("internal", f"an internal error: {type(error).__name__}")
