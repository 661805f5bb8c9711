"""The reads of issue 35 and say() beside the indexed-MATCH floor, call for call, on one graph.

    uv run python bench/run.py turns [--entities 3000] [--calls 1500] [--beside TREE]

run.py times each read workload and `indexed_match` one after the other, so their ratios carry what
the shared machine did in between (on the 2-core machine under other work, the same workload moved
from 39 to 179 % of its floor between runs). Here the floor (`MATCH (n:Device {key: $key}) RETURN
properties(n)` through the client's ro_query()), search(), pointing_at(), related(), say() and say()'s
blind shape (single_write_cypher.SAY_SHAPE, sessions of their own) take turns, call for call, on a
fleet written by remember() (create, change and late rows, as run.py's); search_by_client is search()'s
contract the plain way (BY_CLIENT: the nodes parsed by the client), for reference. It prints, for each, the µs a
call, the CPU this process spent on it (time.thread_time(): the library's and the client's Python, and
the socket calls), and its calls/s as a share of the floor's; then the same by the median call, which
a busy machine's stalls move less. Every answer is checked against the fleet; a wrong one stops it
(exit code 1). --beside names the root of another checkout (`git worktree add`, or `git archive` of a
commit unpacked): its library, imported as lighthouse_beside, takes turns too with its search(),
pointing_at() and say() (sessions of their own), so two versions are compared call for call.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import statistics
import sys
import time
import uuid
from pathlib import Path

from fleet import DEVICE, Fleet
from lighthouse import ensure_schema, pointing_at, related, say, search
from lighthouse.values import words
from processes import expect, on_a_server
from recall_work import QUESTIONS, _current_notes, _holders, _questions
from registry import WORKLOADS, Context
from single_write_cypher import SAY_SHAPE, say_params

FLOOR = "MATCH (n:Device {key: $key}) RETURN properties(n)"
USERS = 50
# search()'s contract the plain way, for reference: its query, the 5,000 ms timeout the contract puts on
# it, and the nodes parsed by the client's own ro_query() (score first, then key: FalkorDB's key order).
BY_CLIENT = (
    "CALL db.idx.fulltext.queryNodes('Device', $query) YIELD node, score "
    "WITH node, score ORDER BY score DESC, node.key LIMIT $limit RETURN node, score"
)


def by_client(graph, question: str) -> list[dict]:
    rows = graph.ro_query(BY_CLIENT, {"query": question, "limit": 10}, timeout=5_000).result_set
    return [
        {
            "key": node.properties["key"],
            "score": score,
            "values": {
                name: value for name, value in node.properties.items() if name not in ("key", "words")
            },
        }
        for node, score in rows
    ]


def beside(tree: str):
    """The library of another checkout, imported whole as the package lighthouse_beside."""
    root = Path(tree) / "lighthouse-graph" / "lighthouse"
    expect((root / "__init__.py").is_file(), f"{tree} holds no lighthouse-graph/lighthouse")
    spec = importlib.util.spec_from_file_location(
        "lighthouse_beside", root / "__init__.py", submodule_search_locations=[str(root)]
    )
    library = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = library
    spec.loader.exec_module(library)
    return library


def kind_beside(library, kind):
    """The same Kind made by the other library (each checks that a kind is exactly its own class)."""
    relations = {name: kind_beside(library, target) for name, target in kind.relations.items()}
    return library.Kind(
        kind.label,
        key=kind.key,
        times=kind.times,
        relations=relations,
        text=kind.text,
        dimensions=kind.dimensions,
    )


def measure(server, entities: int, calls: int, other=None) -> list[str]:
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

        def said(n: int, library=None, prefix: str = "user") -> dict:
            user = f"{prefix}{n % USERS:02d}"
            text = f"message {n // USERS + 1} of {user}: the pump and valve looked fine today"
            kind = DEVICE if library is None else device
            mentions = [(kind, fleet.keys[n % fleet.count])] if n % 10 == 0 else ()
            saying = say if library is None else library.say
            return saying(graph, user, "main", "user", text, user, mentions=mentions)

        turns = {
            "floor": (
                lambda n: floor_graph.ro_query(FLOOR, {"key": fleet.keys[n % fleet.count]}).result_set,
                floor_checked,
            ),
            "search": (
                lambda n: search(graph, DEVICE, " ".join(questions[n % QUESTIONS]), limit=10),
                search_checked,
            ),
            "search_by_client": (
                lambda n: by_client(graph, " ".join(questions[n % QUESTIONS])),
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
        if other is not None:
            device = kind_beside(other, DEVICE)
            turns["search beside"] = (
                lambda n: other.search(graph, device, " ".join(questions[n % QUESTIONS]), limit=10),
                search_checked,
            )
            turns["pointing beside"] = (
                lambda n: other.pointing_at(
                    graph, device, *pointed[n % QUESTIONS][:2], when=pointed[n % QUESTIONS][2]
                ),
                pointing_checked,
            )
            turns["say beside"] = (
                lambda n: said(n, other, "beside"),
                lambda n, receipt: expect(receipt["seq"] == n // USERS + 1, f"say beside {n}: {receipt}"),
            )
        took: dict[str, list[int]] = {name: [] for name in turns}
        cpu = dict.fromkeys(turns, 0)
        for n in range(calls):
            for name, (call, checked) in turns.items():
                began_cpu, began = time.thread_time_ns(), time.perf_counter_ns()
                answer = call(n)
                took[name].append(time.perf_counter_ns() - began)
                cpu[name] += time.thread_time_ns() - began_cpu
                checked(n, answer)
        wall = {name: sum(times) for name, times in took.items()}
        middle = {name: statistics.median(times) for name, times in took.items()}
        return [
            f"{name:16s} {wall[name] / calls / 1000:8.1f} µs a call  CPU {cpu[name] / calls / 1000:6.1f} µs  "
            f"{wall['floor'] / wall[name] * 100:6.1f} % of the floor's calls/s  "
            f"(median call {middle[name] / 1000:7.1f} µs: {middle['floor'] / middle[name] * 100:6.1f} %)"
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
    parser.add_argument("--beside", help="the root of another checkout whose library takes turns too")
    args = parser.parse_args(argv)
    expect(args.entities >= 100 and args.calls >= 1, "give at least 100 entities and 1 call")
    other = None if args.beside is None else beside(args.beside)
    return on_a_server(lambda server: print("\n".join(measure(server, args.entities, args.calls, other))))
