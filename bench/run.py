"""The Lighthouse benchmark: `uv run python bench/run.py` from the repository root.

Starts an embedded FalkorDB with nothing on disk (unless FALKORDB_HOST/PORT name a server), writes to a
fresh graph that is deleted after, and prints one line per workload with its ratio to its floor.
Targets are reported as PASS or MISS; a workload whose work was wrong stops the run with exit code 1.

`bench/run.py SUITE [its options]` runs one of the suites that start their own processes (the service,
the console, the workers, recall, durability...) instead; `--list` names the workloads and the suites.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import gc
import importlib
import pstats
import random
import sys
import time
import uuid

from breakdown import Tallies, TimedGraph
from fleet import DEVICE, Fleet
from lighthouse import ensure_schema
from lighthouse_server import database
from registry import WORKLOADS, BenchError, Context, selection
from report import Figure, figure, line, medians, write_json

# The modules that register workloads, in the order they run: each floor just before what it measures.
# A new workload is one function in one of these modules, or a module added here.
WORKLOAD_MODULES = (
    "write_floors",
    "entity_writes",
    "read_floors",
    "entity_reads",
    "episode_work",
    "lesson_work",
    "coordination",
    "conversation_work",
    "single_write_shapes",
    "recall_work",
    "graph_work",
    "builtin_algorithms",
)
for module in WORKLOAD_MODULES:
    importlib.import_module(module)

# The suites: commands that start processes of their own (a serve, a fake model) or measure otherwise
# (instructions, graph sizes), each a module with main(argv) -> exit code and its own --help. The name
# here -> the module (bench/ on the path; recall is the package bench/recall/, also `python -m bench.recall`).
SUITES = {
    "service": "service",
    "console": "console_page",
    "notes": "notes",
    "worker": "notes_worker",
    "recall": "recall.run",
    "recall_latency": "recall_latency",
    "said_waiting": "said_waiting",
    "durability": "durability",
    "shapes": "beside_shapes",
    "turns": "reads_in_turns",
    "growth": "growth",
    "instructions": "python_cost",
    "cluster": "cluster",
    "failover": "failover",
}
# What the workloads and suites share (not run by themselves).
SHARED_MODULES = (
    "run",
    "registry",
    "report",
    "fleet",
    "breakdown",
    "processes",
    "single_write_cypher",
)


def arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--entities", type=int, default=10_000, help="entities written (default 10,000)")
    parser.add_argument(
        "--late", type=int, default=None, help="late rows (default: a fifth of the entities, 2,000 at 10,000)"
    )
    parser.add_argument(
        "--calls", type=int, default=2_000, help="calls of each read workload (default 2,000)"
    )
    parser.add_argument(
        "--only",
        action="append",
        default=None,
        metavar="WORKLOAD",
        help="run this workload, what it needs and its floor (repeatable, or comma-separated)",
    )
    parser.add_argument("--json", metavar="PATH", help="write the figures as JSON")
    parser.add_argument("--seed", type=int, default=2, help="seed of the random keys and times")
    parser.add_argument(
        "--profile",
        action="store_true",
        help="print where Python spends its time in each workload (the figures then include the profiler)",
    )
    parser.add_argument(
        "--breakdown",
        action="store_true",
        help="print each query's calls, FalkorDB time and round-trip time per workload",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="run every workload this many times, each round on fresh graphs with its own floors, and "
        "judge the median of each ratio (default 1)",
    )
    parser.add_argument("--list", action="store_true", help="list the workloads and stop")
    parsed = parser.parse_args(argv)
    if parsed.entities < 1 or parsed.calls < 1 or parsed.rounds < 1:
        parser.error("--entities, --calls and --rounds are at least 1")
    if parsed.late is None:
        parsed.late = max(1, parsed.entities // 5)
    if parsed.only:
        parsed.only = [name.strip() for given in parsed.only for name in given.split(",") if name.strip()]
    return parsed


def listing() -> str:
    rows = []
    for chosen in WORKLOADS.values():
        if chosen.floor is None:
            goal = "floor"
        elif chosen.target is None:
            goal = f"compared with {chosen.floor}"
        else:
            goal = f">= {chosen.target * 100:.0f} % of {chosen.floor}"
        rows.append(f"{chosen.name:<16} {chosen.unit:<5} {goal:<26} {chosen.about}")
    rows.append("\nsuites (bench/run.py SUITE --help says their options):")
    for name, module in SUITES.items():
        about = (importlib.import_module(module).__doc__ or "").strip().splitlines()[0]
        rows.append(f"{name:<16} {module.replace('.', '/') + '.py':<22} {about}")
    return "\n".join(rows)


def run_suite(name: str, argv: list[str]) -> int:
    """One suite, with its own options: its main()'s exit code."""
    sys.argv[0] = f"bench/run.py {name}"  # what its usage line shows
    return importlib.import_module(SUITES[name]).main(argv) or 0


