"""The embedded FalkorDB: started, persisted, stopped, refused with a clear ServerError; the environment read."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
from lighthouse_server.embedded import (
    AOF_REWRITE_MIN_SIZE,
    AOF_REWRITE_PERCENTAGE,
    LOCK_NAME,
    Server,
    ServerError,
    binaries,
    free_port,
    start,
)


def _answers(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.settimeout(0.5)
        return probe.connect_ex(("127.0.0.1", port)) == 0


def _dead(pid: int) -> bool:
    """Gone, or a zombie nobody reaped: either way no longer running."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def _crash(server: Server) -> None:
    """kill -9 of the server; stop() then only releases what this process held."""
    server.process.kill()
    server.process.wait(timeout=10)
    server.stop()


def _aof_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in (folder / "appendonlydir").iterdir())


@pytest.fixture
def server():
    running = start()
    yield running
    running.stop()


# start() and stop()


def test_start_on_a_free_port_runs_the_graph_module(server: Server) -> None:
    assert server.host == "127.0.0.1"
    assert server.running
    assert server.data_dir is None
    graph = server.client().select_graph("g")
    assert graph.query("CREATE (n:A {v: 1}) RETURN n.v").result_set == [[1]]
    assert "g" in server.client().list_graphs()
    assert server.client().connection.info("server")["process_id"] == server.process.pid


def test_a_server_without_data_dir_loads_no_dump_it_finds_and_leaves_none(tmp_path, monkeypatch) -> None:
    # The shared temporary directory may hold a dump.rdb that another server's BGSAVE left: not loaded.
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    with start() as first:
        first.client().select_graph("left").query("CREATE (:Left)")
        first.connection().bgsave()
        time.sleep(0.5)
        assert first.client().list_graphs() == ["left"]
    with start() as second:
        assert second.client().list_graphs() == []
    assert [path.name for path in tmp_path.iterdir() if not path.name.endswith(".log")] == []


def test_a_server_without_data_dir_keeps_nothing_on_disk(server: Server) -> None:
    config = server.client().connection.config_get("appendonly")
    assert config["appendonly"] == "no"
    assert server.client().connection.config_get("save")["save"] == ""


def test_start_on_a_given_port() -> None:
    port = free_port()
    with start(port=port) as running:
        assert running.port == port
        assert _answers(port)
        assert running.client().connection.ping()
    assert not running.running
    assert not _answers(port)


def test_stop_ends_the_process_cleanly_and_twice_is_harmless() -> None:
    running = start()
    running.stop()
    assert running.process.returncode == 0  # SHUTDOWN, not a signal
    assert not _answers(running.port)
    running.stop()  # nothing left to stop: no error
    assert running.process.returncode == 0


def test_a_graph_loaded_from_disk_keeps_0_out_of_its_index(tmp_path) -> None:
    """FalkorDB 4.22.1's behaviour, on which values.key() refusing 0 rests: once a graph is loaded from
    disk, its range index finds no node whose property is 0 (nor 0.0 or false), though the node is there.
    When this test fails, the graph module found them again: the key 0 may then be allowed."""
    lookups = ["MATCH (t:Thing) WHERE t.v = $v RETURN count(t)", "MATCH (t:Thing {v: $v}) RETURN count(t)"]
    with start(data_dir=tmp_path / "data") as first:
        graph = first.client().select_graph("zero")
        graph.query("CREATE INDEX FOR (n:Thing) ON (n.v)")
        graph.query("UNWIND [0, 1, 2] AS v CREATE (:Thing {v: v})")
        assert [graph.ro_query(lookup, {"v": 0}).result_set for lookup in lookups] == [[[1]], [[1]]]
    with start(data_dir=tmp_path / "data") as second:
        graph = second.client().select_graph("zero")
        assert [graph.ro_query(lookup, {"v": 0}).result_set for lookup in lookups] == [[[0]], [[0]]]
        assert graph.ro_query(lookups[0], {"v": 1}).result_set == [[1]]
        assert graph.ro_query("MATCH (t:Thing) RETURN count(t)").result_set == [[3]]  # it is there


def test_an_external_server_is_not_stopped(server: Server) -> None:
    external = Server(server.host, server.port)
    assert not external.running
    external.stop()
    assert server.client().connection.ping()


