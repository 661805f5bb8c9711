"""What the server alone needs for each single write: the graph change a call leaves, written blind.

Each `<function>_shape` sends, one call at a time, the plain Cypher that makes the same nodes, edges and
properties as the library's function, with none of its checks: no lookup of what must exist, no refusal,
no receipt decided. They run on the graph `unwind_shape` wrote (10,000 devices with their States, rooms
and teams: the size of the library's graph), with the library's indexes. The counters are where the
library keeps them, on LH_TALLY loop edges (an episode's entries, the graph's serial on the Stamp, a
session's count: see bench/growth.py for why), so the ratio of a function to its shape is the part of
its cost that is the library's.
"""

from __future__ import annotations

import json

from fleet import AGENT
from lighthouse.values import words
from registry import Context, Measured, expect, timed_calls, workload

EPISODES = 200
ENTRIES = 10
NOW = "2026-11-30T12:00:00"
MESSAGES = 5_000
USERS = 50

_OPEN = (
    "MATCH (d:Device {key: $key}) "
    "CREATE (ep:Episode {id: $id, by: $by, opened_at: localdatetime($now), recorded_at: localdatetime($now)})"
    "-[:ABOUT]->(d) CREATE (ep)-[:LH_TALLY {entries: 0}]->(ep)"
)

# The entry, its counters, the writer, the chain and what it cites: the device and (after the first)
# the entry before. close is the same with the episode's end (on its tally, where the library keeps it).
_APPEND = (
    "MATCH (ep:Episode {{id: $episode}})-[tally:LH_TALLY]->(ep) MATCH (:Stamp)-[serials:LH_TALLY]->() "
    "MATCH (d:Device {{key: $key}}) OPTIONAL MATCH (last:Entry {{id: $last}}) "
    "WITH ep, tally, serials, d, last, tally.entries + 1 AS seq, serials.serial + 1 AS serial "
    "SET tally.entries = seq, serials.serial = serial{closing} "
    "MERGE (writer:Agent {{name: $by}}) "
    "CREATE (ep)-[:HAS]->(n:Entry {{id: $episode + '/' + toString(seq), episode: $episode, seq: seq, "
    "  serial: serial, type: $type, by: $by, at: localdatetime($now), recorded_at: localdatetime($now), "
    "  words: $words, content: $content, v_note: $note, v_reading: $reading}}) "
    "CREATE (writer)-[:WROTE]->(n) "
    "CREATE (n)-[:CITES {{as_of: localdatetime($now)}}]->(d) "
    "FOREACH (earlier IN CASE WHEN last IS NULL THEN [] ELSE [last] END | "
    "  CREATE (earlier)-[:NEXT]->(n) CREATE (n)-[:CITES {{as_of: localdatetime($now)}}]->(earlier))"
)
_RECORD = _APPEND.format(closing="")
_CLOSE = _APPEND.format(closing=", tally.closed_at = localdatetime($now)")  # the end on the tally, as kept

_HAND_OFF = (
    "MATCH (ep:Episode {id: $episode}) MATCH (d:Device {key: $key}) "
    "MERGE (giver:Agent {name: $by}) MERGE (receiver:Agent {name: $to}) "
    "CREATE (giver)-[:GAVE]->(h:Handoff {id: $id, by: $by, to: $to, at: localdatetime($now), "
    "  recorded_at: localdatetime($now), content: $content, v_note: $note})-[:TO]->(receiver) "
    "CREATE (h)-[:POINTS_TO {as_of: localdatetime($now)}]->(ep) "
    "CREATE (h)-[:POINTS_TO {as_of: localdatetime($now)}]->(d)"
)

