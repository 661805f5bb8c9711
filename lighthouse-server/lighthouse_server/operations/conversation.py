"""Operations on conversations: messages of a user's sessions, summaries, finding what a user said
(by what it mentions, by its words and meaning), and forgetting."""

from __future__ import annotations

from lighthouse import (
    context,
    forget_session,
    forget_user,
    messages,
    said,
    said_about,
    say,
    sessions,
    summarize,
)

from ..problems import ModelUnavailable
from .recall import LIMIT, MATCH
from .table import Operation, Param

USER = Param("user", "text", "the user the conversation belongs to", required=True)
SESSION = Param("session_id", "text", "the session's id", required=True)
LAST = Param("limit", "int", "how many messages at most, 1 to 1000 (default 20)", to="last", also=("last",))


def _said(call, arguments: dict) -> list:
    """The library's said() with the configured embedder, so the user's messages are found by meaning as
    well as words (the worker gives them their vectors); by words alone without an embedder, or while it
    cannot answer."""
    asked = {name: arguments[name] for name in ("limit", "match") if name in arguments}
    user, question = arguments["user"], arguments["question"]
    if call.parts.settings.embedder:
        try:
            embedder, model, _dimensions = call.parts.embedder.load()
            return said(call.graph, user, question, embedder=embedder, model=model, **asked)
        except ModelUnavailable:
            pass  # words alone, as recall leaves its meaning ranking out
    return said(call.graph, user, question, **asked)


OPERATIONS = [
    Operation(
        "say",
        say,
        "write",
        (
            USER,
            SESSION,
            Param("role", "text", "who speaks: user, assistant, tool...", required=True),
            Param("text", "text", "what was said", required=True),
            Param("mentions", "refs", "what the message is about"),
            Param("values", "object", "more about the message"),
            Param("at", "time", "when it was said; now if not given"),
        ),
        '{"id": session_id, "seq", "status": "said"}, or a refusal',
        "Keep one message of a conversation.",
        example={"user": "u1", "session_id": "s1", "role": "user", "text": "the pump in room r1 leaks"},
        agent_as="by",
        writes=True,
        idempotent=False,
    ),
    Operation(
        "messages",
        messages,
        "read",
        (USER, SESSION, LAST, Param("before", "int", "only messages with a seq below this")),
        "the messages, oldest first",
        "Read the messages of a session.",
        example={"user": "u1", "session_id": "s1"},
    ),
    Operation(
        "context",
        context,
        "read",
        (USER, SESSION, LAST),
        '{"summary", "upto", "messages": those after the summary, "waiting"}',
        "What an assistant needs to go on with a session: its summary and the messages after it.",
        example={"user": "u1", "session_id": "s1"},
    ),
    Operation(
        "summarize",
        summarize,
        "write",
        (
            USER,
            SESSION,
            Param("text", "text", "the summary", required=True),
            Param("upto", "int", "the seq of the last message it covers", required=True),
        ),
        '{"id", "upto", "status": "summed"}, or a refusal',
        "Keep a summary of a session up to a message.",
        example={"user": "u1", "session_id": "s1", "text": "user reported a leak", "upto": 1},
        agent_as="by",
        writes=True,
    ),
    Operation(
        "sessions",
        sessions,
        "read",
        (USER, Param("limit", "int", "how many, 1 to 1000 (default 20)")),
        '[{"id", "opened_at", "active_at", "messages"}] most recent first',
        "The sessions of a user.",
        example={"user": "u1"},
    ),
    Operation(
        "said_about",
        said_about,
        "read",
        (
            USER,
            Param("reference", "ref", "what the messages mention: [kind, key] or a record", required=True),
            Param("limit", "int", "how many, 1 to 1000 (default 20)"),
        ),
        "the user's messages that mention it, newest first, shaped as messages gives them",
        "What a user said about an entity or a record, across the user's sessions.",
        example={"user": "u1", "reference": ["Room", "r1"]},
    ),
    Operation(
        "said",
        said,
        "read",
        (
            USER,
            Param("question", "text", "what to look for in the user's messages", required=True),
            LIMIT,
            MATCH,
        ),
        'the user\'s messages best first, shaped as messages gives them, with a "score" (and "places": '
        '{"words", "meaning"} when an embedder is configured)',
        "Find what a user said, across the user's sessions, by the words of a question and, with an "
        "embedder configured, by its meaning; only that user's messages are ever read.",
        example={"user": "u1", "question": "pump leak"},
        answer=_said,
    ),
    Operation(
        "forget_session",
        forget_session,
        "admin",
        (USER, SESSION),
        '{"id", "status": "forgotten" or "unknown", "messages"}',
        "Delete a session of a user and its messages for good (recorded in the audit).",
        example={"user": "u-gone", "session_id": "s-gone"},
        writes=True,
        destructive=True,
        audited="session_forgotten",
    ),
    Operation(
        "forget_user",
        forget_user,
        "admin",
        (USER,),
        '{"user", "sessions", "messages"}: how many were deleted',
        "Delete every session and message of a user for good (recorded in the audit).",
        example={"user": "u-gone"},
        writes=True,
        destructive=True,
        audited="user_forgotten",
    ),
]
