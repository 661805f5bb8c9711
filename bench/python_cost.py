"""The library's own work a row of remember(), counted in instructions (valgrind): load does not move it.

    uv run python bench/run.py instructions [--rows 1000] [--workloads create,change,replay] [--stages]

Seconds on this machine move by half from run to run (the same code, the same server), so a change of a
tenth in the library's Python cannot be seen in them. Instructions can: valgrind's callgrind counts those
the Python process executes, the same count for the same code and input whatever else runs (FalkorDB runs
outside it, in a process of its own). Each workload runs twice under callgrind, in a fresh process on a
fresh graph: once with its measured rows and once with none, the same set-up and warm-up in both; the
difference over the rows is what a row costs the Python process: the library's checks, fingerprints,
decisions and parameters, and the client's packing of the query and reading of its reply (not FalkorDB's
work, nor the wait for it).

    create   the fleet's first rows (bench/fleet.py), batches of 500, as run.py's create
    change   a later row of each, one value changed, after their first rows (not counted)
    replay   the first rows again, after the first rows and the changes (not counted)

--stages also counts, on the create rows and without a server, the parts of a create a row goes through:
its checks (prepare()), its fingerprints, its content (values, times, text, words), the lists the write
query reads (creating.py) and the parameters' text. Needs valgrind (Debian's package); exit code 1 when
a receipt is not what the workload claims.
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
BATCH = 500
WORKLOADS = ("create", "change", "replay")
STAGES = ("prepare", "fingerprints", "content", "lists", "parameters")
EXPECTED = {"create": "created", "change": "changed", "replay": "unchanged"}


def _inner_workload(port: int, workload: str, rows: int, measuring: bool) -> None:
    """In the process callgrind watches: the set-up and the warm-up, the same in both runs, then the
    measured rows in one of them."""
    from falkordb import FalkorDB
    from fleet import AGENT, DEVICE, Fleet
    from lighthouse import ensure_schema, remember

    fleet = Fleet.of(rows + BATCH)
    creates, changes = fleet.create_rows(), fleet.change_rows()
    graph = FalkorDB(port=port).select_graph(f"python_cost_{os.getpid()}")
    try:
        ensure_schema(graph, [DEVICE])
        # The warm-up: the last BATCH entities go the whole way first, so the caches and the query texts
        # of the workload are made before the count that matters.
        warm = slice(rows, rows + BATCH)
        for given in (creates, changes, creates)[: WORKLOADS.index(workload) + 1]:
            remember(graph, DEVICE, given[warm], AGENT)
        before = {"create": [], "change": [creates], "replay": [creates, changes]}[workload]
        for given in before:
            for start in range(0, rows, BATCH):
                remember(graph, DEVICE, given[start : min(start + BATCH, rows)], AGENT)
        measured = {"create": creates, "change": changes, "replay": creates}[workload]
        gc.collect()
        gc.freeze()
        statuses = set()
        for start in range(0, rows if measuring else 0, BATCH):
            receipts = remember(graph, DEVICE, measured[start : min(start + BATCH, rows)], AGENT)
            statuses.update(receipt["status"] for receipt in receipts)
        if measuring and statuses != {EXPECTED[workload]}:
            sys.exit(f"WRONG WORK: {workload} gave {sorted(statuses)}")
    finally:
        graph.delete()


def _inner_stage(stage: str, rows: int) -> None:
    """The create rows made ready the whole way (prepare, fingerprints, content, the query's lists), then
    through one part again ("none": none), so the difference with "none" is that part's."""
    import uuid

    from fleet import AGENT, DEVICE, Fleet
    from lighthouse import clock
    from lighthouse.wire import parameters_header
    from lighthouse.write.creating import created_needs, created_rows, positional_query
    from lighthouse.write.plans import content_of
    from lighthouse.write.rows import prepare

    given = Fleet.of(rows + BATCH).create_rows()
    present = clock.present()

    def lists(made: list) -> list:
        found = []
        for start in range(0, len(made), BATCH):
            chunk = made[start : start + BATCH]
            needs = created_needs(DEVICE, chunk, None)
            found += created_rows(DEVICE, chunk, needs, positional_query(DEVICE, needs)[1], None)
        return found

    def ready(raws: list) -> tuple[list, list]:
        made = [prepare(DEVICE, index, raw, present) for index, raw in enumerate(raws)]
        for row in made:
            row.fp  # noqa: B018 - made here, as remember() makes it
            content_of(DEVICE, row)
        return made, lists(made)

    ready(given[rows:])  # the warm-up
    made, listed = ready(given[:rows])
    gc.disable()
    if stage == "prepare":
        [prepare(DEVICE, index, raw, present) for index, raw in enumerate(given[:rows])]
    elif stage == "fingerprints":
        for row in made:
            row._fp = row._links_fp = None
            row.fp  # noqa: B018
    elif stage == "content":
        for row in made:
            row.made = None
            content_of(DEVICE, row)
    elif stage == "lists":
        lists(made)
    elif stage == "parameters":
        for start in range(0, rows, BATCH):
            chunk = listed[start : start + BATCH]
            parameters_header({"rows": chunk, "by": AGENT, "now": clock.now(), "stamp": uuid.uuid4().hex})


def _counted(arguments: list[str]) -> int:
    """The instructions callgrind counted in a run of this file with these arguments."""
    done = subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            "--callgrind-out-file=/dev/null",
            sys.executable,
            __file__,
            *arguments,
        ],
        capture_output=True,
        text=True,
        cwd=HERE.parent,
    )
    found = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode != 0 or found is None:
        sys.exit(
            f"{' '.join(arguments)} failed (exit {done.returncode}):\n{done.stdout}{done.stderr[-2000:]}"
        )
    return int(found.group(1))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", type=int, default=1_000, help="rows counted (default 1,000)")
    parser.add_argument(
        "--workloads", default=",".join(WORKLOADS), help="comma-separated, of " + ", ".join(WORKLOADS)
    )
    parser.add_argument("--stages", action="store_true", help="and the parts of a create, without a server")
    parser.add_argument("--inner", nargs=4, help=argparse.SUPPRESS)  # watched: what, rows, measuring, port
    args = parser.parse_args(argv)
    sys.path.insert(0, str(HERE))
    if args.inner:
        what, rows, measuring, port = args.inner
        if what.startswith("stage:"):
            _inner_stage(what[len("stage:") :] if measuring == "1" else "none", int(rows))
        else:
            _inner_workload(int(port), what, int(rows), measuring == "1")
        return 0
    chosen = [name.strip() for name in args.workloads.split(",") if name.strip()]
    if args.rows < 1 or not set(chosen) <= set(WORKLOADS):
        parser.error(f"--rows is at least 1, and the workloads are among {', '.join(WORKLOADS)}")
    if shutil.which("valgrind") is None:
        parser.error("valgrind is not installed (apt-get install valgrind)")
    from lighthouse_server import database

    server = database.connect_or_start()
    try:
        for name in chosen:
            empty = _counted(["--inner", name, str(args.rows), "0", str(server.port)])
            full = _counted(["--inner", name, str(args.rows), "1", str(server.port)])
            print(
                f"{name:<8} {(full - empty) / args.rows:>10,.0f} instructions a row ({args.rows:,} rows)",
                flush=True,
            )
    finally:
        server.stop()
    if args.stages:
        empty = _counted(["--inner", "stage:none", str(args.rows), "0", "0"])
        for stage in STAGES:
            full = _counted(["--inner", f"stage:{stage}", str(args.rows), "1", "0"])
            print(f"  {stage:<12} {(full - empty) / args.rows:>10,.0f} instructions a row", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
