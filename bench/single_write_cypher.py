"""The blind Cypher of each single write, and the parameters of its n-th call: what
single_write_shapes.py times as workloads and beside_shapes.py beside the library's functions.

Each writes the nodes, edges and properties the library's function leaves, where the library keeps them
(the counters on the Episode and the Stamp, as the design names them), with none of its checks.
"""

from __future__ import annotations

import json

from fleet import AGENT
from lighthouse.values import words

ENTRIES = 10  # entries an episode
NOW = "2026-11-30T12:00:00"
USERS = 50

OPEN_SHAPE = (
    "MATCH (d:Device {key: $key}) "
    "CREATE (ep:Episode {id: $id, by: $by, opened_at: localdatetime($now), recorded_at: localdatetime($now), "
    "  entry_count: 0})-[:ABOUT]->(d)"
)

# The entry, its counters, the writer, the chain and what it cites: the device and (after the first)
# the entry before. close is the same with the episode's end (on the episode, where the library keeps it).
APPEND_SHAPE = (
    "MATCH (ep:Episode {{id: $episode}}) MATCH (st:Stamp) "
    "MATCH (d:Device {{key: $key}}) OPTIONAL MATCH (last:Entry {{id: $last}}) "
    "WITH ep, st, d, last, ep.entry_count + 1 AS seq, st.serial + 1 AS serial "
    "SET ep.entry_count = seq, st.serial = serial{closing} "
    "MERGE (writer:Agent {{name: $by}}) "
    "CREATE (ep)-[:HAS]->(n:Entry {{id: $episode + '/' + toString(seq), episode: $episode, seq: seq, "
    "  serial: serial, type: $type, by: $by, at: localdatetime($now), recorded_at: localdatetime($now), "
    "  words: $words, content: $content, v_note: $note, v_reading: $reading}}) "
    "CREATE (writer)-[:WROTE]->(n) "
    "CREATE (n)-[:CITES {{as_of: localdatetime($now)}}]->(d) "
    "FOREACH (earlier IN CASE WHEN last IS NULL THEN [] ELSE [last] END | "
    "  CREATE (earlier)-[:NEXT]->(n) CREATE (n)-[:CITES {{as_of: localdatetime($now)}}]->(earlier))"
)
RECORD_SHAPE = APPEND_SHAPE.format(closing="")
CLOSE_SHAPE = APPEND_SHAPE.format(closing=", ep.closed_at = localdatetime($now)")  # the end, as kept

HAND_OFF_SHAPE = (
    "MATCH (ep:Episode {id: $episode}) MATCH (d:Device {key: $key}) "
    "MERGE (giver:Agent {name: $by}) MERGE (receiver:Agent {name: $to}) "
    "CREATE (giver)-[:GAVE]->(h:Handoff {id: $id, by: $by, to: $to, at: localdatetime($now), "
    "  recorded_at: localdatetime($now), content: $content, v_note: $note})-[:TO]->(receiver) "
    "CREATE (h)-[:POINTS_TO {as_of: localdatetime($now)}]->(ep) "
    "CREATE (h)-[:POINTS_TO {as_of: localdatetime($now)}]->(d)"
)

SAY_SHAPE = (
    "MERGE (s:Session {key: $session_key}) "
    "ON CREATE SET s.user = $user, s.id = 'main', s.upto = 0, s.opened_at = localdatetime($now) "
    "MERGE (s)-[tally:LH_TALLY]->(s) ON CREATE SET tally.count = 0 "
    "WITH s, tally, tally.count + 1 AS n "
    "OPTIONAL MATCH (prior:Message {key: $session_key + '#' + toString(tally.count)}) "
    "CREATE (s)-[:HAS]->(m:Message {key: $session_key + '#' + toString(n), session: 'main', user: $user, "
    "  seq: n, role: $role, by: $by, at: localdatetime($now), recorded_at: localdatetime($now), text: $text, "
    "  words: $words, mentions: $mentions_kept}) "
    "SET tally.count = n, tally.active_at = localdatetime($now) "
    "FOREACH (earlier IN CASE WHEN prior IS NULL THEN [] ELSE [prior] END | CREATE (earlier)-[:NEXT]->(m)) "
    "FOREACH (named IN $mentions | "
    "  MERGE (r:Reference {key: named}) CREATE (m)-[:MENTIONS]->(r))"
)


