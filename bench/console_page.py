"""The console page of an entity with 1,000 States, timed on the server (target: under 300 ms).

    uv run python bench/run.py console [--loads N]

Starts the real `lighthouse serve` (no embedder: a worker embedding the notes on the same two cores
would be measured too) on a free loopback port with a temporary data directory. Over HTTP it declares
the example kinds, gives 1,000 notes, and remembers 1,000 rows of one device, each a State of its own
with its note as evidence and a room that changes with each. Then it signs in to the console and loads
`/console/entity?kind=Device&key=long-pump` N times (default 7; the first also warms the query plans and
is not counted). It prints the median of the server's time (the page's Server-Timing header: the reads
and the rendering, not the network) and of the round trip, PASS or MISS against the target of the
console's issue: under 300 ms on the server; and the CPU time per load of serve and of its FalkorDB
(from /proc, in steps of 10 ms over all the counted loads), which a machine busy with other work
changes far less than it changes the times. Every answer is checked (each note recorded, each row
created or changed, 1,000 States in the history and on the page); a wrong one stops it with exit code 1.
The service it started is stopped whatever happens.

Where its time goes: the reads of the 1,000 States, their notes and their relation windows (the library,
through FalkorDB), the timeline's geometry, and the markup of some 3,000 rows and bars, written in Python
(console/entity_markup.py: through Jinja they cost five times as much); some 10,000 times a page, each
written once; a full collection of serve's heap in a load adds 50 to 110 ms, which serve's freezing of
what its start made keeps out.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
from lighthouse_server import keys
from lighthouse_server.operations import TABLE
from processes import Serve, WrongWork, children, cpu_seconds, expect

STATES = 1_000
TARGET_MS = 300.0
TENANT = "console"
START = datetime(2025, 1, 1, tzinfo=UTC)
PAGE = "/console/entity?kind=Device&key=long-pump"
TIMING = re.compile(r"page;dur=([0-9.]+)")


def _result(http: httpx.Client, operation: str, body: dict) -> object:
    answer = http.post(f"/v1/{operation}", json=body)
    expect(answer.status_code == 200, f"{operation}: {answer.status_code} {answer.text[:300]}")
    return answer.json()["result"]


def written(http: httpx.Client) -> None:
    """The kinds, the notes, and the device's 1,000 States, each citing its note."""
    _result(http, "declare_kinds", {"kinds": TABLE["declare_kinds"].example["kinds"]})
    notes = [{"text": f"reading {number} of the long pump"} for number in range(STATES)]
    said = _result(http, "notes", {"items": notes})
    expect(all(receipt["status"] == "recorded" for receipt in said), f"notes: {said[:3]}")
    rows = [
        {
            "key": "long-pump",
            "t": (START + timedelta(hours=7 * number)).isoformat(),
            "values": {"status": f"reading {number}", "note": f"the long pump, reading {number}"},
            "relations": {"LOCATED_IN": f"room-{number % 20}"},
            "entry": said[number]["id"],
        }
        for number in range(STATES)
    ]
    receipts = _result(http, "remember", {"kind": "Device", "rows": rows})
    expect({one["status"] for one in receipts} <= {"created", "changed"}, f"remember: {receipts[:3]}")
    history = _result(http, "history", {"kind": "Device", "key": "long-pump", "page_size": STATES})
    expect(len(history["items"]) == STATES, f"history: {len(history['items'])} States")


def _cpu(pids: list[int]) -> float:
    return sum(cpu_seconds(pid) for pid in pids)


def loads(serve: Serve, secret: str, count: int) -> tuple[list[float], list[float], int, tuple]:
    """The page loaded count times in a console session: server ms, round trip ms, the page's size, and
    the CPU ms per counted load of serve and of its FalkorDB (what a busy machine's waits leave out)."""
    serve_pid = serve.process.pid
    database_pids = children(serve_pid)
    with httpx.Client(base_url=serve.url, timeout=60) as browser:
        signed = browser.post("/console/sign-in", data={"key": secret}, headers={"Origin": serve.url})
        expect(signed.status_code == 303, f"sign-in: {signed.status_code} {signed.text[:300]}")
        server_ms, round_trip_ms, size = [], [], 0
        for place in range(count):
            if place == 1:  # the first load warms the plans: not counted
                cpu_began = cpu_seconds(serve_pid), _cpu(database_pids)
            began = time.perf_counter()
            page = browser.get(PAGE)
            round_trip_ms.append((time.perf_counter() - began) * 1000)
            expect(page.status_code == 200, f"the page: {page.status_code} {page.text[:300]}")
            timing = TIMING.fullmatch(page.headers.get("server-timing", ""))
            expect(timing is not None, f"no Server-Timing: {page.headers.get('server-timing')!r}")
            server_ms.append(float(timing.group(1)))
            shown = page.text.count('class="state '), page.text.count('class="state-row')
            expect(shown == (STATES, STATES), f"the page shows {shown} States, not {STATES}")
            size = len(page.text)
        counted = count - 1
        cpu_ms = (
            (cpu_seconds(serve_pid) - cpu_began[0]) * 1000 / counted,
            (_cpu(database_pids) - cpu_began[1]) * 1000 / counted,
        )
        return server_ms, round_trip_ms, size, cpu_ms


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--loads", type=int, default=7, help="loads of the page, the first not counted")
    args = parser.parse_args(argv)
    if args.loads < 2:
        parser.error("--loads is at least 2")
    with tempfile.TemporaryDirectory(prefix="lighthouse-bench-") as where:
        serve = Serve(Path(where) / "data")
        try:
            serve.start()
            secret = keys.create(serve.db(), TENANT, "bench", list(keys.SCOPES))["key"]
            with httpx.Client(
                base_url=serve.url, headers={"Authorization": f"Bearer {secret}"}, timeout=300
            ) as http:
                written(http)
            server_ms, round_trip_ms, size, cpu_ms = loads(serve, secret, args.loads)
        except WrongWork as error:
            print(f"WRONG WORK: {error}", file=sys.stderr, flush=True)
            return 1
        finally:
            serve.stop()
    median = statistics.median(server_ms[1:])
    verdict = "PASS" if median < TARGET_MS else "MISS"
    print(
        f"entity page with {STATES:,} States ({size:,} bytes): server median {median:.0f} ms "
        f"(each {[round(ms) for ms in server_ms]}, the first not counted), round trip median "
        f"{statistics.median(round_trip_ms[1:]):.0f} ms (target: server under {TARGET_MS:.0f} ms)  {verdict}; "
        f"CPU per load: serve {cpu_ms[0]:.0f} ms, its FalkorDB {cpu_ms[1]:.0f} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
