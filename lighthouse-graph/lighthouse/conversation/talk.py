"""say(), messages(), sessions(), context(), summarize(): what was said with one user, in order.

A session belongs to one user: its key is the user and the id, joined by a character that no name can
hold, so two users can both have "main" and no id that one asks for reaches the other's. A message is
found by its key, the session's key and its number, so a read of the last messages costs the same in a
session of 20 or 20,000. Each message holds one more word for its user, a hash of the name, so the text
index gives the messages of one user (see recall.py).

The rule of every function here: the arguments that say whose and which (user, session_id, role, by) are
checked first and raise Refused ("must be text"), writing nothing. What a write holds (text, mentions,
values, at, upto) never raises: it is copied as plain values first, and anything wrong with it, a hostile
object included, gives one refusal receipt {"id": None, "status", "reason"} and one WriteFailure owned by
the user. A ResponseError of a write is the status "failed"; in a read it propagates.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re

from redis.exceptions import ResponseError

from .. import clock
from .. import values as limits
from ..errors import Refused, WrongType
from ..graphs import read
from ..references import ordered, parse_all
from ..wire import written_rows
from ..write.failures import refused

# Joins the user and the session id: a control character, which values.name() refuses in any name.
SEPARATOR = "\x1f"
# The names of a message that no value may take (the API's list); its mentions are kept as JSON there.
MESSAGE_NAMES = frozenset(
    {"key", "session", "user", "seq", "role", "text", "at", "recorded_at", "by", "mentions", "score", "words"}
)
# Kept on a message node but never given back: the key, the user and the words for the text index.
HIDDEN = ("key", "user", "words")
NO_MENTIONS = "[]"  # what a message that mentions nothing keeps under "mentions"
MAX_FOUND = 1_000  # messages or sessions one read gives
MAX_NUMBER = limits.INT_RANGE[1]
SAID, SUMMED = "said", "summed"  # the statuses of say() and summarize()


def session_key(user: str, session: str) -> str:
    """The key of a user's session; its messages are <this key>#<seq>."""
    return f"{user}{SEPARATOR}{session}"


@functools.lru_cache(maxsize=4096)
def user_word(user: str) -> str:
    """The word every message of a user holds: the same in every process, letters and digits only."""
    return "u" + hashlib.sha256(user.encode("utf-8")).hexdigest()[:16]


_ASCII_WORD = re.compile("[a-z0-9]+")


def text_words(text: str) -> str:
    """values.words(text), the words the index reads; for ASCII text by a regular expression, which gives
    the same (NFKC and case folding of ASCII are lower()) at a fraction of the cost on say()'s path."""
    if text.isascii():
        return " ".join(_ASCII_WORD.findall(text.lower()))
    return limits.words(text)


@functools.lru_cache(maxsize=4096)
def _checked_name(given: str, what: str) -> str:
    return limits.name(given, what)


def checked_name(given: object, what: str) -> str:
    """values.name(), remembered for exact strs: a user or a session is checked once, not every call.
    Anything else is checked every time (a subclass could hash as anything); a refusal is never kept."""
    if type(given) is str:
        return _checked_name(given, what)
    return limits.name(given, what)


def reference_key(label: str, key: str | int) -> str:
    """One Reference per (label, key): JSON keeps 1 and "1" apart, and no label holds SEPARATOR."""
    return f"{label}{SEPARATOR}{json.dumps(key, ensure_ascii=False)}"


def own_user(user: object) -> str:
    return checked_name(user, "user")


def own_session(session: object) -> str:
    return checked_name(session, "session_id")


def how_many(given: object, what: str) -> int:
    """A limit of a read: a whole number from 1 to 1,000."""
    return limits.whole(given, what, 1, MAX_FOUND)


