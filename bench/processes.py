"""The benchmark's server process: `lighthouse serve` started as the service tests start it, what a wrong
answer raises, and the CPU a process and its children used (read from /proc, Linux)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
from falkordb import FalkorDB
from lighthouse_server.access import password_of
from lighthouse_server.database import RUNNING, connect_or_start
from lighthouse_server.embedded import free_port


class WrongWork(RuntimeError):
    """An answer was not the one the call must give: the figure would be of other work."""


def expect(condition: bool, message: str) -> None:
    if not condition:
        raise WrongWork(message)


def on_a_server(work) -> int:
    """A command of its own (growth.py, beside_shapes.py): work(server) on the embedded FalkorDB, or
    the one FALKORDB_HOST/PORT name. Its exit code: 0, or 1 with WRONG WORK when an answer was wrong. The
    server is stopped (an external one left alone) either way."""
    server = connect_or_start()
    try:
        work(server)
    except WrongWork as error:
        print(f"WRONG WORK: {error}", file=sys.stderr)
        return 1
    finally:
        server.stop()
    return 0


class Serve:
    """One `lighthouse serve` subprocess with the given settings (as LIGHTHOUSE_* variables); profile: a
    path where cProfile keeps what the server's main thread (its event loop) did, written on stop."""

    def __init__(self, data: Path, profile: str | None = None, **settings: str) -> None:
        self.data = data
        self.profile = profile
        self.settings = settings
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen | None = None
        self.log = None

    def start(self, timeout: float = 90.0) -> Serve:
        own = {k: v for k, v in os.environ.items() if not k.startswith(("FALKORDB_", "LIGHTHOUSE_"))}
        own |= {f"LIGHTHOUSE_{name.upper()}": value for name, value in self.settings.items()}
        self.log = open(self.data.parent / f"serve-{self.port}.log", "w")  # noqa: SIM115 - closed in stop()
        profiled = ["-m", "cProfile", "-o", self.profile] if self.profile else []
        self.process = subprocess.Popen(
            [sys.executable, *profiled, "-m", "lighthouse_server.command", "serve"]
            + ["--data", str(self.data), "--port", str(self.port)],
            env=own,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"serve exited: {Path(self.log.name).read_text()}")
            try:
                if httpx.get(f"{self.url}/health", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise RuntimeError("serve did not answer /health in time")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.log is not None:
            self.log.close()

    def db(self) -> FalkorDB:
        found = json.loads((self.data / RUNNING).read_text())
        return FalkorDB(host=found["host"], port=found["port"], password=password_of(self.data))


def cpu_seconds(pid: int) -> float:
    """The CPU time (user and system) a process has used so far, from /proc (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(child) for child in (task / "children").read_text().split()]
    return found


def together(count: int, work) -> float:
    """Runs work(start, n) for n in range(count), each in a thread of its own; each calls start.wait()
    once it is ready, and the clock starts when all are. The wall time until the last one ends."""
    start = threading.Barrier(count + 1)
    threads = [threading.Thread(target=work, args=(start, n)) for n in range(count)]
    for thread in threads:
        thread.start()
    start.wait()
    began = time.perf_counter()
    for thread in threads:
        thread.join()
    return time.perf_counter() - began
