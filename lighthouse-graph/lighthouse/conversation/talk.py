"""say(), messages(), sessions(), context(), summarize(): what was said with one user, in order.

A session belongs to one user: its key is the user and the id, joined by a character that no name can
hold, so two users can both have "main" and no id that one asks for reaches the other's. A message is
found by its key, the session's key and its number, so a read of the last messages costs the same in a
session of 20 or 20,000. Each message holds one more word for its user, a hash of the name, so the text
index gives the messages of one user (see recall.py).
"""

from __future__ import annotations

import hashlib
import json

from redis.exceptions import ResponseError

from .. import clock
from .. import values as limits
from ..graphs import read
from ..references import parse_all
from ..values import Refused
from ..write.failures import Failure, record_failures

# Joins the user and the session id: a control character, which values.name() refuses in any name.
SEPARATOR = "\x1f"
# The properties the library writes on a message: a value of the message may not take one of them.
MESSAGE_NAMES = frozenset(
    {"key", "session", "user", "seq", "role", "by", "at", "recorded_at", "text", "words", "mentioned"}
)
SAID = "said"
SUMMED = "summed"


def session_key(user: str, session: str) -> str:
    """The key of a user's session; its messages are <this key>#<seq>."""
    return f"{user}{SEPARATOR}{session}"


def user_word(user: str) -> str:
    """The word every message of a user holds: the same in every process, letters and digits only."""
    return "u" + hashlib.sha256(user.encode("utf-8")).hexdigest()[:16]


def reference_key(label: str, key: str | int) -> str:
    """One Reference per (label, key): JSON keeps 1 and "1" apart, and no label holds SEPARATOR."""
    return f"{label}{SEPARATOR}{json.dumps(key, ensure_ascii=False)}"


def own_user(user: object) -> str:
    return limits.name(user, "user")


def own_session(session: object) -> str:
    return limits.name(session, "session")


def whole(given: object, what: str) -> int | None:
    """None, or a whole number from 0: how many messages, or a message number."""
    if given is None:
        return None
    if isinstance(given, bool) or not isinstance(given, int) or not 0 <= given <= limits.INT_RANGE[1]:
        raise Refused(f"{what} must be a whole number from 0")
    return int.__int__(given)  # a plain int: a subclass could print as anything


def refuse(graph, kind: str, error: Refused | str, user, session, by, content: dict, message="") -> dict:
    """Keeps one refused write of a conversation, owned by its user so that forgetting reaches it."""
    reason = error.reason if isinstance(error, Refused) else error
    message = str(error) if isinstance(error, Refused) else message
    # Plain text or nothing: an object of the caller's could do anything when it is printed.
    owner, key, writer = (str.__str__(one) if isinstance(one, str) else None for one in (user, session, by))
    record_failures(graph, [Failure(reason, kind, key, content, message, writer, owner=owner)])
    return {"id": session, "status": reason, "reason": message}


def shown(seq, role, by, at, text, given_values, mentioned) -> dict:
    """A message as the reads give it; its words stay in the graph.

    mentioned: the JSON list of [label, key] the message keeps, in the order they were given. The
    MENTIONS edges stay for said_about(); reading the list instead of them took a third of messages().
    """
    return {
        "seq": seq,
        "role": role,
        "by": by,
        "at": clock.from_store(at),
        "text": text,
        "mentions": [(label, key) for label, key in json.loads(mentioned or "[]")],
        "values": dict(given_values),
    }


# One query: the number and the place after the last message, taken together. FalkorDB runs the writes
# of a graph one at a time, so two messages said at once never take one number.
_SAY = (
    "MERGE (s:Session {key: $session_key}) "
    "ON CREATE SET s.user = $user, s.id = $session, s.count = 0, s.upto = 0 "
    "WITH s, s.count + 1 AS n "
    "OPTIONAL MATCH (prior:Message {key: $session_key + '#' + toString(s.count)}) "
    "CREATE (s)-[:HAS]->(m:Message {key: $session_key + '#' + toString(n), session: $session, "
    "  user: $user, seq: n, role: $role, by: $by, at: localdatetime($at), "
    "  recorded_at: localdatetime($now), text: $text, words: $words, mentioned: $mentioned}) "
    "SET m += $values, s.count = n, s.last_stored_at = localdatetime($now) "
    "FOREACH (earlier IN CASE WHEN prior IS NULL THEN [] ELSE [prior] END | "
    "  CREATE (earlier)-[:NEXT]->(m)) "
    "FOREACH (named IN $mentions | "
    "  MERGE (r:Reference {key: named.key}) "
    "  ON CREATE SET r.label = named.label, r.target = named.target, r.mentions = 0 "
    "  SET r.mentions = r.mentions + 1 "
    "  CREATE (m)-[:MENTIONS {place: named.place}]->(r)) "
    "RETURN n"
)


