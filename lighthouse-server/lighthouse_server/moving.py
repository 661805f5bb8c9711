"""Moving a whole installation (every tenant graph and the service's own graph) from one database to
another, typically from the embedded server to a cluster, and proving the copy equal.

Each graph is read in a stable order (nodes by id, then edges by id, each with its labels or type,
its endpoints and every property) into a sha256 (graph_digest): equal digests are equal graphs, ids
included. move() copies each graph by DUMP and RESTORE under its own name (on a cluster the key routes
it to the shard of its slot), then compares the digest of the copy with the source's. The source is
read twice, before and after its dump: a graph written meanwhile is refused, not moved half-known
(stop `lighthouse serve` first). Nothing is written while any graph of the same name is in the target,
unless replace.
"""

from __future__ import annotations

import hashlib
import json
import time

from falkordb import FalkorDB
from redis import exceptions as replies

from .backup import BackupError
from .database import answering_server, checked_host, server_named
from .embedded import Server, ServerError, checked_port
from .graph_backup import dumped, versions
from .topology import graph_names, is_cluster

CHUNK = 50_000  # node ids read per query: the rows of one chunk are held in memory
_LAST_NODE = "MATCH (n) RETURN max(id(n))"
_NODES = "MATCH (n) WHERE id(n) >= $low AND id(n) < $high RETURN id(n), labels(n), properties(n)"
_EDGES = (
    "MATCH (a)-[r]->(b) WHERE id(a) >= $low AND id(a) < $high "
    "RETURN id(r), type(r), id(a), id(b), properties(r)"
)


class MoveError(BackupError):
    """A move that was refused or whose copy differs; the message says which graph and what to do."""


def _rows(db, name: str, query: str, bounds: dict) -> list:
    """The rows of a read as the server sends them (--compact: each value with its type), unparsed: the
    same on both sides for the same graph, and read faster than through the client's objects."""
    text = f"CYPHER low={bounds['low']} high={bounds['high']} {query}"
    return db.connection.execute_command("GRAPH.RO_QUERY", name, text, "--compact")[1]


def _same(value: object) -> object:
    """A reply as text whatever the connection's protocol: a cluster's client answers a vector's numbers
    as floats where one server's answers them as text (15 significant digits)."""
    if isinstance(value, list):
        return [_same(item) for item in value]
    return f"{value:.15g}" if isinstance(value, float) else value


def graph_digest(db, name: str) -> dict:
    """{"nodes", "edges", "sha256"} of the graph name, read in a stable order: every node (id, labels,
    properties), then every edge (id, type, endpoints, properties), each value with its type as the
    server sends it (a double to 15 significant digits)."""
    last = db.select_graph(name).ro_query(_LAST_NODE).result_set[0][0]
    nodes, edges = [], []
    for low in range(0, -1 if last is None else last + 1, CHUNK):
        bounds = {"low": low, "high": low + CHUNK}
        nodes.extend(_rows(db, name, _NODES, bounds))
        edges.extend(_rows(db, name, _EDGES, bounds))
    digest = hashlib.sha256()
    for sort, rows in (("node", nodes), ("edge", edges)):
        for row in sorted(rows, key=lambda row: row[0][1]):  # [type, id]
            digest.update(json.dumps([sort, _same(row)], ensure_ascii=False).encode() + b"\n")
    return {"nodes": len(nodes), "edges": len(edges), "sha256": digest.hexdigest()}


def target_of(named: str) -> FalkorDB:
    """The database `--to` names: a redis:// URL (one server or any node of a cluster), or seed nodes
    host:port,host:port of a cluster, tried in turn. Raises ServerError."""
    named = named.strip()
    if named.startswith(("redis://", "falkor://", "falkordb://")):
        server = server_named({"FALKORDB_URL": named})
        return answering_server(server, f"at {server.host}:{server.port}").client()
    failures = []
    for seed in named.split(","):
        host, colon, port = seed.strip().rpartition(":")
        if not colon or not port.isdecimal():
            raise ServerError(f"--to names redis://host:port or host:port,host:port, not {seed[:80]!r}")
        server = Server(checked_host(host, "--to"), checked_port(int(port), "the port of --to"))
        try:
            return answering_server(server, f"at {server.host}:{server.port}").client()
        except ServerError as error:
            failures.append(str(error))
    raise ServerError("no node --to names answers: " + "; ".join(failures)[:1000])


def _run_ids(db) -> set[str]:
    if not is_cluster(db):
        return {db.connection.info("server")["run_id"]}
    return {node.redis_connection.info("server")["run_id"] for node in db.connection.get_primaries()}


def move(source, target, *, replace: bool = False, progress=None) -> dict:
    """Copies every graph of source into target (FalkorDB clients), each compared after.

    Returns {"graphs": [{"name", "nodes", "edges", "sha256", "replaced"}], "seconds", "topology"}.
    Refused before anything is written (MoveError): source and target are the same database, the
    target's graph module is older than the source's, or the target holds a graph of a moved name
    (unless replace). A graph written during its move, or whose copy differs, stops the move there
    with a MoveError that names it; the graphs moved before it stay, each compared equal.
    progress(name, done, total) is called after each graph."""
    began = time.monotonic()
    if _run_ids(source) & _run_ids(target):
        raise MoveError("the target is the source database itself: name another with --to")
    if versions(target)["falkordb"] < versions(source)["falkordb"]:
        raise MoveError("the target's FalkorDB is older than the source's: it cannot load its graphs")
    names = graph_names(source)
    present = set(graph_names(target))
    clashing = [name for name in names if name in present]
    if clashing and not replace:
        raise MoveError(
            f"the target already holds {len(clashing)} of the graphs ({', '.join(clashing[:5])}): "
            "nothing was written (give --replace to overwrite them)"
        )
    moved = []
    for name in names:
        moved.append(_moved(source, target, name, replace=name in present))
        if progress is not None:
            progress(name, len(moved), len(names))
    return {
        "graphs": moved,
        "seconds": round(time.monotonic() - began, 3),
        "topology": "cluster" if is_cluster(target) else "server",
    }


def _moved(source, target, name: str, *, replace: bool) -> dict:
    try:
        before = graph_digest(source, name)
        taken = dumped(source, name)
        if graph_digest(source, name) != before:
            raise MoveError(
                f"the graph {name!r} was written while it was moved: stop `lighthouse serve` and move "
                "again with --replace"
            )
        target.connection.restore(name, 0, taken["payload"], replace=replace)
        after = graph_digest(target, name)
    except replies.RedisError as error:
        raise MoveError(f"the graph {name!r} could not be moved: {error}") from None
    if after != before:
        raise MoveError(
            f"the copy of the graph {name!r} differs from it ({after['nodes']} nodes and {after['edges']} "
            f"edges there, {before['nodes']} and {before['edges']} here, or a property): it stays in "
            "the target for a look"
        )
    return {"name": name, **before, "replaced": replace}
