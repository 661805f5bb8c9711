"""Durability under kill -9: writers that retry with their Idempotency-Key, a serve or its FalkorDB killed.

    uv run python bench/run.py durability --kill serve --rounds 5
    uv run python bench/run.py durability --kill falkordb --rounds 5 --recover-s 20

Starts `lighthouse serve` on a fresh data directory (or --data), declares a kind, and runs --writers
threads (8) that write, in turn, a note, an entry of an episode (record), a conversation message (say) and
a row (remember), each with its own Idempotency-Key and a marker of its own in what it writes; a call
that fails in any way (a refused connection, a timeout, a 5xx) is sent again with the same key until it
is answered. Every --every-s seconds (5) it kills, with SIGKILL, either serve (then starts it again on
the same data directory) or serve's redis-server child; for the latter it waits --recover-s seconds for
serve to answer /health by itself and, when it does not, kills and starts serve and says so. After the
rounds the writers stop, and the graph is read directly: per kind, how many acknowledged writes are
absent (lost) and how many markers are stored more than once (duplicated), and per round the time from
the kill to a serve that answers /health again (its start, or its own recovery), from then to the
first answered call, and from then to the last answer of the calls the kill cut (calls_cut: each a
retry with its key, which waits out the hold the killed process left and, on a FalkorDB started again,
the compiling of each query's plan anew).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

import httpx

KINDS = [{"label": "Item", "key": "code"}]
WRITES = ("note", "record", "say", "remember")


class Serve:
    """One `lighthouse serve` on a data directory and a port."""

    def __init__(self, data: Path, port: int, log: Path) -> None:
        self.data, self.port, self.log = data, port, log
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 300.0) -> float:
        """Starts serve; the moment it answered /health (time.monotonic())."""
        started = time.monotonic()
        command = [sys.executable, "-m", "lighthouse_server.command", "serve", "--data", str(self.data)]
        command += ["--port", str(self.port)]
        environment = {k: v for k, v in os.environ.items() if not k.startswith(("FALKORDB_", "LIGHTHOUSE_"))}
        with self.log.open("a") as log:
            self.process = subprocess.Popen(command, env=environment, stdout=log, stderr=subprocess.STDOUT)
        deadline = started + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"serve exited; see {self.log}")
            if self.healthy():
                return time.monotonic()
            time.sleep(0.1)
        raise RuntimeError(f"serve did not answer /health within {timeout} s")

    def healthy(self) -> bool:
        try:
            return httpx.get(f"{self.url}/health", timeout=1).status_code == 200
        except httpx.HTTPError:
            return False

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(30)

    def falkordb_pid(self) -> int:
        """serve's redis-server child, found in /proc."""
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                command = (entry / "comm").read_text().strip()
            except OSError:
                continue
            if int(fields[1]) == self.process.pid and command.startswith("redis-server"):
                return int(entry.name)
        raise RuntimeError("serve has no redis-server child")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(120)


class Writers:
    def __init__(self, serve: Serve, key: str, count: int) -> None:
        self.serve, self.key, self.count = serve, key, count
        self.stop = threading.Event()
        self.acknowledged: dict[str, list[str]] = collections.defaultdict(list)  # kind -> markers
        self.answered_at: list[float] = []  # monotonic times of answered calls
        self.calls: list[list] = []  # [sent at, answered at or None] of each call, monotonic
        self.retries = 0
        self.errors: collections.Counter = collections.Counter()
        self._lock = threading.Lock()

    def body(self, kind: str, writer: int, marker: str) -> dict:
        if kind == "note":
            return {"text": f"note {marker}", "episode": f"notes-w{writer}"}
        if kind == "record":
            return {"episode_id": f"ep-w{writer}", "entry_type": "observation", "values": {"marker": marker}}
        if kind == "say":
            return {
                "user": f"u{writer}",
                "session_id": f"s{writer}",
                "role": "user",
                "text": f"said {marker}",
            }
        return {"kind": "Item", "rows": [{"key": marker, "t": "2026-01-01T00:00:00Z", "values": {"n": 1}}]}

    def send(self, name: str, body: dict) -> dict:
        """The call, sent again with the same key until it is answered."""
        headers = {"Authorization": f"Bearer {self.key}", "Idempotency-Key": uuid.uuid4().hex}
        call = [time.monotonic(), None]
        with self._lock:
            self.calls.append(call)
        while True:
            try:
                answer = httpx.post(f"{self.serve.url}/v1/{name}", json=body, headers=headers, timeout=30)
                if answer.status_code == 200:
                    with self._lock:
                        call[1] = time.monotonic()
                        self.answered_at.append(call[1])
                    return answer.json()["result"]
                with self._lock:
                    self.errors[f"{name} {answer.status_code}"] += 1
            except httpx.HTTPError as error:
                with self._lock:
                    self.errors[f"{name} {type(error).__name__}"] += 1
            with self._lock:
                self.retries += 1
            time.sleep(0.05)

    def run(self, writer: int) -> None:
        self.send("open_episode", {"episode_id": f"ep-w{writer}"})
        number = 0
        while not self.stop.is_set():
            kind = WRITES[number % len(WRITES)]
            marker = f"w{writer}-{number}-{uuid.uuid4().hex[:6]}"
            answer = self.send(kind if kind != "remember" else "remember", self.body(kind, writer, marker))
            receipt = answer[0] if isinstance(answer, list) else answer
            if receipt.get("status") in ("recorded", "said", "created"):
                with self._lock:
                    self.acknowledged[kind].append(marker)
            else:
                with self._lock:
                    self.errors[f"{kind} receipt {receipt.get('status')}"] += 1
            number += 1