def _message(user, session, role, text, by, mentions, given_values, at) -> dict:
    """The parameters of _SAY, every input checked, or Refused."""
    user, session = own_user(user), own_session(session)
    role, by = limits.name(role, "role"), limits.name(by, "by")
    text = limits.text(text, "text")
    checked_values = limits.values(given_values)
    for name in checked_values:
        if name in MESSAGE_NAMES:
            raise Refused(f"the value name {name!r} belongs to the message")
    named = parse_all(mentions, "mentions")
    try:
        moment = clock.present() if at is None else clock.checked(at)
    except clock.TimeError as error:
        raise Refused(str(error)) from None
    limits.measured({"text": text, "values": checked_values, "mentions": named}, "a message")
    return {
        "session_key": session_key(user, session),
        "user": user,
        "session": session,
        "role": role,
        "by": by,
        "at": clock.stamp(moment),
        "now": clock.now(),
        "text": text,
        "words": f"{limits.words(text)} {user_word(user)}".lstrip(),
        "values": checked_values,
        "mentions": [
            {"key": reference_key(label, key), "label": label, "target": key, "place": place}
            for place, (label, key) in enumerate(named)
        ],
        "mentioned": json.dumps([[label, key] for label, key in named]),
    }


def say(graph, user, session, role, text, by, mentions=None, values=None, at=None) -> dict:
    """Adds a message to a user's session: {"id", "seq", "status": "said"}, or a refusal kept as a failure.

    role: a name the application chooses (user, the name of an agent); by: who wrote it; mentions:
    (Kind, key), (label, key) or entry ids, stored as names and not looked up; values: a dict of values
    kept with the message (said() does not search them); at: when it was said (now without one).
    """
    content = {
        "user": user,
        "session": session,
        "role": role,
        "by": by,
        "text": text,
        "mentions": mentions,
        "values": values,
        "at": at,
    }
    try:
        params = _message(user, session, role, text, by, mentions, values, at)
    except Refused as error:
        return refuse(graph, "Message", error, user, session, by, content)
    try:
        seq = graph.query(_SAY, params).result_set[0][0]
    except ResponseError as error:
        return refuse(graph, "Message", "failed", user, session, by, content, str(error)[:500])
    return {"id": params["session"], "seq": seq, "status": SAID}


# The messages of a session from low to top, each found by its key through the index.
_MESSAGES = (
    "MATCH (s:Session {key: $session_key}) "
    "WITH s, CASE WHEN $before IS NULL OR $before > s.count THEN s.count ELSE $before - 1 END AS top "
    "WITH top, CASE WHEN $last IS NULL OR top - $last < 1 THEN 1 ELSE top - $last + 1 END AS low "
    "UNWIND range(low, top) AS place "
    "MATCH (m:Message {key: $session_key + '#' + toString(place)}) "
    "RETURN m.seq AS seq, m.role, m.by, m.at, m.text, "
    "  [name IN keys(m) WHERE NOT name IN $own | [name, m[name]]], m.mentioned "
    "ORDER BY seq"
)


def messages(graph, user, session, last=None, before=None) -> list[dict]:
    """A session's messages in order: {"seq", "role", "by", "at", "text", "mentions", "values"}.

    last: only the last that many; before: only those numbered below it. A session the user does not
    have reads as empty.
    """
    user, session = own_user(user), own_session(session)
    last, before = whole(last, "last"), whole(before, "before")
    rows = read(
        graph,
        _MESSAGES,
        {
            "session_key": session_key(user, session),
            "last": last,
            "before": before,
            "own": sorted(MESSAGE_NAMES),
        },
    )
    return [shown(*row) for row in rows]