def test_data_survives_a_clean_stop_and_a_new_start(tmp_path) -> None:
    folder = tmp_path / "data"
    with start(data_dir=folder) as first:
        assert first.data_dir == folder.resolve()
        assert first.client().connection.config_get("appendonly")["appendonly"] == "yes"
        graph = first.client().select_graph("kept")
        graph.query("UNWIND range(1, 50) AS i CREATE (:Thing {i: i, name: 'n' + toString(i)})")
    assert first.process.returncode == 0
    assert (folder / "appendonlydir").is_dir()
    assert any((folder / "appendonlydir").iterdir())
    with start(data_dir=folder) as second:
        graph = second.client().select_graph("kept")
        result = graph.query("MATCH (t:Thing) RETURN count(t), sum(t.i), max(t.name)").result_set
        assert result == [[50, 1275, "n9"]]
    with start(data_dir=str(folder), port=free_port()) as third:  # a str and another port: same data
        assert third.client().select_graph("kept").query("MATCH (t:Thing) RETURN count(t)").result_set == [
            [50]
        ]


def test_the_append_only_file_keeps_writes_through_a_crash(tmp_path) -> None:
    # SIGKILL: no shutdown, no snapshot (the save rules are not met); only the AOF can bring it back.
    # fsync always: with everysec, Redis holds a write in its buffer (and replies) for up to 2 s while a
    # busy disk holds the fsync before it, and a crash then loses it.
    folder = tmp_path / "data"
    first = start(data_dir=folder, fsync="always")
    try:
        first.client().select_graph("crash").query("CREATE (:Thing {i: 7})")
        first.process.kill()
        first.process.wait(timeout=10)
    finally:
        first.stop()
    assert not (folder / "dump.rdb").exists()
    with start(data_dir=folder) as second:
        found = second.client().select_graph("crash").query("MATCH (t:Thing) RETURN t.i").result_set
        assert found == [[7]]


def test_the_exit_report_of_a_crash_names_its_signal_and_only_this_runs_lines(tmp_path) -> None:
    folder = tmp_path / "data"
    with start(data_dir=folder) as first:  # a data directory's log is kept across runs
        first.client().select_graph("g").query("RETURN 1")
    second = start(data_dir=folder)
    try:
        assert second.exit_report().count("Ready to accept connections") == 1  # no crash: the last lines
        os.kill(second.process.pid, signal.SIGSEGV)  # redis' own crash handler writes its report
        second.process.wait(timeout=10)
        report = second.exit_report()
        lines = report.splitlines()
        assert lines[0].endswith("crashed by signal: 11, si_code: 0") and "------ STACK TRACE ------" in lines
        assert lines[-1] == "------ STACK TRACE DONE ------" and "INFO OUTPUT" not in report
        assert second.exit_report(most=100) == report[:100]
    finally:
        second.stop()
    assert Server("127.0.0.1", 1).exit_report() == ""  # an external server: no log of ours


def test_the_exit_report_adds_the_client_whose_command_was_running(tmp_path) -> None:
    # The shape redis writes when a command crashes it (here written by hand: no command crashes on call).
    log = tmp_path / "falkordb.log"
    earlier = "1:M 01 Jan 2026 00:00:00.000 # Redis 8.10.2 crashed by signal: 11, si_code: 1\nold\n"
    crash = "1:M 02 Jan 2026 00:00:00.000 # Redis 8.10.2 crashed by signal: 11, si_code: 1\n"
    traces = "------ STACK TRACE ------\nframe\n------ STACK TRACE DONE ------"
    client = (
        "------ CURRENT CLIENT INFO ------\nid=7 cmd=graph.query\nargv[1]: 'g'\nargv[2]: 'MATCH (n) RETURN n'"
    )
    log.write_text(
        earlier + crash + traces + "\n\n------ INFO OUTPUT ------\nx\n" + client + "\n\n------ MODULES\n"
    )
    report = Server("127.0.0.1", 1, _log=log, _log_from=len(earlier)).exit_report()
    assert report == crash + traces + "\n" + client + "\n"


def test_a_data_dir_is_created_with_its_parents(tmp_path) -> None:
    folder = tmp_path / "a" / "b" / "c"
    with start(data_dir=folder) as running:
        assert running.client().connection.ping()
    assert folder.is_dir()
    assert (folder / "falkordb.log").is_file()


