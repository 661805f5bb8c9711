"""A snapshot of one whole server, of one instant, taken while it runs and takes writes; and its restore.

For one server on this machine only (`lighthouse backup --snapshot`): on a cluster BGSAVE reaches one
shard, so it is refused there; graph_backup.py copies each graph by itself on any topology.

backup() has the server write a snapshot (BGSAVE: a forked child writes the data as of one instant, so
writes go on meanwhile), waits for it, and copies the file it wrote into a directory of its own with a
manifest (manifest.json: the time, the graphs and keys at that instant, the file's size and sha256). The
server's files must be on this machine: backup runs where FalkorDB runs. (A server without a data
directory writes its snapshot to the shared temporary directory, where another such server's snapshot
could replace it: back up servers that have a data directory of their own.)

restore() puts such a copy into an empty data directory so that `embedded.start(data_dir=...)` serves
exactly its data. The embedded server runs with the append-only file on, and a Redis 8 server with the
append-only file on ignores dump.rdb at start. So the snapshot becomes the base of a multi-part
append-only file: appendonlydir/appendonly.aof.1.base.rdb, named by a manifest that lists only that
base. The server loads it, adds the incremental file itself, and rewrites both as usual later.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import IO

from falkordb import FalkorDB
from redis import Redis
from redis import exceptions as replies

from .access import owner_only
from .embedded import Server, ServerError, start
from .problems import InvalidArgument

MANIFEST = "manifest.json"
SNAPSHOT = "database.rdb"
FORMAT = 1  # of the manifest: restore refuses another
# What Redis 8 expects in a data directory (its defaults, which embedded.start keeps).
AOF_DIRECTORY = "appendonlydir"
AOF_BASE = "appendonly.aof.1.base.rdb"
AOF_MANIFEST = "appendonly.aof.manifest"
CHUNK = 1024 * 1024
_COUNT_NODES = "MATCH (n) RETURN count(n)"
_COUNT_EDGES = "MATCH ()-[r]->() RETURN count(r)"
_CHILD_RUNNING = ("rdb_bgsave_in_progress", "aof_rewrite_in_progress", "module_fork_in_progress")


class BackupError(InvalidArgument, RuntimeError):
    """A backup or restore that could not be done; the message says why and what to do."""


def _connection(client_or_server: object) -> Redis:
    """The plain connection of an embedded or external Server, a FalkorDB client or a Redis connection."""
    if isinstance(client_or_server, Server):
        return client_or_server.connection(timeout=30.0)
    if isinstance(client_or_server, FalkorDB):
        if not isinstance(client_or_server.connection, Redis):  # BGSAVE would reach one shard only
            raise BackupError(
                "a snapshot copies one server, and this is a cluster: back it up graph by graph "
                "(graph_backup.py, `lighthouse backup DIR` without --snapshot)"
            )
        return client_or_server.connection
    if isinstance(client_or_server, Redis):
        return client_or_server
    raise BackupError(
        f"back up a Server, a FalkorDB client or a Redis connection, not {type(client_or_server)}"
    )


def empty_directory(path: str | Path, what: str) -> Path:
    """The directory, created; refused unless it is new or empty, so nothing is ever overwritten."""
    folder = Path(path).resolve()
    if folder.exists() and not folder.is_dir():
        raise BackupError(f"the {what} {folder} is a file, not a directory")
    if folder.is_dir() and any(folder.iterdir()):
        raise BackupError(f"the {what} {folder} is not empty: give a new or empty directory")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        owner_only(folder)  # a copy of every tenant's data and the keys' hashes: its owner's alone
    except OSError as error:
        raise BackupError(f"the {what} {folder} cannot be created: {error.strerror or error}") from None
    return folder


def _settled(connection: Redis, deadline: float) -> None:
    """Waits until no child of the server writes: BGSAVE would only be scheduled, at a later instant."""
    while any(connection.info("persistence").get(field) for field in _CHILD_RUNNING):
        if time.monotonic() > deadline:
            raise BackupError("the server kept writing a snapshot or rewrite of its own: try again later")
        time.sleep(0.05)


def _started_snapshot(connection: Redis, deadline: float) -> dict:
    """BGSAVE once no child of the server writes (one waiting for another is only scheduled, at a
    later instant); the time, and the graphs before it. Inside MULTI, Redis only schedules a BGSAVE,
    so nothing read here is of the snapshot's own instant: the check of backup() reads that."""
    while True:
        _settled(connection, deadline)
        saves = connection.info("persistence")["rdb_saves"]
        seconds, _ = connection.time()
        try:
            connection.execute_command("BGSAVE")
            return {"saves": saves, "at": seconds}
        except replies.ResponseError as error:
            if "progress" not in str(error):  # another child started meanwhile: wait for it
                raise BackupError(f"the server refused to write a snapshot: {error}") from None
        if time.monotonic() > deadline:
            raise BackupError("the server did not start a snapshot in time: try again later")
        time.sleep(0.05)


