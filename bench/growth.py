"""What a single write costs as the graph grows: record(), say() and remember() of one row.

    uv run python bench/run.py growth [--sizes 20000,300000] [--calls 600]

For each size, a fresh graph gets that many entity nodes (plain Cypher, in one query) and the library's
schema; then `--calls` record() calls (100 episodes, each entry citing a device), `--calls` say() calls
(50 sessions), as many that each mention one of 100 devices (50 sessions more), and as many remember()
calls of one row that changes one of 100 gauges are timed one at a time, with their time inside
FalkorDB. Beside them, the mechanism alone: a query that creates a labelled node and moves a counter kept
on a node, and the same with the counter on an edge. Every receipt is checked; a wrong one stops it
(exit code 1).

Measured 2026-12-01 on FalkorDB 4.22.1 (the 2-core machine), ms a call (inside FalkorDB):

| nodes | record(), counters on the nodes | record(), on LH_TALLY edges | say(), count on the node | say(), on LH_TALLY | say(), one mention | remember(), one row changed |
|---|---|---|---|---|---|---|
| 20,000 | 0.98 (0.70) | 0.88 to 1.09 (0.60 to 0.81) | 0.60 (0.41) | 0.45 (0.26) | 0.57 to 0.59 (0.34 to 0.36) | 1.29 (0.76) |
| 300,000 | 3.26 (2.87) | 0.90 (0.62) | 3.17 (2.86) | 0.65 to 0.68 (0.45 to 0.47) | 0.82 (0.58) | 3.57 (2.93) |

The mechanism alone: counter on a node 0.43 ms (0.28) at 20,000 nodes, 2.68 (2.40) at 300,000; on an edge
0.19 (0.06) at both. A node property SET in a query that creates a labelled node costs time in
proportion to the nodes of the graph (2.4 to 2.8 ms at 300,000, whether before or after the CREATE, in
CALL {}, by MERGE, by a map, or a REMOVE); an edge created and a node SET, a node without a label created
and a node SET, or a labelled node created and an edge SET, 0.02 to 0.05 ms. Whichever query first SETs a
node property after a label was given pays it (a second query in the same MULTI/EXEC too); a batch pays
it once a query (500 changes: some 10 us a row). So a session's counter is on a loop edge, a Reference
keeps no count of its mentions (a count SET on it cost 4.4 ms at 300,000 nodes), and a change of one row
pays it; an episode's and the Stamp's counters are on their nodes, where the design names them, and
record() and close_episode() pay it (ARCHITECTURE.md).
"""

from __future__ import annotations

import argparse
import sys
import time
import uuid

from lighthouse import Kind, ensure_schema, open_episode, record, remember, say
from processes import expect, on_a_server

DEVICE = Kind("Device")
GAUGE = Kind("Gauge")  # entities of their own for remember(): a change of one row a call
EPISODES = 100
USERS = 50
NODE_COUNTER = "MATCH (c:Counter {id: $c}) CREATE (:Made {id: $id}) SET c.n = c.n + 1"
EDGE_COUNTER = "MATCH (c:Counter {id: $c})-[t:COUNTS]->(c) CREATE (:Made {id: $id}) SET t.n = t.n + 1"


class Timed:
    """A graph whose queries add up their time inside FalkorDB (inside_ms), and from the client's call to
    its answer (sent_ms: the client's packing and parsing, the round trip and the server)."""

    def __init__(self, graph):
        self.graph, self.inside_ms, self.sent_ms = graph, 0.0, 0.0

    def query(self, query, params=None, **options):
        began = time.perf_counter()
        result = self.graph.query(query, params, **options)
        self.sent_ms += (time.perf_counter() - began) * 1000
        self.inside_ms += result.run_time_ms
        return result

    def ro_query(self, query, params=None, **options):
        began = time.perf_counter()
        result = self.graph.ro_query(query, params, **options)
        self.sent_ms += (time.perf_counter() - began) * 1000
        self.inside_ms += result.run_time_ms
        return result


