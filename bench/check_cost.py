"""What the checks of learn(), weigh() and record() cost inside their one write query, against the same
checks sent as a read, and against the blind write.

    uv run python bench/check_cost.py [--entities 2000] [--episodes 300] [--rounds 6]

Each of these functions checks, in its one query, what must exist before it writes (so that a refused
write writes nothing), then writes in one FOREACH. On a graph the library wrote (a fleet of devices,
episodes opened and closed with a lesson on each, and open episodes to record in), three ways of each
take turns, a call per episode each a round, the order turning each round:

- `its query`: the function itself, as an application calls it;
- `its checks, as a read`: the function itself, on a graph that sends each of its queries without the
  FOREACH that writes, read-only: the same checks and the same answer, and the receipt it would give;
- `blind write`: what the write makes, alone (the shape of bench/single_write_cypher.py).

learn() rests a new lesson on two episodes that ended, about a device; weigh() weighs a lesson by one
more episode; record() appends an entry citing the entry before and a device. It prints the median ms
a call and inside FalkorDB of each way. Every receipt is checked (the read's too: it says what the write
would have done), and every blind write to have made what it writes.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import uuid

from fleet import AGENT, DEVICE, Fleet
from growth import Timed
from lighthouse import close_episode, ensure_schema, learn, open_episode, record, remember, weigh
from processes import expect, on_a_server
from single_write_cypher import (
    LEARN_SHAPE,
    NOW,
    RECORD_SHAPE,
    WEIGH_SHAPES,
    append_params,
    learn_params,
)

STATEMENT = "steadies after a fan check"


def without_the_write(query: str) -> str:
    """The query without its first FOREACH (the one that writes, whatever it holds): its checks alone."""
    start = query.index("FOREACH (")
    depth, quoted = 0, None
    for place in range(start + len("FOREACH "), len(query)):
        char = query[place]
        if quoted:
            quoted = None if char == quoted else quoted
        elif char in "'\"":
            quoted = char
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return query[:start] + query[place + 1 :]
    raise ValueError("a FOREACH that does not close")


class Reading(Timed):
    """A graph that sends each write query without its write, read-only, timing it inside FalkorDB."""

    def query(self, query, params=None, **options):
        return self.ro_query(without_the_write(query), params, **options)


class Ways:
    """Each way's n-th call of a round; each adds up its time inside FalkorDB on the graph it is given."""

    def __init__(self, graph, fleet: Fleet, episodes: int) -> None:
        self.graph, self.keys, self.episodes = graph, fleet.keys, episodes
        self.recorded = [0] * episodes  # entries in each episode record() appends to
        self.shaped = [0] * episodes  # entries in each episode the blind write appends to

    def device(self, number: int) -> str:
        return self.keys[number % len(self.keys)]

    def learned(self, graph, number: int, shift: int) -> None:
        resting_on = [f"ep{number}", f"ep{(number + 1) % self.episodes}"]
        lesson_id = f"new{shift}-{number}"
        about = [(DEVICE, self.device(number))]
        receipt = learn(graph, lesson_id, AGENT, STATEMENT, resting_on, about, {"confidence": 0.5})
        expect(receipt == {"id": lesson_id, "status": "learned"}, f"learn {lesson_id}: {receipt}")

    def learn_shape(self, number: int, shift: int) -> tuple[str, dict, tuple]:
        params = learn_params(number, self.episodes, self.device(number))
        return LEARN_SHAPE, {**params, "id": f"shape{shift}-{number}"}, (1, 3)

    def weighed(self, graph, number: int, shift: int) -> None:
        # A lesson rests on its episode and the next: shift (2 and up) names one that neither is.
        episode = f"ep{(number + shift) % self.episodes}"
        receipt = weigh(graph, f"l{number}", AGENT, episode, True)
        expect(receipt == {"id": f"l{number}", "status": "weighed"}, f"weigh l{number}: {receipt}")

    def weigh_shape(self, number: int, shift: int) -> tuple[str, dict, tuple]:
        episode = f"ep{(number + shift) % self.episodes}"
        return WEIGH_SHAPES[True], {"id": f"l{number}", "episode": episode, "by": AGENT, "now": NOW}, (0, 1)

    def appended(self, graph, number: int, shift: int) -> None:
        count = self.recorded[number]
        cites = [f"rec{number}/{count}"] * (count > 0) + [(DEVICE, self.device(number))]
        values = {"note": f"reading {count + 1}: fan steady", "reading": 20.0 + count / 4}
        receipt = record(graph, f"rec{number}", "observation", AGENT, values, cites)
        wanted = {"id": f"rec{number}/{count + 1}", "seq": count + 1, "status": "recorded"}
        expect(receipt == wanted, f"record rec{number}: {receipt}")
        if not isinstance(graph, Reading):
            self.recorded[number] += 1

    def record_shape(self, number: int, shift: int) -> tuple[str, dict, tuple]:
        self.shaped[number] += 1
        seq = self.shaped[number]
        params = append_params(number, seq, self.device(number), False)
        params.update(episode=f"shape-rec{number}", last=f"shape-rec{number}/{seq - 1}")
        return RECORD_SHAPE, params, (1, 3 if seq == 1 else 5)

    def all(self) -> dict:
        """name: the call of one way, given the episode's number and the round's shift."""
        found = {}
        for function, call, shape in (
            ("learn()", self.learned, self.learn_shape),
            ("weigh()", self.weighed, self.weigh_shape),
            ("record()", self.appended, self.record_shape),
        ):
            found[f"{function} its query"] = self._timed(call, Timed)
            found[f"{function} its checks, as a read"] = self._timed(call, Reading)
            found[f"{function} blind write"] = self._blind(shape)
        return found

    def _timed(self, call, watching):
        def one(number: int, shift: int) -> float:
            watched = watching(self.graph)
            call(watched, number, shift)
            return watched.inside_ms

        return one

    def _blind(self, shape):
        def one(number: int, shift: int) -> float:
            query, params, wanted = shape(number, shift)
            result = self.graph.query(query, params)
            made = (result.nodes_created, result.relationships_created)
            expect(made == wanted, f"blind write {number}: made {made}, not {wanted}")
            return result.run_time_ms

        return one