def open_params(number: int, device: str) -> dict:
    return {"key": device, "id": f"ep{number}", "by": AGENT, "now": NOW}


def hand_off_params(number: int, device: str) -> dict:
    note = f"look at {device}"
    params = {"episode": f"ep{number}", "key": device, "id": f"h{number}", "by": AGENT}
    params.update(to="bench-receiver", now=NOW, content=json.dumps({"note": note}), note=note)
    return params


def say_params(number: int, keys: list[str], users: str = "user") -> dict:
    """The number-th message round USERS sessions (users: the prefix of their names); every tenth mentions
    one of the keys."""
    user, seq = f"{users}{number % USERS:02d}", number // USERS + 1
    text = f"message {seq} of {user}: the pump and valve looked fine today"
    mentions = [f"Device\x1f{keys[number % len(keys)]}"] if number % 10 == 0 else []
    params = {"session_key": f"{user}\x1fmain", "user": user, "role": "user", "by": user, "now": NOW}
    params.update(text=text, words=words(text), mentions=mentions, mentions_kept=json.dumps(mentions))
    return params


def append_params(number: int, seq: int, key: str, closing: bool) -> dict:
    note = f"reading {seq} of {key}: fan {seq * 7 % 11} steady"
    values = {"failed": number % 3 == 0} if closing else {"note": note, "reading": 20.0 + seq / 4}
    return {
        "episode": f"ep{number}",
        "key": key,
        "last": f"ep{number}/{seq - 1}",
        "by": AGENT,
        "type": "outcome" if closing else "observation",
        "now": NOW,
        "words": "" if closing else words(note),
        "content": json.dumps(values),
        "note": None if closing else note,
        "reading": None if closing else values["reading"],
    }


# The lesson, its two SUPPORTED_BY edges (the episodes n and n + 1) and its ABOUT edge, as learn() writes.
LEARN_SHAPE = (
    "MATCH (d:Device {key: $key}) MATCH (first:Episode {id: $first}) MATCH (second:Episode {id: $second}) "
    "CREATE (l:Lesson {id: $id, statement: $statement, by: $by, at: localdatetime($now), "
    "  recorded_at: localdatetime($now), touched_at: localdatetime($now), support: 2, against: 0, used: 0, "
    "  helped: 0, failed: 0, confidence: $confidence}) "
    "CREATE (l)-[:SUPPORTED_BY {by: $by, at: localdatetime($now)}]->(first) "
    "CREATE (l)-[:SUPPORTED_BY {by: $by, at: localdatetime($now)}]->(second) "
    "CREATE (l)-[:ABOUT]->(d)"
)


def learn_params(number: int, episodes: int, device: str) -> dict:
    params = {"key": device, "first": f"ep{number}", "second": f"ep{(number + 1) % episodes}"}
    params.update(id=f"lesson{number}", statement=f"device {device} steadies after a fan check", by=AGENT)
    return {**params, "now": NOW, "confidence": 0.5 + number % 5 / 10}


# One more episode for the lesson (agrees) or against it, as weigh() writes: its edge, count and touch.
_WEIGH_SHAPE = (
    "MATCH (l:Lesson {{id: $id}}) MATCH (ep:Episode {{id: $episode}}) "
    "CREATE (l)-[:{edge} {{by: $by, at: localdatetime($now)}}]->(ep) "
    "SET l.{count} = l.{count} + 1, l.touched_at = localdatetime($now)"
)
WEIGH_SHAPES = {
    True: _WEIGH_SHAPE.format(edge="SUPPORTED_BY", count="support"),
    False: _WEIGH_SHAPE.format(edge="CONTRADICTED_BY", count="against"),
}


def weigh_params(number: int, episodes: int) -> dict:
    return {"id": f"lesson{number}", "episode": f"ep{(number + 2) % episodes}", "by": AGENT, "now": NOW}
