"""Every error the service answers with, in one shape: {"error": {"code", "status", "message"}}.

HTTP answers with the status and this body; MCP tools answer with this body as an error result; the
command line prints the code and the message and exits with the class's exit code. The codes are stable:
clients may branch on them. Each exception of the service is a Problem, and its class carries its code,
HTTP status and exit code:

    Problem                                                    (exit 1 unless said)
    ├── InvalidArgument          invalid_argument      400 (exit 2)
    │   └── settings.SettingsError, keys.KeyRefused, backup.BackupError
    ├── InvalidBody              invalid_body          422 (exit 2)
    ├── Unauthorized             unauthorized          401 (exit 2)
    ├── Forbidden                forbidden             403 (exit 2)
    ├── NotFound                 not_found             404 (exit 2)
    │   └── NoGraph (a graph nothing was written to)
    ├── MethodNotAllowed         method_not_allowed    405 (exit 2)
    ├── BodyTimeout              body_timeout          408 (exit 2)
    ├── BodyTooLarge             body_too_large        413 (exit 2)
    ├── RateLimited              rate_limited          429 (exit 2)
    ├── DatabaseError            database_error        500
    ├── Internal                 internal              500
    ├── DatabaseUnavailable      database_unavailable  503 (Retry-After)
    │   └── embedded.ServerError (and DataDirectoryInUse) and access.AccessError (exit 2), loading.NotReady
    ├── ModelUnavailable         model_unavailable     503
    │   └── embedders.EmbedderUnavailable, embedders.EmbeddingsFailed
    └── TooSlowToAnswer          too_slow              504

Problem(code, message) gives the class of that code (as Path() gives a PosixPath). What the library and
Python raise becomes a Problem through one table, looked up along the error's classes (problem_of).
"""

from __future__ import annotations

from collections.abc import Callable

from lighthouse import Refused, TooSlow, WrongType
from redis.exceptions import ClusterError, ReadOnlyError, RedisClusterException, ResponseError, TryAgainError
from redis.exceptions import ConnectionError as DatabaseDown
from redis.exceptions import TimeoutError as DatabaseTimeout

# A cluster shard failing over: its master gone, a replica not yet promoted, a demoted master's refusal.
_FAILOVER_REPLIES = ("CLUSTERDOWN", "MOVED", "ASK", "TRYAGAIN", "NOREPLICAS", "READONLY", "MASTERDOWN")
DATABASE_RETRY_AFTER = 1  # seconds a client of database_unavailable is told to wait
_OF_CODE: dict[str, type[Problem]] = {}


class Problem(Exception):
    """An answer of the service that is not a result: its class's code and a message for a person."""

    code = "internal"
    status = 500
    exit_code = 1  # of the command line: 2 for a refusal of what was given (4xx), 1 for the rest
    unexpected = False  # logged with its traceback where it is met: a fault of the service, not the caller
    retry_after: int | None = None  # seconds, for rate_limited and database_unavailable

    def __init_subclass__(cls, **keywords) -> None:
        super().__init_subclass__(**keywords)
        if "code" in vars(cls):  # the class that names a code; its subclasses say it too
            if cls.code in _OF_CODE:
                raise TypeError(f"two classes of the code {cls.code!r}")
            _OF_CODE[cls.code] = cls

    def __new__(cls, *said: object, **keywords: object):
        if cls is Problem:
            cls = _class_of(said[0] if said else None)
        return super().__new__(cls)

    def __init__(self, *said: str, retry_after: int | None = None) -> None:
        """Problem(code, message), or a class of a code with its message alone: NotFound(message)."""
        message = said[-1] if said else ""
        super().__init__(message)
        self.message = message
        if retry_after is not None:
            self.retry_after = retry_after

    def __reduce__(self):  # a copy or a pickle keeps the class, the message and the wait
        return (_again, (type(self), self.message, self.retry_after))

    def body(self) -> dict:
        return {"error": {"code": self.code, "status": self.status, "message": self.message}}


def _class_of(code: object) -> type[Problem]:
    try:
        return _OF_CODE[code]
    except (KeyError, TypeError):
        raise ValueError(f"no problem code {code!r}") from None


def _again(cls: type[Problem], message: str, retry_after: int | None) -> Problem:
    return cls(message, retry_after=retry_after)


class InvalidArgument(Problem):
    """An argument, a parameter or a value the operation will not take."""

    code, status, exit_code = "invalid_argument", 400, 2


class InvalidBody(Problem):
    """A body that is not the JSON object of the operation's arguments."""

    code, status, exit_code = "invalid_body", 422, 2


class Unauthorized(Problem):
    """No API key, or one that is not known or was revoked."""

    code, status, exit_code = "unauthorized", 401, 2


class Forbidden(Problem):
    """A key without the scope, or of another tenant."""

    code, status, exit_code = "forbidden", 403, 2


