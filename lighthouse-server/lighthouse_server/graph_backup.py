"""A backup of each graph on its own (DUMP of its key), taken from one server or a cluster, and its
restore (RESTORE) into one server or a cluster, whatever the topology it came from.

backup_graphs() asks every primary for its graphs (GRAPH.LIST answers only the node asked) and has the
node that holds each graph DUMP it inside one MULTI with the count of its nodes and edges, so that the
counts are of the dump's own instant. Each dump is a file of its own beside a manifest (manifest.json:
the format, the time, the topology, the FalkorDB and Redis versions, and per graph its name, file, size,
sha256, nodes and edges). Each graph is a copy of its own instant; two graphs are not copied at one
instant (the snapshot backup of backup.py is, on one server).

restore_graphs() checks everything before it writes anything: the manifest's form, each file's size and
sha256, a target whose graph module is no older than the one that wrote the dumps, and no graph of the
same name in the target unless replace. Then it RESTOREs each graph under its own name (on a cluster the
key routes it to the shard of its slot) and compares its counts with the manifest's. A dump restored
under another name keeps its old name inside (GRAPH.LIST shows that one), so a name is never changed,
and a manifest that names a dump after another graph is found out as that graph is restored: the
restore stops there and deletes the graphs it had created.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import time
from datetime import UTC, datetime
from pathlib import Path

from redis import ConnectionPool, Redis
from redis import exceptions as replies

from .backup import MANIFEST, BackupError, empty_directory, manifest_json, write_json
from .topology import graph_names, is_cluster

FORMAT = "lighthouse-graphs"  # the manifest's "format"; a snapshot backup's is the number 1
VERSION = 1
_FILE = re.compile(r"\Agraph-\d{4,9}\.dump\Z")  # a plain name in the backup directory, never a path
_SHA256 = re.compile(r"\A[0-9a-f]{64}\Z")
NODES = "MATCH (n) RETURN count(n)"
EDGES = "MATCH ()-[r]->() RETURN count(r)"


def _text(value: object) -> object:
    return value.decode() if isinstance(value, bytes) else value


def _servers(db) -> list[Redis]:
    """The plain connection of each primary (one server: itself)."""
    if not is_cluster(db):
        return [db.connection]
    return [node.redis_connection for node in db.connection.get_primaries()]


def versions(db) -> dict:
    """The oldest graph module and Redis versions among the primaries: what a dump may need of a target."""
    graph, server = [], []
    for connection in _servers(db):
        for entry in connection.module_list():
            entry = {_text(key): _text(value) for key, value in entry.items()}
            if entry.get("name") == "graph":
                graph.append(int(entry["ver"]))
        server.append(_text(connection.info("server")["redis_version"]))
    if not graph:
        raise BackupError("the database has no graph module: it is not a FalkorDB")
    return {"falkordb": min(graph), "redis": min(server, key=_version_tuple)}


def _version_tuple(text: str) -> tuple:
    return tuple(int(part) if part.isdecimal() else 0 for part in text.split("."))


def _holder(db, name: str) -> Redis:
    """A connection that answers in bytes to the node that holds the graph's key (a dump is bytes)."""
    node_client = db.connection
    if is_cluster(db):
        node_client = db.connection.get_node_from_key(name).redis_connection
    pool = node_client.connection_pool
    kwargs = {**pool.connection_kwargs, "decode_responses": False}
    return Redis(connection_pool=ConnectionPool(connection_class=pool.connection_class, **kwargs))


def dumped(db, name: str) -> dict:
    """The graph's DUMP and its node and edge counts, of one instant (one MULTI on the node holding it)."""
    connection = _holder(db, name)
    try:
        with connection.pipeline(transaction=True) as batch:
            batch.execute_command("GRAPH.RO_QUERY", name, NODES)
            batch.execute_command("GRAPH.RO_QUERY", name, EDGES)
            batch.execute_command("DUMP", name)
            nodes, edges, payload = batch.execute()
    finally:
        connection.close()
    if payload is None:
        raise BackupError(f"the graph {name!r} went away while it was copied")
    return {"payload": payload, "nodes": nodes[1][0][0], "edges": edges[1][0][0]}