def _finished(connection: Redis, saves_before: int, deadline: float) -> int:
    """Waits for the snapshot; the number of saves once it is written (ours is the last of them)."""
    while True:
        persistence = connection.info("persistence")
        if not persistence["rdb_bgsave_in_progress"]:
            if persistence["rdb_saves"] > saves_before:
                return persistence["rdb_saves"]
            if persistence["rdb_last_bgsave_status"] != "ok":
                raise BackupError("the server failed to write its snapshot: see its log (falkordb.log)")
        if time.monotonic() > deadline:
            raise BackupError("the snapshot took longer than the time allowed: it goes on in the server")
        time.sleep(0.05)


def _copied(source: IO[bytes], target: Path) -> dict:
    """Copies an open file to target (written beside it, synced, then renamed): its size and sha256."""
    digest, size = hashlib.sha256(), 0
    partial = target.with_name(target.name + ".partial")
    try:
        with partial.open("wb") as out:
            while chunk := source.read(CHUNK):
                digest.update(chunk)
                out.write(chunk)
                size += len(chunk)
            out.flush()
            os.fsync(out.fileno())
        partial.replace(target)
    finally:  # a full disk leaves no half file (it kept a retry out of the directory as "not empty")
        partial.unlink(missing_ok=True)
    return {"bytes": size, "sha256": digest.hexdigest()}


def _text(value: object) -> object:
    return value.decode() if isinstance(value, bytes) else value


def _versions(connection: Redis) -> dict:
    """The server's and the graph module's versions, for whoever restores it later."""
    modules = [
        {_text(key): _text(value) for key, value in entry.items()} for entry in connection.module_list()
    ]
    graph = [entry["ver"] for entry in modules if entry.get("name") == "graph"]
    return {
        "redis": _text(connection.info("server")["redis_version"]),
        "falkordb": graph[0] if graph else None,
    }


def backup(
    client_or_server: object, destination_dir: str | Path, *, wait: float = 600.0, check: bool = True
) -> dict:
    """Copies the whole database, as of one instant, into destination_dir (new or empty); returns its manifest.

    The server goes on taking writes: its snapshot is written by a forked child (BGSAVE). The manifest
    {"format", "created_at", "checked", "graphs", "keys", "counts", "versions", "files"} is written to
    destination_dir/manifest.json; the report adds "directory". check: load the copy into a throwaway
    embedded server first (it needs as much memory as the database) and read from it the graphs, the
    keys and each graph's {"nodes", "edges"}: a backup that does not load is never kept. Without check,
    "graphs" are those listed before the snapshot, "keys" and "counts" None. wait: seconds allowed.
    Raises BackupError when the server's files are not on this machine or a snapshot fails; a failed
    backup leaves no manifest, so it can never be restored by mistake.
    """
    connection = _connection(client_or_server)
    try:
        return _backup(connection, empty_directory(destination_dir, "backup directory"), wait, check)
    finally:
        if isinstance(client_or_server, Server):  # the connection is ours, not the caller's
            connection.close()


