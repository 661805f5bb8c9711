"""record_failure(): what was not written is kept, once per distinct refusal, with a count."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from .. import clock
from ..graphs import read
from ..kinds import Kind
from ..values import Refused, kept, whole

MAX_LISTED = 10_000  # refusals one call of failures() gives

# The statuses that are refusals: each is stored as a WriteFailure.
REFUSALS = frozenset({"stale", "conflict", "missing", "invalid", "failed", "busy", "unknown"})


@dataclass(frozen=True)
class Failure:
    """One refused write: why (reason and message), of what (kind, key), and what it held."""

    reason: str
    kind: str
    key: object
    content: object
    message: str = ""
    by: object = None
    owner: object = None  # the user of a conversation, so forgetting the user reaches it
    index: int | None = None  # the row of the call it refused; not stored


def stored_text(text: str, limit: int = 1_000) -> str:
    """Text as a WriteFailure keeps it: as given when it can be stored, else ASCII with escapes.

    A name that can be stored stays itself, so "Zoë" and the six characters "Zo\\xeb" stay two owners and
    forgetting one never reaches the other's refusals.
    """
    if len(text) <= limit and not any(char == "\x00" or "\ud800" <= char <= "\udfff" for char in text):
        return text
    return text.encode("ascii", "backslashreplace").decode("ascii").replace("\x00", "\\x00")[:limit]


def _row(failure: Failure) -> dict:
    content = kept(failure.content)
    key = (
        failure.key
        if isinstance(failure.key, str | int) and not isinstance(failure.key, bool)
        else kept(failure.key)
    )
    if isinstance(key, str):
        key = stored_text(key, 400)
    owner = None if failure.owner is None else stored_text(str(failure.owner), 400)
    kind = stored_text(str(failure.kind), 200)
    print_key = repr(key)
    fingerprint = hashlib.sha256(
        "\x1f".join([failure.reason, kind, print_key, content, owner or ""]).encode()
    ).hexdigest()
    return {
        "fingerprint": fingerprint,
        "reason": failure.reason,
        "message": stored_text(failure.message),
        "kind": kind,
        "key": key,
        "content": content,
        "by": None if failure.by is None else stored_text(str(failure.by), 400),
        "owner": owner,
    }


def record_failures(graph, failures: list[Failure]) -> None:
    """Stores each refusal in one query: the same refusal again adds to its count and its last time."""
    if not failures:
        return
    graph.query(
        "UNWIND $rows AS row "
        "MERGE (f:WriteFailure {fingerprint: row.fingerprint}) "
        "ON CREATE SET f.reason = row.reason, f.kind = row.kind, f.key = row.key, f.content = row.content, "
        "  f.message = row.message, f.by = row.by, f.owner = row.owner, f.times = 0, "
        "  f.first_at = localdatetime($now) "
        "SET f.times = f.times + 1, f.last_at = localdatetime($now)",
        {"rows": [_row(one) for one in failures], "now": clock.now()},
    )


def refuse(graph, kind: str, key: object, content: object, status: str, reason: str, by: object) -> dict:
    """Keeps a refused write as a WriteFailure and gives its receipt: {"id", "status", "reason"}."""
    record_failures(graph, [Failure(status, kind, key, content, reason, by)])
    return {"id": key, "status": status, "reason": reason}


def record_failure(graph, failure: Failure) -> None:
    record_failures(graph, [failure])


def failures(graph, kind: object = None, reason: str | None = None, limit: int = 100) -> list[dict]:
    """The stored refusals, newest first: reason, message, kind, key, content, times, first_at, last_at.

    kind: a Kind or a label; limit: 1 to 10,000.
    """
    if isinstance(kind, Kind):
        kind = kind.label
    if kind is not None and not isinstance(kind, str):
        raise Refused(f"kind must be a Kind or a label, not {type(kind).__name__}")
    if reason is not None and not isinstance(reason, str):
        raise Refused(f"reason must be text, not {type(reason).__name__}")
    limit = whole(limit, "limit", 1, MAX_LISTED)
    result = read(
        graph,
        "MATCH (f:WriteFailure) WHERE ($kind IS NULL OR f.kind = $kind) AND ($reason IS NULL OR f.reason = $reason) "
        "RETURN f.reason, f.message, f.kind, f.key, f.content, f.times, f.first_at, f.last_at, f.by, f.owner "
        "ORDER BY f.last_at DESC, f.fingerprint LIMIT $limit",
        {"kind": kind, "reason": reason, "limit": limit},
    )
    names = ("reason", "message", "kind", "key", "content", "times", "first_at", "last_at", "by", "owner")
    return [dict(zip(names, row, strict=True)) for row in result]