class NotFound(Problem):
    """No such operation, kind, key, tenant or page."""

    code, status, exit_code = "not_found", 404, 2


class NoGraph(NotFound):
    """A graph that nothing was written to yet, so that the database has no key of it."""


class MethodNotAllowed(Problem):
    """A method the path does not answer."""

    code, status, exit_code = "method_not_allowed", 405, 2


class BodyTimeout(Problem):
    """A body that did not all arrive in time."""

    code, status, exit_code = "body_timeout", 408, 2


class BodyTooLarge(Problem):
    """A body over the limit."""

    code, status, exit_code = "body_too_large", 413, 2


class RateLimited(Problem):
    """A heavy operation asked more often than the key's quota allows."""

    code, status, exit_code = "rate_limited", 429, 2


class DatabaseError(Problem):
    """The database refused a query of the service's own."""

    code, status, unexpected = "database_error", 500, True


class Internal(Problem):
    """A fault of the service; the message does not show what it hides (paths, values)."""

    code, status, unexpected = "internal", 500, True


class DatabaseUnavailable(Problem):
    """The database cannot be reached; a serve starts its embedded one again within seconds
    (supervision.py), so a retry soon is worth it."""

    code, status, retry_after = "database_unavailable", 503, DATABASE_RETRY_AFTER


class ModelUnavailable(Problem):
    """A model the service was configured to ask (an embedder, an embeddings or chat endpoint) that
    cannot answer: its message says which and why."""

    code, status = "model_unavailable", 503


Unavailable = ModelUnavailable  # the name embedders.py and the worker's endpoint client subclass


class TooSlowToAnswer(Problem):
    """A question the database stopped at its time limit."""

    code, status = "too_slow", 504


# code -> HTTP status, from the classes: the one table of them (tests pin it, the README lists it).
CODES = {code: cls.status for code, cls in _OF_CODE.items()}
STOPPED = "the question ran out of time and was stopped"


def _unsendable(error: UnicodeEncodeError) -> Problem:
    if error.encoding == "ascii":  # an HTTP header: a key or a tenant id of the command line
        return InvalidArgument("a key or a tenant id is ASCII text")
    return InvalidArgument("text must not hold a lone surrogate (half of a UTF-16 pair)")


def _database_down(_error: Exception) -> Problem:
    return DatabaseUnavailable("the database cannot be reached")


# FalkorDB's refusals carry no code of their own: these words of its replies are the only one, and this
# is the one place the service reads them.
DATABASE_REPLIES: tuple[tuple[str, Callable[[str], Problem]], ...] = (
    ("empty key", lambda _said: NoGraph("nothing was written to this graph yet")),
    ("timed out", lambda _said: TooSlowToAnswer(STOPPED)),
    ("timeout", lambda _said: TooSlowToAnswer(STOPPED)),
    ("read-only", lambda said: InvalidArgument(f"only reading queries are allowed: {said[:300]}")),
    ("read only", lambda said: InvalidArgument(f"only reading queries are allowed: {said[:300]}")),
    (  # a NUL, which FalkorDB cannot read
        "failed to parse query parameter",
        lambda said: InvalidArgument(f"a value cannot be sent to the database: {said[:300]}"),
    ),
)


def _database_reply(error: ResponseError) -> Problem:
    said = str(error)
    if said.startswith(_FAILOVER_REPLIES):
        return _database_down(error)
    for words, problem in DATABASE_REPLIES:
        if words in said.lower():
            return problem(said)
    return DatabaseError(said[:500])


# What the library and Python raise -> the Problem it stands for. problem_of() looks an error's classes up
# here in their order (a TooSlow is a ResponseError too: its own class comes first).
FOREIGN: dict[type[BaseException], Callable] = {
    TooSlow: lambda error: TooSlowToAnswer(str(error) or STOPPED),
    Refused: lambda error: InvalidArgument(str(error)),
    WrongType: lambda error: InvalidArgument(str(error)),
    UnicodeEncodeError: _unsendable,  # text that cannot be sent: a lone surrogate of JSON's \ud800
    RecursionError: lambda _error: InvalidArgument("what was given is nested too deep"),
    DatabaseDown: _database_down,
    DatabaseTimeout: _database_down,
    ConnectionRefusedError: _database_down,
    ClusterError: _database_down,  # a shard failing over: worth a retry soon
    RedisClusterException: _database_down,
    TryAgainError: _database_down,
    ReadOnlyError: _database_down,
    ResponseError: _database_reply,
}


def problem_of(error: BaseException, table: dict[type[BaseException], Callable] = FOREIGN) -> Problem:
    """The Problem an exception stands for: itself, the table's for the first of its classes there, or
    internal (its text not shown)."""
    if isinstance(error, Problem):
        return error
    for cls in type(error).__mro__:
        said = table.get(cls)
        if said is not None:
            return said(error)
    return Internal(f"an internal error: {type(error).__name__}")
