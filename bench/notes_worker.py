"""The extraction worker inside `lighthouse serve` against a fake model: its rows/s and a note's lag.

    uv run python bench/run.py worker [--notes N] [--lag-notes M] [--interval-ms I]

Starts a fake OpenAI-compatible chat model (a real HTTP server on loopback, in this process) that
reads the note out of the prompt ("device d17 is hot, word w17") and answers one fact of the Device
kind for it, and the real `lighthouse serve` with model_url pointing at it. Two measurements, each on a
serve and a tenant of its own:

- rows/s: the model answers at once; N notes are sent in batches of 100 and the time runs from the
  first batch sent until the status says every note was read (and again from when the status first
  shows a note read, which leaves out the idle worker's wait); rows/s counts the receipts the worker
  wrote (one fact a note). Checked: every note read, each row created, none refused or set aside, the
  model asked once a note.
- lag: the model waits 200 ms before each answer; one note at a time is sent and `recall` is asked
  every 20 ms for its word until the fact comes back with that note as its evidence: the time from the
  note's accepted answer to that recall answer (median and 95th percentile). The worker looks for new
  notes every worker_interval_ms when idle (the default, 1,000 ms, unless --interval-ms).

A note kept by serve wakes its idle worker (without the wake the lag is the idle wait: median 1,207 ms).
The worker asks one note at a time; asking several at once while writing their answers in order, each
note still read once, is what would raise its rate.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
from lighthouse_server import keys
from notes import KINDS
from processes import Serve, WrongWork, expect

TENANT = "bench-worker"
LAG_TARGET = None  # issue 12 asks for the figures, with no target
NOTE = re.compile(r"device (d\d+) is (\w+), word (w\d+)")


class FakeChat:
    """POST /v1/chat/completions: one Device fact for the note the prompt carries, after `delay` seconds."""

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self.asked = 0
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the name http.server calls
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                fake.asked += 1
                if fake.delay:
                    time.sleep(fake.delay)
                said = json.loads(body["messages"][-1]["content"])
                found = NOTE.search(said["note"])
                facts = []
                if found:
                    key, status, word = found.groups()
                    values = {"status": status, "note": f"pump sensor {word}"}
                    facts.append({"kind": "Device", "key": key, "values": values})
                content = json.dumps({"facts": facts})
                data = json.dumps(
                    {"choices": [{"message": {"role": "assistant", "content": content}}]}
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *arguments) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _client(serve: Serve) -> httpx.Client:
    secret = keys.create(serve.db(), TENANT, "bench", list(keys.SCOPES))["key"]
    http = httpx.Client(base_url=serve.url, headers={"Authorization": f"Bearer {secret}"}, timeout=60)
    declared = http.post("/v1/declare_kinds", json={"kinds": KINDS})
    expect(declared.status_code == 200, f"declare_kinds gave {declared.text}")
    return http


def _result(http: httpx.Client, name: str, body: dict) -> object:
    answer = http.post(f"/v1/{name}", json=body)
    expect(answer.status_code == 200, f"{name} gave {answer.status_code} {answer.text[:300]}")
    return answer.json()["result"]


def rows_per_second(where: Path, count: int, interval_ms: int) -> float:
    model = FakeChat(0.0)
    serve = Serve(where / "rate", model_url=model.url, model_name="fake", worker_interval_ms=str(interval_ms))
    try:
        serve.start()
        http = _client(serve)
        began = time.perf_counter()
        for start in range(0, count, 100):
            items = [
                {"text": f"device d{n} is hot, word w{n}"} for n in range(start, min(start + 100, count))
            ]
            receipts = _result(http, "notes", {"items": items})
            expect({receipt["status"] for receipt in receipts} == {"recorded"}, f"notes gave {receipts[:1]}")
        first = None  # (time, notes read) when the status first showed the worker reading
        while True:
            extraction = _result(http, "status", {})["extraction"]
            if first is None and extraction["notes_read"] > 0:
                first = (time.perf_counter(), extraction["notes_read"])
            if extraction["notes_read"] >= count or time.perf_counter() - began > 600:
                break
            time.sleep(0.05)
        ended = time.perf_counter()
        wall = ended - began
        expect(extraction["notes_read"] == count, f"the worker read {extraction['notes_read']} of {count}")
        expect(extraction["rows"] == {"created": count}, f"the worker wrote {extraction['rows']}")
        expect(extraction["items_refused"] == 0 and extraction["notes_set_aside"] == 0, f"{extraction}")
        expect(model.asked == count, f"the model was asked {model.asked} times for {count} notes")
        rate = count / wall
        steady = (count - first[1]) / max(ended - first[0], 1e-9) if first[1] < count else rate
        print(
            f"worker, model answering at once: {count:,} notes, {count:,} rows in {wall:.2f} s from the first "
            f"batch sent = {rate:,.0f} rows/s (one ask and one row a note); {steady:,.0f} rows/s from the "
            "first note read (the idle worker's wait left out)",
            flush=True,
        )
        return rate
    finally:
        serve.stop()
        model.stop()


def lag(where: Path, count: int, interval_ms: int) -> tuple[float, float]:
    model = FakeChat(0.2)
    serve = Serve(where / "lag", model_url=model.url, model_name="fake", worker_interval_ms=str(interval_ms))
    try:
        serve.start()
        http = _client(serve)
        spent = []
        for n in range(count):
            word = f"w{90_000 + n}"
            receipt = _result(http, "note", {"text": f"device d{90_000 + n} is hot, word {word}"})
            accepted = time.perf_counter()
            expect(receipt["status"] == "recorded", f"note gave {receipt}")
            while True:
                found = _result(http, "recall", {"question": word})
                facts = [fact for fact in found["facts"] if fact["key"] == f"d{90_000 + n}"]
                if facts:
                    evidence = facts[0]["evidence"] or {}
                    expect(evidence.get("id") == receipt["id"], f"the fact rests on {evidence}, not the note")
                    break
                expect(time.perf_counter() - accepted < 60, f"note {n} was not recalled in 60 s")
                time.sleep(0.02)
            spent.append(time.perf_counter() - accepted)
        ordered = sorted(spent)
        median, p95 = statistics.median(ordered), ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
        print(
            f"lag from a note accepted to its fact recalled, model 200 ms, worker_interval_ms {interval_ms}: "
            f"median {median * 1000:,.0f} ms, p95 {p95 * 1000:,.0f} ms over {count} notes",
            flush=True,
        )
        return median, p95
    finally:
        serve.stop()
        model.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--notes", type=int, default=1_000, help="notes of the rows/s run (default 1,000)")
    parser.add_argument("--lag-notes", type=int, default=40, help="notes of the lag run (default 40)")
    parser.add_argument("--interval-ms", type=int, default=1_000, help="worker_interval_ms (default 1,000)")
    args = parser.parse_args(argv)
    if args.notes < 1 or args.lag_notes < 1 or not 10 <= args.interval_ms <= 600_000:
        parser.error("--notes and --lag-notes are at least 1, --interval-ms from 10 to 600000")
    with tempfile.TemporaryDirectory(prefix="lighthouse-bench-worker-") as where:
        try:
            rows_per_second(Path(where), args.notes, args.interval_ms)
            lag(Path(where), args.lag_notes, args.interval_ms)
        except WrongWork as error:
            print(f"WRONG WORK: {error}", file=sys.stderr, flush=True)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
