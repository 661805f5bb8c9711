"""The `lighthouse` command: `lighthouse demo` runs the example on an embedded FalkorDB; `lighthouse server` keeps one up."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading

from .embedded import ServerError, connect_or_start

DEFAULT_GRAPH = "world"
DEFAULT_DATA = "data"


def graph_name(given: str | None = None) -> str:
    """The one setting that names the graph every path reads and writes: --graph, else LIGHTHOUSE_GRAPH."""
    return given or os.environ.get("LIGHTHOUSE_GRAPH") or DEFAULT_GRAPH


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="lighthouse", description="Lighthouse: temporal graph memory on FalkorDB."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser(
        "demo", help="run the README's example on an embedded FalkorDB, persisted under --data"
    )
    server = commands.add_parser(
        "server", help="run the embedded FalkorDB in the foreground until interrupted"
    )
    for sub in (demo, server):
        sub.add_argument(
            "--data", default=DEFAULT_DATA, help="data directory of the embedded FalkorDB (default: data)"
        )
        sub.add_argument(
            "--port", type=int, default=None, help="port of the embedded FalkorDB (default: a free one)"
        )
    demo.add_argument("--graph", default=None, help="graph name (default: LIGHTHOUSE_GRAPH, else world)")
    return parser


def _serve(server) -> int:
    print(f"FalkorDB on {server.host}:{server.port}, data in {server.data_dir}; Ctrl-C stops it", flush=True)
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


def main(argv: list[str] | None = None) -> int:
    arguments = _parser().parse_args(argv)
    try:
        server = connect_or_start(data_dir=arguments.data, port=arguments.port)
    except ServerError as error:
        print(f"lighthouse: {error}", file=sys.stderr)
        return 2
    with server:
        if arguments.command == "server":
            return _serve(server)
        from .demo import run

        run(server.client().select_graph(graph_name(arguments.graph)), out=sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
