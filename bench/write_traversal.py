"""What weigh()'s checks cost inside its write query, against the same checks as a read and the blind write.

    uv run python bench/write_traversal.py [--entities 2000] [--episodes 300] [--rounds 8]

weigh() checks, in its one query, that the lesson and the episode exist, that the episode has ended
(its end is on its LH_TALLY loop edge, where close_episode() keeps it) and that neither edge between them
is there yet. This command takes those checks apart on a graph the library wrote (a fleet of devices,
episodes opened and closed, a lesson on each), in turns, each way a few hundred calls a round, the order
turning each round:

- `write, with the end check`: weigh()'s form: the checks, the verdict, then one FOREACH that writes the
  edge and the count;
- `write, no end check`: the same with the end taken as given (no step to the tally edge);
- `read, with the end check` and `read, no end check`: the same checks and verdict, no write, sent as
  read-only queries;
- `blind write`: the edge and the count alone, no check (as bench/single_write_cypher.py's);
- `weigh()'s own query`, for the lesson: its checks read the end as `episodes.closed_at()` does (a
  pattern comprehension that a second tally cannot double) and refuse a retired lesson too.

It prints the median ms a call and inside FalkorDB of each: what the checks add to the blind write,
beside what they cost alone. Every write is checked to have made its edge, every read to have said
`weighed`.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import uuid

from fleet import AGENT, DEVICE, Fleet
from lighthouse import close_episode, ensure_schema, learn, open_episode, remember
from lighthouse.lessons import _WEIGHED
from processes import expect, on_a_server

NOW = "2026-11-30T12:00:00"
_CHECKS = (
    "OPTIONAL MATCH (l:Lesson {id: $id}) OPTIONAL MATCH (ep:Episode {id: $episode}) "
    "OPTIONAL MATCH (l)-[pro:SUPPORTED_BY]->(ep) OPTIONAL MATCH (l)-[con:CONTRADICTED_BY]->(ep) "
)
_END_CHECK = "OPTIONAL MATCH (ep)-[tally:LH_TALLY]->(ep) WITH l, ep, pro, con, tally.closed_at AS ended "
_NO_END_CHECK = "WITH l, ep, pro, con, 'given' AS ended "
_VERDICT = (
    "WITH l, ep, CASE WHEN l IS NULL THEN 'unknown' WHEN ep IS NULL OR coalesce(ended, ep.closed_at) IS NULL "
    "  THEN 'missing' WHEN pro IS NOT NULL OR con IS NOT NULL THEN 'exists' ELSE 'weighed' END AS verdict "
)
_WRITE = (
    "FOREACH (go IN CASE WHEN verdict = 'weighed' THEN [1] ELSE [] END | "
    "  CREATE (l)-[:SUPPORTED_BY {by: $by, at: localdatetime($now)}]->(ep) SET l.support = l.support + 1) "
)
BLIND = (
    "MATCH (l:Lesson {id: $id}) MATCH (ep:Episode {id: $episode}) "
    "CREATE (l)-[:SUPPORTED_BY {by: $by, at: localdatetime($now)}]->(ep) SET l.support = l.support + 1"
)
WAYS = {  # name: (query, read-only)
    "write, with the end check": (_CHECKS + _END_CHECK + _VERDICT + _WRITE + "RETURN verdict", False),
    "write, no end check": (_CHECKS + _NO_END_CHECK + _VERDICT + _WRITE + "RETURN verdict", False),
    "read, with the end check": (_CHECKS + _END_CHECK + _VERDICT + "RETURN verdict", True),
    "read, no end check": (_CHECKS + _NO_END_CHECK + _VERDICT + "RETURN verdict", True),
    "blind write": (BLIND, False),
    "weigh()'s own query": (_WEIGHED[True], False),
}


def _written(graph, entities: int, episodes: int) -> None:
    """The fleet, its episodes opened and closed, and a lesson resting on each episode and the next."""
    ensure_schema(graph, [DEVICE])
    fleet = Fleet.of(entities)
    rows = fleet.create_rows()
    for start in range(0, len(rows), 500):
        remember(graph, DEVICE, rows[start : start + 500], AGENT)
    for number in range(episodes):
        opened = open_episode(graph, f"ep{number}", AGENT, [(DEVICE, fleet.keys[number % entities])])
        closed = close_episode(graph, f"ep{number}", AGENT, {"failed": False})
        expect(opened["status"] == "opened" and closed["status"] == "recorded", f"episode {number}")
    for number in range(episodes):
        resting_on = [f"ep{number}", f"ep{(number + 1) % episodes}"]
        learned = learn(graph, f"l{number}", AGENT, "steadies after a fan check", resting_on)
        expect(learned["status"] == "learned", f"lesson {number}: {learned}")


def _round(graph, name: str, episodes: int, shift: int) -> tuple[float, float]:
    """ms a call and inside FalkorDB, over one call for each lesson, each with an episode of its own."""
    query, read_only = WAYS[name]
    send = graph.ro_query if read_only else graph.query
    inside = 0.0
    began = time.perf_counter()
    for number in range(episodes):
        params = {"id": f"l{number}", "episode": f"ep{(number + shift) % episodes}", "by": AGENT}
        params.update(now=NOW, at=NOW)  # weigh()'s query names its time $at
        result = send(query, params)
        inside += result.run_time_ms
        if read_only:
            expect(result.result_set == [["weighed"]], f"{name} {number}: {result.result_set}")
        else:
            expect(result.relationships_created == 1, f"{name} {number}: {result.relationships_created}")
    return (time.perf_counter() - began) * 1000 / episodes, inside / episodes


def measure(server, entities: int, episodes: int, rounds: int) -> list[str]:
    graph = server.client().select_graph(f"bench_traversal_{uuid.uuid4().hex[:10]}")
    try:
        _written(graph, entities, episodes)
        names = list(WAYS)
        taken: dict[str, list[tuple[float, float]]] = {name: [] for name in names}
        for turn in range(rounds):
            for place, name in enumerate(names[turn % len(names) :] + names[: turn % len(names)]):
                # Each write takes episodes no earlier call of its lesson took: every call writes.
                shift = 2 + turn * len(names) + place
                taken[name].append(_round(graph, name, episodes, shift))
        return [
            f"{name:28s} ms a call {statistics.median(one for one, _ in taken[name]):.3f}  "
            f"inside FalkorDB {statistics.median(inside for _, inside in taken[name]):.3f}"
            for name in names
        ]
    finally:
        graph.delete()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--entities", type=int, default=2_000)
    parser.add_argument("--episodes", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=8)
    args = parser.parse_args(argv)
    # Each round of each way takes its own shift (2 and up): fewer episodes would repeat an edge.
    expect(args.entities >= 1 and args.episodes >= 3 + args.rounds * len(WAYS), "give more episodes")
    return on_a_server(
        lambda server: print("\n".join(measure(server, args.entities, args.episodes, args.rounds)))
    )


if __name__ == "__main__":
    sys.exit(main())
