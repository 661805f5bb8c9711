"""`lighthouse cluster start|stop|status`: a FalkorDB cluster on loopback (local_cluster.py) for
development and for trying the service on a cluster before running one across machines."""

from __future__ import annotations

import json
import sys

from .. import local_cluster
from ..embedded import ServerError

DEFAULT_FOLDER = "cluster"


def add(commands) -> None:
    cluster = commands.add_parser(
        "cluster",
        help="start, stop or show a local FalkorDB cluster (loopback, for development and tests)",
    )
    actions = cluster.add_subparsers(dest="action", required=True, metavar="ACTION")
    start = actions.add_parser(
        "start",
        help="start the cluster kept in --data (made there at the first start); print its seeds",
        description="Start masters x (1 + replicas) FalkorDB nodes on 127.0.0.1, each in a folder of --data, "
        "joined into one cluster; they run on after the command. Point serve at it with "
        "falkordb_cluster = the seeds it prints. A folder holding a stopped cluster starts it again.",
    )
    start.add_argument(
        "--masters",
        type=int,
        default=3,
        help="shards, each holding some tenants: a whole number from 1 (default 3)",
    )
    start.add_argument(
        "--replicas",
        type=int,
        default=1,
        help="replicas that follow each master: a whole number from 0 (default 1)",
    )
    start.add_argument(
        "--base-port",
        type=int,
        default=None,
        help="the first node's port, a whole number; the others follow it (default: free ports)",
    )
    start.add_argument(
        "--min-replicas-to-write",
        type=int,
        default=0,
        help="a master refuses writes while fewer replicas follow it: a whole number (default 0: never refuses)",
    )
    stop = actions.add_parser("stop", help="stop the cluster kept in --data, its data saved")
    status = actions.add_parser("status", help="each node of the cluster kept in --data: role, state, slots")
    for sub in (start, stop, status):
        sub.add_argument(
            "--data",
            default=DEFAULT_FOLDER,
            help=f"the folder the cluster keeps its nodes in, a path (default: ./{DEFAULT_FOLDER})",
        )
    start.set_defaults(run=run_start)
    stop.set_defaults(run=run_stop)
    status.set_defaults(run=run_status)


def run_start(arguments) -> int:
    cluster = local_cluster.start(
        arguments.masters,
        arguments.replicas,
        arguments.data,
        arguments.base_port,
        min_replicas_to_write=arguments.min_replicas_to_write,
        detached=True,
    )
    print(json.dumps({"state": "ok", "falkordb_cluster": ",".join(cluster.seeds)}))
    return 0


def _found(data: str) -> local_cluster.LocalCluster:
    cluster = local_cluster.found(data)
    if cluster is None:
        raise ServerError(
            f"there is no local cluster in {data[:200]!r}: `lighthouse cluster start --data` makes one"
        )
    return cluster


def run_stop(arguments) -> int:
    cluster = _found(arguments.data)
    running = sum(node.alive for node in cluster.nodes)
    cluster.stop()
    print(json.dumps({"stopped": running, "of": len(cluster.nodes)}))
    return 0


def run_status(arguments) -> int:
    said = _found(arguments.data).status()
    print(json.dumps(said))
    if said["state"] != "ok":
        print(f"lighthouse cluster: the cluster is {said['state']}", file=sys.stderr)
        return 1
    return 0
