"""What the service adds to the library: HTTP and MCP against the library called directly, and 8 writers.

    uv run python bench/run.py service [--calls N] [--seconds S] [--profile PATH]

Starts the real `lighthouse serve` on a free loopback port with a temporary data directory, then times
N calls each of remember (one row of a new device), change (a remember of one row that changes a device
and ends one of its values, so its receipt says what it ended), search and as_of: the library called directly on the server's
FalkorDB, the same operation through the service's own `Service.run()` in this process (the layer
without the transport), over HTTP with one persistent httpx client, and over MCP (streamable HTTP, the
SDK's client). Prints the medians and p95s, what HTTP and MCP add to the direct median with PASS/MISS
against the targets of issue 11, then 8 concurrent HTTP clients writing one-row remembers, and where
the time goes. Every answer is checked; a wrong one stops it with exit code 1. The service it started
is stopped whatever happens.

Where the time goes (2026-12-01, quiet): the service's own layer (table, arguments, key check, JSON)
adds 0.01 to 0.1 ms; the transport the rest: `GET /health` takes 0.76 ms, 0.37 of it httpx's own CPU in
the client. MCP adds about 1.8 ms more than HTTP: the SDK's JSON-RPC session, pydantic validation and the
streamable HTTP response. The 8 writers' one-row remembers are gathered into one library call while one
is in flight (gathering.py): 1,114 rows/s against 626 to 636 without it.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import pstats
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import httpx2
from lighthouse import as_of, remember, search, tenant
from lighthouse_server import keys, settings
from lighthouse_server.declarations import built, checked
from lighthouse_server.operations import TABLE
from lighthouse_server.parts import Parts
from lighthouse_server.service import Service
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from processes import Serve, WrongWork, children, cpu_seconds, expect, together

HTTP_TARGET_MS = 2.0  # the most HTTP may add to the median of each operation
MCP_TARGET_MS = 4.0
CONCURRENT_TARGET = 1_000  # one-row remembers per second from 8 HTTP clients
CLIENTS = 8
TENANT = "bench"
AGENT = "bench"
KINDS = TABLE["declare_kinds"].example["kinds"]
DEVICES = 1_000  # written before the timing: what search and as_of find
WRITTEN_AT = "2026-01-01T00:00:00Z"
LOOKED_AT = "2026-01-02T00:00:00Z"
OPERATIONS = ("remember", "change", "search", "as_of")  # change: after remember, of its devices
CHANGED_AT = "2026-01-03T00:00:00Z"
CHANNELS = ("direct", "service", "http", "mcp")


# --- the calls, and what each must answer ------------------------------------------------------------


def row(key: str, word: str = "written") -> dict:
    """A one-row remember; the devices that search finds each hold a word of their own."""
    return {"key": key, "t": WRITTEN_AT, "values": {"status": "ok", "note": f"pump sensor {word}"}}


def device(n: int) -> dict:
    return row(f"d-{n:05d}", f"w{n:05d}")


def arguments(operation: str, channel: str, n: int) -> dict:
    """The arguments of call n: a new key for remember, a device for search and as_of."""
    device = f"d-{n % DEVICES:05d}"
    if operation == "remember":
        return {"kind": "Device", "rows": [row(f"{channel}-{n:05d}")]}
    if operation == "change":  # the device remember made, its status left out: it ends
        return {
            "kind": "Device",
            "rows": [{"key": f"{channel}-{n:05d}", "t": CHANGED_AT, "values": {"note": "x"}}],
        }
    if operation == "search":
        return {"kind": "Device", "question": f"w{n % DEVICES:05d}"}
    return {"kind": "Device", "key": device, "when": LOOKED_AT}


def endpoint(operation: str) -> str:
    """The operation that a call of the benchmark's operation calls: a change is a remember."""
    return "remember" if operation == "change" else operation


def check(operation: str, given: dict, result: object) -> None:
    if operation == "remember":
        expected = [{"key": given["rows"][0]["key"], "status": "created"}]
        expect(result == expected, f"remember gave {result}, not {expected}")
    elif operation == "change":  # the library called directly gives no "ended"; the service does
        expected = {"key": given["rows"][0]["key"], "status": "changed"}
        ended = {**expected, "ended": {"values": ["status"]}}
        expect(result in ([expected], [ended]), f"the change gave {result}, not {[ended]}")
    elif operation == "search":
        device = f"d-{given['question'][1:]}"
        expect(
            isinstance(result, list) and [found["key"] for found in result] == [device],
            f"search {given['question']!r} gave {result}, not {device}",
        )
    else:
        expect(
            isinstance(result, dict) and result.get("note") == f"pump sensor w{given['key'][2:]}",
            f"as_of {given['key']} gave {result}",
        )


def direct_call(graph, kind) -> Callable[[str, dict], object]:
    def call(operation: str, given: dict) -> object:
        if operation in ("remember", "change"):
            return remember(graph, kind, given["rows"], AGENT)
        if operation == "search":
            return search(graph, kind, given["question"])
        return as_of(graph, kind, given["key"], given["when"])

    return call


