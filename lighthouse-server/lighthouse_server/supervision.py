"""serve's embedded FalkorDB kept running: a server process that died (a crash, a kill -9, the memory
killer) is started again on the same port and data directory, and the service goes on without a
restart of serve. Until it answers again every request that needs the database is 503
database_unavailable with Retry-After (problems.py); clients keep their address, since the port is the
same, and reconnect by themselves.

What was acknowledged survives: the server appends every write to its file before it answers, so a
kill -9 of the server loses none (fsync's policy decides only about a crash of the machine). A start
that fails is tried again after a backoff that doubles from RESTART_FIRST to RESTART_MOST seconds;
each death and each start is said in serve's log.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from .embedded import Server, ServerError, start

WATCH_EVERY = 0.1  # seconds between two looks at the server process
RESTART_FIRST = 0.2  # seconds before the second try of a start that failed; doubled for each after it
RESTART_MOST = 10.0  # seconds: the longest wait between two tries
STEADY = 30.0  # seconds a restarted server runs before the backoff starts again from its first step


class Supervisor:
    """Watches one embedded server in a thread of its own; `current` is the server running now."""

    def __init__(
        self, server: Server, *, fsync: str = "everysec", say: Callable[..., object] = print
    ) -> None:
        if server.process is None or server.data_dir is None:
            raise ValueError("only an embedded server with a data directory is supervised")
        self.current = server
        self.fsync = fsync
        self.say = say
        self.restarts = 0  # servers started again since serve began
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> Supervisor:
        self._thread = threading.Thread(target=self._watch, name="falkordb-supervisor", daemon=True)
        self._thread.start()
        return self

    def _watch(self) -> None:
        backoff, began = RESTART_FIRST, time.monotonic()
        while not self._stopping.wait(WATCH_EVERY):
            dead = self.current
            if dead.running:
                continue
            code = dead.process.returncode
            if time.monotonic() - began >= STEADY:
                backoff = RESTART_FIRST
            self.say(
                f"FalkorDB (pid {dead.process.pid}) exited with code {code}; starting it again on port "
                f"{dead.port} with the data in {dead.data_dir} (requests meanwhile: 503, database_unavailable)",
                flush=True,
            )
            dead.abandon()  # its lock and files released, for the next server
            while not self._stopping.is_set():
                try:
                    self.current = start(port=dead.port, data_dir=dead.data_dir, fsync=self.fsync, wait=60.0)
                except ServerError as error:
                    self.say(f"FalkorDB did not start again ({error}); next try in {backoff:g} s", flush=True)
                    if self._stopping.wait(backoff):
                        return
                    backoff = min(backoff * 2, RESTART_MOST)
                    continue
                self.restarts += 1
                began = time.monotonic()
                self.say(
                    f"FalkorDB runs again (pid {self.current.process.pid}, answering after "
                    f"{self.current.started_in:.2f} s)",
                    flush=True,
                )
                break

    def stop(self, timeout: float = 20.0) -> None:
        """Stops watching (a start under way finishes first), then stops the server cleanly."""
        self._stopping.set()
        if self._thread is not None:
            self._thread.join()
        self.current.stop(timeout)
