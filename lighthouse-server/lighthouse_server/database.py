"""The FalkorDB a process uses: an external one (falkordb_url, or the environment's FALKORDB_URL,
FALKORDB_HOST and FALKORDB_PORT), the embedded one of a running `lighthouse serve` on the data
directory, or an embedded one started here.

`lighthouse serve` writes where its embedded FalkorDB listens into the data directory (RUNNING); a
command that finds the directory locked by it connects there instead of starting a second one, with
the directory's password (access.py). An external server's password is in FALKORDB_URL
(redis://:password@host:port, or redis://user:password@host:port), or in FALKORDB_PASSWORD beside
FALKORDB_HOST and FALKORDB_PORT; no message says it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote, urlparse

from falkordb import FalkorDB

from .access import AccessError, owner_file, password_of
from .embedded import DataDirectoryInUse, Server, ServerError, checked_port, start
from .settings import Settings

RUNNING = "lighthouse.serve.json"
_HOST = re.compile(r"\A[A-Za-z0-9._:\[\]-]{1,253}\Z")


def external(settings: Settings) -> Server | None:
    """The FalkorDB that falkordb_url or falkordb_cluster names (a server or any node of a cluster: the
    client finds the cluster's nodes from it), once it answers; None when neither is set."""
    if settings.falkordb_cluster:
        return _seed(settings.falkordb_cluster)
    if not settings.falkordb_url:
        return None
    named = server_named({"FALKORDB_URL": settings.falkordb_url})
    return answering_server(named, f"at {named.host}:{named.port}")


def _seed(seeds: str) -> Server:
    """The first seed node of falkordb_cluster that answers, with FALKORDB_PASSWORD (and
    FALKORDB_USERNAME) of the environment when the cluster requires one; else ServerError naming all."""
    failures = []
    for seed in seeds.split(","):
        host, _, port = seed.strip().rpartition(":")
        named = Server(
            checked_host(host, "falkordb_cluster"),
            checked_port(int(port), "port of falkordb_cluster"),
            password=os.environ.get("FALKORDB_PASSWORD") or None,
            username=os.environ.get("FALKORDB_USERNAME") or None,
        )
        try:
            return answering_server(named, f"at {named.host}:{named.port}")
        except ServerError as error:
            failures.append(str(error))
    raise ServerError("no seed node of falkordb_cluster answers: " + "; ".join(failures)[:1000])


def answering_server(server: Server, named: str) -> Server:
    """The external server, once it answers; else ServerError, saying which one was named."""
    try:
        server.client().connection.ping()
    except Exception as error:  # noqa: BLE001 - said as a ServerError
        raise ServerError(f"the FalkorDB {named} does not answer: {error}") from None
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
    owner_file(path, json.dumps({**said, "http_host": http_host}))
    return path


def _running(data: str) -> tuple[str, int] | None:
    path = Path(data) / RUNNING
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
        found = json.loads(path.read_text())
        return found["host"], int(found["port"])
    return None


@contextlib.contextmanager
def opened(settings: Settings, *, reading: bool = False) -> Iterator[FalkorDB]:
    """A FalkorDB client for a command; an embedded server started for it is stopped (saved) after.

    reading: the command only reads, so a data directory that does not exist is a ServerError rather
    than a new empty database there (a mistyped --data would otherwise answer "nothing" from it)."""
    server = external(settings)
    if server is not None:
        yield server.client()
        return
    if reading and not Path(settings.data).is_dir():
        raise ServerError(
            f"there is no data directory {str(settings.data)[:200]!r}: nothing to read there "
            "(give --data, or make one with `lighthouse serve` or `lighthouse demo`)"
        )
    try:
        server = start(data_dir=settings.data, fsync=settings.fsync)
    except DataDirectoryInUse as error:
        running = _running(settings.data)
        if running is None:
            raise ServerError(f"{error}; and it did not say where it listens ({RUNNING})") from None
        try:
            password = password_of(Path(settings.data))
        except AccessError as denied:
            raise ServerError(str(denied)) from None
        yield FalkorDB(host=running[0], port=running[1], password=password)
        return
    with server:
        yield server.client()


def checked_host(host: str, what: str) -> str:
    """host, when it is a host name or address; else ServerError naming `what` gave it."""
    if not _HOST.match(host):
        raise ServerError(f"{what} must be a host name or address, not {host[:80]!r}")
    return host


def from_environment(environ: dict[str, str] | None = None) -> tuple[str, int] | None:
    """The server FALKORDB_URL, or FALKORDB_HOST and FALKORDB_PORT, name (None if none): never a guess."""
    named = server_named(environ)
    return None if named is None else (named.host, named.port)


def server_named(environ: dict[str, str] | None = None) -> Server | None:
    """The external server the environment names, with its password; None if none. ServerError."""
    environ = dict(os.environ if environ is None else environ)
    url = environ.get("FALKORDB_URL", "").strip()
    if url:
        try:
            parsed = urlparse(url)
            port = parsed.port
        except ValueError:
            raise ServerError(f"FALKORDB_URL has a port that is not a number: {_hidden(url)!r}") from None
        if parsed.scheme not in ("redis", "falkor", "falkordb") or not parsed.hostname:
            raise ServerError(f"FALKORDB_URL must look like redis://host:port, not {_hidden(url)!r}")
        if parsed.username and parsed.password is None:
            raise ServerError("FALKORDB_URL names a user without a password: redis://user:password@host:port")
        if parsed.path not in ("", "/", "/0") or parsed.query or parsed.fragment:
            raise ServerError(
                f"FALKORDB_URL must be redis://host:port with nothing after it, not {_hidden(url)!r}"
            )
        port = checked_port(6379 if port is None else port, "port of FALKORDB_URL")
        return Server(
            checked_host(parsed.hostname, "FALKORDB_URL"),
            port,
            password=unquote(parsed.password) if parsed.password else None,
            username=unquote(parsed.username) if parsed.username else None,
        )
    host = environ.get("FALKORDB_HOST", "").strip()
    port_text = environ.get("FALKORDB_PORT", "").strip()
    if not host and not port_text:
        return None
    if port_text and not (port_text.isdecimal() and port_text.isascii()):
        raise ServerError(f"FALKORDB_PORT must be a number from 1 to 65535, not {port_text[:80]!r}")
    port = checked_port(int(port_text), "FALKORDB_PORT") if port_text else 6379
    return Server(
        checked_host(host or "127.0.0.1", "FALKORDB_HOST"),
        port,
        password=environ.get("FALKORDB_PASSWORD") or None,
    )


def _hidden(url: str) -> str:
    """The URL as a message may show it: its password replaced by ***."""
    head, at, tail = url.rpartition("@")
    if not at:
        return url
    scheme, _, user = head.partition("://")
    return f"{scheme}://{user.partition(':')[0]}:***@{tail}"


def connect_or_start(data_dir: str | Path | None = None, port: int | None = None, **start_options) -> Server:
    """The external server the environment names, checked; otherwise an embedded one (start()'s options)."""
    named = server_named()
    if named is None:
        return start(port=port, data_dir=data_dir, **start_options)
    return answering_server(named, "the environment names")
