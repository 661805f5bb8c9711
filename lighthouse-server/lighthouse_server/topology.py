"""The shape of the database a process uses: one server, or a Redis Cluster of FalkorDB shards.

On a cluster each graph is one key and lives whole on the shard of its hash slot; a key that carries
the hash tag of a tenant's graph ({tenant:<id>}) lives beside it. What asks "every graph" or "the
server" asks each primary: GRAPH.LIST answers only the graphs of the node asked.
"""

from __future__ import annotations

import contextlib
import time

from falkordb import Graph
from redis import Redis
from redis import exceptions as replies
from redis.backoff import NoBackoff
from redis.cluster import RedisCluster
from redis.retry import Retry


def is_cluster(db) -> bool:
    """Whether db (a FalkorDB client) talks to a Redis Cluster (the client wraps a RedisCluster)."""
    return hasattr(db.connection, "get_primaries")


def tagged(graph_name: str, key: str) -> str:
    """The name of a key that belongs to a graph: with the graph's hash tag, so that on a cluster it
    lives on the graph's shard (its writes go with the graph's, one shard's failover touches both)."""
    return f"{key}:{{{graph_name}}}"


def without_resends(db):
    """db, its cluster client (when it talks to a cluster) replaced by one that never sends a command
    twice and waits for a long query as a single server's client does. The FalkorDB client's own
    RedisCluster times out after 5 s and sends the command again: a write whose first run was still
    going ran two or three times. Redirects (MOVED, ASK) are still followed: the command did not run.
    A node that does not answer is a ConnectionError, which the service says as database_unavailable."""
    if not is_cluster(db):
        return db
    kwargs = db.connection.get_default_node().redis_connection.connection_pool.connection_kwargs
    first = db.connection.get_default_node()
    replaced = db.connection
    db.connection = RedisCluster(
        host=first.host,
        port=first.port,
        username=kwargs.get("username"),
        password=kwargs.get("password"),
        decode_responses=True,
        socket_timeout=None,
        socket_connect_timeout=5,
        retry=Retry(NoBackoff(), 0),
        require_full_coverage=False,
    )
    db.execute_command = db.connection.execute_command
    db.flushdb = db.connection.flushdb
    replaced.close()
    return db


def graph_names(db) -> list[str]:
    """Every graph of the database, sorted: on a cluster, GRAPH.LIST of each primary together."""
    if not is_cluster(db):
        return sorted(_text(name) for name in db.list_graphs())
    connection = db.connection
    answers = connection.execute_command("GRAPH.LIST", target_nodes=connection.get_primaries())
    if not isinstance(answers, dict):  # one primary: its own answer
        answers = {"one": answers}
    return sorted({_text(name) for names in answers.values() for name in names})


def on_each_primary(db, *command) -> dict[str, object]:
    """The command's answer from each primary (address -> answer); on one server, from it alone."""
    if not is_cluster(db):
        return {"server": db.connection.execute_command(*command)}
    connection = db.connection
    said = {}
    for node in connection.get_primaries():
        said[node.name] = connection.execute_command(*command, target_nodes=node)
    return said


def shards(db) -> list[dict]:
    """Each shard of a cluster: its slots and its nodes' addresses, roles and health, as CLUSTER SHARDS
    says it; for one server, one shard of every slot. Raises what the database raises."""
    if not is_cluster(db):
        db.connection.ping()
        return [{"slots": "0-16383", "nodes": [{"role": "master", "health": "online"}]}]
    connection = db.connection
    answer = None
    for node in connection.get_nodes():  # the first node that answers: any knows every shard
        with contextlib.suppress(replies.RedisError):
            answer = connection.execute_command("CLUSTER SHARDS", target_nodes=node)
            break
    if answer is None:
        raise replies.ConnectionError("no node of the cluster answers")
    found = []
    for shard in answer:
        slots = shard["slots"]
        ranges = ",".join(f"{slots[i]}-{slots[i + 1]}" for i in range(0, len(slots), 2))
        nodes = [
            {
                "address": f"{node.get('endpoint') or node.get('ip')}:{node.get('port')}",
                "role": node.get("role"),
                "health": node.get("health"),
            }
            for node in shard["nodes"]
        ]
        if slots:
            found.append({"slots": ranges, "nodes": sorted(nodes, key=lambda one: one["role"] != "master")})
    return sorted(found, key=lambda shard: int(shard["slots"].split("-")[0]))


