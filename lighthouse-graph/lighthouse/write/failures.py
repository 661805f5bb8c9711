"""record_failure(): what was not written is kept, once per distinct refusal, with a count."""

from __future__ import annotations

import contextlib
import hashlib
import json
from dataclasses import dataclass

from redis.exceptions import ResponseError

from .. import clock, values
from ..graphs import read
from ..kinds import is_kind
from ..values import Refused, sort_of, whole

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
    as_text: bool = False  # content is text to keep as it is, not a value to show as JSON


def stored_text(text: str, limit: int = 1_000) -> str:
    """Text as a WriteFailure keeps it: as given when it can be stored, else ASCII with escapes.

    A name that can be stored stays itself, so "Zoë" and the six characters "Zo\\xeb" stay two owners and
    forgetting one never reaches the other's refusals.
    """
    if len(text) <= limit and not any(char == "\x00" or "\ud800" <= char <= "\udfff" for char in text):
        return text
    return text.encode("ascii", "backslashreplace").decode("ascii").replace("\x00", "\\x00")[:limit]


def whole_text(content: object) -> str:
    """All of what a refused write held, as ASCII JSON, whatever the objects do when they are read."""
    try:
        return json.dumps(content, ensure_ascii=True, default=repr)
    except Exception:  # a part that fails when printed: the refusal is still kept
        try:
            return ascii(content)
        except Exception:
            return f"<{sort_of(content)} that cannot be shown>"


def _row(failure: Failure) -> dict:
    content = failure.content
    if content is not None and not failure.as_text:
        content = whole_text(content)
    key = failure.key if type(failure.key) in (str, int) or failure.key is None else whole_text(failure.key)
    if type(key) is str:
        key = stored_text(key, 400)
    owner = (
        failure.owner if failure.owner is None or type(failure.owner) is str else whole_text(failure.owner)
    )
    owner = None if owner is None else stored_text(owner, 400)
    kind = None if failure.kind is None else stored_text(str(failure.kind), 200)
    # The identity of a refusal is all it held, not the 2,000 characters kept of it: two rows that
    # differ only past those are two refusals.
    fingerprint = hashlib.sha256(
        "\x1f".join([failure.reason, kind or "", repr(key), content or "", owner or ""]).encode(
            "utf-8", "backslashreplace"
        )
    ).hexdigest()
    return {
        "fingerprint": fingerprint,
        "reason": failure.reason,
        "message": stored_text(str(failure.message)),
        "kind": kind,
        "key": key,
        "detail": None if content is None else content[: values.MAX_KEPT],
        "by": None if failure.by is None else stored_text(str(failure.by), 400),
        "owner": owner,
    }


# A WriteFailure as the design names it, {reason, kind, key, detail, times, last_at} and the owner of a
# conversation's refusal; beside them, under names no value can take, what tells one refusal from another
# (all it held, not the 2,000 characters kept), the library's message, who wrote it and when it came first.
FINGERPRINT, MESSAGE, WRITER, FIRST_AT = "lh.fingerprint", "lh.message", "lh.by", "lh.first_at"


def record_failures(graph, failures: list[Failure]) -> None:
    """Stores each refusal in one query: the same refusal again adds to its count and its last time."""
    if not failures:
        return
    graph.query(
        "UNWIND $rows AS row "
        f"MERGE (f:WriteFailure {{`{FINGERPRINT}`: row.fingerprint}}) "
        "ON CREATE SET f.reason = row.reason, f.kind = row.kind, f.key = row.key, f.detail = row.detail, "
        f"  f.`{MESSAGE}` = row.message, f.`{WRITER}` = row.by, f.owner = row.owner, f.times = 0, "
        f"  f.`{FIRST_AT}` = localdatetime($now) "
        "SET f.times = f.times + 1, f.last_at = localdatetime($now)",
        {"rows": [_row(one) for one in failures], "now": clock.now()},
    )


def keep_failures(graph, failures: list[Failure]) -> None:
    """record_failures() for a receipt-returning write: a database that refused the write may refuse its
    record too, and the receipts tell each refusal all the same (such a write does not raise for the
    database, API 1.4)."""
    with contextlib.suppress(ResponseError):
        record_failures(graph, failures)


