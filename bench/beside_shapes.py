"""Each single write beside its blind shape and the indexed-MATCH floor, call for call, on one graph.

    uv run python bench/run.py shapes [--entities 10000] [--episodes 200] [--messages 5000]

run.py times a function, its shape (single_write_shapes.py) and `indexed_match` in workloads of their
own, one after the other, on two graphs. Their ratios then carry the drift of a shared machine and what
the server's state was at each moment (ARCHITECTURE.md: what a new edge costs depends on the edges of
its type made before it). Here the three take turns, call for call, on one graph: the library's
call, the shape's call (ids of its own: `ep<n>`, `h<n>`, users `shape-user<n>`), and one indexed MATCH
of a device, in an order that turns with each call. A graph holds the fleet written by remember() (its
schema, its indexes), then each function's calls in the benchmark's order: open_episode(), record()
(ten entries an episode, each citing the one before and the device), close_episode(), hand_off(),
learn() (a lesson an episode, resting on it and the next), weigh() (each lesson by the episode two on,
for it or against it in turn), say() (round 50 users, every tenth mentioning a device). Every receipt
and every shape's writes are checked; a wrong one stops it (exit code 1).

It prints, for each function, the ms a call and inside FalkorDB of the function, its shape and the floor,
and the function's and the shape's calls/s as a share of the floor's, with the function's as a share
of its shape's: what is left to the library once the server's own cost of the write is set aside. Then
the ms a call of the function's queries alone (from the client's call to its answer: the function's
time without its own Python), and the floor's calls/s as a share of theirs: what the function would
reach with no Python at all, its checks and its write as the server runs them.
"""

from __future__ import annotations

import argparse
import sys
import time
import uuid

from fleet import AGENT, DEVICE, Fleet
from growth import Timed
from lighthouse import (
    close_episode,
    ensure_schema,
    hand_off,
    learn,
    open_episode,
    record,
    remember,
    say,
    weigh,
)
from processes import expect, on_a_server
from single_write_cypher import (
    CLOSE_SHAPE,
    ENTRIES,
    HAND_OFF_SHAPE,
    LEARN_SHAPE,
    OPEN_SHAPE,
    RECORD_SHAPE,
    SAY_SHAPE,
    USERS,
    WEIGH_SHAPES,
    append_params,
    hand_off_params,
    learn_params,
    open_params,
    say_params,
    weigh_params,
)

RECEIVER = "bench-receiver"  # the shape's receiver too (single_write_cypher.hand_off_params)
FLOOR = "MATCH (n:Device {key: $key}) RETURN properties(n)"
BATCH = 500


class Turns:
    """The ms of each side's calls, in all and inside FalkorDB."""

    def __init__(self) -> None:
        self.total = {"function": 0.0, "shape": 0.0, "floor": 0.0}
        self.inside = dict.fromkeys(self.total, 0.0)
        self.sent = 0.0  # ms of the function's calls spent in the client's query calls
        self.calls = 0


def _taking_turns(graph, count: int, function, shape, floor_key) -> Turns:
    """count calls of each side, in turns: function(watched graph, n) checks its own work; shape(n) gives
    the query and parameters of the shape's n-th call, whose writes are checked here."""
    turns = Turns()
    watched = Timed(graph)  # adds up the function's time inside FalkorDB

    def side(name: str, number: int) -> None:
        began = time.perf_counter()
        if name == "function":
            function(watched, number)
        elif name == "shape":
            query, params = shape(number)
            result = graph.query(query, params)
            turns.inside[name] += result.run_time_ms
            made = result.nodes_created + result.relationships_created
            expect(made >= 1, f"the shape's call {number} made nothing")
        else:  # read as run.py's indexed_match reads
            result = graph.ro_query(FLOOR, {"key": floor_key(number)})
            turns.inside[name] += result.run_time_ms
            expect(
                len(result.result_set) == 1, f"the floor's read {number} found {len(result.result_set)} nodes"
            )
        turns.total[name] += (time.perf_counter() - began) * 1000

    order = ("function", "shape", "floor")
    for number in range(count):
        turn = number % 3
        for name in order[turn:] + order[:turn]:
            side(name, number)
    turns.calls = count
    turns.inside["function"] = watched.inside_ms
    turns.sent = watched.sent_ms
    return turns


