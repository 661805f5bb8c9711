"""`lighthouse demo` (the README's example) and `lighthouse server` (only the embedded FalkorDB)."""

from __future__ import annotations

import os
import signal
import sys
import threading

from ..access import PASSWORD_FILE
from ..database import connect_or_start

DEFAULT_GRAPH = "world"
DEFAULT_DATA = "data"


def graph_name(given: str | None = None) -> str:
    """The one setting that names the graph the demo reads and writes: --graph, else LIGHTHOUSE_GRAPH.
    Not a tenant's graph nor the service's own (their names hold a colon): the demo would write into them."""
    name = given or os.environ.get("LIGHTHOUSE_GRAPH") or DEFAULT_GRAPH
    if ":" in name:
        raise ValueError(
            f"the demo's graph may not be a tenant's or the service's (a name with ':'): {name!r}"
        )
    return name


def add(commands) -> None:
    demo = commands.add_parser(
        "demo", help="run the README's example on an embedded FalkorDB, persisted under --data"
    )
    server = commands.add_parser(
        "server", help="run only the embedded FalkorDB in the foreground until interrupted"
    )
    for sub in (demo, server):
        sub.add_argument(
            "--data",
            default=DEFAULT_DATA,
            help="the data directory of the embedded FalkorDB, a path (default: data)",
        )
        sub.add_argument(
            "--port",
            type=int,
            default=None,
            help="the port of the embedded FalkorDB, a whole number from 1 to 65535 (default: a free one)",
        )
    demo.add_argument(
        "--graph", default=None, help="the graph's name, text (default: LIGHTHOUSE_GRAPH, else world)"
    )
    demo.set_defaults(run=run_demo)
    server.set_defaults(run=run_server)


def run_demo(arguments) -> int:
    from ..demo import run

    with connect_or_start(data_dir=arguments.data, port=arguments.port) as server:
        run(server.client().select_graph(graph_name(arguments.graph)), out=sys.stdout)
    return 0


def run_server(arguments) -> int:
    with connect_or_start(data_dir=arguments.data, port=arguments.port) as server:
        where = f"FalkorDB on {server.host}:{server.port}"
        if server.data_dir is not None:  # its clients give the password the data directory holds
            where += f" (password in {server.data_dir / PASSWORD_FILE}), data in {server.data_dir}"
        print(f"{where}; Ctrl-C stops it", flush=True)
        stop = threading.Event()
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
        try:
            while not stop.wait(1.0):
                if server.process is not None and server.process.poll() is not None:
                    print("FalkorDB exited", file=sys.stderr)
                    return 1
        except KeyboardInterrupt:
            pass
    return 0
