"""What the blind write of an entry and of a message costs FalkorDB, part by part.

    uv run python bench/entry_cost.py [--episodes 300] [--messages 2000]

The shapes of record() and say() (single_write_cypher.py) reach a third of the indexed-MATCH floor or
less, so their functions cannot reach 60 % of it. This says where a shape's time goes inside FalkorDB. Each
way of writing gets a graph of its own, made by ensure_schema() with 2,000 devices and `--episodes`
episodes (the open shape), and the ways take turns, call for call; an indexed MATCH of a device (the
floor's query, read-only) takes its turn on the first graph. The ways:

- record: its shape (ten entries an episode, each citing the device and the entry before); the same on a
  graph without the full-text index of `Entry.words`; without the WROTE edge (and the Agent's MERGE);
  without its CITES edges; without any edge (the entry, its serial and its count alone); the entry's node
  alone, with its properties (no read, no count); and the least write, a CREATE of one Entry with its id.
- say: its shape (round 50 users, every tenth mentioning a device); the same on a graph without the
  full-text index of `Message.words`; and without its edges (HAS, NEXT, MENTIONS).

Every query's nodes and edges made are checked against what the way writes; a wrong one stops it (exit
code 1). It prints the ms inside FalkorDB of each way: the median, and the medians of the first and the
last fifth of its calls (bench/edge_growth.py: a new edge costs more the more edges of its type were
made since the type was last read).

Measured on FalkorDB 4.22.1 (the 2-core machine), 2026-12-02: see bench/README.md, "What an entry costs".
"""

from __future__ import annotations

import argparse
import statistics
import sys
import uuid

from lighthouse import Kind, ensure_schema
from processes import expect, on_a_server
from single_write_cypher import (
    ENTRIES,
    OPEN_SHAPE,
    RECORD_SHAPE,
    SAY_SHAPE,
    USERS,
    append_params,
    open_params,
    say_params,
)

DEVICE = Kind("Device")
DEVICES = 2_000
FLOOR = "MATCH (n:Device {key: $key}) RETURN properties(n)"

WRITER = "MERGE (writer:Agent {{name: $by}}) "
WROTE = "CREATE (writer)-[:WROTE]->(n) "
CITES_DEVICE = "CREATE (n)-[:CITES {{as_of: localdatetime($now)}}]->(d) "
CITES_EARLIER = " CREATE (n)-[:CITES {{as_of: localdatetime($now)}}]->(earlier)"
CHAINED = (
    "FOREACH (earlier IN CASE WHEN last IS NULL THEN [] ELSE [last] END | "
    "  CREATE (earlier)-[:NEXT]->(n) CREATE (n)-[:CITES {{as_of: localdatetime($now)}}]->(earlier))"
)


def _without(shape: str, *parts: str) -> str:
    """The shape with each part taken out; each part must be in it (written as in the shape's template)."""
    for part in parts:
        written = part.replace("{{", "{").replace("}}", "}")
        expect(written in shape, f"not in the shape: {written}")
        shape = shape.replace(written, "")
    return shape


# name -> (query, the edges it makes for the first entry of an episode, and for each later one)
RECORD_WAYS = {
    "shape": (RECORD_SHAPE, (3, 5)),
    "without the full-text index": (RECORD_SHAPE, (3, 5)),
    "without WROTE": (_without(RECORD_SHAPE, WRITER, WROTE), (2, 4)),
    "without CITES": (_without(RECORD_SHAPE, CITES_DEVICE, CITES_EARLIER), (2, 3)),
    "without edges": (
        _without(RECORD_SHAPE, WROTE, CITES_DEVICE, CHAINED).replace(
            "CREATE (ep)-[:HAS]->(n:Entry", "CREATE (n:Entry"
        ),
        (0, 0),
    ),
    "its node alone": (
        "CREATE (:Entry {id: $episode + '/' + toString($seq), episode: $episode, seq: $seq, serial: $seq, "
        "  type: $type, by: $by, at: localdatetime($now), recorded_at: localdatetime($now), words: $words, "
        "  content: $content, v_note: $note, v_reading: $reading})",
        (0, 0),
    ),
    "one node": ("CREATE (:Entry {id: $episode + '/' + toString($seq)})", (0, 0)),
}
SEQ_GIVEN = ("its node alone", "one node")  # ways whose query takes the entry's number as $seq
MENTIONS = "FOREACH (named IN $mentions |   MERGE (r:Reference {key: named}) CREATE (m)-[:MENTIONS]->(r))"
SAY_WAYS = {
    "shape": SAY_SHAPE,
    "without the full-text index": SAY_SHAPE,
    "without edges": _without(
        SAY_SHAPE,
        "FOREACH (earlier IN CASE WHEN prior IS NULL THEN [] ELSE [prior] END | CREATE (earlier)-[:NEXT]->(m)) ",
        MENTIONS,
    ).replace("CREATE (s)-[:HAS]->(m:Message", "CREATE (m:Message"),
}
UNINDEXED = "without the full-text index"