def stored(data: Path, tenant_id: str) -> dict[str, list[str]]:
    """Every marker stored, per kind, read from the graph (a marker twice is a duplicate)."""
    from lighthouse import tenant
    from lighthouse.graphs import read
    from lighthouse_server.database import opened
    from lighthouse_server.settings import Settings

    with opened(Settings(data=str(data)), reading=True) as db:
        graph = tenant(db, tenant_id)
        notes = read(graph, "MATCH (n:Entry {type: 'note'}) RETURN n.v_text")
        records = read(graph, "MATCH (n:Entry {type: 'observation'}) RETURN n.v_marker")
        messages = read(graph, "MATCH (m:Message) RETURN m.text")
        rows = read(graph, "MATCH (e:Entity:Item) RETURN e.key")
    return {
        "note": [text.removeprefix("note ") for (text,) in notes],
        "record": [marker for (marker,) in records],
        "say": [text.removeprefix("said ") for (text,) in messages],
        "remember": [key for (key,) in rows],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--kill", choices=("serve", "falkordb"), required=True)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--every-s", type=float, default=5.0, help="seconds of writing before each kill")
    parser.add_argument(
        "--recover-s", type=float, default=20.0, help="--kill falkordb: wait for serve to heal"
    )
    parser.add_argument("--data", default=None, help="a data directory (default: a new temporary one)")
    parser.add_argument("--port", type=int, default=0)
    options = parser.parse_args(argv)

    from lighthouse_server import keys
    from lighthouse_server.database import opened
    from lighthouse_server.embedded import free_port
    from lighthouse_server.settings import Settings

    data = Path(options.data or tempfile.mkdtemp(prefix="durability-")) / "data"
    data.parent.mkdir(parents=True, exist_ok=True)  # --data may name a folder not yet made
    serve = Serve(data, options.port or free_port(), data.parent / "serve.log")
    serve.start()
    tenant_id = f"dur{uuid.uuid4().hex[:8]}"
    with opened(Settings(data=str(data))) as db:
        key = keys.create(db, tenant_id, "writer", ["read", "write", "admin"])["key"]
    writers = Writers(serve, key, options.writers)
    writers.send("declare_kinds", {"kinds": KINDS})
    threads = [
        threading.Thread(target=writers.run, args=(number,), daemon=True) for number in range(options.writers)
    ]
    for thread in threads:
        thread.start()
    rounds = []
    for number in range(options.rounds):
        time.sleep(options.every_s)
        killed_at = time.monotonic()
        with writers._lock:  # the calls the kill cuts: sent before it, not answered
            cut = [call for call in writers.calls if call[1] is None]
        restarted_serve = False
        if options.kill == "serve":
            serve.kill()
            back_from = serve.start()
        else:
            os.kill(serve.falkordb_pid(), signal.SIGKILL)
            deadline = killed_at + options.recover_s
            while time.monotonic() < deadline and not serve.healthy():
                time.sleep(0.1)
            back_from = time.monotonic()
            if not serve.healthy():
                restarted_serve = True
                serve.kill()
                back_from = serve.start()
        first = None
        while first is None:
            with writers._lock:
                first = next((at for at in writers.answered_at if at >= back_from), None)
            time.sleep(0.02)
        while True:  # each cut call answered (a retry with its key); one answered before the kill counts 0
            with writers._lock:
                if all(call[1] is not None for call in cut):
                    last = max([back_from] + [call[1] for call in cut])
                    break
            time.sleep(0.02)
        rounds.append(
            {
                "round": number + 1,
                "kill_to_serving_s": round(back_from - killed_at, 2),
                "serving_to_first_answer_s": round(first - back_from, 2),
                "calls_cut": len(cut),
                "serving_to_last_cut_answered_s": round(last - back_from, 2),
                "serve_restarted_by_this_script": restarted_serve,
            }
        )
        print(json.dumps(rounds[-1]), flush=True)
    time.sleep(1.0)
    writers.stop.set()
    for thread in threads:
        thread.join(120)
    serve.stop()
    found = stored(data, tenant_id)
    report = {
        "kill": options.kill,
        "rounds": rounds,
        "retries": writers.retries,
        "errors": dict(writers.errors),
    }
    for kind in WRITES:
        acknowledged = set(writers.acknowledged[kind])
        counted = collections.Counter(found[kind])
        report[kind] = {
            "acknowledged": len(acknowledged),
            "stored": len(counted),
            "lost": len(acknowledged - set(counted)),
            "duplicated": sum(times - 1 for times in counted.values() if times > 1),
        }
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
