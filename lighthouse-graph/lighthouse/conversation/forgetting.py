"""forget_session(), forget_user(): the one place where the library deletes what was written.

A session goes in steps of 200 messages, the last ones first, and its count goes down with them: after
every step it is a shorter session that reads right, and it goes with its last message. Each Reference
counts the messages that mention it and goes when none is left. The refused messages and summaries of
the user are kept as WriteFailures with the user as owner, and go too. Every query that deletes gives the
graph a new stamp in the same query, so no answer kept from before (algorithms) is given again.
"""

from __future__ import annotations

import uuid

from ..graphs import read
from ..kinds import VECTOR_OF
from ..write.failures import stored_text
from .meaning import MESSAGE_VECTOR
from .talk import own_session, own_user, session_key

STEP = 200  # messages, or failures, deleted by one query
# What a conversation's refusals are kept under: kind in failures.Failure.
FAILURE_KINDS = ["Message", "Summary"]

# The last STEP messages of a session, their references that no other message mentions, and the session
# with its summary when its first message goes. A summary of messages that are gone goes with them.
_STEP = (
    "MATCH (s:Session {key: $session_key}) "
    "OPTIONAL MATCH (s)-[tally:LH_TALLY]->(s) "
    "WITH s, collect(tally) AS tallies "
    "WITH s, tallies, reduce(top = coalesce(s.count, 0), one IN tallies | "
    "  CASE WHEN one.count > top THEN one.count ELSE top END) AS said "
    "WITH s, tallies, said, CASE WHEN said > $step THEN said - $step + 1 ELSE 1 END AS low "
    "UNWIND range(low, said) AS place "
    "OPTIONAL MATCH (m:Message {key: $session_key + '#' + toString(place)}) "
    "WITH s, tallies, low, collect(m) AS doomed "
    "CALL { "
    "  WITH doomed "
    "  UNWIND doomed AS gone "
    "  MATCH (gone)-[:MENTIONS]->(r:Reference) "
    "  WITH r, count(gone) AS dropped "
    # Its mentions counted here, not kept on it (see talk._SAY_MENTIONS); listed before the filter, where
    # FalkorDB 4.22.1 could not read a pattern comprehension.
    "  WITH r, dropped, size([(r)<-[:MENTIONS]-(mentioning) | mentioning]) AS mentioned "
    "  WITH r WHERE mentioned <= dropped "
    "  DETACH DELETE r "
    "  RETURN count(r) AS references "
    "} "
    "FOREACH (message IN doomed | DETACH DELETE message) "
    "FOREACH (kept IN tallies | SET kept.count = low - 1) "
    "FOREACH (old IN CASE WHEN size(tallies) = 0 THEN [s] ELSE [] END | SET old.count = low - 1) "
    "FOREACH (summed IN CASE WHEN s.upto > low - 1 THEN [s] ELSE [] END | "
    "  SET summed.upto = 0, summed.summary = null, summed.summary_by = null, summed.summed_at = null) "
    "FOREACH (emptied IN CASE WHEN low = 1 THEN [s] ELSE [] END | DETACH DELETE emptied) "
    "WITH size(doomed) AS messages, references, low "
    "OPTIONAL MATCH (st:Stamp) SET st.id = $stamp "
    "RETURN messages, references, low = 1"
)

_FAILURES = (
    "MATCH (f:WriteFailure {owner: $owner}) "
    "WHERE $session IS NULL OR (f.kind IN $kinds AND f.key = $session) "
    "WITH f LIMIT $step "
    "WITH collect(f) AS doomed WHERE size(doomed) > 0 "
    "FOREACH (failure IN doomed | DELETE failure) "
    "WITH size(doomed) AS deleted "
    "OPTIONAL MATCH (st:Stamp) SET st.id = $stamp "
    "RETURN deleted"
)


# The vectors of a session's messages go first (meaning.py), so none outlives its message.
_VECTORS_STEP = (
    f"MATCH (:Session {{key: $session_key}})-[:HAS]->(:Message)-[:{VECTOR_OF}]->(v:{MESSAGE_VECTOR}) "
    "WITH v LIMIT $step DELETE v RETURN count(v)"
)


def _forget_messages(graph, key: str) -> dict:
    """Deletes one session a step at a time until it is gone: how many sessions (0 or 1) and messages went."""
    gone = {"sessions": 0, "messages": 0}
    while graph.query(_VECTORS_STEP, {"session_key": key, "step": STEP * 5}).result_set[0][0]:
        pass
    while True:
        rows = graph.query(_STEP, {"session_key": key, "step": STEP, "stamp": uuid.uuid4().hex}).result_set
        if not rows:
            return gone
        messages, _references, emptied = rows[0]
        gone["messages"] += messages
        if emptied:
            gone["sessions"] += 1
            return gone


def _forget_failures(graph, user: str, session: str | None) -> int:
    """Deletes the refusals the user owns (of one session, or all): how many went."""
    params = {
        "owner": stored_text(user, 400),  # as record_failures() stores an owner and a key
        "session": None if session is None else stored_text(session, 400),
        "kinds": FAILURE_KINDS,
        "step": STEP,
    }
    deleted = 0
    while True:
        rows = graph.query(_FAILURES, {**params, "stamp": uuid.uuid4().hex}).result_set
        if not rows:
            return deleted
        deleted += rows[0][0]


def forget_session(graph, user, session_id) -> dict:
    """Deletes a session of a user: its messages, the session with its summary, each reference that no
    other message mentions, and the user's refused messages and summaries of it (also when the session
    is unknown).

    Returns {"id": session_id, "status": "forgotten" | "unknown", "messages": how many went}. A message
    said while this runs goes too; one said after opens the session again at number 1. Raises Refused
    for the names; a ResponseError propagates.
    """
    user, session_id = own_user(user), own_session(session_id)
    gone = _forget_messages(graph, session_key(user, session_id))
    _forget_failures(graph, user, session_id)
    status = "forgotten" if gone["sessions"] else "unknown"
    return {"id": session_id, "status": status, "messages": gone["messages"]}


_USER_SESSIONS = "MATCH (s:Session) WHERE s.user = $user RETURN s.key"


def forget_user(graph, user) -> dict:
    """forget_session() for every session of a user, and every refusal the user owns, in this graph.

    Returns {"user", "sessions", "messages"}: how many went. What it does not reach: the user's name where
    the application gave it as `by` of another write, and copies of the database. Raises Refused for user;
    a ResponseError propagates.
    """
    user = own_user(user)
    gone = {"sessions": 0, "messages": 0}
    for (key,) in read(graph, _USER_SESSIONS, {"user": user}):
        for name, number in _forget_messages(graph, key).items():
            gone[name] += number
    _forget_failures(graph, user, None)
    return {"user": user, **gone}