def backup_graphs(db, destination_dir: str | Path) -> dict:
    """Copies every graph of db (one server or a cluster) into destination_dir (new or empty), each by
    DUMP of its key; returns the manifest (also written to destination_dir/manifest.json) with
    "directory" added. Raises BackupError; a failed backup leaves no manifest, so nothing restores it."""
    folder = empty_directory(destination_dir, "backup directory")
    began = time.time()
    said = versions(db)
    entries = []
    for index, name in enumerate(graph_names(db), start=1):
        try:
            taken = dumped(db, name)
        except replies.RedisError as error:
            raise BackupError(f"the graph {name!r} could not be copied: {error}") from None
        file = f"graph-{index:04d}.dump"
        (folder / file).write_bytes(taken["payload"])
        entries.append(
            {
                "name": name,
                "file": file,
                "bytes": len(taken["payload"]),
                "sha256": hashlib.sha256(taken["payload"]).hexdigest(),
                "nodes": taken["nodes"],
                "edges": taken["edges"],
            }
        )
    manifest = {
        "format": FORMAT,
        "version": VERSION,
        "created_at": _when(began),
        "finished_at": _when(time.time()),
        "topology": "cluster" if is_cluster(db) else "server",
        "versions": said,
        "graphs": entries,
    }
    write_json(folder / MANIFEST, manifest)
    return {**manifest, "directory": str(folder)}


def _when(seconds: float) -> str:
    return datetime.fromtimestamp(int(seconds), UTC).isoformat()


def is_graph_backup(backup_dir: str | Path) -> bool:
    """Whether backup_dir's manifest says a backup of this module (else: a snapshot, or nothing)."""
    try:
        return json.loads((Path(backup_dir) / MANIFEST).read_text(encoding="utf-8")).get("format") == FORMAT
    except (OSError, ValueError, AttributeError):
        return False


def read_backup(backup_dir: str | Path) -> dict:
    """The manifest of a graph backup, checked in form, and each graph's file against its size and sha256
    (read again, and checked again, as each is restored). Raises BackupError saying what is damaged."""
    folder = Path(backup_dir).resolve()
    manifest = manifest_json(folder)
    if type(manifest) is not dict or manifest.get("format") != FORMAT:
        raise BackupError(f"the {MANIFEST} of {folder} is not a graph backup's: the backup is damaged")
    if manifest.get("version") != VERSION:
        raise BackupError(f"the backup in {folder} is of version {manifest.get('version')!r}, not {VERSION}")
    _shaped(manifest, folder)
    for entry in manifest["graphs"]:
        _payload(folder, entry)
    return manifest


def _payload(folder: Path, entry: dict) -> bytes:
    """The dump of one graph of the backup, checked against the size and sha256 the manifest says."""
    try:
        payload = (folder / entry["file"]).read_bytes()
    except OSError as error:
        raise BackupError(
            f"the dump of the graph {entry['name']!r} ({entry['file']}) cannot be read: {error.strerror}"
        ) from None
    if (len(payload), hashlib.sha256(payload).hexdigest()) != (entry["bytes"], entry["sha256"]):
        raise BackupError(
            f"the dump of the graph {entry['name']!r} ({entry['file']}) is not the file its manifest "
            "describes: the backup is damaged"
        )
    return payload


def _shaped(manifest: dict, folder: Path) -> None:
    damaged = f"the {MANIFEST} of {folder} is damaged"
    versions_said = manifest.get("versions")
    if not (type(versions_said) is dict and type(versions_said.get("falkordb")) is int):
        raise BackupError(f"{damaged}: it does not say the FalkorDB version")
    if type(manifest.get("created_at")) is not str or type(manifest.get("graphs")) is not list:
        raise BackupError(f"{damaged}: it lacks created_at or graphs")
    names, files = set(), set()
    for entry in manifest["graphs"]:
        fields = entry if type(entry) is dict else {}
        good = (
            type(fields.get("name")) is str
            and 0 < len(fields["name"]) <= 1000
            and type(fields.get("file")) is str
            and _FILE.match(fields["file"])
            and type(fields.get("sha256")) is str
            and _SHA256.match(fields["sha256"])
            and all(
                type(fields.get(count)) is int and fields[count] >= 0 for count in ("bytes", "nodes", "edges")
            )
        )
        if not good or fields["name"] in names or fields["file"] in files:
            raise BackupError(f"{damaged}: a graph's entry is not of the right form ({str(entry)[:200]})")
        names.add(fields["name"])
        files.add(fields["file"])


