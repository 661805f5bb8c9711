"""The FalkorDB a process uses: an external one (falkordb_url), the embedded one of a running
`lighthouse serve` on the data directory, or an embedded one started here.

`lighthouse serve` writes where its embedded FalkorDB listens into the data directory (RUNNING); a
command that finds the directory locked by it connects there instead of starting a second one.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path

from falkordb import FalkorDB

from .embedded import Server, ServerError, from_environment, start
from .settings import Settings

RUNNING = "lighthouse.serve.json"


def external(settings: Settings) -> Server | None:
    if not settings.falkordb_url:
        return None
    host, port = from_environment({"FALKORDB_URL": settings.falkordb_url})
    server = Server(host, port)
    try:
        server.client().connection.ping()
    except Exception as error:  # noqa: BLE001 - said as a ServerError
        raise ServerError(f"the FalkorDB at {settings.falkordb_url} does not answer: {error}") from None
    return server


def started(settings: Settings) -> Server:
    """The server for `lighthouse serve`: the external one, else the embedded one on the data directory."""
    return external(settings) or start(data_dir=settings.data, fsync=settings.fsync)


def announce(server: Server, http_port: int, http_host: str = "127.0.0.1") -> Path | None:
    """Says in the data directory where the running server's FalkorDB listens and where its HTTP API
    does (embedded only)."""
    if server.data_dir is None:
        return None
    path = Path(server.data_dir) / RUNNING
    said = {"host": server.host, "port": server.port, "pid": os.getpid(), "http_port": http_port}
    path.write_text(json.dumps({**said, "http_host": http_host}))
    return path


def _running(data: str) -> tuple[str, int] | None:
    path = Path(data) / RUNNING
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
        found = json.loads(path.read_text())
        return found["host"], int(found["port"])
    return None


@contextlib.contextmanager
def opened(settings: Settings) -> Iterator[FalkorDB]:
    """A FalkorDB client for a command; an embedded server started for it is stopped (saved) after."""
    server = external(settings)
    if server is not None:
        yield server.client()
        return
    try:
        server = start(data_dir=settings.data, fsync=settings.fsync)
    except ServerError as error:
        if "in use" not in str(error):
            raise
        running = _running(settings.data)
        if running is None:
            raise ServerError(f"{error}; and it did not say where it listens ({RUNNING})") from None
        yield FalkorDB(host=running[0], port=running[1])
        return
    with server:
        yield server.client()
