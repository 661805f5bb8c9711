"""Why ensure_schema() registers every relation type, LH_TALLY (the counters' loop edge) among them.

    uv run python bench/edge_counters.py [--rounds 10] [--threads 8]

Each round, on a fresh graph, `--threads` threads (each with its own connection, started together by a
barrier) send three times each one write: find the node S, look for its edge T, and make T when there is
none. FalkorDB runs the writes of a graph one at a time, so one edge T should be made, whatever the
interleaving. It is done with the relation type T new to the graph, and with T registered first (an
index on a property of T, as ensure_schema() makes); then with a counter on S and on an existing T
(read, SET one higher: every number once). It prints, per way, the rounds that went wrong. Measured
2026-12-01 on FalkorDB 4.22.1 (the 2-core machine): with T new, T was made 2 or 3 times in 4 to 7 rounds
of 10 (a query that arrived while T did not exist does not see T's edges, even once another writer made
them); with T registered, and both counters, 10 rounds of 10 were right.

So a counter on an edge made at first use (a session's count, made with its first message) is exact
only where its type is registered: unregistered, two first writes each make one, and every later write
would match both (say() and record() collect their tallies, so a row never doubles even then).
"""

from __future__ import annotations

import argparse
import sys
import threading
import uuid

from lighthouse_server import database

_FIRST_USE = (
    "MATCH (s:S {k: 1}) OPTIONAL MATCH (s)-[t:T]->(:X) "
    "FOREACH (x IN CASE WHEN t IS NULL THEN [1] ELSE [] END | CREATE (s)-[:T]->(:X)) RETURN 0"
)
REGISTER = "CREATE INDEX FOR ()-[r:T]-() ON (r.registered)"
WAYS = {
    "edge made at first use, T new": ("CREATE (:S {k: 1})", _FIRST_USE),
    "edge made at first use, T known": ("CREATE (:S {k: 1})", _FIRST_USE, REGISTER),
    "counter on the node": ("CREATE (:S {k: 1, c: 0})", "MATCH (s:S {k: 1}) SET s.c = s.c + 1 RETURN s.c"),
    "counter on an edge made before": (
        "CREATE (:S {k: 1})-[:T {c: 0}]->(:X)",
        "MATCH (s:S {k: 1})-[t:T]->() SET t.c = t.c + 1 RETURN t.c",
    ),
}
CALLS = 3  # per thread


def _round(server, setup: str, query: str, threads: int, register: str | None = None) -> bool:
    """One race on a fresh graph: True when it ended as serial writes would leave it."""
    graph = server.client().select_graph(f"edge_counters_{uuid.uuid4().hex[:10]}")
    try:
        graph.query("CREATE INDEX FOR (n:S) ON (n.k)")
        if register:
            graph.query(register)
        graph.query(setup)
        answers: list[int] = []
        start = threading.Barrier(threads)

        def race() -> None:
            own = server.client().select_graph(graph.name)
            start.wait()
            for _ in range(CALLS):
                answers.append(own.query(query).result_set[0][0])

        racers = [threading.Thread(target=race) for _ in range(threads)]
        for racer in racers:
            racer.start()
        for racer in racers:
            racer.join()
        if set(answers) == {0}:  # the edge made at first use: one edge T
            return graph.query("MATCH (:S)-[t:T]->() RETURN count(t)").result_set[0][0] == 1
        return sorted(answers) == list(range(1, threads * CALLS + 1))
    finally:
        graph.delete()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--threads", type=int, default=8)
    args = parser.parse_args(argv)
    server = database.connect_or_start()
    try:
        for way, (setup, query, *register) in WAYS.items():
            wrong = sum(not _round(server, setup, query, args.threads, *register) for _ in range(args.rounds))
            print(f"{way:32s} wrong in {wrong} of {args.rounds} rounds ({args.threads} threads)", flush=True)
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