def _report(name: str, turns: Turns) -> str:
    each = {side: turns.total[side] / turns.calls for side in turns.total}
    inside = {side: turns.inside[side] / turns.calls for side in turns.inside}
    cells = "  ".join(f"{side} {each[side]:.3f} ({inside[side]:.3f})" for side in each)
    return (
        f"{name:14s} {turns.calls:>5} calls  ms a call (inside): {cells}  "
        f"of the floor: function {each['floor'] / each['function']:.1%}, shape {each['floor'] / each['shape']:.1%}"
        f"; function of shape {each['shape'] / each['function']:.1%}"
        f"; its queries alone {turns.sent / turns.calls:.3f} ms, {each['floor'] * turns.calls / turns.sent:.1%}"
        " of the floor"
    )


class Writes:
    """Each function's n-th call, its shape's n-th query, and the device the floor reads beside them."""

    def __init__(self, fleet: Fleet, episodes: int) -> None:
        self.keys = fleet.keys
        step = max(1, len(self.keys) // episodes)
        self.devices = [self.keys[(number * step) % len(self.keys)] for number in range(episodes)]
        self.appends = [(number, seq) for number in range(episodes) for seq in range(1, ENTRIES + 1)]

    def device(self, number: int) -> str:
        return self.devices[number]

    def opened(self, graph, number: int) -> None:
        receipt = open_episode(graph, f"beside-ep-{number}", AGENT, [(DEVICE, self.devices[number])])
        expect(receipt["status"] == "opened", f"open_episode {number}: {receipt}")

    def open_shape(self, number: int) -> tuple[str, dict]:
        return OPEN_SHAPE, open_params(number, self.devices[number])

    def recorded(self, graph, call: int) -> None:
        number, seq = self.appends[call]
        episode_id, key = f"beside-ep-{number}", self.devices[number]
        cites = [f"{episode_id}/{seq - 1}"] * (seq > 1) + [(DEVICE, key)]
        note = f"reading {seq} of {key}: fan {seq * 7 % 11} steady"
        receipt = record(
            graph, episode_id, "observation", AGENT, {"note": note, "reading": 20.0 + seq / 4}, cites
        )
        expect(receipt["status"] == "recorded" and receipt["seq"] == seq, f"record {call}: {receipt}")

    def record_shape(self, call: int) -> tuple[str, dict]:
        number, seq = self.appends[call]
        return RECORD_SHAPE, append_params(number, seq, self.devices[number], False)

    def record_device(self, call: int) -> str:
        return self.devices[self.appends[call][0]]

    def closed(self, graph, number: int) -> None:
        episode_id = f"beside-ep-{number}"
        outcome = {"failed": number % 3 == 0}
        receipt = close_episode(graph, episode_id, AGENT, outcome, [f"{episode_id}/{ENTRIES}"])
        expect(receipt["status"] == "recorded", f"close_episode {number}: {receipt}")

    def close_shape(self, number: int) -> tuple[str, dict]:
        return CLOSE_SHAPE, append_params(number, ENTRIES + 1, self.devices[number], True)

    def given(self, graph, number: int) -> None:
        device = self.devices[number]
        points = [("Episode", f"beside-ep-{number}"), (DEVICE, device)]
        receipt = hand_off(
            graph, f"beside-h-{number}", AGENT, RECEIVER, points, {"note": f"look at {device}"}
        )
        expect(receipt["status"] == "given", f"hand_off {number}: {receipt}")

    def hand_off_shape(self, number: int) -> tuple[str, dict]:
        return HAND_OFF_SHAPE, hand_off_params(number, self.devices[number])

    def learned(self, graph, number: int) -> None:
        resting_on = [f"beside-ep-{number}", f"beside-ep-{(number + 1) % len(self.devices)}"]
        device = self.devices[number]
        statement = f"device {device} steadies after a fan check"
        receipt = learn(
            graph,
            f"beside-lesson-{number}",
            AGENT,
            statement,
            resting_on,
            [(DEVICE, device)],
            {"confidence": 0.5 + number % 5 / 10},
        )
        expect(receipt["status"] == "learned", f"learn {number}: {receipt}")

    def learn_shape(self, number: int) -> tuple[str, dict]:
        return LEARN_SHAPE, learn_params(number, len(self.devices), self.devices[number])

    def weighed(self, graph, number: int) -> None:
        episode_id = f"beside-ep-{(number + 2) % len(self.devices)}"
        receipt = weigh(graph, f"beside-lesson-{number}", AGENT, episode_id, number % 2 == 0)
        expect(receipt["status"] == "weighed", f"weigh {number}: {receipt}")

    def weigh_shape(self, number: int) -> tuple[str, dict]:
        return WEIGH_SHAPES[number % 2 == 0], weigh_params(number, len(self.devices))

    def said(self, graph, number: int) -> None:
        user, seq = f"user{number % USERS:02d}", number // USERS + 1
        mentions = [(DEVICE, self.keys[number % len(self.keys)])] if number % 10 == 0 else ()
        text = f"message {seq} of {user}: the pump and valve looked fine today"
        receipt = say(graph, user, "main", "user", text, user, mentions=mentions)
        expect(receipt["status"] == "said" and receipt["seq"] == seq, f"say {number}: {receipt}")

    def say_shape(self, number: int) -> tuple[str, dict]:
        return SAY_SHAPE, say_params(number, self.keys, "shape-user")

    def mentioned(self, number: int) -> str:
        return self.keys[number % len(self.keys)]


def measure(server, entities: int, episodes: int, messages: int) -> list[str]:
    graph = server.client().select_graph(f"bench_beside_{uuid.uuid4().hex[:10]}")
    try:
        ensure_schema(graph, [DEVICE])
        fleet = Fleet.of(entities)
        rows = fleet.create_rows()
        for start in range(0, len(rows), BATCH):
            receipts = remember(graph, DEVICE, rows[start : start + BATCH], AGENT)
            expect({one["status"] for one in receipts} == {"created"}, f"the fleet's rows from {start}")
        writes = Writes(fleet, episodes)
        turns = [  # in the benchmark's order: each needs what the one before it wrote
            ("open_episode", episodes, writes.opened, writes.open_shape, writes.device),
            ("record", len(writes.appends), writes.recorded, writes.record_shape, writes.record_device),
            ("close_episode", episodes, writes.closed, writes.close_shape, writes.device),
            ("hand_off", episodes, writes.given, writes.hand_off_shape, writes.device),
            ("learn", episodes, writes.learned, writes.learn_shape, writes.device),
            ("weigh", episodes, writes.weighed, writes.weigh_shape, writes.device),
            ("say", messages, writes.said, writes.say_shape, writes.mentioned),
        ]
        return [_report(name, _taking_turns(graph, count, *sides)) for name, count, *sides in turns]
    finally:
        graph.delete()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--entities", type=int, default=10_000)
    parser.add_argument("--episodes", type=int, default=200)
    parser.add_argument("--messages", type=int, default=5_000)
    args = parser.parse_args(argv)
    expect(args.entities >= args.episodes >= 1 and args.messages >= 1, "give entities >= episodes >= 1")
    return on_a_server(
        lambda server: print("\n".join(measure(server, args.entities, args.episodes, args.messages)))
    )


if __name__ == "__main__":
    sys.exit(main())