# By the user, not by a range of keys: FalkorDB 4.22's range index gives wrong answers to a range of
# strings (found here: it folds case on one side only), where a scan gives the right ones.
_SESSIONS = (
    "MATCH (s:Session) WHERE s.user = $user "
    "RETURN s.id AS id, s.count, s.last_stored_at AS stored, s.upto "
    "ORDER BY stored DESC, id LIMIT $limit"
)


def sessions(graph, user, limit: int = 100) -> list[dict]:
    """A user's sessions, the one the library last stored a message in first: {"id", "count",
    "last_stored_at", "upto"}. The order is the library's time, which a caller cannot set."""
    user = own_user(user)
    limit = whole(limit, "limit")
    if not limit or limit > 10_000:
        raise Refused("limit must be a whole number from 1 to 10,000")
    rows = read(graph, _SESSIONS, {"user": user, "limit": limit})
    return [
        {"id": found, "count": total, "last_stored_at": clock.from_store(stored), "upto": upto}
        for found, total, stored, upto in rows
    ]


# The summary, and the last messages after it. A row with no message keeps the summary when none is given.
_CONTEXT = (
    "MATCH (s:Session {key: $session_key}) "
    "WITH s, CASE WHEN s.count - $last > s.upto THEN s.count - $last + 1 ELSE s.upto + 1 END AS low "
    "UNWIND CASE WHEN low <= s.count THEN range(low, s.count) ELSE [0] END AS place "
    "OPTIONAL MATCH (m:Message {key: $session_key + '#' + toString(place)}) "
    "RETURN s.summary, s.upto, low, m.seq AS seq, m.role, m.by, m.at, m.text, "
    "  [name IN keys(m) WHERE NOT name IN $own | [name, m[name]]], m.mentioned "
    "ORDER BY seq"
)


def context(graph, user, session, last: int = 20) -> dict:
    """What a model needs of a long session: {"summary", "upto", "messages", "waiting"}.

    messages: the last `last` messages after the summary; waiting: how many messages are neither in the
    summary nor given, so the application knows when to sum up again.
    """
    user, session = own_user(user), own_session(session)
    last = whole(last, "last")
    if last is None:
        raise Refused("last must be a whole number from 0")
    rows = read(
        graph,
        _CONTEXT,
        {"session_key": session_key(user, session), "last": last, "own": sorted(MESSAGE_NAMES)},
    )
    if not rows:
        return {"summary": None, "upto": 0, "messages": [], "waiting": 0}
    summary, upto, low = rows[0][0], rows[0][1] or 0, rows[0][2]
    given = [shown(*row[3:]) for row in rows if row[3] is not None]
    return {"summary": summary, "upto": upto, "messages": given, "waiting": max(0, low - 1 - upto)}


# The summary is written only when upto is within the session, checked in the same query.
_SUMMARIZE = (
    "MATCH (s:Session {key: $session_key}) "
    "WITH s, $upto <= s.count AS fits "
    "FOREACH (held IN CASE WHEN fits THEN [s] ELSE [] END | "
    "  SET held.summary = $text, held.upto = $upto, held.summary_by = $by, "
    "  held.summed_at = localdatetime($now)) "
    "RETURN s.count, fits"
)


def summarize(graph, user, session, text, upto, by) -> dict:
    """Keeps the application's summary of a session's messages 1 to upto: {"id", "upto", "status"}.

    A session has one summary: the one before is not kept. upto cannot pass the last message.
    """
    content = {"user": user, "session": session, "text": text, "upto": upto, "by": by}
    try:
        user, session = own_user(user), own_session(session)
        by, text = limits.name(by, "by"), limits.text(text, "summary")
        upto = whole(upto, "upto")
        if not upto:
            raise Refused("upto must be the number of a message, from 1")
    except Refused as error:
        return refuse(graph, "Summary", error, user, session, by, content)
    params = {
        "session_key": session_key(user, session),
        "upto": upto,
        "text": text,
        "by": by,
        "now": clock.now(),
    }
    try:
        rows = graph.query(_SUMMARIZE, params).result_set
    except ResponseError as error:
        return refuse(graph, "Summary", "failed", user, session, by, content, str(error)[:500])
    if not rows:
        return refuse(graph, "Summary", "unknown", user, session, by, content, "the user has no such session")
    last_seq, fits = rows[0]
    if not fits:
        why = f"upto {upto} is past the last message, {last_seq}"
        return refuse(graph, "Summary", "invalid", user, session, by, content, why)
    return {"id": session, "upto": upto, "status": SUMMED}
