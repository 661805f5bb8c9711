"""Notes accepted by the service over HTTP, one a call and 100 a call (targets: 500/s and 5,000/s).

    uv run python bench/run.py notes [--seconds S]

Starts the real `lighthouse serve` on a free loopback port with a temporary data directory, declares
the example kinds for one tenant, then for S seconds each: 4 HTTP clients (threads, each with its own
persistent httpx client) sending one note per call to POST /v1/note, then the same 4 sending batches
of 100 to POST /v1/notes. Prints notes per second with PASS/MISS against the targets of issue 12.
Every receipt is checked (recorded, with the next id of its episode) and the entries in the graph are
counted at the end; a wrong answer stops it with exit code 1. The extraction worker's figures are
notes_worker.py's (`bench/run.py worker`). The service it started is stopped whatever happens.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
from lighthouse import tenant
from lighthouse_server import keys
from lighthouse_server.operations import TABLE
from processes import Serve, WrongWork, children, cpu_seconds, expect, together

CLIENTS = 4
BATCH = 100
ONE_TARGET = 500  # notes per second, one per call, from 4 clients
BATCH_TARGET = 5_000  # notes per second in batches of 100, from 4 clients
TENANT = "bench-notes"
AGENT = "bench"
KINDS = TABLE["declare_kinds"].example["kinds"]


def checked_receipts(receipts: object, sent: int, seen: dict[str, int]) -> None:
    """Each receipt recorded, with the next seq of its episode: no note lost, none counted twice."""
    expect(isinstance(receipts, list) and len(receipts) == sent, f"{sent} notes gave {receipts!r:.300}")
    for receipt in receipts:
        expect(receipt.get("status") == "recorded", f"a note gave {receipt}")
        episode, seq = receipt["id"].rsplit("/", 1)
        expect(
            int(seq) == receipt["seq"] and receipt["seq"] > seen.get(episode, 0), f"out of order: {receipt}"
        )
        seen[episode] = receipt["seq"]


def clients(url: str, secret: str, seconds: float, batch: int | None) -> tuple[int, float]:
    """CLIENTS threads sending notes for `seconds`: one per call to /v1/note, or `batch` per call to
    /v1/notes. The notes accepted and the wall time."""
    counts = [0] * CLIENTS
    errors: list[str] = []

    def work(start: threading.Barrier, worker: int) -> None:
        seen: dict[str, int] = {}
        with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {secret}"}, timeout=60) as http:
            start.wait()
            stop_at = time.perf_counter() + seconds
            n = 0
            try:
                while time.perf_counter() < stop_at:
                    if batch is None:
                        text = f"client {worker} saw reading {n} of the pump in room r{n % 50}"
                        answer = http.post("/v1/note", json={"text": text})
                        checked_receipts([answer.json()["result"]], 1, seen)
                        n += 1
                    else:
                        items = [
                            {"text": f"client {worker} batch note {n + place} about device d{place}"}
                            for place in range(batch)
                        ]
                        answer = http.post("/v1/notes", json={"items": items})
                        checked_receipts(answer.json()["result"], batch, seen)
                        n += batch
            except (WrongWork, KeyError, ValueError) as error:
                errors.append(f"{answer.status_code} {error}")
            counts[worker] = n

    wall = together(CLIENTS, work)
    expect(not errors, f"notes: {errors[:1]}")
    return sum(counts), wall


def measure(serve: Serve, seconds: float) -> int:
    db = serve.db()
    secret = keys.create(db, TENANT, AGENT, list(keys.SCOPES))["key"]
    declared = httpx.post(
        f"{serve.url}/v1/declare_kinds",
        json={"kinds": KINDS},
        headers={"Authorization": f"Bearer {secret}"},
        timeout=60,
    )
    expect(declared.status_code == 200, f"declare_kinds gave {declared.text}")
    clients(serve.url, secret, min(1.0, seconds), None)  # warm: connections, query plans
    graph = tenant(db, TENANT)
    before = graph.ro_query("MATCH (n:Entry) RETURN count(n)").result_set[0][0]
    missed = 0
    accepted = 0
    for said, batch, target in (
        ("one note per call", None, ONE_TARGET),
        (f"batches of {BATCH}", BATCH, BATCH_TARGET),
    ):
        watched = {"serve": [serve.process.pid], "FalkorDB": children(serve.process.pid)}
        used = {name: sum(map(cpu_seconds, pids)) for name, pids in watched.items()}
        client_used = time.process_time()
        count, wall = clients(serve.url, secret, seconds, batch)
        client_used = time.process_time() - client_used
        used = {name: sum(map(cpu_seconds, pids)) - used[name] for name, pids in watched.items()}
        accepted += count
        rate = count / wall
        verdict = "PASS" if rate >= target else "MISS"
        missed += verdict == "MISS"
        print(
            f"{CLIENTS} HTTP clients, {said}: {count:,} notes in {wall:.2f} s = {rate:,.0f} notes/s "
            f"(target >= {target:,}/s)  {verdict}",
            flush=True,
        )
        print(
            f"  CPU: serve {used['serve']:.2f} s, FalkorDB {used['FalkorDB']:.2f} s, the clients (this "
            f"process) {client_used:.2f} s, on {os.cpu_count()} cores: "
            f"{(used['serve'] + used['FalkorDB'] + client_used) / max(count, 1) * 1000:.3f} ms of CPU a note",
            flush=True,
        )
    stored = graph.ro_query("MATCH (n:Entry {type: 'note'}) RETURN count(n)").result_set[0][0] - before
    expect(stored == accepted, f"{accepted} notes accepted but {stored} stored")
    print(f"stored: {stored:,} notes, each accepted one in the graph; targets missed: {missed}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--seconds", type=float, default=10.0, help="seconds of each way of sending (default 10)"
    )
    args = parser.parse_args(argv)
    if args.seconds <= 0:
        parser.error("--seconds is more than 0")
    with tempfile.TemporaryDirectory(prefix="lighthouse-bench-notes-") as where:
        serve = Serve(Path(where) / "data")
        try:
            serve.start()
            print(
                f"lighthouse serve at {serve.url}; {CLIENTS} clients, {args.seconds:g} s each way", flush=True
            )
            return measure(serve, args.seconds)
        except WrongWork as error:
            print(f"WRONG WORK: {error}", file=sys.stderr, flush=True)
            return 1
        finally:
            serve.stop()


if __name__ == "__main__":
    sys.exit(main())