def percentiles(seconds: list[float]) -> tuple[float, float]:
    ordered = sorted(seconds)
    return statistics.median(ordered) * 1000, ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))] * 1000


def timed(call: Callable[[str, dict], object], operation: str, channel: str, calls: int) -> list[float]:
    spent = []
    for n in range(calls):
        given = arguments(operation, channel, n)
        began = time.perf_counter()
        result = call(operation, given)
        spent.append(time.perf_counter() - began)
        check(operation, given, result)
    return spent


async def timed_mcp(url: str, secret: str, calls: int) -> dict[str, list[float]]:
    spent: dict[str, list[float]] = {}
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {secret}"}) as http,
        Client(streamable_http_client(f"{url}/mcp", http_client=http)) as client,
    ):
        for operation in OPERATIONS:
            spent[operation] = []
            for n in range(calls):
                given = arguments(operation, "mcp", n)
                began = time.perf_counter()
                answer = await client.call_tool(endpoint(operation), given)
                spent[operation].append(time.perf_counter() - began)
                expect(not answer.is_error, f"mcp {operation}: {answer.content}")
                check(operation, given, answer.structured_content["result"])
    return spent


def concurrent(url: str, secret: str, seconds: float) -> tuple[int, float]:
    """CLIENTS threads, each with one kept-alive connection of the standard library's http.client
    (about a tenth of httpx's CPU a request, so the load this process makes costs the two cores little),
    writing one-row remembers for `seconds`."""
    counts = [0] * CLIENTS
    errors: list[str] = []
    where = urlsplit(url)
    headers = {"Authorization": f"Bearer {secret}", "Content-Type": "application/json"}

    def work(start: threading.Barrier, worker: int) -> None:
        connection = http.client.HTTPConnection(where.hostname, where.port, timeout=60)
        try:
            start.wait()
            stop_at = time.perf_counter() + seconds
            n = 0
            while time.perf_counter() < stop_at:
                given = {"kind": "Device", "rows": [row(f"c{worker}-{n:06d}")]}
                connection.request("POST", "/v1/remember", body=json.dumps(given), headers=headers)
                answer = connection.getresponse()
                body = answer.read()
                try:
                    check("remember", given, json.loads(body)["result"])
                except (WrongWork, KeyError, ValueError) as error:
                    errors.append(f"{answer.status} {error}")
                    return
                n += 1
            counts[worker] = n
        finally:
            connection.close()

    wall = together(CLIENTS, work)
    expect(not errors, f"concurrent remember: {errors[:1]}")
    return sum(counts), wall


def floors(db, http: httpx.Client, secret: str, calls: int) -> dict[str, float]:
    """Medians (ms) of the pieces: the database's PING, the key check, GET /health over HTTP, and an
    operation refused before it reaches the library (no key: the HTTP stack and one error answer)."""
    pieces: dict[str, list[float]] = {
        name: [] for name in ("ping", "principal", "health", "no_key", "client_cpu")
    }
    for _ in range(calls):
        began = time.perf_counter()
        db.connection.ping()
        pieces["ping"].append(time.perf_counter() - began)
        began = time.perf_counter()
        keys.principal(db, secret)
        pieces["principal"].append(time.perf_counter() - began)
        began = time.perf_counter()
        answer = http.get("/health")
        pieces["health"].append(time.perf_counter() - began)
        began = time.thread_time()
        http.get("/health")
        pieces["client_cpu"].append(time.thread_time() - began)
        expect(answer.json().get("status") == "ok", f"/health gave {answer.text}")
        began = time.perf_counter()
        answer = http.post("/v1/as_of", json=arguments("as_of", "http", 0), headers={"Authorization": ""})
        pieces["no_key"].append(time.perf_counter() - began)
        expect(answer.status_code == 401, f"as_of without a key gave {answer.status_code}")
    return {name: percentiles(spent)[0] for name, spent in pieces.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--calls", type=int, default=1_000, help="calls of each operation per way (default 1,000)"
    )
    parser.add_argument(
        "--seconds", type=float, default=5.0, help="seconds of the concurrent writers (default 5)"
    )
    parser.add_argument(
        "--profile",
        metavar="PATH",
        help="run serve under cProfile (kept at PATH) and print where its event loop thread spends its time",
    )
    args = parser.parse_args(argv)
    if args.calls < 1 or args.seconds <= 0:
        parser.error("--calls is at least 1 and --seconds more than 0")
    with tempfile.TemporaryDirectory(prefix="lighthouse-bench-") as where:
        profile = str(Path(args.profile).resolve()) if args.profile else None
        serve = Serve(Path(where) / "data", profile, mcp_tools="all")  # search and as_of over MCP too
        try:
            serve.start()
            return measure(serve, args.calls, args.seconds)
        except WrongWork as error:
            print(f"WRONG WORK: {error}", file=sys.stderr, flush=True)
            return 1
        finally:
            serve.stop()
            if profile and Path(profile).exists():
                print("serve's event loop thread (the library runs in worker threads, not profiled):")
                pstats.Stats(profile, stream=sys.stdout).sort_stats("tottime").print_stats(25)