def _written(graph, fleet: Fleet, episodes: int) -> None:
    """The fleet; episodes opened and closed, a lesson resting on each and the next; open episodes to
    record in (rec<n> for record(), shape-rec<n> for its blind write)."""
    ensure_schema(graph, [DEVICE])
    rows = fleet.create_rows()
    for start in range(0, len(rows), 500):
        remember(graph, DEVICE, rows[start : start + 500], AGENT)
    for number in range(episodes):
        about = [(DEVICE, fleet.keys[number % fleet.count])]
        for episode in (f"ep{number}", f"rec{number}", f"shape-rec{number}"):
            opened = open_episode(graph, episode, AGENT, about)
            expect(opened["status"] == "opened", f"open_episode {episode}: {opened}")
        closed = close_episode(graph, f"ep{number}", AGENT, {"failed": False})
        expect(closed["status"] == "recorded", f"close_episode ep{number}: {closed}")
    for number in range(episodes):
        learned = learn(
            graph, f"l{number}", AGENT, STATEMENT, [f"ep{number}", f"ep{(number + 1) % episodes}"]
        )
        expect(learned["status"] == "learned", f"lesson {number}: {learned}")


def _round(one, episodes: int, shift: int) -> tuple[float, float]:
    """ms a call and inside FalkorDB, over one call for each episode."""
    inside = 0.0
    began = time.perf_counter()
    for number in range(episodes):
        inside += one(number, shift)
    return (time.perf_counter() - began) * 1000 / episodes, inside / episodes


def measure(server, entities: int, episodes: int, rounds: int) -> list[str]:
    graph = server.client().select_graph(f"bench_checks_{uuid.uuid4().hex[:10]}")
    try:
        fleet = Fleet.of(entities)
        _written(graph, fleet, episodes)
        ways = Ways(graph, fleet, episodes).all()
        names = list(ways)
        taken: dict[str, list[tuple[float, float]]] = {name: [] for name in names}
        for turn in range(rounds):
            for place, name in enumerate(names[turn % len(names) :] + names[: turn % len(names)]):
                shift = 2 + turn * len(names) + place  # a round's own: no lesson or edge is made twice
                taken[name].append(_round(ways[name], episodes, shift))
        return [
            f"{name:32s} ms a call {statistics.median(one for one, _ in taken[name]):.3f}  "
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
    expect(args.entities >= 1 and args.episodes >= 3 + args.rounds * 9, "give more episodes")
    return on_a_server(
        lambda server: print("\n".join(measure(server, args.entities, args.episodes, args.rounds)))
    )


if __name__ == "__main__":
    sys.exit(main())
