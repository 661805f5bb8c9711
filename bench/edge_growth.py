"""What one new edge costs FalkorDB as the edges of its type made since that type was last read grow.

    uv run python bench/edge_growth.py [--edges 20000] [--step 2000] [--calls 300] [--records 20000] [--save]

With DELTA_MAX_PENDING_CHANGES at FalkorDB's default, 10,000 (set for the run by GRAPH.CONFIG SET, and
put back after), on a fresh graph with an index on Episode.id, queries of one edge each (`CREATE
(n:Episode {id}) CREATE (n)-[:LOOP]->(n)`) are sent one at a time, and the time inside FalkorDB of the
last `--calls` of each `--step` is printed: it grows with the LOOP edges made so far. Then one read
crosses a LOOP edge (from an indexed node), and the next calls are timed again; the edges are made
again, one DELETE of a LOOP edge is sent, and the next calls are timed. Beside them, a query that
creates the same node with no edge, and one whose edge is of a type never read before each call
(`FRESH`). With `--save`, on a fresh graph, a BGSAVE (the server writes its RDB file) after `--step` LOOP
edges and again after `--edges` more, the calls timed before and after each. Every query's count of
nodes and edges made is checked; a wrong one stops it (exit code 1).

Then what it does to the library: `--records` record() calls round 200 episodes (each entry citing a
device), with an episode() read every 100 calls, on a fresh graph each time, three ways: with
DELTA_MAX_PENDING_CHANGES at FalkorDB's default, 10,000; that with a read across one edge of each of
the graph's edge types every 500 calls (one query, `across()`); and that with the setting at 1,000. The
setting is made by GRAPH.CONFIG SET and put back after. It prints the ms inside FalkorDB of a record()
for each fifth of the calls.

Measured on FalkorDB 4.22.1 (the 2-core machine), 2026-12-02, with this command and with probes beside it:
an edge cost 0.06 to 0.08 ms inside FalkorDB after 2,000 edges of its type, and some 0.015 ms more for
each 1,000 after (0.33 to 0.37 after 20,000, 1.1 after 60,000), whether the edge joins two nodes or loops
on one, with or without properties. A node with no edge cost 0.02 to 0.05 ms throughout, and an edge of
a type never read 0.03 to 0.05. A read that crossed one edge of the type took 2.3 to 8 ms once and
brought the next edges back to 0.03 to 0.06 ms, but only once 10,000 of them waited (FalkorDB's setting
DELTA_MAX_PENDING_CHANGES, 10,000 unless set): after 4,000 or 6,000 it took 1.5 to 2.3 ms and changed
nothing. With the setting at 1,000 (at load, or by GRAPH.CONFIG SET), the read after 2,000 or 6,000 reset
it. A DELETE of an edge of the type did the same under the same condition (11.5 to 43 ms once after
12,000 to 60,000; after 4,000 it changed nothing). A read that only counted the type's edges, or a
DELETE of an edge of another type, did not; writes alone never did. A BGSAVE did it under the same
condition (`--save`: after 22,600 edges, 0.38 ms a call before and 0.08 after; after 2,300, 0.08 before
and 0.17 after), and so did a SAVE after 15,000 (a probe): the server merges what waits before it
writes the file.

So a single write pays for the edges of its types that every writer made since the type was last read
across or the server last saved: up to 10,000 of them when either comes often, without end when neither
does (the embedded FalkorDB with a data folder saves by Redis' rule `3600 1 300 100`: after 5 minutes
that made 100 changes). The library's blind shapes (single_write_shapes.py) pay it as its functions do.
record() of 20,000 entries (the command's second part, an episode() read every 100 calls; two runs) took
0.71 and 0.78 ms inside FalkorDB a call in its first fifth and 1.18 and 1.29 in its last; with each of
its edge types read across every 500 calls, 0.83 to 1.18 by fifths; and that with the setting at 1,000,
0.73 to 0.85 throughout. In the benchmark the setting at 1,000 alone changed nothing beyond the noise
(two full runs each way, against servers started with and without it): no single write reads the types it
makes, and WROTE (read only by trust()) and NEXT are read by few reads.

The service does neither. Both were built (the embedded FalkorDB loaded with the setting at 1,000, and
`serve` reading across each edge type of each tenant graph every 5 s, waiting out its own schema
changes) and taken out again: in the first full test run on a clean clone, the session's serve's
FalkorDB died of a SIGSEGV in the graph module's indexer thread, while a unique constraint was being
built and the service's and the settler's reads ran. Until that is understood, bounding this cost is
not worth a crash of the database.
"""

from __future__ import annotations

import argparse
import sys
import time
import uuid
from contextlib import contextmanager

from growth import Timed
from lighthouse import Kind, ensure_schema, episode, open_episode, record
from processes import expect, on_a_server

DEVICE = Kind("Device")
EPISODES = 200
SETTING = "DELTA_MAX_PENDING_CHANGES"

EDGE = "CREATE (n:Episode {id: $id}) CREATE (n)-[:LOOP]->(n)"
NO_EDGE = "CREATE (n:Episode {id: $id})"
FRESH_TYPE = "CREATE (n:Episode {id: $id}) CREATE (n)-[:FRESH]->(n)"
READ_ACROSS = "MATCH (n:Episode {id: $id})-[:LOOP]->(m) RETURN m.id"
DELETE_ONE = "MATCH (n:Episode {id: $id})-[r:LOOP]->() DELETE r"
TYPES = "CALL db.relationshipTypes() YIELD relationshipType RETURN relationshipType"


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


