"""The real `lighthouse serve`, as a subprocess on a free loopback port with its own embedded FalkorDB
in a temporary data directory, and what the service tests do with it (the fixture is in conftest.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import httpx
from falkordb import FalkorDB
from lighthouse_server import keys
from lighthouse_server.access import password_of
from lighthouse_server.database import RUNNING
from lighthouse_server.embedded import free_port
from lighthouse_server.operations import TABLE

KINDS = TABLE["declare_kinds"].example["kinds"]
PORT_ATTEMPTS = 3  # free ports a start tries, when another process takes the one it picked


def environment(**more: str) -> dict:
    """This process's environment without the test FalkorDB's address: serve starts its own."""
    chosen = {k: v for k, v in os.environ.items() if not k.startswith(("FALKORDB_", "LIGHTHOUSE_"))}
    return {**chosen, **more}


class Lighthouse:
    """One `lighthouse serve` process: of this repository's code, or of `program` (a `lighthouse` command
    installed elsewhere, run from the directory `cwd`)."""

    def __init__(
        self, data: Path, program: list[str] | None = None, cwd: Path | None = None, **settings: str
    ) -> None:
        self.data = data
        self.program = program or [sys.executable, "-m", "lighthouse_server.command"]
        self.cwd = cwd
        self.settings = settings
        self.process: subprocess.Popen | None = None
        self.port = 0
        self.extra: dict[str, str] = {}  # more environment, e.g. FALKORDB_URL

    def command(self, *arguments: str, key: str | None = None, **options) -> subprocess.CompletedProcess:
        """Another `lighthouse` command on the same data directory."""
        extra = {"LIGHTHOUSE_KEY": key} if key else {}
        return subprocess.run(
            [*self.program, *arguments, "--data", str(self.data)],
            env=environment(**extra),
            cwd=self.cwd,
            capture_output=True,
            text=True,
            timeout=120,
            **options,
        )

    def start(self, timeout: float = 90.0) -> Lighthouse:
        """serve on a free port, once it answers /health. A port another process took between
        free_port() and serve's bind (a race of the tests, not of serve) is tried again on another."""
        for attempt in range(PORT_ATTEMPTS):
            self._spawn()
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    said = (self.data.parent / f"serve-{self.port}.log").read_text()
                    if f"127.0.0.1:{self.port} is taken" in said and attempt + 1 < PORT_ATTEMPTS:
                        self.log.close()
                        break
                    raise RuntimeError(f"serve exited: {said}")
                try:
                    if httpx.get(f"{self.url}/health", timeout=1).status_code == 200:
                        return self
                except httpx.HTTPError:
                    pass
                time.sleep(0.2)
            else:
                raise RuntimeError("serve did not answer /health in time")
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _spawn(self) -> None:
        self.port = free_port()
        variables = {f"LIGHTHOUSE_{name.upper()}": str(value) for name, value in self.settings.items()}
        self.log = open(self.data.parent / f"serve-{self.port}.log", "w")  # noqa: SIM115 - closed in stop()
        self.process = subprocess.Popen(
            [*self.program, "serve", "--data", str(self.data), "--port", str(self.port)],
            env=environment(**variables, **self.extra),
            cwd=self.cwd,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )

    def stop(self, how: int = signal.SIGTERM, timeout: float = 60.0) -> int:
        self.process.send_signal(how)
        code = self.process.wait(timeout=timeout)
        self.log.close()
        return code

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def db(self) -> FalkorDB:
        """A client of this server's own FalkorDB (where it says it listens)."""
        found = json.loads((self.data / RUNNING).read_text())
        return FalkorDB(host=found["host"], port=found["port"], password=password_of(self.data))

    def key(self, tenant: str, agent: str = "planner", scopes=keys.SCOPES) -> str:
        return keys.create(self.db(), tenant, agent, list(scopes))["key"]

    def post(
        self, name: str, body: object = None, key: str | None = None, headers: dict | None = None, **options
    ):
        sent = dict(headers or {})
        if key:
            sent["Authorization"] = f"Bearer {key}"
        if body is not None and not isinstance(body, bytes | str):
            body = json.dumps(body)
        return httpx.post(f"{self.url}/v1/{name}", content=body, headers=sent, timeout=60, **options)

    def result(self, name: str, body: object, key: str, **options):
        answer = self.post(name, body, key, **options)
        assert answer.status_code == 200, answer.text
        return answer.json()["result"]

    def settled(self, key: str, timeout: float = 60.0) -> dict:
        """The tenant's status once its workers have nothing left to do (no embedding and no note
        waiting, and the count of what they did unchanged over two looks 0.2 s apart, so a round's own
        bookkeeping has landed too): a test that compares a graph before and after a call waits for it
        first, since the workers of this serve write the tenant's vectors and facts in the background."""
        deadline = time.monotonic() + timeout
        before = None
        while True:
            status = self.result("status", {}, key)
            extraction = status["extraction"]
            waiting = status["embedding"].get("waiting", 0)
            if extraction["state"] != "not configured":
                waiting += extraction.get("notes_waiting", 0)
            done = (status["embedding"].get("embedded"), extraction.get("notes_read"))
            if waiting == 0 and done == before:
                return status
            assert time.monotonic() < deadline, f"the workers still have work after {timeout} s: {status}"
            before = done if waiting == 0 else None
            time.sleep(0.2)

    def tenant(self, prefix: str = "t") -> tuple[str, str]:
        """A fresh tenant with the example kinds declared, and an admin key with every scope."""
        name = f"{prefix}{uuid.uuid4().hex[:10]}"
        key = self.key(name)
        self.result("declare_kinds", {"kinds": KINDS}, key)
        return name, key