def message_of(stored: dict) -> dict:
    """A message as the reads give it, from properties(m): its values beside the library's fields, the
    times as aware datetimes, and its mentions as reference pairs. Its key, user and words stay behind.

    properties() and a sort here, not a projection and ORDER BY in the query: measured here, a third less
    time in the database for messages(last=20).
    """
    stored = dict(stored)  # falkordb-py gives an OrderedDict
    for name in HIDDEN:
        stored.pop(name, None)
    stored["at"] = clock.from_store(stored.get("at"))
    stored["recorded_at"] = clock.from_store(stored.get("recorded_at"))
    stored["mentions"] = [(label, key) for label, key in json.loads(stored.get("mentions") or NO_MENTIONS)]
    return stored


def in_order(rows: list) -> list[dict]:
    """Messages from rows of [properties(m)], oldest first."""
    return sorted((message_of(row[0]) for row in rows), key=lambda message: message["seq"])


def readable(content: dict) -> dict:
    """What a refused write held, as plain values where they can be read: the failure keeps that."""
    kept = {}
    for name, given in content.items():
        try:
            kept[name] = limits.plain(given, name)
        except Refused:
            kept[name] = "<what was given could not be read>"
    return kept


def refuse(
    graph, kind: str, status: str, reason: str, user: str, session: str, by: str, content: dict
) -> dict:
    """Keeps one refused write of a conversation, owned by its user so that forgetting reaches it."""
    return refused(graph, kind, session, readable(content), status, reason, by, owner=user)


# The session found or made, the number after the last message's, the message, its NEXT link and mentions,
# in one query: FalkorDB runs a graph's writes one at a time, so two messages never take one number. The
# session's count and last activity live on a loop edge, LH_TALLY, made with its first message: on 4.22.1 a
# node SET beside the CREATE of a labelled node costs time in proportion to the graph (bench/growth.py),
# so no node is SET but an old session's count, and a new session is CREATEd whole (a first message at
# 300,000 nodes: 4.4 ms with MERGE and ON CREATE SET, 0.25 so). ensure_schema() registers LH_TALLY: a
# writer does not see edges of a type new when its query arrived, so two first messages could each make a
# tally; collected, a row never doubles. A session kept before the tally has its count on the node: the
# write that makes its tally moves that count too (writes run in order). A message with no mentions has no
# clause for them: an empty FOREACH cost a fifth.
_SAY_SESSION = (
    "OPTIONAL MATCH (found:Session {key: $session_key}) "
    "FOREACH (opening IN CASE WHEN found IS NULL THEN [1] ELSE [] END | "
    "  CREATE (:Session {key: $session_key, user: $user, id: $session, upto: 0, "
    "    opened_at: localdatetime($now)})) "
    "WITH found MATCH (s:Session {key: $session_key}) WITH s "
    "OPTIONAL MATCH (s)-[t:LH_TALLY]->(s) "
    "WITH s, collect(t) AS tallies, localdatetime($now) AS now "
    "WITH s, tallies, now, reduce(top = coalesce(s.count, 0), one IN tallies | "
    "  CASE WHEN one.count > top THEN one.count ELSE top END) + 1 AS n "
    "OPTIONAL MATCH (prior:Message {key: $session_key + '#' + toString(n - 1)}) "
)
# The same write for a session with its one tally, no count on the node and its last message (else it writes
# nothing, and say() sends the query above): no clause may make a session, a tally or a link that is there
# (a plan that may create them cost more: 0.61 against 0.53 ms in FalkorDB, median, 3,000 devices).
_SAY_NEXT = (
    "MATCH (s:Session {key: $session_key})-[t:LH_TALLY]->(s) WHERE s.count IS NULL "
    "WITH s, collect(t) AS tallies WHERE size(tallies) = 1 "
    "WITH s, tallies[0] AS t, localdatetime($now) AS now, tallies[0].count + 1 AS n "
    "MATCH (prior:Message {key: $session_key + '#' + toString(n - 1)}) "
)
_SAY_MESSAGE = (
    "CREATE (s)-[:HAS]->(m:Message:MessageToEmbed {{key: $session_key + '#' + toString(n), session: $session, "
    "  user: $user, seq: n, role: $role, by: $by, at: localdatetime($at), "
    "  recorded_at: now, text: $text, words: $words, mentions: $mentions_kept{values}}}) "
)
_SAY_LINK = "FOREACH (one IN CASE WHEN prior IS NULL THEN [] ELSE [prior] END | CREATE (one)-[:NEXT]->(m)) "
_SAY_NEXT_TALLY = "SET t.count = n, t.active_at = now "
# The tally kept last by a MERGE, a counter kept on the node moved too: see tally_layout._any_layout_query.
_SAY_TALLY = (
    "FOREACH (old IN CASE WHEN s.count IS NULL THEN [] ELSE [s] END | SET old.count = n, old.active_at = now) "
    "MERGE (s)-[kept:LH_TALLY]->(s) SET kept.count = n, kept.active_at = now "
)
# A Reference counts nothing (forgetting counts its MENTIONS) and is MERGEd whole (its key is its label
# and target): a count's SET or an ON CREATE SET made a mention 4.2 to 4.5 ms at 300,000 nodes, now 0.3.
_SAY_MENTIONS = (
    "FOREACH (named IN $mentions | "
    "  MERGE (r:Reference {key: named.key, label: named.label, target: named.target}) "
    "  CREATE (m)-[:MENTIONS]->(r)) "
)
# A bound session's count (`said`) and last activity (`active`): its tally, else what an older kept.
SESSION_TALLY = (
    "OPTIONAL MATCH (s)-[tally:LH_TALLY]->(s) "
    "WITH s, max(tally.count) AS tallied, max(tally.active_at) AS tallied_at "
    "WITH s, coalesce(tallied, s.count, 0) AS said, coalesce(tallied_at, s.active_at) AS active "
)
# The same for the one session a read is about: its first tally, without the aggregation (measured: a
# sixth of messages()). Only where LH_TALLY was never registered can a session have two, and the next
# say() makes them equal.
ONE_SESSION_TALLY = (
    "OPTIONAL MATCH (s)-[tally:LH_TALLY]->(s) "
    "WITH s, tally LIMIT 1 "
    "WITH s, coalesce(tally.count, s.count, 0) AS said "
)