def _saved_in_background(server) -> None:
    """One BGSAVE, waited out; refused (WrongWork) when the server reports it failed."""
    connection = server.client().connection
    connection.bgsave()
    deadline = time.monotonic() + 60
    while connection.info("persistence").get("rdb_bgsave_in_progress"):
        expect(time.monotonic() < deadline, "the BGSAVE took more than 60 s")
        time.sleep(0.05)
    expect(connection.info("persistence").get("rdb_last_bgsave_status") == "ok", "the BGSAVE failed")


def saves(server, edges: int, step: int, calls: int) -> list[str]:
    """A BGSAVE after step LOOP edges (fewer than wait to be merged), then after edges more."""
    graph = server.client().select_graph(f"bench_edges_{uuid.uuid4().hex[:10]}")
    try:
        graph.query("CREATE INDEX FOR (n:Episode) ON (n.id)")
        made, lines = Made(), ["a BGSAVE, waited out, as the LOOP edges grow:"]
        for grown in (step, edges):
            _calls(graph, made, EDGE, grown - calls, 1)
            before = _calls(graph, made, EDGE, calls, 1)
            _saved_in_background(server)
            after = _calls(graph, made, EDGE, calls, 1)
            lines.append(
                f"  a BGSAVE after {made.count:,} LOOP edges: {before:.3f} ms a call before, {after:.3f} after"
            )
        return lines
    finally:
        graph.delete()


def read_across(graph) -> list[str]:
    """One read across one edge of each edge type of the graph (a type's name between backticks, which
    FalkorDB 4.22 cannot escape inside one); the types read."""
    types = [row[0] for row in graph.ro_query(TYPES).result_set if "`" not in row[0]]
    if types:
        graph.ro_query(
            " UNION ALL ".join(
                f"MATCH ()-[edge:`{name}`]->() WITH edge LIMIT 1 RETURN {place} AS crossed"
                for place, name in enumerate(types)
            )
        )
    return types


def _recorded(server, records: int, across: bool) -> str:
    """records record() calls on a fresh graph: the ms inside FalkorDB of one, for each fifth of them."""
    graph = server.client().select_graph(f"bench_records_{uuid.uuid4().hex[:10]}")
    try:
        ensure_schema(graph, [DEVICE])
        graph.query(
            "UNWIND range(1, $n) AS i CREATE (:Device:Entity {key: 'd' + toString(i)})", {"n": EPISODES}
        )
        for number in range(EPISODES):
            opened = open_episode(graph, f"ep{number}", "bench", [(DEVICE, f"d{number + 1}")])
            expect(opened["status"] == "opened", f"open_episode {number}: {opened}")
        watched, fifths, fifth = Timed(graph), [], max(1, records // 5)
        for call in range(records):
            number = call % EPISODES
            cites = [(DEVICE, f"d{number + 1}")]
            receipt = record(
                watched, f"ep{number}", "observation", "bench", {"note": f"reading {call}"}, cites
            )
            expect(receipt["status"] == "recorded", f"record {call}: {receipt}")
            if call % 100 == 99:
                expect(episode(graph, f"ep{call * 7 % EPISODES}") is not None, "episode() found nothing")
            if across and call % 500 == 499:
                expect("WROTE" in read_across(graph), "the reads across missed the WROTE edges")
            if call % fifth == fifth - 1:
                fifths.append(f"{watched.inside_ms / fifth:.3f}")
                watched.inside_ms = 0.0
        return " / ".join(fifths)
    finally:
        graph.delete()


@contextmanager
def _pending_at(server, pending: int):
    """DELTA_MAX_PENDING_CHANGES at pending (GRAPH.CONFIG SET) for the block, and put back after."""
    config = server.client().connection
    setting = config.execute_command("GRAPH.CONFIG", "GET", SETTING)[1]
    config.execute_command("GRAPH.CONFIG", "SET", SETTING, pending)
    try:
        yield
    finally:
        config.execute_command("GRAPH.CONFIG", "SET", SETTING, setting)


def records_three_ways(server, records: int) -> list[str]:
    """record() at FalkorDB's default (10,000), with each type read across every 500 calls, and that at
    1,000."""
    lines = [f"record() x {records:,}, ms inside FalkorDB a call, a fifth of them at a time:"]
    for pending, across_every_500 in ((10_000, False), (10_000, True), (1_000, True)):
        with _pending_at(server, pending):
            how = ", each type read across every 500 calls" if across_every_500 else ""
            lines.append(f"  {SETTING} {pending}{how}: {_recorded(server, records, across_every_500)}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--edges", type=int, default=20_000, help="LOOP edges made before each read or DELETE"
    )
    parser.add_argument("--step", type=int, default=2_000, help="calls between two lines")
    parser.add_argument("--calls", type=int, default=300, help="the calls of each step that are timed")
    parser.add_argument("--records", type=int, default=20_000, help="record() calls of each way (0: none)")
    parser.add_argument(
        "--save",
        action="store_true",
        help="also a BGSAVE after --step and --edges more (writes the RDB file)",
    )
    args = parser.parse_args(argv)
    expect(args.edges >= args.step > args.calls >= 1 and args.records >= 0, "give edges >= step > calls >= 1")

    def work(server) -> None:
        with _pending_at(server, 10_000):  # FalkorDB's default, which the docstring's figures are of
            print("\n".join(measure(server, args.edges, args.step, args.calls)), flush=True)
            if args.save:
                print("\n".join(saves(server, args.edges, args.step, args.calls)), flush=True)
        if args.records:
            print("\n".join(records_three_ways(server, args.records)))

    return on_a_server(work)


if __name__ == "__main__":
    sys.exit(main())
