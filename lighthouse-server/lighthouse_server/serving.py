"""`lighthouse serve`: the HTTP API, MCP over streamable HTTP and /health on one port (uvicorn).

On SIGINT or SIGTERM uvicorn stops taking connections and lets the requests in flight finish; then
the embedded FalkorDB is shut down with a save. The FalkorDB child dies with this process even on a
kill -9 (embedded.start()), so the next start on the same data directory works; a child that dies
alone is started again (supervision.py).
"""

from __future__ import annotations

import contextlib
import gc
import importlib.util
import logging
import signal
import socket
from contextlib import asynccontextmanager

import uvicorn

from . import keys, readiness, topology
from .api import BodyLimit, build
from .database import announce, started
from .declarations import Kinds
from .embedders import Configured
from .mcp import http_app
from .mcp.refusals import OneShape
from .parts import Parts
from .problems import InvalidArgument
from .service import Service
from .settings import Settings
from .supervision import Supervisor

GRACE_SECONDS = 30  # how long a stop waits for the requests in flight
_log = logging.getLogger(__name__)


def application(service: Service, parts: Parts):
    """One ASGI app: /mcp to the MCP server, everything else to the HTTP API; one body limit for both.
    The console and the MCP server are handed the parts they read beside the service that runs calls."""
    settings = parts.settings
    mcp_app = http_app(service, parts)

    @asynccontextmanager
    async def lifespan(_app):
        async with mcp_app.router.lifespan_context(mcp_app):
            yield

    api = build(service, parts, lifespan=lifespan)
    mcp_answers = OneShape(mcp_app)  # the transport's own refusals in the one error shape

    async def dispatch(scope, receive, send):
        path = scope.get("path", "")
        if scope["type"] == "http" and (path == "/mcp" or path.startswith("/mcp/")):
            return await mcp_answers(scope, receive, send)
        return await api(scope, receive, send)

    return BodyLimit(dispatch, settings.body_limit, settings.body_timeout_s)


def _held_port(host: str, port: int) -> socket.socket:
    """The service's port, bound and held until uvicorn serves on it: taken before the embedded FalkorDB
    picks a free port of its own (which could otherwise be this one). InvalidArgument when it is taken."""
    held = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    held.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds it
    try:
        held.bind((host, port))
    except OSError as error:
        held.close()
        raise InvalidArgument(
            f"{host}:{port} is taken ({error.strerror}): stop what listens there or choose another port"
        ) from None
    return held


def _fastest(module: str) -> str:
    """The C implementation uvicorn can use when it is installed, else uvicorn's own choice."""
    return module if importlib.util.find_spec(module) is not None else "auto"


def _stop_now(_signal, _frame) -> None:
    raise KeyboardInterrupt


def _workers(server, settings: Settings, kinds: Kinds, embedder: Configured, say):
    """The workers' loop on a FalkorDB connection of its own, started when it has a phase to run; it
    holds the serve's kinds, so its schema changes take the same tenants' gates as the requests."""
    from .worker.loop import Loop

    workers = Loop(settings, server.client(), kinds=kinds, embedder=embedder)
    say(f"workers: {workers.describe()}", flush=True)
    if not workers.runs_anything:
        return None
    return workers.start()


def serve(settings: Settings, *, say=print) -> int:
    readiness.check(settings)  # an embedder or model configured but unusable: refused before anything starts
    # Until uvicorn takes the signals, and once it has given them back (it raises the one it caught
    # again), a signal ends the start or the run here, so the finally below always stops FalkorDB.
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, _stop_now)
    # Before the banner, and before anything starts: a taken port is said at once.
    listening = _held_port(settings.host, settings.port)
    try:
        server = started(settings)
    except BaseException:
        listening.close()
        raise
    announced = None
    workers = None
    supervisor = Supervisor(server, fsync=settings.fsync, say=say).start() if server.process else None
    try:
        db = server.client()
        keys.ensure_service_schema(db)
        embedder = Configured(settings)
        kinds = Kinds(db, entry_dimensions=embedder.dimensions)
        workers = _workers(server, settings, kinds, embedder, say)
        noted = workers.wake if workers is not None else None
        parts = Parts.built(db, settings, kinds=kinds, embedder=embedder, noted=noted)
        service = Service(parts)
        config = uvicorn.Config(
            application(service, parts),
            host=settings.host,
            port=settings.port,
            lifespan="on",
            # httptools parses HTTP in C and uvloop runs the loop on libuv: the pure-Python h11 parser
            # and asyncio loop cost about half of a small request's time on the server.
            http=_fastest("httptools"),
            loop=_fastest("uvloop"),
            timeout_graceful_shutdown=GRACE_SECONDS,
            log_level="warning",
            access_log=False,
        )
        web = uvicorn.Server(config)
        announced = announce(server, settings.port, settings.host)
        shape = "FalkorDB cluster through" if topology.is_cluster(db) else "FalkorDB at"
        where = f"data in {server.data_dir}" if server.data_dir else f"{shape} {server.host}:{server.port}"
        say(
            f"Lighthouse on http://{settings.host}:{settings.port} (API /v1, MCP /mcp, docs /docs, console /console); {where}",
            flush=True,
        )
        # What the start made (modules, the app, its routes and templates) lives as long as the process:
        # kept out of the collector's sight, a full collection walks only what requests made. A console
        # page of 1,000 States took 160 ms on the server, or 270 when a full collection fell in it.
        gc.collect()
        gc.freeze()
        with contextlib.suppress(KeyboardInterrupt):
            web.run(sockets=[listening])
        return 0 if web.started else 1
    except KeyboardInterrupt:
        return 0
    finally:
        listening.close()
        for number in (signal.SIGINT, signal.SIGTERM):
            signal.signal(number, signal.SIG_IGN)
        if workers is not None:
            workers.stop()  # before FalkorDB goes: a worker stops between two notes
        if announced is not None:
            with contextlib.suppress(OSError):
                announced.unlink()
        if supervisor is not None:
            supervisor.stop()  # no start again of what is being stopped
        else:
            server.stop()
        # Only the embedded server is this process's to save; an external one or a cluster runs on.
        said = (
            "the database was saved" if server.process else "the database runs on, saved by its own settings"
        )
        say(f"stopped; {said}", flush=True)