def _graph(server, label: str, way: str, episodes: int):
    graph = server.client().select_graph(f"bench_entry_cost_{uuid.uuid4().hex[:10]}")
    ensure_schema(graph, [DEVICE])
    graph.query(
        "UNWIND range(0, $n - 1) AS i CREATE (:Device:Entity {key: 'd' + toString(i)})", {"n": DEVICES}
    )
    if way == UNINDEXED:
        graph.query(f"CALL db.idx.fulltext.drop('{label}')")
        kinds = graph.ro_query(
            "CALL db.indexes() YIELD label, types WHERE label = $label RETURN types", {"label": label}
        ).result_set
        expect(all("FULLTEXT" not in str(row) for row in kinds), f"{label}'s full-text index is still there")
    for number in range(episodes):
        opened = graph.query(OPEN_SHAPE, open_params(number, f"d{number}"))
        expect(opened.nodes_created == 1, f"the open shape made {opened.nodes_created} nodes")
    return graph


def _line(name: str, inside: list[float]) -> str:
    fifth = max(1, len(inside) // 5)
    first, last = statistics.median(inside[:fifth]), statistics.median(inside[-fifth:])
    return f"  {name:<29} {statistics.median(inside):6.3f} ms   first fifth {first:.3f}, last {last:.3f}"


class Ways:
    """A graph for each way and the ms inside FalkorDB of its calls, and of the floor's reads on the first
    graph; the graphs are deleted on leaving, also when a check fails."""

    def __init__(self, server, label: str, ways: dict, episodes: int) -> None:
        self.graphs: dict = {}
        self.inside: dict[str, list[float]] = {way: [] for way in [*ways, "floor"]}
        try:
            for way in ways:
                self.graphs[way] = _graph(server, label, way, episodes)
        except BaseException:
            self.__exit__()
            raise

    def __enter__(self) -> Ways:
        return self

    def __exit__(self, *raised) -> None:
        for graph in self.graphs.values():
            graph.delete()

    def write(self, what: str, way: str, query: str, params: dict, edges: int) -> None:
        made = self.graphs[way].query(query, params)
        expect(
            made.nodes_created >= 1 and made.relationships_created == edges,
            f"{what}, {way}: {made.nodes_created} nodes, {made.relationships_created} edges",
        )
        self.inside[way].append(made.run_time_ms)

    def floor(self, number: int) -> None:
        read = next(iter(self.graphs.values())).ro_query(FLOOR, {"key": f"d{number % DEVICES}"})
        expect(len(read.result_set) == 1, "the floor's read found no device")
        self.inside["floor"].append(read.run_time_ms)

    def report(self, title: str) -> list[str]:
        return [title] + [_line(way, times) for way, times in self.inside.items()]


def records(server, episodes: int) -> list[str]:
    with Ways(server, "Entry", RECORD_WAYS, episodes) as ways:
        for seq in range(1, ENTRIES + 1):
            for number in range(episodes):
                params = append_params(number, seq, f"d{number}", False)
                for way, (query, (first, later)) in RECORD_WAYS.items():
                    given = {**params, "seq": seq} if way in SEQ_GIVEN else params
                    ways.write("record", way, query, given, first if seq == 1 else later)
                ways.floor(number)
        return ways.report(f"record ({ENTRIES * episodes:,} calls a way), ms inside FalkorDB a call:")


def messages(server, count: int) -> list[str]:
    keys = [f"d{number}" for number in range(DEVICES)]
    with Ways(server, "Message", SAY_WAYS, 0) as ways:
        for number in range(count):
            params = say_params(number, keys, "user")
            for way, query in SAY_WAYS.items():
                # A session's first message makes its tally's loop edge, each later one the NEXT from
                # the one before; HAS and MENTIONS come with each.
                edges = int(number < USERS) if way == "without edges" else 2 + len(params["mentions"])
                ways.write("say", way, query, params, edges)
            ways.floor(number)
        return ways.report(f"say ({count:,} calls a way), ms inside FalkorDB a call:")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--episodes", type=int, default=300)
    parser.add_argument("--messages", type=int, default=2_000)
    args = parser.parse_args(argv)
    expect(
        1 <= args.episodes <= DEVICES and args.messages >= 1,
        f"give 1 to {DEVICES} episodes, 1 message or more",
    )
    return on_a_server(
        lambda server: print("\n".join(records(server, args.episodes) + messages(server, args.messages)))
    )


if __name__ == "__main__":
    sys.exit(main())