def _timed(graph, calls: int, call) -> tuple[float, float]:
    """ms a call, and ms inside FalkorDB a call."""
    watched = Timed(graph)
    began = time.perf_counter()
    for number in range(calls):
        call(watched, number)
    return (time.perf_counter() - began) * 1000 / calls, watched.inside_ms / calls


def _record(graph, number: int) -> None:
    episode_id, device = f"ep{number % EPISODES}", f"d{number % EPISODES + 1}"
    receipt = record(
        graph, episode_id, "observation", "bench", {"note": f"reading {number}"}, [(DEVICE, device)]
    )
    expect(receipt["seq"] == number // EPISODES + 1, f"record {number}: {receipt}")


def _say(graph, number: int) -> None:
    receipt = say(graph, f"user{number % USERS}", "main", "user", f"message {number}", "bench")
    expect(receipt["seq"] == number // USERS + 1, f"say {number}: {receipt}")


def _say_mentioning(graph, number: int) -> None:
    """say() in sessions of their own, each message mentioning a device (one of EPISODES)."""
    mentioned = [(DEVICE, f"d{number % EPISODES + 1}")]
    receipt = say(
        graph, f"mentioner{number % USERS}", "main", "user", f"note {number}", "bench", mentions=mentioned
    )
    expect(receipt["seq"] == number // USERS + 1, f"say with a mention {number}: {receipt}")


def _change(graph, number: int) -> None:
    """remember() of one row that changes a gauge (one of EPISODES, made before the timing)."""
    row = {"key": f"g{number % EPISODES}", "t": _later(number), "values": {"level": number}}
    receipt = remember(graph, GAUGE, [row], "bench")[0]
    expect(receipt["status"] == "changed", f"remember {number}: {receipt}")


def _later(number: int) -> str:
    return f"2026-01-{1 + number // (EPISODES * 24):02d}T{number // EPISODES % 24:02d}:00:00Z"


def _counter(query: str):
    def call(graph, number: int) -> None:
        made = graph.query(query, {"c": number % EPISODES, "id": number}).nodes_created
        expect(made == 1, f"the counter query {number} made {made} nodes")

    return call


def measure(server, size: int, calls: int) -> dict[str, tuple[float, float]]:
    graph = server.client().select_graph(f"bench_growth_{uuid.uuid4().hex[:10]}")
    try:
        ensure_schema(graph, [DEVICE, GAUGE], indexes=[("Counter", "id")])
        graph.query("UNWIND range(1, $n) AS i CREATE (:Device:Entity {key: 'd' + toString(i)})", {"n": size})
        graph.query(
            "UNWIND range(0, $n) AS i CREATE (c:Counter {id: i, n: 0})-[:COUNTS {n: 0}]->(c)", {"n": EPISODES}
        )
        for number in range(EPISODES):
            opened = open_episode(graph, f"ep{number}", "bench", [(DEVICE, f"d{number + 1}")])
            expect(opened["status"] == "opened", f"open_episode {number}: {opened}")
        gauges = [
            {"key": f"g{n}", "t": "2025-12-31T00:00:00Z", "values": {"level": -1}} for n in range(EPISODES)
        ]
        expect({r["status"] for r in remember(graph, GAUGE, gauges, "bench")} == {"created"}, "the gauges")
        return {
            "record()": _timed(graph, calls, _record),
            "say()": _timed(graph, calls, _say),
            "say(), one mention": _timed(graph, calls, _say_mentioning),
            "remember(), one row": _timed(graph, calls, _change),
            "counter on a node": _timed(graph, calls, _counter(NODE_COUNTER)),
            "counter on an edge": _timed(graph, calls, _counter(EDGE_COUNTER)),
        }
    finally:
        graph.delete()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="20000,300000", help="entity nodes of each graph, comma-separated")
    parser.add_argument("--calls", type=int, default=600)
    args = parser.parse_args(argv)

    def work(server) -> None:
        for size in (int(one) for one in args.sizes.split(",")):
            for name, (call_ms, inside_ms) in measure(server, size, args.calls).items():
                print(
                    f"{size:>9,} nodes  {name:20s} {call_ms:6.3f} ms a call, {inside_ms:6.3f} inside FalkorDB"
                )

    return on_a_server(work)


if __name__ == "__main__":
    sys.exit(main())