@functools.lru_cache(maxsize=512)
def _say_query(names: tuple[str, ...], mentions: bool, first: bool) -> str:
    """say()'s query for a message with values of these names (each a checked plain name)."""
    given = "".join(f", `{name}`: $value_{number}" for number, name in enumerate(names))
    mentioned = _SAY_MENTIONS if mentions else ""
    message = _SAY_MESSAGE.format(values=given)
    if first:
        return f"{_SAY_SESSION}{message}{_SAY_LINK}{mentioned}{_SAY_TALLY}RETURN n LIMIT 1"
    return f"{_SAY_NEXT}{message}CREATE (prior)-[:NEXT]->(m) {mentioned}{_SAY_NEXT_TALLY}RETURN n"


def _message(text, mentions, given_values, at) -> dict:
    """The content parameters of _SAY, each copied as plain values and checked; Refused or WrongType."""
    text = limits.text(limits.plain(text, "text"), "text")
    mentions = limits.plain(mentions, "mentions")
    named = ordered(parse_all(mentions, "mentions", entity_label=False)) if mentions != () else []
    checked = limits.record_values(limits.plain(given_values, "values"), MESSAGE_NAMES, "message")
    at = limits.plain(at, "at")
    present = clock.present()
    moment = clock.checked(at, present_time=present) if clock.given(at) else present
    if checked and len(text) + limits.measured(checked, "values") > limits.MAX_ROW:
        raise Refused(f"text and values together are longer than {limits.MAX_ROW:,} characters")
    params = {"at": clock.stamp_of(moment), "now": clock.stamp_of(present), "text": text}
    params["values"] = checked
    if named:
        params["mentions"] = [
            {"key": reference_key(label, key), "label": label, "target": key} for label, key in named
        ]
    params["mentions_kept"] = (
        json.dumps([list(one) for one in named], ensure_ascii=False) if named else NO_MENTIONS
    )
    return params


