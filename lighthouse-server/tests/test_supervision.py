"""The supervisor of serve's embedded FalkorDB (a real server): a server killed is started again on the
same port and data directory with its data, a start that fails is tried again after a backoff and said,
a stop stops the server and starts nothing, and only an embedded server with a data directory is
supervised. serve with it, under writes, is tested in test_serving.py."""

from __future__ import annotations

import os
import signal
import socket
import time

import pytest
from lighthouse_server import supervision
from lighthouse_server.embedded import Server, start
from lighthouse_server.supervision import Supervisor


def _until(check, seconds: float = 30.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if found := check():
            return found
        time.sleep(0.05)
    raise AssertionError(f"not reached in {seconds} s")


def test_a_killed_server_is_started_again_with_its_data(tmp_path):
    said: list[str] = []
    server = start(data_dir=tmp_path / "data")
    server.client().select_graph("g").query("CREATE (:Kept {i: 1})")
    supervisor = Supervisor(server, say=lambda text, **_: said.append(text)).start()
    try:
        killed = server.process.pid
        os.kill(killed, signal.SIGKILL)
        _until(lambda: supervisor.restarts == 1)
        again = supervisor.current
        assert again.port == server.port and again.data_dir == server.data_dir and again.process.pid != killed
        assert again.password == server.password
        found = again.client().select_graph("g").query("MATCH (k:Kept) RETURN k.i").result_set
        assert found == [[1]]
        assert any(f"(pid {killed}) exited with code -9; starting it again" in line for line in said)
        assert any("FalkorDB runs again" in line for line in said)
    finally:
        supervisor.stop()
    assert not supervisor.current.running and supervisor.restarts == 1  # the stop started nothing


def test_a_start_that_fails_is_tried_again_after_a_backoff(tmp_path, monkeypatch):
    monkeypatch.setattr(supervision, "WATCH_EVERY", 1.0)  # time to take the port before it looks
    monkeypatch.setattr(supervision, "RESTART_FIRST", 0.3)
    said: list[str] = []
    server = start(data_dir=tmp_path / "data")
    supervisor = Supervisor(server, say=lambda text, **_: said.append(text)).start()
    squatter = socket.socket()
    try:
        os.kill(server.process.pid, signal.SIGKILL)
        squatter.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        _until(lambda: _bound(squatter, server.port))
        squatter.listen()
        _until(lambda: sum("did not start again" in line for line in said) >= 2)
        assert supervisor.restarts == 0 and "is taken" in " ".join(said)
        squatter.close()  # the port free again: the next try starts it
        _until(lambda: supervisor.restarts == 1)
        assert supervisor.current.client().connection.ping()
    finally:
        squatter.close()
        supervisor.stop()


def _bound(probe: socket.socket, port: int) -> bool:
    try:
        probe.bind(("127.0.0.1", port))
    except OSError:
        return False
    return True


def test_only_an_embedded_server_with_a_data_directory_is_supervised():
    with pytest.raises(ValueError, match="embedded"):
        Supervisor(Server("127.0.0.1", 6379))
    in_memory = start()
    try:
        with pytest.raises(ValueError, match="data directory"):
            Supervisor(in_memory)
    finally:
        in_memory.stop()