def measure(serve: Serve, calls: int, seconds: float) -> int:
    db = serve.db()
    secret = keys.create(db, TENANT, AGENT, list(keys.SCOPES))["key"]
    http = httpx.Client(base_url=serve.url, headers={"Authorization": f"Bearer {secret}"}, timeout=60)
    try:
        declared = http.post("/v1/declare_kinds", json={"kinds": KINDS})
        expect(declared.status_code == 200, f"declare_kinds gave {declared.text}")
        kind = built({one["label"]: checked(one) for one in KINDS})["Device"]
        graph = tenant(db, TENANT)
        devices = [device(n) for n in range(DEVICES)]
        written = remember(graph, kind, devices, AGENT)
        expect(all(one["status"] == "created" for one in written), "the devices were not all created")
        print(f"lighthouse serve at {serve.url}; {calls} calls of each operation each way, {DEVICES} devices")

        service = Service(Parts.built(db, settings.load(environ={})))
        principal = service.principal(secret)

        def http_call(operation: str, given: dict) -> object:
            answer = http.post(f"/v1/{endpoint(operation)}", json=given)
            expect(answer.status_code == 200, f"http {operation}: {answer.status_code} {answer.text[:300]}")
            return answer.json()["result"]

        ways = {
            "direct": direct_call(graph, kind),
            "service": lambda operation, given: service.run(principal, endpoint(operation), given),
            "http": http_call,
        }
        spent: dict[tuple[str, str], list[float]] = {}
        for operation in OPERATIONS:
            for channel, call in ways.items():
                timed(call, operation, channel, min(50, calls))  # warm: connections, caches, plans
                spent[operation, channel] = timed(call, operation, channel + "w", calls)[:]
        for operation, answered in asyncio.run(timed_mcp(serve.url, secret, calls)).items():
            spent[operation, "mcp"] = answered

        missed = report(spent)
        watched = {"serve": [serve.process.pid], "FalkorDB": children(serve.process.pid)}
        used = {name: sum(map(cpu_seconds, pids)) for name, pids in watched.items()}
        client_used = time.process_time()
        written, wall = concurrent(serve.url, secret, seconds)
        client_used = time.process_time() - client_used
        used = {name: sum(map(cpu_seconds, pids)) - used[name] for name, pids in watched.items()}
        rate = written / wall
        verdict = "PASS" if rate >= CONCURRENT_TARGET else "MISS"
        print(
            f"{CLIENTS} HTTP clients, one-row remember: {written} rows in {wall:.2f} s = {rate:,.0f} rows/s "
            f"(target >= {CONCURRENT_TARGET:,}/s)  {verdict}"
        )
        print(
            f"  CPU over those {wall:.1f} s: serve {used['serve']:.2f} s ({used['serve'] / wall:.0%} of a core), "
            f"FalkorDB {used['FalkorDB']:.2f} s, the 8 clients (this process) {client_used:.2f} s, "
            f"on {os.cpu_count()} cores; serve {used['serve'] / max(written, 1) * 1000:.2f} ms of CPU a row"
        )
        missed += verdict == "MISS"
        pieces = floors(db, http, secret, min(calls, 500))
        print(
            "where it goes (medians): FalkorDB PING {ping:.3f} ms; key check (cached) {principal:.3f} ms; "
            "GET /health over HTTP {health:.3f} ms, of which httpx's own CPU here {client_cpu:.3f} ms; "
            "POST /v1/as_of refused for no key {no_key:.3f} ms".format(**pieces)
        )
        print(f"targets missed: {missed}")
        return 0
    finally:
        http.close()


def report(spent: dict[tuple[str, str], list[float]]) -> int:
    missed = 0
    print(f"{'operation':<10}" + "".join(f"{channel + ' median/p95 ms':>26}" for channel in CHANNELS))
    for operation in OPERATIONS:
        cells = "".join(
            "{:>26}".format("{:.3f} / {:.3f}".format(*percentiles(spent[operation, channel])))
            for channel in CHANNELS
        )
        print(f"{operation:<10}{cells}")
    for operation in OPERATIONS:
        direct = percentiles(spent[operation, "direct"])[0]
        layer = percentiles(spent[operation, "service"])[0] - direct
        shown = [f"{operation:<10} the service layer adds {layer:+.3f} ms;"]
        for channel, target in (("http", HTTP_TARGET_MS), ("mcp", MCP_TARGET_MS)):
            added = percentiles(spent[operation, channel])[0] - direct
            verdict = "PASS" if added <= target else "MISS"
            missed += verdict == "MISS"
            shown.append(f"{channel.upper()} adds {added:+.3f} ms (target <= {target:.0f}) {verdict};")
        print(" ".join(shown))
    return missed


if __name__ == "__main__":
    sys.exit(main())
