"""What one new edge costs FalkorDB as the edges of its type made since that type was last read grow.

    uv run python bench/edge_growth.py [--edges 20000] [--step 2000] [--calls 300]

On a fresh graph with an index on Episode.id, queries of one edge each (`CREATE (n:Episode {id})
CREATE (n)-[:LOOP]->(n)`) are sent one at a time, and the time inside FalkorDB of the last `--calls` of
each `--step` is printed: it grows with the LOOP edges made so far. Then one read crosses a LOOP edge
(from an indexed node), and the next calls are timed again; the edges are made again, one DELETE of a
LOOP edge is sent, and the next calls are timed. Beside them, a query that creates the same node with no
edge, and one whose edge is of a type never read before each call (`FRESH`). Every query's count of
nodes and edges made is checked; a wrong one stops it (exit code 1).

Measured on FalkorDB 4.22.1 (the 2-core machine), 2026-12-02, with this command and with probes beside it:
an edge cost 0.06 to 0.08 ms inside FalkorDB after 2,000 edges of its type, and some 0.015 ms more for
each 1,000 after (0.33 to 0.36 after 20,000, 1.1 after 60,000), whether the edge joins two nodes or loops
on one, with or without properties. A node with no edge cost 0.02 to 0.05 ms throughout, and an edge of
a type never read 0.04. A read that crossed one edge of the type took 2.3 to 3.1 ms once and brought the
next edges back to 0.03 to 0.06 ms, but only once 10,000 of them waited (FalkorDB's setting
DELTA_MAX_PENDING_CHANGES, 10,000 unless given at load): after 6,000 it took 2.3 ms and changed nothing.
Given as 1,000 at load, the read after 2,000 or 6,000 reset it. One DELETE of an edge of the type reset it
whatever the count (5.7 ms once after 6,000, 13 ms after 20,000, 43 ms after 60,000); a read that only
counted the type's edges, or a DELETE of an edge of another type, did not. Writes alone never reset it.

So a single write pays for the edges of its types that every writer made since the type was last read
across (up to 10,000 of them when it is read, without end when it is not). The library's blind shapes
(single_write_shapes.py) pay it as its functions do, and a workload that makes 2,000 entries pays more
at its end than at its start. In the benchmark the setting at 1,000 changed nothing beyond the noise (two
runs each way, the single writes and their shapes), as its single writes do not read the types they make.
"""

from __future__ import annotations

import argparse
import sys
import uuid

from processes import expect, on_a_server

EDGE = "CREATE (n:Episode {id: $id}) CREATE (n)-[:LOOP]->(n)"
NO_EDGE = "CREATE (n:Episode {id: $id})"
FRESH_TYPE = "CREATE (n:Episode {id: $id}) CREATE (n)-[:FRESH]->(n)"
READ_ACROSS = "MATCH (n:Episode {id: $id})-[:LOOP]->(m) RETURN m.id"
DELETE_ONE = "MATCH (n:Episode {id: $id})-[r:LOOP]->() DELETE r"


class Made:
    """The ids given to the nodes made, one a call."""

    def __init__(self) -> None:
        self.count = 0

    def next(self) -> str:
        self.count += 1
        return f"n{self.count}"


def _calls(graph, made: Made, query: str, calls: int, edges: int) -> float:
    """calls queries, each making one node and `edges` edges: ms inside FalkorDB a call."""
    inside = 0.0
    for _ in range(calls):
        result = graph.query(query, {"id": made.next()})
        expect(
            (result.nodes_created, result.relationships_created) == (1, edges),
            f"{query}: made {result.nodes_created} nodes and {result.relationships_created} edges",
        )
        inside += result.run_time_ms
    return inside / calls


def _grown(graph, made: Made, edges: int, step: int, calls: int) -> list[str]:
    """LOOP edges made up to edges, a step at a time: a line for each step's last calls."""
    lines = []
    for since in range(step, edges + 1, step):
        _calls(graph, made, EDGE, step - calls, 1)
        inside = _calls(graph, made, EDGE, calls, 1)
        lines.append(
            f"  {since:>7,} LOOP edges made since the type was last read: {inside:.3f} ms inside a call"
        )
    return lines


def measure(server, edges: int, step: int, calls: int) -> list[str]:
    graph = server.client().select_graph(f"bench_edges_{uuid.uuid4().hex[:10]}")
    try:
        graph.query("CREATE INDEX FOR (n:Episode) ON (n.id)")
        made = Made()
        lines = ["a LOOP edge a call, as the LOOP edges grow:", *_grown(graph, made, edges, step, calls)]
        lines.append(f"  beside them, a node with no edge: {_calls(graph, made, NO_EDGE, calls, 0):.3f} ms")
        lines.append(
            f"  and an edge of a type never read: {_calls(graph, made, FRESH_TYPE, calls, 1):.3f} ms"
        )
        read = graph.ro_query(READ_ACROSS, {"id": "n1"})
        expect(read.result_set == [["n1"]], f"the read across a LOOP edge gave {read.result_set}")
        after = _calls(graph, made, EDGE, calls, 1)
        lines.append(f"one read across a LOOP edge: {read.run_time_ms:.2f} ms; then {after:.3f} ms a call")
        lines += _grown(graph, made, edges, step, calls)
        deleted = graph.query(DELETE_ONE, {"id": "n2"})
        expect(
            deleted.relationships_deleted == 1, f"the DELETE removed {deleted.relationships_deleted} edges"
        )
        after = _calls(graph, made, EDGE, calls, 1)
        lines.append(f"one DELETE of a LOOP edge: {deleted.run_time_ms:.2f} ms; then {after:.3f} ms a call")
        return lines
    finally:
        graph.delete()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--edges", type=int, default=20_000, help="LOOP edges made before each read or DELETE"
    )
    parser.add_argument("--step", type=int, default=2_000, help="calls between two lines")
    parser.add_argument("--calls", type=int, default=300, help="the calls of each step that are timed")
    args = parser.parse_args(argv)
    expect(args.edges >= args.step > args.calls >= 1, "give edges >= step > calls >= 1")
    return on_a_server(lambda server: print("\n".join(measure(server, args.edges, args.step, args.calls))))


if __name__ == "__main__":
    sys.exit(main())