# Refusals


def test_a_taken_port_is_refused(server: Server) -> None:
    with pytest.raises(ServerError, match=f"port {server.port} is taken"):
        start(port=server.port)
    assert server.client().connection.ping()  # the server that holds it is untouched


def test_a_port_held_by_a_plain_listener_is_refused() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        with pytest.raises(ServerError, match="is taken"):
            start(port=port)


def test_a_port_bound_but_not_listening_is_reported_as_taken() -> None:
    # No answer to a probe, so the server tries to bind and exits: the message still says why.
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as holder:
        holder.bind(("127.0.0.1", 0))
        port = holder.getsockname()[1]
        with pytest.raises(ServerError, match=f"port {port} is taken"):
            start(port=port, wait=10)


@pytest.mark.parametrize("port", [0, -1, 65536, 70000, "6379", 6379.0, True])
def test_a_port_that_is_not_a_port_is_refused(port) -> None:
    with pytest.raises(ServerError, match="1 to 65535"):
        start(port=port)


def test_the_highest_port_is_accepted_as_a_number() -> None:
    # 65535 passes the check; whether it is free decides the rest.
    try:
        running = start(port=65535)
    except ServerError as error:
        assert "taken" in str(error)
    else:
        assert running.port == 65535
        running.stop()


@pytest.mark.parametrize("wait", [0, -1, 601, "5", True])
def test_a_wait_that_is_not_a_duration_is_refused(wait) -> None:
    with pytest.raises(ServerError, match="wait"):
        start(wait=wait)


def test_missing_binaries_are_named(tmp_path) -> None:
    with pytest.raises(ServerError, match="redis-server is missing"):
        binaries(tmp_path)
    with pytest.raises(ServerError, match="redis-server is missing"):
        start(binaries_dir=tmp_path)


def test_a_missing_module_is_named(tmp_path) -> None:
    real_server, _ = binaries()
    (tmp_path / "redis-server").symlink_to(real_server)
    with pytest.raises(ServerError, match="falkordb.so is missing"):
        start(binaries_dir=tmp_path)


def test_a_server_that_is_not_executable_is_named(tmp_path) -> None:
    (tmp_path / "redis-server").write_text("not a program")
    os.chmod(tmp_path / "redis-server", 0o644)
    (tmp_path / "falkordb.so").write_text("not a module")
    with pytest.raises(ServerError, match="not executable"):
        start(binaries_dir=tmp_path)


def test_a_module_that_does_not_load_stops_the_start_with_the_log(tmp_path) -> None:
    real_server, _ = binaries()
    (tmp_path / "redis-server").symlink_to(real_server)
    (tmp_path / "falkordb.so").write_text("not a module")
    port = free_port()
    with pytest.raises(ServerError, match="did not start") as raised:
        start(port=port, binaries_dir=tmp_path, wait=10)
    assert "falkordb.so" in str(raised.value)  # the log tail says which module failed
    assert not _answers(port)


def test_the_installed_binaries_are_found() -> None:
    server_bin, module = binaries()
    assert server_bin.name == "redis-server" and server_bin.is_file()
    assert module.name == "falkordb.so" and module.is_file()
    assert binaries(server_bin.parent) == (server_bin, module)


def test_a_data_dir_under_a_file_is_refused(tmp_path) -> None:
    (tmp_path / "file").write_text("a file, not a folder")
    port = free_port()
    with pytest.raises(ServerError, match="not writable"):
        start(port=port, data_dir=tmp_path / "file" / "sub")
    assert not _answers(port)  # nothing was started


def test_a_data_dir_that_is_a_file_is_refused(tmp_path) -> None:
    (tmp_path / "file").write_text("a file, not a folder")
    with pytest.raises(ServerError, match="not writable"):
        start(data_dir=tmp_path / "file")


def test_an_empty_data_dir_name_is_refused() -> None:
    with pytest.raises(ServerError, match="empty"):
        start(data_dir=" ")