def say(graph, user, session_id, role, text, by, mentions=(), values=None, at=None) -> dict:
    """Adds a message to a user's session in one write (a second query where the first wrote nothing: a
    session's first message), {"id": session_id, "seq", "status": "said"}.

    role: a name the application chooses (user, the name of an agent); by: who wrote it; mentions:
    references, stored by name and not looked up; values: kept with the message (said() does not search
    them); at: when it was said (now when not given). Raises Refused for user, session_id, role or by;
    bad content gives {"id": None, "status": "invalid", "reason"} and a WriteFailure; a database error,
    "failed". A refused message uses no number.
    """
    user, session_id = own_user(user), own_session(session_id)
    role, by = checked_name(role, "role"), checked_name(by, "by")
    content = {"role": role, "text": text, "mentions": mentions, "values": values, "at": at}
    try:
        params = _message(text, mentions, values, at)
    except (Refused, WrongType) as error:
        return refuse(graph, "Message", "invalid", str(error), user, session_id, by, content)
    given_values = params.pop("values")
    names = tuple(given_values)
    params.update({f"value_{number}": given_values[name] for number, name in enumerate(names)})
    params.update(session_key=session_key(user, session_id), user=user, session=session_id, role=role, by=by)
    params["words"] = f"{text_words(params['text'])} {user_word(user)}".lstrip()
    try:
        rows = written_rows(graph, _say_query(names, "mentions" in params, False), params)
        if not rows:  # nothing written: a session's first message, or a session as an older layout kept it
            rows = written_rows(graph, _say_query(names, "mentions" in params, True), params)
        seq = rows[0][0]
    except ResponseError as error:
        return refuse(graph, "Message", "failed", str(error), user, session_id, by, content)
    return {"id": session_id, "seq": seq, "status": SAID}


# The messages of a session from low to top, each found by its key through the index.
_MESSAGES = (
    "MATCH (s:Session {key: $session_key}) "
    + ONE_SESSION_TALLY
    + "WITH CASE WHEN $before IS NULL OR $before > said THEN said ELSE $before - 1 END AS top "
    "WITH top, CASE WHEN top - $last < 1 THEN 1 ELSE top - $last + 1 END AS low "
    "UNWIND range(low, top) AS place "
    "MATCH (m:Message {key: $session_key + '#' + toString(place)}) "
    "RETURN properties(m)"
)


def messages(graph, user, session_id, last=20, before=None) -> list[dict]:
    """A session's last `last` messages (1 to 1,000), oldest first; with before, those numbered below it.

    Each: session, seq, role, text, at, recorded_at, by, its values, and mentions (reference pairs). A
    session the user does not have gives []. Raises Refused for the names, last or before; writes
    nothing. Database errors pass as ResponseError.
    """
    user, session_id = own_user(user), own_session(session_id)
    last = how_many(last, "last")
    if before is not None:
        before = limits.whole(before, "before", 1, MAX_NUMBER)
    key = session_key(user, session_id)
    return in_order(read(graph, _MESSAGES, {"session_key": key, "last": last, "before": before}))


# By the user, not by a range of keys: FalkorDB 4.22's range index gives wrong answers to a range of
# strings (found here: it folds case on one side only), where a scan gives the right ones.
_SESSIONS = (
    "MATCH (s:Session) WHERE s.user = $user "
    + SESSION_TALLY
    + "RETURN s.id AS id, s.opened_at, active, said "
    "ORDER BY active DESC, id LIMIT $limit"
)


def sessions(graph, user, limit=20) -> list[dict]:
    """A user's sessions, [{"id", "opened_at", "active_at", "messages"}], the one the library last stored
    a message in first, then by id. The times are the library's, which a caller cannot set.

    Raises Refused for user or limit (1 to 1,000); writes nothing. Database errors pass as
    ResponseError.
    """
    user = own_user(user)
    rows = read(graph, _SESSIONS, {"user": user, "limit": how_many(limit, "limit")})
    times = clock.from_store
    return [
        {"id": found, "opened_at": times(opened), "active_at": times(active), "messages": count}
        for found, opened, active, count in rows
    ]


