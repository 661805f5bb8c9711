"""What a change costs when the entities hold vectors: remember() of a later row for each, timed.

    uv run python bench/vectors_in_change.py [--entities 2000] [--dimensions 1536]

Two fresh graphs get the same devices as the fleet's (`fleet.py`, with a kind of --dimensions): in one,
every device then holds a vector (embed() with an embedder that gives the same numbers for every text); in
the other, none does. Each device then gets a later row with one value changed (its status), in batches
of 500, and the change is timed: all of it, and the read before the write (its round trip, and its time
inside FalkorDB). Every receipt must be "changed", and every vector must still be there after it (the
text did not change); a wrong one stops it (exit code 1).

Measured 2026-12-01 (FalkorDB 4.22.1, the 2-core machine), 2,000 devices, 1,536 dimensions:

| | change | its reads, round trip (inside) | its writes, inside FalkorDB |
|---|---|---|---|
| no vectors | 0.42 to 0.45 s | 0.21 s (0.13) | 0.11 to 0.12 s |
| vectors, on the entities (before) | 4.67 to 4.69 s | 0.23 s (0.14 to 0.15) | 4.2 to 4.3 s |
| vectors, on nodes of their own | 0.45 s | 0.22 s (0.14) | 0.10 s |

Before, the read gave all the entity's properties, the vector among them (a round trip of 1.52 to 1.55 s
with vectors); it gives its values only. And FalkorDB indexes a node again in every index of its labels
at each property SET: `MATCH (n:V) SET n.x = n.x + 1` on 1,000 nodes with vectors of 1,536 took 1,740 to
2,050 ms, the same on 1,000 nodes of a label without the index 0.66 ms. A change must SET the entity (its
current values, its revision), so the vector is kept on a node of its own (`lighthouse.vector_layout`).
"""

from __future__ import annotations

import argparse
import sys
import time
import uuid

from fleet import AGENT, DEVICE, Fleet
from lighthouse import Kind, embed, ensure_schema, remember
from processes import expect, on_a_server

BATCH = 500


class Timed:
    """A graph whose reads add up their round trips and their time inside FalkorDB, its writes the latter."""

    def __init__(self, graph):
        self.graph, self.read_s, self.read_inside_s, self.write_inside_s = graph, 0.0, 0.0, 0.0

    def query(self, query, params=None, **options):
        result = self.graph.query(query, params, **options)
        self.write_inside_s += result.run_time_ms / 1000
        return result

    def ro_query(self, query, params=None, **options):
        began = time.perf_counter()
        result = self.graph.ro_query(query, params, **options)
        self.read_s += time.perf_counter() - began
        self.read_inside_s += result.run_time_ms / 1000
        return result


def _kind(dimensions: int) -> Kind:
    relations = dict(DEVICE.relations)
    return Kind(DEVICE.label, key=DEVICE.key, times=DEVICE.times, text=DEVICE.text, relations=relations,
                dimensions=dimensions)  # fmt: skip


def _write(graph, kind: Kind, rows: list[dict], status: str) -> float:
    began = time.perf_counter()
    for start in range(0, len(rows), BATCH):
        receipts = remember(graph, kind, rows[start : start + BATCH], AGENT)
        wrong = [receipt for receipt in receipts if receipt["status"] != status]
        expect(not wrong, f"expected every receipt {status!r}; first wrong: {wrong[:1]}")
    return time.perf_counter() - began


def _vectors(graph, kind: Kind) -> int:
    query = f"MATCH (e:`{kind.label}`)-[:LH_VECTOR]->(v) WHERE v.`lh.vector` IS NOT NULL RETURN count(e)"
    return graph.ro_query(query).result_set[0][0]


def measure(server, fleet: Fleet, kind: Kind, with_vectors: bool) -> tuple[float, float, float, float]:
    """Seconds of the change, of its reads' round trips, of its reads and of its writes inside FalkorDB."""
    graph = server.client().select_graph(f"bench_vectors_{uuid.uuid4().hex[:10]}")
    try:
        ensure_schema(graph, [kind])
        _write(graph, kind, fleet.create_rows(), "created")
        if with_vectors:
            same = [1.0 / kind.dimensions**0.5] * kind.dimensions
            while embed(graph, kind, lambda texts: [same for _ in texts], "constant", limit=1000)["embedded"]:
                pass
            expect(_vectors(graph, kind) == fleet.count, "every device holds a vector before the change")
        timed = Timed(graph)
        seconds = _write(timed, kind, fleet.change_rows(), "changed")
        kept = _vectors(graph, kind)
        expect(kept == (fleet.count if with_vectors else 0), f"{kept} vectors after the change")
        return seconds, timed.read_s, timed.read_inside_s, timed.write_inside_s
    finally:
        graph.delete()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--entities", type=int, default=2000)
    parser.add_argument("--dimensions", type=int, default=1536)
    args = parser.parse_args(argv)
    fleet, kind = Fleet.of(args.entities), _kind(args.dimensions)

    def work(server) -> None:
        for with_vectors in (False, True):
            seconds, read_s, read_inside_s, write_inside_s = measure(server, fleet, kind, with_vectors)
            held = f"vectors of {args.dimensions}" if with_vectors else "no vectors"
            print(
                f"{args.entities:,} devices, {held:22s} change {seconds:6.3f} s; its reads {read_s:6.3f} s "
                f"round trip ({read_inside_s:6.3f} inside FalkorDB), its writes {write_inside_s:6.3f} s inside"
            )

    return on_a_server(work)


if __name__ == "__main__":
    sys.exit(main())
