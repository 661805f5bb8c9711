"""What the checks of learn() and weigh() cost inside their one write query, against the same checks sent
as a read, and against the blind write.

    uv run python bench/check_cost.py [--entities 2000] [--episodes 300] [--rounds 6]

Each function checks, in its one query, what must exist before it writes (a refused write costs
nothing). On a graph the library wrote (a fleet of devices, episodes opened and closed, a lesson on
each episode), these take turns, a call per episode each a round, the order turning each round:

- `learn(): its query`: the query learn() sends, for a lesson resting on two episodes, about a device;
- `learn(): its checks, as a read`: the same query up to its verdict, sent read-only;
- `learn(): blind write`: the lesson and its edges alone (bench/single_write_cypher.py's shape);
- `weigh(): its query`, `weigh(): its checks, as a read`, `weigh(): blind write`: the same for weigh()
  of a lesson by one more episode;
- `weigh(): its query, no end step` and `weigh(): its checks, no end step, as a read`: weigh()'s
  without the step to the episode's tally, where its end is kept (the end taken as given).

It prints the median ms a call and inside FalkorDB of each way. Every write is checked to have made what
it writes, every read to have said that it would write.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import uuid

from fleet import AGENT, DEVICE, Fleet
from lighthouse import close_episode, ensure_schema, learn, open_episode, remember
from lighthouse.episodes import closed_at
from lighthouse.lessons import _WEIGHED, _learn_query
from processes import expect, on_a_server
from single_write_cypher import LEARN_SHAPE, NOW, WEIGH_SHAPES

_LEARN = _learn_query(("Device",), ("confidence",))
_END = f"{closed_at('ep')} AS ended"
_WEIGH_NO_END = _WEIGHED[True].replace(_END, "'given' AS ended")


def _checks(query: str, verdict: str) -> str:
    """The query up to its verdict, which it returns instead of writing."""
    return query[: query.index("FOREACH")] + f"RETURN verdict = '{verdict}'"


class Ways:
    """Each way's query and the parameters of its n-th call in a round (shift: that round's, per way)."""

    def __init__(self, fleet: Fleet, episodes: int) -> None:
        self.keys, self.episodes = fleet.keys, episodes

    def learned(self, number: int, shift: int) -> dict:
        at = {"at": NOW, "now": NOW, "by": AGENT, "statement": "steadies after a fan check"}
        episodes = [f"ep{number}", f"ep{(number + 1) % self.episodes}"]
        about = {"about_0": [self.keys[number % len(self.keys)]], "about_expected": 1, "value_0": 0.5}
        return {**at, **about, "id": f"new{shift}-{number}", "episodes": episodes}

    def learn_shape(self, number: int, shift: int) -> dict:
        params = {"key": self.keys[number % len(self.keys)], "first": f"ep{number}", "by": AGENT}
        params.update(second=f"ep{(number + 1) % self.episodes}", id=f"shape{shift}-{number}", now=NOW)
        return {**params, "statement": "steadies after a fan check", "confidence": 0.5}

    def weighed(self, number: int, shift: int) -> dict:
        # A lesson rests on its episode and the next: shift (2 and up) names one neither took.
        return {
            "id": f"l{number}",
            "episode": f"ep{(number + shift) % self.episodes}",
            "by": AGENT,
            "at": NOW,
        }

    def weigh_shape(self, number: int, shift: int) -> dict:
        return {**self.weighed(number, shift), "now": NOW}

    def all(self) -> dict:
        """name: (query, read only, parameters of a call, what the call made or answered)"""
        made_lesson, made_edge, says_so = (1, 3), (0, 1), [[True]]
        expect(_WEIGHED[True] != _WEIGH_NO_END, "weigh()'s query no longer reads the end as closed_at()")
        return {
            "learn(): its query": (_LEARN, False, self.learned, made_lesson),
            "learn(): its checks, as a read": (_checks(_LEARN, "learned"), True, self.learned, says_so),
            "learn(): blind write": (LEARN_SHAPE, False, self.learn_shape, made_lesson),
            "weigh(): its query": (_WEIGHED[True], False, self.weighed, made_edge),
            "weigh(): its checks, as a read": (
                _checks(_WEIGHED[True], "weighed"),
                True,
                self.weighed,
                says_so,
            ),
            "weigh(): blind write": (WEIGH_SHAPES[True], False, self.weigh_shape, made_edge),
            "weigh(): its query, no end step": (_WEIGH_NO_END, False, self.weighed, made_edge),
            "weigh(): its checks, no end step, as a read": (
                _checks(_WEIGH_NO_END, "weighed"),
                True,
                self.weighed,
                says_so,
            ),
        }


def _written(graph, fleet: Fleet, episodes: int) -> None:
    """The fleet, its episodes opened and closed, and a lesson resting on each episode and the next."""
    ensure_schema(graph, [DEVICE])
    rows = fleet.create_rows()
    for start in range(0, len(rows), 500):
        remember(graph, DEVICE, rows[start : start + 500], AGENT)
    for number in range(episodes):
        opened = open_episode(graph, f"ep{number}", AGENT, [(DEVICE, fleet.keys[number % fleet.count])])
        closed = close_episode(graph, f"ep{number}", AGENT, {"failed": False})
        expect(opened["status"] == "opened" and closed["status"] == "recorded", f"episode {number}")
    for number in range(episodes):
        resting_on = [f"ep{number}", f"ep{(number + 1) % episodes}"]
        learned = learn(graph, f"l{number}", AGENT, "steadies after a fan check", resting_on)
        expect(learned["status"] == "learned", f"lesson {number}: {learned}")


def _round(graph, name: str, way: tuple, episodes: int, shift: int) -> tuple[float, float]:
    """ms a call and inside FalkorDB, over one call for each episode."""
    query, read_only, params_of, wanted = way
    send = graph.ro_query if read_only else graph.query
    inside = 0.0
    began = time.perf_counter()
    for number in range(episodes):
        result = send(query, params_of(number, shift))
        inside += result.run_time_ms
        got = result.result_set if read_only else (result.nodes_created, result.relationships_created)
        expect(got == wanted, f"{name}, call {number}: {got}, not {wanted}")
    return (time.perf_counter() - began) * 1000 / episodes, inside / episodes


def measure(server, entities: int, episodes: int, rounds: int) -> list[str]:
    graph = server.client().select_graph(f"bench_checks_{uuid.uuid4().hex[:10]}")
    try:
        fleet = Fleet.of(entities)
        _written(graph, fleet, episodes)
        ways = Ways(fleet, episodes).all()
        names = list(ways)
        taken: dict[str, list[tuple[float, float]]] = {name: [] for name in names}
        for turn in range(rounds):
            for place, name in enumerate(names[turn % len(names) :] + names[: turn % len(names)]):
                shift = 2 + turn * len(names) + place  # a round's own: no edge or id is made twice
                taken[name].append(_round(graph, name, ways[name], episodes, shift))
        return [
            f"{name:44s} ms a call {statistics.median(one for one, _ in taken[name]):.3f}  "
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
    parser.add_argument("--rounds", type=int, default=6)
    args = parser.parse_args(argv)
    # weigh() takes the episode a round's shift names: fewer episodes than shifts would repeat an edge.
    expect(args.entities >= 1 and args.episodes >= 3 + args.rounds * 8, "give more episodes")
    return on_a_server(
        lambda server: print("\n".join(measure(server, args.entities, args.episodes, args.rounds)))
    )


if __name__ == "__main__":
    sys.exit(main())