def refuse(graph, kind: str, key: object, content: object, status: str, reason: str, by: object) -> dict:
    """Keeps a refused write as a WriteFailure and gives its receipt: {"id", "status", "reason"}."""
    record_failures(graph, [Failure(status, kind, key, content, reason, by)])
    return {"id": key, "status": status, "reason": reason}


def refused(
    graph, kind: str, key: object, content: object, status: str, reason: str, by: object, *, owner=None
) -> dict:
    """The receipt of a refused record write, {"id": None, "status", "reason"}, with its WriteFailure
    stored. A database that refused the write may refuse its record too: the receipt tells it all the
    same, since a receipt-returning write does not raise for the database (API 1.4)."""
    keep_failures(graph, [Failure(status, kind, key, content, reason, by, owner=owner)])
    return {"id": None, "status": status, "reason": reason}


def _name_or_none(given: object) -> str | None:
    try:
        return values.name(given)
    except Refused:
        return None


def record_failure(graph, reason, kind=None, key=None, detail=None, owner=None) -> None:
    """Keeps one refusal of the application's own as a WriteFailure; the same one again is counted.

    reason must be a name (else Refused, a ValueError, and nothing is stored). A kind (a Kind or a
    label), key or owner that is not valid is stored as null; detail is kept to 2,000 characters, with
    NUL escaped. Returns None.
    """
    reason = values.name(reason, "reason")
    label = kind.label if is_kind(kind) else _name_or_none(kind)
    try:
        checked_key = None if key is None else values.key(key)
    except Refused:
        checked_key = None
    if detail is None:
        content = None
    elif type(detail) is str:  # kept as given, not as JSON: NUL escaped, and a lone surrogate (unstorable)
        content = detail.replace("\x00", "\\x00").encode("utf-8", "backslashreplace").decode("utf-8")
    else:
        content = whole_text(detail)
    owner = _name_or_none(owner)
    record_failures(graph, [Failure(reason, label, checked_key, content, "", None, owner, as_text=True)])


def failures(graph, kind: object = None, reason: str | None = None, limit: int = 100) -> list[dict]:
    """The stored refusals, newest first: reason, message, kind, key, detail, times, first_at, last_at, by,
    owner (a refusal kept before its properties had these names is read under the names it has).

    kind: a Kind or a label; limit: 1 to 10,000. Refused (a ValueError) for a kind that is neither, a
    reason that is not text, or a bad limit. Nothing is written; database errors pass as ResponseError.
    """
    if is_kind(kind):
        kind = kind.label
    if kind is not None and type(kind) is not str:
        raise Refused(f"kind must be a Kind or a label, not {sort_of(kind)}")
    if reason is not None and type(reason) is not str:
        raise Refused(f"reason must be text, not {sort_of(reason)}")
    # As names: a NUL or a lone surrogate could not even be sent (nothing stored holds one).
    kind = None if kind is None else values.name(kind, "kind")
    reason = None if reason is None else values.name(reason, "reason")
    limit = whole(limit, "limit", 1, MAX_LISTED)
    result = read(
        graph,
        "MATCH (f:WriteFailure) WHERE ($kind IS NULL OR f.kind = $kind) AND ($reason IS NULL OR f.reason = $reason) "
        f"RETURN f.reason, coalesce(f.`{MESSAGE}`, f.message), f.kind, f.key, coalesce(f.detail, f.content), "
        f"  f.times, coalesce(f.`{FIRST_AT}`, f.first_at), f.last_at, coalesce(f.`{WRITER}`, f.by), f.owner "
        f"ORDER BY f.last_at DESC, coalesce(f.`{FINGERPRINT}`, f.fingerprint) LIMIT $limit",
        {"kind": kind, "reason": reason, "limit": limit},
    )
    names = ("reason", "message", "kind", "key", "detail", "times", "first_at", "last_at", "by", "owner")
    return [dict(zip(names, row, strict=True)) for row in result]