def health(db) -> dict:
    """The topology and the state of each shard: "ok" when every shard has a master online, "degraded"
    when one has none (its tenants' calls are refused until a replica takes over), "unreachable"."""
    try:
        found = shards(db)
    except Exception:  # noqa: BLE001 - any failure to answer is "unreachable"
        return {"status": "degraded", "database": "unreachable", "topology": _name(db)}
    for shard in found:
        led = any(node["role"] == "master" and node["health"] == "online" for node in shard["nodes"])
        shard["state"] = "ok" if led else "no_master"
    whole = all(shard["state"] == "ok" for shard in found)
    said = {"status": "ok" if whole else "degraded", "database": "ok" if whole else "degraded"}
    said["topology"] = _name(db)
    if is_cluster(db):
        said["shards"] = found
    return said


def replicated(db, graph_name: str, wanted: int, wait_ms: int) -> int:
    """How many replicas of the graph's server hold every write acknowledged so far (at most wanted),
    waiting up to wait_ms for wanted of them. WAIT counts the writes of the connection it is sent on,
    so a marker key beside the graph is written and WAIT sent on one connection of that server: the
    replication stream is in order, so a replica that holds the marker holds every write before it."""
    marker = tagged(graph_name, "lighthouse:replicated")
    cluster = is_cluster(db)
    server = db.connection.get_node_from_key(graph_name).redis_connection if cluster else db.connection
    pipe = server.pipeline(transaction=False)  # one connection for both commands
    pipe.set(marker, "1", px=60_000)
    pipe.execute_command("WAIT", wanted, wait_ms)
    return min(int(pipe.execute()[-1]), wanted)


class _ReplicaClient:
    """What a falkordb Graph sends its queries through, on a replica of the graph's shard (READONLY
    on each of its connections: a replica answers GRAPH.RO_QUERY then, and redirects anything else)."""

    def __init__(self, address: str, kwargs: dict) -> None:
        def read_only(connection) -> None:
            connection.on_connect()
            connection.send_command("READONLY")
            connection.read_response()

        host, _, port = address.rpartition(":")
        self.connection = Redis(
            host=host,
            port=int(port),
            username=kwargs.get("username"),
            password=kwargs.get("password"),
            decode_responses=True,
            redis_connect_func=read_only,
        )
        self.execute_command = self.connection.execute_command


_replicas: dict[str, _ReplicaClient] = {}
_followers: dict[str, tuple[float, str | None]] = {}  # master -> (when asked, an online replica of it)
FOLLOWERS_FOR_S = 5.0  # how long the replica found for a master is used before CLUSTER SHARDS again


def on_replica(db, graph_name: str):
    """The graph, read on an online replica of its shard; None on one server or a shard without one
    (a replica that has received no write since its sync says "loading" and is not used). Found by
    CLUSTER SHARDS, asked again every FOLLOWERS_FOR_S; the client's slot map, from CLUSTER SLOTS, leaves
    such replicas out."""
    if not is_cluster(db):
        return None
    primary = db.connection.get_node_from_key(graph_name)
    asked, address = _followers.get(primary.name, (0.0, None))
    if time.monotonic() - asked > FOLLOWERS_FOR_S:
        address = None
        for shard in shards(db):
            if any(node["address"] == primary.name and node["role"] == "master" for node in shard["nodes"]):
                online = [
                    n["address"] for n in shard["nodes"] if n["role"] == "replica" and n["health"] == "online"
                ]
                address = online[0] if online else None
        _followers[primary.name] = (time.monotonic(), address)
    if address is None:
        return None
    client = _replicas.get(address)
    if client is None:
        kwargs = primary.redis_connection.connection_pool.connection_kwargs
        client = _replicas.setdefault(address, _ReplicaClient(address, kwargs))
    return Graph(client, graph_name)


def _name(db) -> str:
    return "cluster" if is_cluster(db) else "single"


def _text(name: object) -> str:
    return name.decode() if isinstance(name, bytes) else str(name)
