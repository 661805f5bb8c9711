"""A consistent copy of the whole database, taken while it runs and takes writes; and its restore.

backup() has the server write a snapshot (BGSAVE: a forked child writes the data as of one instant, so
writes go on meanwhile), waits for it, and copies the file it wrote into a directory of its own with a
manifest (manifest.json: the time, the graphs and keys at that instant, the file's size and sha256). The
server's files must be on this machine: backup runs where FalkorDB runs.

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
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import IO

from falkordb import FalkorDB
from redis import Redis
from redis import exceptions as replies

from .embedded import Server, ServerError, start

MANIFEST = "manifest.json"
SNAPSHOT = "database.rdb"
FORMAT = 1  # of the manifest: restore refuses another
# What Redis 8 expects in a data directory (its defaults, which embedded.start keeps).
AOF_DIRECTORY = "appendonlydir"
AOF_BASE = "appendonly.aof.1.base.rdb"
AOF_MANIFEST = "appendonly.aof.manifest"
CHUNK = 1024 * 1024
_CHILD_RUNNING = ("rdb_bgsave_in_progress", "aof_rewrite_in_progress", "module_fork_in_progress")


class BackupError(RuntimeError):
    """A backup or restore that could not be done; the message says why and what to do."""


def _connection(client_or_server: object) -> Redis:
    """The plain connection of an embedded or external Server, a FalkorDB client or a Redis connection."""
    if isinstance(client_or_server, Server):
        return client_or_server.connection(timeout=30.0)
    if isinstance(client_or_server, FalkorDB):
        return client_or_server.connection
    if isinstance(client_or_server, Redis):
        return client_or_server
    raise BackupError(
        f"back up a Server, a FalkorDB client or a Redis connection, not {type(client_or_server)}"
    )


def _empty_directory(path: str | Path, what: str) -> Path:
    """The directory, created; refused unless it is new or empty, so nothing is ever overwritten."""
    folder = Path(path).resolve()
    if folder.exists() and not folder.is_dir():
        raise BackupError(f"the {what} {folder} is a file, not a directory")
    if folder.is_dir() and any(folder.iterdir()):
        raise BackupError(f"the {what} {folder} is not empty: give a new or empty directory")
    try:
        folder.mkdir(parents=True, exist_ok=True)
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
    """BGSAVE, with the graphs and the key count of the same instant (one transaction, one fork).

    A rewrite the server starts on its own between the wait and the transaction makes BGSAVE wait for
    it, so the listing would be of an earlier instant: then it is tried again.
    """
    while True:
        _settled(connection, deadline)
        with connection.pipeline(transaction=True) as transaction:
            transaction.execute_command("GRAPH.LIST")
            transaction.dbsize()
            transaction.execute_command("BGSAVE")
            transaction.info("persistence")
            transaction.time()
            graphs, keys, saving, persistence, (seconds, _) = transaction.execute(raise_on_error=False)
        if isinstance(saving, Exception):
            if "in progress" not in str(saving):
                raise BackupError(f"the server refused to write a snapshot: {saving}")
        elif persistence.get("rdb_bgsave_in_progress"):
            names = sorted(name.decode() if isinstance(name, bytes) else name for name in graphs)
            return {"graphs": names, "keys": keys, "saves": persistence["rdb_saves"], "at": seconds}
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
    with partial.open("wb") as out:
        while chunk := source.read(CHUNK):
            digest.update(chunk)
            out.write(chunk)
            size += len(chunk)
        out.flush()
        os.fsync(out.fileno())
    partial.replace(target)
    return {"bytes": size, "sha256": digest.hexdigest()}


def _versions(connection: Redis) -> dict:
    modules = {entry["name"]: entry["ver"] for entry in connection.module_list()}
    modules = {(key.decode() if isinstance(key, bytes) else key): value for key, value in modules.items()}
    return {"redis": connection.info("server")["redis_version"], "falkordb": modules.get("graph")}


def backup(client_or_server: object, destination_dir: str | Path, *, wait: float = 600.0) -> dict:
    """Copies the whole database, as of one instant, into destination_dir (new or empty); returns its manifest.

    The server goes on taking writes: its snapshot is written by a forked child (BGSAVE). The manifest
    {"format", "created_at", "graphs", "keys", "versions", "files": {name: {"bytes", "sha256"}}} is
    also written to destination_dir/manifest.json; the report adds "directory". wait: seconds allowed
    for the snapshot. Raises BackupError when the server's files are not on this machine, or a
    snapshot fails; a failed backup leaves no manifest, so it can never be restored by mistake.
    """
    connection = _connection(client_or_server)
    folder = _empty_directory(destination_dir, "backup directory")
    deadline = time.monotonic() + wait
    where = connection.config_get("dir")["dir"]
    snapshot_file = Path(where) / connection.config_get("dbfilename")["dbfilename"]
    for attempt in range(3):
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
        "graphs": taken["graphs"],
        "keys": taken["keys"],
        "versions": _versions(connection),
        "files": files,
    }
    _write_json(folder / MANIFEST, manifest)
    return {**manifest, "directory": str(folder)}


def _write_json(path: Path, content: dict) -> None:
    partial = path.with_name(path.name + ".partial")
    with partial.open("w", encoding="utf-8") as out:
        json.dump(content, out, indent=2, sort_keys=True)
        out.write("\n")
        out.flush()
        os.fsync(out.fileno())
    partial.replace(path)


def read_manifest(backup_dir: str | Path) -> dict:
    """The manifest of a backup, its snapshot checked against the size and sha256 it records."""
    folder = Path(backup_dir).resolve()
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except OSError as error:
        raise BackupError(f"{folder} holds no backup: {MANIFEST} cannot be read ({error.strerror})") from None
    except ValueError:
        raise BackupError(f"the {MANIFEST} of {folder} is not JSON: the backup is damaged") from None
    if type(manifest) is not dict or manifest.get("format") != FORMAT:
        raise BackupError(
            f"the backup in {folder} is not of format {FORMAT}: restore it with its own version"
        )
    expected = manifest.get("files", {}).get(SNAPSHOT, {})
    try:
        with (folder / SNAPSHOT).open("rb") as source:
            digest = hashlib.file_digest(source, "sha256").hexdigest()
            size = source.tell()
    except OSError as error:
        raise BackupError(f"the snapshot of {folder} cannot be read: {error.strerror or error}") from None
    if (size, digest) != (expected.get("bytes"), expected.get("sha256")):
        raise BackupError(f"the snapshot of {folder} is not the file its manifest describes: it is damaged")
    return manifest


def restore(backup_dir: str | Path, data_dir: str | Path, *, check: bool = True) -> dict:
    """Puts the backup in backup_dir into data_dir, which must be new or empty; returns what it restored.

    Afterwards `embedded.start(data_dir=data_dir)` serves exactly the data of the backup. check: start
    it once here (on a free port) and compare its graphs and key count with the manifest, then stop it
    cleanly. The report: {"data_dir", "created_at", "graphs", "keys", "checked"}. Raises BackupError for
    a damaged or foreign backup, a data directory that is not empty, or a check that fails; a failed
    restore leaves the data directory as empty as it found it.
    """
    manifest = read_manifest(backup_dir)
    folder = _empty_directory(data_dir, "data directory")
    try:
        # Written under another name, then renamed: a start never sees half a restore.
        building = folder / (AOF_DIRECTORY + ".partial")
        building.mkdir()
        with (Path(backup_dir).resolve() / SNAPSHOT).open("rb") as source:
            copied = _copied(source, building / AOF_BASE)
        if copied["sha256"] != manifest["files"][SNAPSHOT]["sha256"]:
            raise BackupError("the snapshot changed while it was copied: restore again")
        with (building / AOF_MANIFEST).open("w", encoding="ascii") as out:
            out.write(f"file {AOF_BASE} seq 1 type b\n")  # the incremental file: the server adds it
            out.flush()
            os.fsync(out.fileno())
        building.rename(folder / AOF_DIRECTORY)
        if check:
            _check(folder, manifest)
    except BaseException:
        for made in list(folder.iterdir()):
            with contextlib.suppress(OSError):
                shutil.rmtree(made) if made.is_dir() else made.unlink()
        raise
    report = {key: manifest[key] for key in ("created_at", "graphs", "keys")}
    return {"data_dir": str(folder), **report, "checked": check}


def _check(folder: Path, manifest: dict) -> None:
    """Starts a server on the restored directory: it must hold the graphs and keys of the manifest."""
    try:
        server = start(data_dir=folder, wait=600.0)
    except ServerError as error:
        raise BackupError(f"the restored data does not start: {error}") from None
    try:
        with server.connection(timeout=60.0) as connection:
            graphs = sorted(name.decode() for name in connection.execute_command("GRAPH.LIST"))
            keys = connection.dbsize()
    except replies.RedisError as error:
        raise BackupError(f"the restored data cannot be read: {error}") from None
    finally:
        server.stop()
    if (graphs, keys) != (manifest["graphs"], manifest["keys"]):
        found = f"{len(graphs)} graphs and {keys} keys"
        raise BackupError(
            f"the restored data holds {found}, the backup {len(manifest['graphs'])} and {manifest['keys']}"
        )
