"""The reads of issue 35 and say() beside the indexed-MATCH floor, call for call, on one graph.

    uv run python bench/run.py turns [--entities 3000] [--calls 1500]

run.py times each read workload and `indexed_match` one after the other, so their ratios carry what
the shared machine did in between (on the 2-core machine under other work, the same workload moved
from 39 to 179 % of its floor between runs). Here the floor (`MATCH (n:Device {key: $key}) RETURN
properties(n)` through the client's ro_query()), search(), pointing_at(), related(), say() and say()'s
blind shape (single_write_cypher.SAY_SHAPE, sessions of their own) take turns, call for call, on a
fleet written by remember() (create, change and late rows, as run.py's). It prints, for each, the µs a
call, the CPU this process spent on it (time.thread_time(): the library's and the client's Python, and
the socket calls), and its calls/s as a share of the floor's. Every answer is checked against the
fleet; a wrong one stops it (exit code 1).
"""

from __future__ import annotations

import argparse
import random
import time
import uuid

from fleet import DEVICE, Fleet
from lighthouse import ensure_schema, pointing_at, related, say, search
from lighthouse.values import words
from processes import expect, on_a_server
from recall_work import QUESTIONS, _current_notes, _holders, _questions
from registry import WORKLOADS, Context
from single_write_cypher import SAY_SHAPE, say_params

FLOOR = "MATCH (n:Device {key: $key}) RETURN properties(n)"
USERS = 50


def measure(server, entities: int, calls: int) -> list[str]:
    client = server.client()
    graph = client.select_graph(f"bench_turns_{uuid.uuid4().hex[:10]}")
    floor_graph = client.select_graph(f"{graph.name}_floor")
    try:
        ensure_schema(graph, [DEVICE])
        ctx = Context(client, graph, floor_graph, Fleet.of(entities), random.Random(1), calls, entities // 5)
        for name in ("unwind_create", "create", "change", "late"):
            WORKLOADS[name].run(ctx)
        fleet, rng = ctx.fleet, random.Random(2)
        questions = _questions(ctx)
        held = {key: set(words(note).split()) for key, note in _current_notes(fleet).items()}
        holders = _holders(fleet)
        targets = sorted(holders)
        pointed = [(*rng.choice(targets), fleet.moment(rng)) for _ in range(QUESTIONS)]
        asked = [
            (rng.choice(fleet.keys), rng.choice(sorted(DEVICE.relations)), fleet.moment(rng))
            for _ in range(QUESTIONS)
        ]

        # Each turn: the timed call, and the check of its answer (not timed).
        def floor_checked(n: int, found: list) -> None:
            expect(found[0][0]["key"] == fleet.keys[n % fleet.count], f"floor call {n}: {found}")

        def search_checked(n: int, found: list[dict]) -> None:
            question = questions[n % QUESTIONS]
            matching = {key for key, words_held in held.items() if set(question) <= words_held}
            keys = [one["key"] for one in found]
            expect(
                len(keys) == min(10, len(matching)) and set(keys) <= matching, f"search({question}): {keys}"
            )

        def pointing_checked(n: int, found: list) -> None:
            relation, target, moment = pointed[n % QUESTIONS]
            wanted = sorted(
                key
                for key, began, ended in holders[(relation, target)]
                if began <= moment and (ended is None or moment < ended)
            )
            expect(found == wanted, f"pointing_at({relation}, {target}, {moment}): {len(found)} keys")

        def related_checked(n: int, found: list) -> None:
            key, relation, moment = asked[n % QUESTIONS]
            state = fleet.at(key, moment)
            expect(found == ([] if state is None else state.relations[relation]), f"related({key}): {found}")

        def said(n: int) -> dict:
            user = f"user{n % USERS:02d}"
            text = f"message {n // USERS + 1} of {user}: the pump and valve looked fine today"
            mentions = [(DEVICE, fleet.keys[n % fleet.count])] if n % 10 == 0 else ()
            return say(graph, user, "main", "user", text, user, mentions=mentions)

        turns = {
            "floor": (
                lambda n: floor_graph.ro_query(FLOOR, {"key": fleet.keys[n % fleet.count]}).result_set,
                floor_checked,
            ),
            "search": (
                lambda n: search(graph, DEVICE, " ".join(questions[n % QUESTIONS]), limit=10),
                search_checked,
            ),
            "pointing_at": (
                lambda n: pointing_at(
                    graph, DEVICE, *pointed[n % QUESTIONS][:2], when=pointed[n % QUESTIONS][2]
                ),
                pointing_checked,
            ),
            "related": (lambda n: related(graph, DEVICE, *asked[n % QUESTIONS]), related_checked),
            "say": (
                said,
                lambda n, receipt: expect(receipt["seq"] == n // USERS + 1, f"say {n}: {receipt}"),
            ),
            "say_shape": (
                lambda n: graph.query(SAY_SHAPE, say_params(n, fleet.keys, "shape-user")),
                lambda n, done: expect(int(done.relationships_created) >= 1, f"say_shape {n}"),
            ),
        }
        wall, cpu = dict.fromkeys(turns, 0), dict.fromkeys(turns, 0)
        for n in range(calls):
            for name, (call, checked) in turns.items():
                began_cpu, began = time.thread_time_ns(), time.perf_counter_ns()
                answer = call(n)
                wall[name] += time.perf_counter_ns() - began
                cpu[name] += time.thread_time_ns() - began_cpu
                checked(n, answer)
        return [
            f"{name:12s} {wall[name] / calls / 1000:8.1f} µs a call  CPU {cpu[name] / calls / 1000:6.1f} µs  "
            f"{wall['floor'] / wall[name] * 100:6.1f} % of the floor's calls/s"
            for name in turns
        ]
    finally:
        for made in (graph, floor_graph):
            made.delete()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--entities", type=int, default=3_000)
    parser.add_argument("--calls", type=int, default=1_500)
    args = parser.parse_args(argv)
    expect(args.entities >= 100 and args.calls >= 1, "give at least 100 entities and 1 call")
    return on_a_server(lambda server: print("\n".join(measure(server, args.entities, args.calls))))
