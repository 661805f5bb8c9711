"""said_about(), said(): a user's messages found by what they mention, or by the words of their text.

Both read the messages of one user only. said() asks the text index for the user's word (talk.user_word)
with the words of the question, and the query still checks the user, since a text can hold another user's
word.
"""

from __future__ import annotations

from .. import values as limits
from ..graphs import read
from ..references import parse
from ..values import Refused
from .talk import MESSAGE_NAMES, own_user, reference_key, shown, user_word, whole

MAX_FOUND = 1_000  # messages one call gives
SEARCH_TIMEOUT = 5_000  # milliseconds: FalkorDB stops a read that takes longer


def _limit(limit: object) -> int:
    checked = whole(limit, "limit")
    if not checked or checked > MAX_FOUND:
        raise Refused(f"limit must be a whole number from 1 to {MAX_FOUND:,}")
    return checked


def _found(row: list) -> dict:
    session, *message = row
    found = shown(*message)
    found["session"] = session
    return found


# The reference first: with the filter on m in the same MATCH, FalkorDB 4.22 read every Message.
_SAID_ABOUT = (
    "MATCH (r:Reference {key: $reference_key}) WITH r "
    "MATCH (r)<-[:MENTIONS]-(m:Message) "
    "WHERE m.user = $user "
    "WITH m ORDER BY m.at DESC, m.recorded_at DESC, m.seq DESC, m.key LIMIT $limit "
    "RETURN m.session, m.seq AS seq, m.role, m.by, m.at AS at, m.text, "
    "  [name IN keys(m) WHERE NOT name IN $own | [name, m[name]]], "
    "  m.mentioned, m.recorded_at AS stored, m.key AS message_key "
    "ORDER BY at DESC, stored DESC, seq DESC, message_key"
)


def said_about(graph, user, reference, limit: int = 20) -> list[dict]:
    """The user's messages that mention a thing, newest first (by when they were said, then stored).

    reference: (Kind, key), (label, key) or an entry id. Each message as messages() gives it, and its
    "session".
    """
    user = own_user(user)
    label, key = parse(reference)
    rows = read(
        graph,
        _SAID_ABOUT,
        {
            "reference_key": reference_key(label, key),
            "user": user,
            "limit": _limit(limit),
            "own": sorted(MESSAGE_NAMES),
        },
    )
    return [_found(row[:8]) for row in rows]


_SAID = (
    "CALL db.idx.fulltext.queryNodes('Message', $query) YIELD node, score "
    "WITH node AS m, score WHERE m.user = $user "
    "WITH m, score ORDER BY score DESC, m.at DESC, m.seq DESC, m.key LIMIT $limit "
    "RETURN m.session, m.seq AS seq, m.role, m.by, m.at AS at, m.text, "
    "  [name IN keys(m) WHERE NOT name IN $own | [name, m[name]]], "
    "  m.mentioned, score, m.key AS message_key "
    "ORDER BY score DESC, at DESC, seq DESC, message_key"
)


def said(graph, user, question, limit: int = 20, match: str = "any") -> list[dict]:
    """The user's messages whose text has the words of a question, best first, each with its "score".

    Only the letters and digits of the question go to the index, as at most 20 words: its query
    language (*, -, |, @field:) cannot be used. match="any": a message with any of the words;
    "all": with every one. The values of messages are not searched, nor summaries.
    """
    user = own_user(user)
    limit = _limit(limit)
    if match not in ("any", "all"):
        raise Refused('match must be "any" or "all"')
    asked = limits.question(question)
    if not asked:
        return []
    words = " ".join(asked) if match == "all" else "(" + "|".join(asked) + ")"
    rows = read(
        graph,
        _SAID,
        {"query": f"{user_word(user)} {words}", "user": user, "limit": limit, "own": sorted(MESSAGE_NAMES)},
        timeout=SEARCH_TIMEOUT,
    )
    found = []
    for row in rows:
        message = _found(row[:8])
        message["score"] = row[8]
        found.append(message)
    return found
