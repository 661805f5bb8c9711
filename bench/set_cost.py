"""What one property SET costs FalkorDB on a node whose label has indexes, none of them on that property.

    uv run python bench/set_cost.py [--nodes 10000] [--rounds 3]

Each way, on a fresh graph: `--nodes` nodes of a label S with the properties a State has, the label's
indexes made first as the way says, then `SET n.valid_to = ...` on every node, by id, 500 a query (what a
change does to the State it ends). It prints FalkorDB's own time for the SETs, the best of `--rounds`.
Measured 2026-12-02 on FalkorDB 4.22 (falkordblite, the 2-core machine), 10,000 nodes: no index 29.8 ms;
range indexes on valid_from and by 127.8 ms; a full-text index on words 131.1 ms; all three 187.2 ms.
FalkorDB indexes the node again in every index of its label whatever property was set.

So ending a State (States have range indexes on valid_from, by and lh.trust, and a full-text index on
words) costs about 30 µs a row inside FalkorDB, of which some 25 µs are the indexes: in a change of 500
rows, `SET held.valid_to` took 15.2 ms of the write's 73 ms (GRAPH.PROFILE), the entity's SET 22.5 ms
and the new State's CREATE 19.6 ms.
"""

from __future__ import annotations

import argparse
import sys
import time
import uuid

from lighthouse_server import database

_MADE = (
    "UNWIND range(0, $count - 1) AS i CREATE (:S {k: i, valid_from: localdatetime('2026-01-01T00:00:00'), "
    "words: 'alpha beta gamma ' + toString(i), by: 'agent', n: i})"
)
_ENDED = "UNWIND $ids AS i MATCH (n:S) WHERE id(n) = i SET n.valid_to = localdatetime('2026-02-01T00:00:00')"
_RANGE = ["CREATE INDEX FOR (s:S) ON (s.valid_from)", "CREATE INDEX FOR (s:S) ON (s.by)"]
_TEXT = ["CALL db.idx.fulltext.createNodeIndex('S', 'words')"]
WAYS = {
    "no index": [],
    "range indexes on valid_from and by": _RANGE,
    "a full-text index on words": _TEXT,
    "all three": _RANGE + _TEXT,
}
BATCH = 500


def _set_ms(client, indexes: list[str], count: int) -> float:
    """FalkorDB's milliseconds for SET valid_to on every node of a fresh graph with these indexes."""
    graph = client.select_graph(f"bench_set_cost_{uuid.uuid4().hex[:10]}")
    try:
        graph.query("RETURN 1")
        for index in indexes:
            graph.query(index)
        graph.query(_MADE, {"count": count})
        ids = graph.ro_query("MATCH (n:S) RETURN collect(id(n))").result_set[0][0]
        time.sleep(0.5)  # the full-text index is built by the server's own thread
        return sum(
            graph.query(_ENDED, {"ids": ids[start : start + BATCH]}).run_time_ms
            for start in range(0, len(ids), BATCH)
        )
    finally:
        graph.delete()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    if args.nodes < 1 or args.rounds < 1:
        parser.error("--nodes and --rounds are at least 1")
    server = database.connect_or_start()
    try:
        client = server.client()
        for way, indexes in WAYS.items():
            best = min(_set_ms(client, indexes, args.nodes) for _ in range(args.rounds))
            print(
                f"{way:<36} SET valid_to on {args.nodes:,} nodes: {best:8.1f} ms inside FalkorDB", flush=True
            )
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
