"""Waiting for a starting embedded FalkorDB to answer: through a load of its data for as long as the
load progresses (its loaded bytes, or its CPU time while it is too busy to answer), reported as it goes."""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

from redis import exceptions as replies

from .problems import DatabaseUnavailable

LOADING_REPORT_EVERY = 1.0  # seconds between the progress reports of a long load
_log = logging.getLogger(__name__)


class NotReady(DatabaseUnavailable, RuntimeError):
    """The server exited, or did not answer in time; the message says why (embedded.py says it as a
    ServerError)."""


def _cpu_ticks(pid: int) -> int | None:
    """The CPU time the process used (Linux): the progress of a server too busy loading to answer."""
    with contextlib.suppress(OSError, IndexError, ValueError):
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])  # utime, stime
    return None


def _exited(server, log: Path, since: int, errors: IO) -> NotReady:
    errors.seek(0)
    detail, tail = errors.read().decode(errors="replace")[-800:], ""
    with contextlib.suppress(OSError), log.open("rb") as lines:
        lines.seek(since)
        tail = lines.read().decode(errors="replace")[-800:]
    reason = f"port {server.port} is taken" if "already in use" in detail + tail else "it exited"
    code = f"code {server.process.returncode}"
    return NotReady(f"FalkorDB did not start: {reason} ({code}): {detail} {tail}".strip())


def wait_until_ready(
    server, wait: float, on_loading: Callable | None, *, log: Path, since: int, errors: IO
) -> None:
    """Returns once the server answers GRAPH.LIST; waits through loading for as long as it progresses.
    log (read from since on) and errors (the child's stderr) say why when it exits instead."""
    # A loading server answers only between batches of 1,024 commands of its file: seconds apart.
    process, probe = server.process, server.connection(timeout=max(wait, 30.0))
    began = reported = time.monotonic()
    deadline, mark, fields = began + wait, None, {}
    try:
        while True:
            if process.poll() is not None:
                raise _exited(server, log, since, errors)
            try:
                info = probe.info("server", "persistence")
                if info.get("process_id") != process.pid:
                    # Another server took the port between the check and the start: never use it.
                    raise NotReady(f"port {server.port} is taken by another server")
                if not (info.get("loading") or info.get("async_loading")):
                    probe.execute_command("GRAPH.LIST")  # the graph module is loaded and answers
                    return
                fields = {key: value for key, value in info.items() if key.startswith("loading_")}
            except (replies.BusyLoadingError, replies.TimeoutError):
                pass  # loading: it answers between chunks of its file, or not at all for a while
            except replies.ConnectionError:  # not listening yet
                if time.monotonic() >= deadline:
                    raise NotReady(f"FalkorDB did not answer on {server.port} in {wait:g} s") from None
                time.sleep(0.05)
                continue
            now = time.monotonic()
            if (progress := (fields.get("loading_loaded_bytes"), _cpu_ticks(process.pid))) != mark:
                deadline, mark = now + wait, progress
            elif now >= deadline:
                raise NotReady(f"FalkorDB loaded nothing for {wait:g} s; see {log}")
            if now - reported >= LOADING_REPORT_EVERY:
                reported, report = now, {**fields, "waited_seconds": round(now - began, 3)}
                _log.info("FalkorDB is loading %s: %s", server.data_dir, report)
                if on_loading is not None:
                    on_loading(report)
            time.sleep(0.1)
    finally:
        probe.close()