# The summary, and the last messages after it. A row with no message keeps the summary when none is given.
_CONTEXT = (
    "MATCH (s:Session {key: $session_key}) "
    + ONE_SESSION_TALLY
    + "WITH s, said, CASE WHEN said - $last > s.upto THEN said - $last + 1 ELSE s.upto + 1 END AS low "
    "UNWIND CASE WHEN low <= said THEN range(low, said) ELSE [0] END AS place "
    "OPTIONAL MATCH (m:Message {key: $session_key + '#' + toString(place)}) "
    "RETURN s.summary, s.upto, low, properties(m)"
)


def context(graph, user, session_id, last=20) -> dict:
    """What a model needs of a long session: {"summary", "upto", "messages", "waiting"}.

    messages: the last `last` (1 to 1,000) messages after the summary, oldest first; waiting: how many
    are neither in the summary nor given, so the application knows when to sum up again. An unknown
    session gives no summary, upto 0, no messages and 0 waiting. Raises Refused for the names or last.
    Nothing is written; database errors pass as ResponseError.
    """
    user, session_id = own_user(user), own_session(session_id)
    last = how_many(last, "last")
    rows = read(graph, _CONTEXT, {"session_key": session_key(user, session_id), "last": last})
    if not rows:
        return {"summary": None, "upto": 0, "messages": [], "waiting": 0}
    summary, upto, low = rows[0][0], rows[0][1] or 0, rows[0][2]
    given = in_order([row[3:4] for row in rows if row[3] is not None])
    return {"summary": summary, "upto": upto, "messages": given, "waiting": max(0, low - 1 - upto)}


# Written only when upto is within the session and reaches as far as the summary there: checked and
# written in one query, so a summary that reaches further is never replaced by one written at once.
_SUMMARIZE = (
    "MATCH (s:Session {key: $session_key}) "
    + ONE_SESSION_TALLY
    + "WITH s, $upto <= said AS fits, $upto >= coalesce(s.upto, 0) AS fresh "
    "FOREACH (held IN CASE WHEN fits AND fresh THEN [s] ELSE [] END | "
    "  SET held.summary = $text, held.upto = $upto, held.summary_by = $by, "
    "  held.summed_at = localdatetime($now)) "
    "RETURN fits, fresh"
)


def _summary(text, upto) -> tuple[str, int]:
    text = limits.text(limits.plain(text, "text"), "text")
    if not text.strip():
        raise Refused("text must not be blank")
    return text, limits.whole(limits.plain(upto, "upto"), "upto", 1, MAX_NUMBER)


def summarize(graph, user, session_id, text, upto, by) -> dict:
    """Keeps the application's summary of messages 1 to upto, in one query: {"id", "upto", "status":
    "summed"}. A later summary replaces the one before, also one with an equal upto.

    Refusals (with a WriteFailure): "unknown" (no such session), "stale" (the summary there reaches
    further), "invalid" (text not a non-blank storable str, upto not a whole number or past the last
    message), "failed". Raises Refused for user, session_id or by.
    """
    user, session_id, by = own_user(user), own_session(session_id), limits.name(by, "by")
    content = {"text": text, "upto": upto}
    try:
        text, upto = _summary(text, upto)
    except (Refused, WrongType) as error:
        return refuse(graph, "Summary", "invalid", str(error), user, session_id, by, content)
    params = {"session_key": session_key(user, session_id), "upto": upto, "text": text, "by": by}
    try:
        rows = graph.query(_SUMMARIZE, {**params, "now": clock.now()}).result_set
    except ResponseError as error:
        return refuse(graph, "Summary", "failed", str(error), user, session_id, by, content)
    if not rows:
        why = ("unknown", "the user has no such session")
    elif not rows[0][0]:
        why = ("invalid", "upto is past the last message of the session")
    elif not rows[0][1]:
        why = ("stale", "the summary that is there reaches further")
    else:
        return {"id": session_id, "upto": upto, "status": SUMMED}
    return refuse(graph, "Summary", *why, user, session_id, by, content)