def _backup(connection: Redis, folder: Path, wait: float, check: bool) -> dict:
    deadline = time.monotonic() + wait
    where = connection.config_get("dir")["dir"]
    snapshot_file = Path(where) / connection.config_get("dbfilename")["dbfilename"]
    for attempt in range(3):
        listed = _graph_names(connection)
        taken = _started_snapshot(connection, deadline)
        saves = _finished(connection, taken["saves"], deadline)
        try:
            source = snapshot_file.open("rb")
        except OSError as error:
            raise BackupError(
                f"the server's snapshot {snapshot_file} cannot be read here ({error.strerror or error}): "
                "run the backup on the machine where FalkorDB runs"
            ) from None
        with source:
            # Another save renamed over the file between ours and the open: take a new one (rare).
            if connection.info("persistence")["rdb_saves"] != saves and attempt < 2:
                continue
            files = {SNAPSHOT: _copied(source, folder / SNAPSHOT)}
        break
    manifest = {
        "format": FORMAT,
        "created_at": datetime.fromtimestamp(int(taken["at"]), UTC).isoformat(),
        "checked": check,
        "graphs": listed,
        "keys": None,
        "counts": None,
        "versions": _versions(connection),
        "files": files,
    }
    if check:
        try:
            with tempfile.TemporaryDirectory(prefix=".check-", dir=folder) as trial:
                _laid_out(folder / SNAPSHOT, Path(trial))
                manifest.update(_loaded(Path(trial)))
        except BaseException:
            (folder / SNAPSHOT).unlink(missing_ok=True)
            raise
    write_json(folder / MANIFEST, manifest)
    return {**manifest, "directory": str(folder)}


def _graph_names(connection: Redis) -> list[str]:
    return sorted(
        name.decode() if isinstance(name, bytes) else name
        for name in connection.execute_command("GRAPH.LIST")
    )


def write_json(path: Path, content: dict) -> None:
    """content as JSON at path, written whole or not at all (a file beside it, synced, then renamed)."""
    partial = path.with_name(path.name + ".partial")
    with partial.open("w", encoding="utf-8") as out:
        json.dump(content, out, indent=2, sort_keys=True)
        out.write("\n")
        out.flush()
        os.fsync(out.fileno())
    partial.replace(path)


def manifest_json(folder: Path) -> object:
    """What folder/manifest.json holds (of either kind of backup); BackupError when it is not JSON."""
    try:
        return json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except OSError as error:
        raise BackupError(f"{folder} holds no backup: {MANIFEST} cannot be read ({error.strerror})") from None
    except ValueError:
        raise BackupError(f"the {MANIFEST} of {folder} is not JSON: the backup is damaged") from None


def read_manifest(backup_dir: str | Path) -> dict:
    """The manifest of a backup, its snapshot checked against the size and sha256 it records."""
    folder = Path(backup_dir).resolve()
    manifest = manifest_json(folder)
    if type(manifest) is not dict or manifest.get("format") != FORMAT:
        raise BackupError(
            f"the backup in {folder} is not of format {FORMAT}: restore it with its own version"
        )
    _shaped(manifest, folder)
    expected = manifest["files"][SNAPSHOT]
    try:
        with (folder / SNAPSHOT).open("rb") as source:
            digest = hashlib.file_digest(source, "sha256").hexdigest()
            size = source.tell()
    except OSError as error:
        raise BackupError(f"the snapshot of {folder} cannot be read: {error.strerror or error}") from None
    if (size, digest) != (expected.get("bytes"), expected.get("sha256")):
        raise BackupError(f"the snapshot of {folder} is not the file its manifest describes: it is damaged")
    return manifest


# What a manifest must hold, each of its type: checked before anything is read or written by a restore
# (a manifest with "files" as text, or without "created_at", failed half-way through one).
_MANIFEST_FIELDS = {"files": (dict,), "graphs": (list,), "checked": (bool,), "created_at": (str,)}
_MANIFEST_FIELDS |= {"keys": (int, type(None)), "counts": (dict, type(None))}  # None: not checked