def restore_graphs(db, backup_dir: str | Path, *, replace: bool = False) -> dict:
    """Restores every graph of the graph backup in backup_dir into db (one server or a cluster).

    Nothing is written unless every check passes: the backup is whole (read_backup), the target's
    graph module is no older than the backup's, and no graph of a restored name exists there unless
    replace. Returns {"created_at", "graphs": [{"name", "nodes", "edges", "replaced"}], "seconds"}.
    Raises BackupError; a restore that fails part way deletes the graphs it had created (those it
    replaced are said in the message)."""
    began = time.monotonic()
    backup = read_backup(backup_dir)
    target = versions(db)
    if target["falkordb"] < backup["versions"]["falkordb"]:
        raise BackupError(
            f"the backup was written by FalkorDB {backup['versions']['falkordb']}, newer than the "
            f"target's {target['falkordb']}: restore it into a FalkorDB as new"
        )
    present = set(graph_names(db))
    clashing = [entry["name"] for entry in backup["graphs"] if entry["name"] in present]
    if clashing and not replace:
        raise BackupError(
            f"the target already holds {len(clashing)} of the graphs ({', '.join(clashing[:5])}): "
            "nothing was written (give --replace to overwrite them)"
        )
    done: list[dict] = []
    try:
        for entry in backup["graphs"]:
            payload = _payload(Path(backup_dir).resolve(), entry)
            db.connection.restore(entry["name"], 0, payload, replace=entry["name"] in present)
            done.append({"name": entry["name"], "replaced": entry["name"] in present})
            _named_as_said(db, entry["name"])
            _compare_counts(db, entry)
            done[-1].update(nodes=entry["nodes"], edges=entry["edges"])
    except (replies.RedisError, BackupError) as error:
        _undone(db, done)
        replaced = [one["name"] for one in done if one["replaced"]]
        note = f"; already replaced: {', '.join(replaced)}" if replaced else ""
        raise BackupError(f"the restore stopped: {error}{note}") from None
    return {
        "created_at": backup["created_at"],
        "graphs": done,
        "seconds": round(time.monotonic() - began, 3),
    }


def _named_as_said(db, name: str) -> None:
    """Refuses a dump of another graph than the manifest names (restored, it keeps its own name inside:
    GRAPH.LIST of the node that holds the key would not show the name)."""
    if is_cluster(db):
        listed = db.connection.execute_command(
            "GRAPH.LIST", target_nodes=db.connection.get_node_from_key(name)
        )
    else:
        listed = db.connection.execute_command("GRAPH.LIST")
    if name not in {_text(one) for one in listed}:
        raise BackupError(
            f"the dump named {name!r} in the manifest holds another graph: the backup is mismatched"
        )


def _compare_counts(db, entry: dict) -> None:
    graph = db.select_graph(entry["name"])
    nodes = graph.ro_query(NODES).result_set[0][0]
    edges = graph.ro_query(EDGES).result_set[0][0]
    if (nodes, edges) != (entry["nodes"], entry["edges"]):
        raise BackupError(
            f"the restored graph {entry['name']!r} holds {nodes} nodes and {edges} edges, "
            f"the backup {entry['nodes']} and {entry['edges']}"
        )


def _undone(db, done: list[dict]) -> None:
    """Deletes the graphs a failed restore created (never one it replaced: that one is the backup's)."""
    for one in done:
        if not one["replaced"]:
            with contextlib.suppress(replies.RedisError):
                db.connection.delete(one["name"])