_SAY = (
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


def _shape_graph(ctx: Context):
    expect("shape_graph" in ctx.shared, "the single-write shapes need the graph unwind_shape wrote")
    return ctx.shared["shape_graph"]


def _devices(ctx: Context) -> list[str]:
    step = max(1, ctx.fleet.count // EPISODES)
    return [ctx.fleet.keys[(number * step) % ctx.fleet.count] for number in range(EPISODES)]


def _made(results: list, nodes: int, edges: int, name: str) -> int:
    """Each call made the nodes and edges its shape writes (its first calls may also merge an Agent)."""
    for number, result in enumerate(results):
        made = (int(result.nodes_created), int(result.relationships_created))
        expect(made[1] == edges and made[0] in (nodes, nodes + 1, nodes + 2), f"{name} call {number}: {made}")
    return len(results)


@workload(
    "open_shape",
    "calls",
    needs=("unwind_shape", "indexed_match"),
    floor="indexed_match",
    about="reference: the Episode and its ABOUT edge that open_episode() writes, blind, one query a call",
)
def open_shape(ctx: Context) -> Measured:
    shape, devices = _shape_graph(ctx), _devices(ctx)
    results, seconds = timed_calls(
        lambda number: shape.query(
            _OPEN, {"key": devices[number], "id": f"ep{number}", "by": AGENT, "now": NOW}
        ),
        range(EPISODES),
    )
    return Measured(EPISODES, seconds, _made(results, 1, 2, "open_shape"))


def _append_params(number: int, seq: int, key: str, closing: bool) -> dict:
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


@workload(
    "record_shape",
    "calls",
    needs=("open_shape",),
    floor="indexed_match",
    about="reference: the entry record() writes with its counters, writer, NEXT and two CITES, blind",
)
def record_shape(ctx: Context) -> Measured:
    shape, devices = _shape_graph(ctx), _devices(ctx)
    calls = [(number, seq) for number in range(EPISODES) for seq in range(1, ENTRIES + 1)]
    results, seconds = timed_calls(
        lambda call: shape.query(_RECORD, _append_params(call[0], call[1], devices[call[0]], False)), calls
    )
    first = [result for (_number, seq), result in zip(calls, results, strict=True) if seq == 1]
    later = [result for (_number, seq), result in zip(calls, results, strict=True) if seq > 1]
    return Measured(
        len(calls), seconds, _made(first, 1, 3, "record_shape") + _made(later, 1, 5, "record_shape")
    )


@workload(
    "close_shape",
    "calls",
    needs=("record_shape",),
    floor="indexed_match",
    about="reference: the outcome entry close_episode() writes and the episode's end, blind",
)
def close_shape(ctx: Context) -> Measured:
    shape, devices = _shape_graph(ctx), _devices(ctx)
    results, seconds = timed_calls(
        lambda number: shape.query(_CLOSE, _append_params(number, ENTRIES + 1, devices[number], True)),
        range(EPISODES),
    )
    return Measured(EPISODES, seconds, _made(results, 1, 5, "close_shape"))


@workload(
    "hand_off_shape",
    "calls",
    needs=("close_shape",),
    floor="indexed_match",
    about="reference: the Handoff, its GAVE, TO and two POINTS_TO edges that hand_off() writes, blind",
)
def hand_off_shape(ctx: Context) -> Measured:
    shape, devices = _shape_graph(ctx), _devices(ctx)

    def give(number: int):
        note = f"look at {devices[number]}"
        params = {"episode": f"ep{number}", "key": devices[number], "id": f"h{number}", "by": AGENT}
        params.update(to="bench-receiver", now=NOW, content=json.dumps({"note": note}), note=note)
        return shape.query(_HAND_OFF, params)

    results, seconds = timed_calls(give, range(EPISODES))
    return Measured(EPISODES, seconds, _made(results, 1, 4, "hand_off_shape"))


@workload(
    "say_shape",
    "calls",
    needs=("unwind_shape", "indexed_match"),
    floor="indexed_match",
    about="reference: the message say() writes, its session's count, NEXT and (every tenth) a mention, blind",
)
def say_shape(ctx: Context) -> Measured:
    shape = _shape_graph(ctx)

    def said(number: int):
        user, seq = f"user{number % USERS:02d}", number // USERS + 1
        text = f"message {seq} of {user}: the pump and valve looked fine today"
        mentions = [f"Device\x1f{ctx.fleet.keys[number % ctx.fleet.count]}"] if number % 10 == 0 else []
        params = {"session_key": f"{user}\x1fmain", "user": user, "role": "user", "by": user, "now": NOW}
        params.update(text=text, words=words(text), mentions=mentions, mentions_kept=json.dumps(mentions))
        return shape.query(_SAY, params)

    results, seconds = timed_calls(said, range(MESSAGES))
    for number, result in enumerate(results):
        edges = 1 + (number >= USERS) + (number % 10 == 0) + (number < USERS)  # the tally with the first
        expect(
            int(result.relationships_created) == edges,
            f"say_shape call {number}: {result.relationships_created}",
        )
    return Measured(MESSAGES, seconds, len(results))