def test_a_data_dir_in_use_is_refused_until_its_server_stops(tmp_path) -> None:
    folder = tmp_path / "data"
    first = start(data_dir=folder)
    try:
        assert (folder / LOCK_NAME).exists()
        with pytest.raises(ServerError, match="in use"):
            start(data_dir=folder)
        first.client().select_graph("g").query("CREATE (:A)")
    finally:
        first.stop()
    with start(data_dir=folder) as second:
        assert second.client().select_graph("g").query("MATCH (a:A) RETURN count(a)").result_set == [[1]]


def test_the_running_server_holds_the_data_dir_lock_itself(tmp_path) -> None:
    # While the server runs, the directory stays locked even if this process lets go of its own lock.
    folder = tmp_path / "data"
    first = start(data_dir=folder)
    try:
        first._lock.close()  # what this process held is gone; the server's copy remains
        with pytest.raises(ServerError, match="in use"):
            start(data_dir=folder)
    finally:
        first.stop()
    start(data_dir=folder).stop()


def test_a_binary_folder_that_does_not_exist_is_refused(tmp_path) -> None:
    with pytest.raises(ServerError, match="missing"):
        start(binaries_dir=tmp_path / "nowhere")


def test_a_server_copied_elsewhere_still_starts(tmp_path) -> None:
    server_bin, module = binaries()
    shutil.copy2(server_bin, tmp_path / "redis-server")
    shutil.copy2(module, tmp_path / "falkordb.so")
    with start(binaries_dir=tmp_path) as running:
        assert running.client().select_graph("g").query("RETURN 1").result_set == [[1]]


# Durability: the fsync policy, the rewrites that keep the file compact, the death with the parent.


def test_the_fsync_policy_and_the_rewrite_thresholds_are_set(tmp_path) -> None:
    with start(data_dir=tmp_path / "a") as default:
        config = default.connection().config_get("*a*of*")
        assert default.connection().config_get("appendfsync")["appendfsync"] == "everysec"
        assert config["auto-aof-rewrite-percentage"] == str(AOF_REWRITE_PERCENTAGE)
        assert config["auto-aof-rewrite-min-size"] == str(AOF_REWRITE_MIN_SIZE)
        assert config["aof-use-rdb-preamble"] == "yes"
    with start(data_dir=tmp_path / "b", fsync="always") as always:
        assert always.connection().config_get("appendfsync")["appendfsync"] == "always"
    with start(fsync="always") as in_memory:  # no file: nothing to fsync, and no error
        assert in_memory.connection().config_get("appendonly")["appendonly"] == "no"


@pytest.mark.parametrize("fsync", ["never", "no", "ALWAYS", "everysec ", "", None, 1, True, b"always"])
def test_an_fsync_policy_that_is_not_one_is_refused(fsync, tmp_path) -> None:
    with pytest.raises(ServerError, match="fsync must be 'always' or 'everysec'"):
        start(data_dir=tmp_path / "data", fsync=fsync)
    assert not (tmp_path / "data").exists()  # refused before anything was made


def test_always_keeps_a_write_acknowledged_just_before_a_crash(tmp_path) -> None:
    folder = tmp_path / "data"
    first = start(data_dir=folder, fsync="always")
    first.client().select_graph("g").query("CREATE (:Thing {i: 8})")
    _crash(first)  # at once: no second for everysec to pass
    with start(data_dir=folder) as second:
        assert second.client().select_graph("g").query("MATCH (t:Thing) RETURN t.i").result_set == [[8]]


def test_the_file_is_rewritten_once_it_passes_the_minimum_size(tmp_path) -> None:
    # Two bulk writes append about 12 MB: past 8 MB, where redis' own floor (64 MB) would still wait.
    with start(data_dir=tmp_path / "data") as running:
        graph = running.client().select_graph("g")
        for batch in range(2):
            graph.query(
                f"UNWIND range(1, 100000) AS i CREATE (:Bulk {{i: i, b: {batch}, name: 'n' + toString(i)}})"
            )
        deadline = time.monotonic() + 20
        while True:
            state = running.connection().info("persistence")
            if state["aof_rewrites"] >= 1 and not state["aof_rewrite_in_progress"]:
                break
            assert time.monotonic() < deadline, state
            time.sleep(0.1)
        assert state["aof_base_size"] > 0  # the data now sits in the base, as a snapshot


