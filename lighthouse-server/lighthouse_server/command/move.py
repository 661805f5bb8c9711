"""`lighthouse move --to TARGET`: the whole installation (every tenant graph and the service's graph)
copied from the database the settings name (the embedded server on --data by default) into another
(a cluster, typically), each graph compared after (moving.py), and what was done said."""

from __future__ import annotations

import json
import sys

from ..database import opened
from .options import add_common, settings_of
from .transfer import audited


def add(commands) -> None:
    move = commands.add_parser(
        "move",
        help="copy every graph from this installation's database into another (a cluster), compared after",
        description="Copy every tenant graph and the service's graph from the database the settings name "
        "(the embedded server on --data by default) into the database --to names, compare each copy "
        "with its source (nodes, edges and every property), and say what was done. Stop "
        "`lighthouse serve` first: a graph written during its move is refused.",
    )
    move.add_argument(
        "--to",
        required=True,
        help="the target: redis://host:port (a server, or any node of a cluster) or a cluster's seeds "
        "host:port,host:port",
    )
    move.add_argument(
        "--replace", action="store_true", help="overwrite graphs of the same name there (default: refuse)"
    )
    add_common(move)
    move.set_defaults(run=run_move)


def run_move(arguments) -> int:
    from ..backup import BackupError

    try:
        return _move(arguments)
    except BackupError as error:
        print(f"lighthouse move: {error}", file=sys.stderr)
        return 2


def _move(arguments) -> int:
    from ..moving import move, target_of

    target = target_of(arguments.to)

    def said(name: str, done: int, total: int) -> None:
        print(f"moved {done}/{total}: {name}", file=sys.stderr)

    with opened(settings_of(arguments), reading=True) as source:
        report = move(source, target, replace=arguments.replace, progress=said)
    moved = [one["name"] for one in report["graphs"]]
    audited(target, moved, "moved", {"to": report["topology"], "graphs": len(moved)})
    nodes = sum(one["nodes"] for one in report["graphs"])
    edges = sum(one["edges"] for one in report["graphs"])
    print(
        f"moved {len(moved)} graphs ({nodes} nodes, {edges} edges) to the {report['topology']} in "
        f"{report['seconds']} s; each copy compared equal to its source (nodes, edges, every property)",
        file=sys.stderr,
    )
    print(json.dumps(report))
    return 0