def _shaped(manifest: dict, folder: Path) -> None:
    for name, sorts in _MANIFEST_FIELDS.items():
        if name not in manifest or type(manifest[name]) not in sorts:
            raise BackupError(f"the {MANIFEST} of {folder} has no {name} of the right form: it is damaged")
    snapshot = manifest["files"].get(SNAPSHOT)
    if not (
        type(snapshot) is dict and type(snapshot.get("bytes")) is int and type(snapshot.get("sha256")) is str
    ):
        raise BackupError(f"the {MANIFEST} of {folder} does not describe its snapshot: it is damaged")


def _laid_out(snapshot: Path, folder: Path) -> dict:
    """The snapshot as the only base of a multi-part append-only file in folder (empty); the digest is
    compared again after the copy, so a file changed meanwhile is never restored."""
    building = folder / (AOF_DIRECTORY + ".partial")  # renamed at the end: no start sees half of it
    building.mkdir()
    with snapshot.open("rb") as source:
        copied = _copied(source, building / AOF_BASE)
    with (building / AOF_MANIFEST).open("w", encoding="ascii") as out:
        out.write(f"file {AOF_BASE} seq 1 type b\n")  # the incremental file: the server adds it
        out.flush()
        os.fsync(out.fileno())
    building.rename(folder / AOF_DIRECTORY)
    return copied


def restore(backup_dir: str | Path, data_dir: str | Path, *, check: bool = True) -> dict:
    """Puts the backup in backup_dir into data_dir, which must be new or empty; returns what it restored.

    Afterwards `embedded.start(data_dir=data_dir)` serves exactly the data of the backup. check: start
    it once here (on a free port), compare its graphs, keys and counts with those the manifest recorded
    (when the backup was checked), then stop it cleanly. The report: {"data_dir", "created_at",
    "graphs", "keys", "counts", "checked"}. Raises BackupError for a damaged or foreign backup, a data
    directory that is not empty, or a check that fails; a failed restore leaves the data directory as
    empty as it found it.
    """
    manifest = read_manifest(backup_dir)
    folder = empty_directory(data_dir, "data directory")
    try:
        copied = _laid_out(Path(backup_dir).resolve() / SNAPSHOT, folder)
        if copied["sha256"] != manifest["files"][SNAPSHOT]["sha256"]:
            raise BackupError("the snapshot changed while it was copied: restore again")
        found = _loaded(folder) if check else {}
        recorded = {key: manifest[key] for key in ("graphs", "keys", "counts")}
        if check and manifest["checked"] and found != recorded:
            raise BackupError(f"the restored data holds {_said(found)}, the backup {_said(recorded)}")
    except BaseException:
        for made in list(folder.iterdir()):
            with contextlib.suppress(OSError):
                shutil.rmtree(made) if made.is_dir() else made.unlink()
        raise
    report = {"graphs": manifest["graphs"], "keys": manifest["keys"], "counts": manifest["counts"], **found}
    return {"data_dir": str(folder), "created_at": manifest["created_at"], **report, "checked": check}


def _said(summary: dict) -> str:
    return f"{len(summary['graphs'])} graphs and {summary['keys']} keys ({summary['counts']})"


def _loaded(folder: Path) -> dict:
    """Starts a server on a laid-out directory: its graphs, keys and each graph's counts; then stops it."""
    try:
        server = start(data_dir=folder, wait=600.0)
    except ServerError as error:
        raise BackupError(f"the snapshot does not load: {error}") from None
    try:
        db = server.client()
        graphs = _graph_names(db.connection)
        counts = {}
        for name in graphs:
            graph = db.select_graph(name)
            nodes = graph.ro_query(_COUNT_NODES).result_set[0][0]
            counts[name] = {"nodes": nodes, "edges": graph.ro_query(_COUNT_EDGES).result_set[0][0]}
        keys = db.connection.dbsize()
    except replies.RedisError as error:
        raise BackupError(f"the snapshot cannot be read: {error}") from None
    finally:
        server.stop()
    return {"graphs": graphs, "keys": keys, "counts": counts}