def test_a_clean_stop_rewrites_the_file_to_what_the_data_holds(tmp_path) -> None:
    folder = tmp_path / "data"
    with start(data_dir=folder) as first:
        graph = first.client().select_graph("g")
        graph.query("UNWIND range(1, 10) AS i CREATE (:Kept {i: i})")
        for _ in range(30):  # 3,000 versions of 1 KB each, of which 10 remain
            graph.query(
                "UNWIND range(1, 100) AS n MATCH (k:Kept {i: n % 10 + 1}) SET k.text = $filler + toString(n)",
                {"filler": "x" * 1000},
            )
        graph.query("UNWIND range(1, 5000) AS i CREATE (:Gone {i: i})")
        graph.query("MATCH (g:Gone) DELETE g")
        before = _aof_bytes(folder)
    after = _aof_bytes(folder)
    assert before > 2_000_000 and after < before / 20  # the history is gone, the data is kept
    assert [path.name for path in (folder / "appendonlydir").iterdir() if path.name.endswith(".incr.aof")]
    bases = sorted(path.name for path in (folder / "appendonlydir").iterdir())
    with start(data_dir=folder) as second:
        kept = (
            second.client().select_graph("g").query("MATCH (k:Kept) RETURN count(k), sum(k.i), max(k.text)")
        )
        assert kept.result_set == [[10, 55, "x" * 1000 + "99"]]
        assert second.client().select_graph("g").query("MATCH (g:Gone) RETURN count(g)").result_set == [[0]]
    # Nothing written since the last rewrite: no rewrite again, the same files.
    assert sorted(path.name for path in (folder / "appendonlydir").iterdir()) == bases
    assert _aof_bytes(folder) == after


def test_a_kill_during_a_rewrite_leaves_the_directory_free_and_no_leftover(tmp_path) -> None:
    folder = tmp_path / "data"
    first = start(data_dir=folder)
    connection = first.connection()
    for number in range(30):
        connection.set(f"key{number}", "v")
    first.client().select_graph("g").query("CREATE (:Thing {i: 3})")
    connection.config_set("rdb-key-save-delay", 1_000_000)  # a second per key: the rewrite lasts
    connection.bgrewriteaof()
    deadline = time.monotonic() + 10
    while not list(folder.glob("temp-rewriteaof-*.aof")):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    _crash(first)
    with start(data_dir=folder) as second:  # not "in use": the orphaned rewrite holds no lock
        assert second.client().select_graph("g").query("MATCH (t:Thing) RETURN t.i").result_set == [[3]]
        assert not list(folder.glob("temp-*"))


_PARENT = """
import sys, time
from lighthouse_server.embedded import start
server = start(data_dir=sys.argv[1])
server.client().select_graph("g").query("CREATE (:Thing {i: 5})")
print(server.process.pid, server.port, flush=True)
time.sleep(600)
"""


def test_the_server_dies_with_the_process_that_started_it_even_on_kill_9(tmp_path) -> None:
    folder = tmp_path / "data"
    parent = subprocess.Popen([sys.executable, "-c", _PARENT, str(folder)], stdout=subprocess.PIPE, text=True)
    try:
        pid, port = map(int, parent.stdout.readline().split())
        assert not _dead(pid) and _answers(port)
        assert os.getpgid(pid) == pid  # a group of its own: a Ctrl-C goes to the parent, which stops it
    finally:
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(timeout=10)
        parent.stdout.close()
    deadline = time.monotonic() + 10
    # A killed process shows as a zombie before its last threads have closed its sockets: wait for both.
    while not _dead(pid) or _answers(port):
        assert time.monotonic() < deadline, "the server outlived the process that started it"
        time.sleep(0.05)
    assert (folder / LOCK_NAME).exists()  # the lock file stays; its locks died with their holders
    with start(data_dir=folder) as next_start:
        assert next_start.client().select_graph("g").query("MATCH (t:Thing) RETURN t.i").result_set == [[5]]


def test_a_server_started_from_a_thread_outlives_the_thread() -> None:
    # PR_SET_PDEATHSIG follows the thread that forked: start() forks from one that lives on.
    started: list[Server] = []
    worker = threading.Thread(target=lambda: started.append(start()))
    worker.start()
    worker.join()
    time.sleep(0.3)
    try:
        assert started[0].running
        assert started[0].client().connection.ping()
    finally:
        started[0].stop()
    assert started[0].process.returncode == 0