def measure(ctx: Context, names: list[str] | None, profile: bool, tallies: Tallies | None) -> list[Figure]:
    figures: dict[str, Figure] = {}
    for chosen in selection(names):
        # What the run holds so far (the fleet, its rows, earlier answers) is put out of the collector's
        # reach: a full collection inside a timed part then scans what that workload made, not the run's
        # heap (one run's edges_read took 0.070 to 0.099 s without it, 0.045 to 0.067 with it).
        gc.collect()
        gc.freeze()
        profiler = cProfile.Profile() if profile else None
        with profiler or contextlib.nullcontext():
            measured = chosen.run(ctx)
        if measured.checked != measured.count:
            raise BenchError(
                f"{chosen.name} checked {measured.checked} of its {measured.count} {chosen.unit}"
            )
        figures[chosen.name] = figure(chosen, measured, figures)
        print(line(figures[chosen.name]), flush=True)
        if tallies is not None:
            print(tallies.report(measured.seconds), flush=True)
        if profiler is not None:
            pstats.Stats(profiler, stream=sys.stdout).sort_stats("tottime").print_stats(12)
    return list(figures.values())


def one_round(server, client, args: argparse.Namespace, number: int) -> list[Figure]:
    """Every chosen workload once, on fresh graphs (deleted at its end, also when it fails): one round."""
    run_id = uuid.uuid4().hex[:10]
    graph, floor_graph = client.select_graph(f"bench_{run_id}"), client.select_graph(f"bench_floor_{run_id}")
    where = "embedded" if server.process is not None else "external"
    rounds = f"round {number} of {args.rounds}; " if args.rounds > 1 else ""
    print(
        f"FalkorDB {where} at {server.host}:{server.port}; {rounds}{args.entities} entities, "
        f"{args.late} late rows, {args.calls} calls per read; graph {graph.name}",
        flush=True,
    )
    ctx = None
    try:
        ensure_schema(graph, [DEVICE])
        ctx = Context(
            client,
            graph,
            floor_graph,
            Fleet.of(args.entities),
            random.Random(args.seed),
            args.calls,
            args.late,
            connect=server.client,
        )
        tallies = Tallies() if args.breakdown else None
        if tallies is not None:
            ctx.wrap = lambda watched: TimedGraph(watched, tallies)
            ctx.graph, ctx.floor_graph = ctx.wrap(graph), ctx.wrap(floor_graph)
        return measure(ctx, args.only, args.profile, tallies)
    finally:
        for used in (graph, floor_graph, *(ctx.extra_graphs if ctx is not None else [])):
            with contextlib.suppress(Exception):  # a graph that was never written does not exist
                used.delete()


def main(argv: list[str] | None = None) -> int:
    given = sys.argv[1:] if argv is None else argv
    if given and given[0] in SUITES:
        return run_suite(given[0], given[1:])
    args = arguments(argv)
    if args.list:
        print(listing())
        return 0
    try:
        selection(args.only)  # an unknown name stops here, before a server starts
    except BenchError as error:
        print(f"bench/run.py: {error}", file=sys.stderr)
        return 2
    server = database.connect_or_start()
    client = server.client()
    began = time.perf_counter()
    rounds: list[list[Figure]] = []
    try:
        for number in range(1, args.rounds + 1):
            rounds.append(one_round(server, client, args, number))
    except BenchError as error:
        print(f"WRONG WORK: {error}", file=sys.stderr, flush=True)
        return 1
    finally:
        server.stop()
    settings = {
        "entities": args.entities,
        "late": args.late,
        "calls": args.calls,
        "seed": args.seed,
        "rounds": args.rounds,
        "server": "embedded" if server.process is not None else "external",
        "profiled": args.profile,
        "total_seconds": round(time.perf_counter() - began, 2),
    }
    figures = rounds[0] if len(rounds) == 1 else medians(rounds)
    if len(rounds) > 1:
        print(f"The median of {len(rounds)} rounds (each ratio to the floor of its own round):")
        print("\n".join(line(one) for one in figures))
    missed = [one.name for one in figures if one.verdict == "MISS"]
    print(
        f"{len(figures)} workloads in {settings['total_seconds']} s; targets missed: {', '.join(missed) or 'none'}"
    )
    if args.json:
        write_json(args.json, settings, figures, rounds if len(rounds) > 1 else None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
