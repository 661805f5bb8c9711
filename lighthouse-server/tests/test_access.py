"""The embedded FalkorDB of a data directory is its owner's alone: it requires the password generated
into the directory (a file only the owner reads), it listens on loopback only, the password never
shows on its command line, and the directory and every file in it are 0700/0600 whatever the umask.
An external server's password comes in FALKORDB_URL or FALKORDB_PASSWORD and is never said back."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from lighthouse_server.access import PASSWORD_FILE, AccessError, password_of, server_config
from lighthouse_server.database import RUNNING, announce, connect_or_start, from_environment, opened
from lighthouse_server.embedded import ServerError, free_port, start
from lighthouse_server.settings import Settings, SettingsError, load
from redis import Redis
from redis import exceptions as replies


@contextlib.contextmanager
def _umask(mask: int):
    before = os.umask(mask)
    try:
        yield
    finally:
        os.umask(before)


def _modes(folder) -> dict[str, int]:
    found = {".": stat.S_IMODE(folder.stat().st_mode)}
    for path in folder.rglob("*"):
        found[str(path.relative_to(folder))] = stat.S_IMODE(path.lstat().st_mode)
    return found


def _refused_without_password(port: int) -> None:
    with pytest.raises((replies.AuthenticationError, replies.ResponseError)):
        Redis("127.0.0.1", port, socket_timeout=5).ping()
    with pytest.raises((replies.AuthenticationError, replies.ResponseError)):
        Redis("127.0.0.1", port, password="a guess", socket_timeout=5).ping()


def test_a_client_without_the_password_is_refused(tmp_path):
    with start(data_dir=tmp_path / "data") as running:
        _refused_without_password(running.port)
        password = password_of(tmp_path / "data")
        assert password and running.password == password and len(password) >= 40
        assert Redis("127.0.0.1", running.port, password=password).ping()
        graph = running.client().select_graph("kept")
        graph.query("CREATE (:Thing)")
        assert running.connection().config_get("bind")["bind"] == "127.0.0.1"
        command_line = Path(f"/proc/{running.process.pid}/cmdline").read_bytes().decode(errors="replace")
        assert password not in command_line


def test_the_password_is_made_once_and_kept(tmp_path):
    with start(data_dir=tmp_path / "data") as first:
        first.client().select_graph("g").query("CREATE (:A)")
        made = first.password
    with start(data_dir=tmp_path / "data") as second:
        assert second.password == made
        assert second.client().select_graph("g").query("MATCH (a:A) RETURN count(a)").result_set == [[1]]
        _refused_without_password(second.port)


@pytest.mark.parametrize("mask", [0o000, 0o022])
def test_the_data_directory_and_its_files_are_the_owners_alone_whatever_the_umask(tmp_path, mask):
    data = tmp_path / "data"
    with _umask(mask), start(data_dir=data) as running:
        running.client().select_graph("g").query("CREATE (:A)")
        running.connection().bgrewriteaof()  # files the server makes while it runs
        announce(running, 8765)
    modes = _modes(data)
    assert modes["."] == 0o700
    assert {PASSWORD_FILE, "falkordb.log", ".lighthouse.lock", RUNNING} <= set(modes)
    assert any(name.startswith("appendonlydir/") for name in modes)
    for name, mode in modes.items():
        expected = 0o700 if (data / name).is_dir() else 0o600
        assert mode == expected, (name, oct(mode))


def test_a_data_directory_made_open_is_closed_at_the_next_start(tmp_path):
    data = tmp_path / "data"
    with start(data_dir=data):
        pass
    os.chmod(data, 0o755)
    for path in data.rglob("*"):
        os.chmod(path, 0o755 if path.is_dir() else 0o644)
    with start(data_dir=data):
        modes = _modes(data)
    assert modes["."] == 0o700 and modes[PASSWORD_FILE] == 0o600
    assert all(mode in (0o700, 0o600) for mode in modes.values()), modes


def test_a_command_beside_a_running_server_reads_the_password(tmp_path):
    data = tmp_path / "data"
    with start(data_dir=data) as running:
        (data / RUNNING).write_text(json.dumps({"host": running.host, "port": running.port}))
        with opened(Settings(data=str(data))) as db:
            db.select_graph("shared").query("CREATE (:Thing)")
        (data / PASSWORD_FILE).write_text("not the password\n")
        with pytest.raises(replies.AuthenticationError), opened(Settings(data=str(data))) as db:
            db.select_graph("shared").query("MATCH (t) RETURN count(t)")
        os.chmod(data / PASSWORD_FILE, 0o000)
        if os.geteuid() != 0:  # root reads it anyway
            with pytest.raises(ServerError, match="cannot be read"), opened(Settings(data=str(data))):
                pass


def test_a_password_file_that_cannot_be_read_is_said(tmp_path):
    (tmp_path / PASSWORD_FILE).mkdir()  # a directory where the file should be
    with pytest.raises(AccessError, match="cannot be read"):
        password_of(tmp_path)
    assert password_of(tmp_path / "nothing here") is None
    with pytest.raises(AccessError, match="printable"):
        server_config('a "quoted" word')


def test_an_external_servers_password_comes_in_the_url_or_beside_host_and_port(tmp_path, monkeypatch):
    with start(data_dir=tmp_path / "data") as running:
        for name in ("FALKORDB_URL", "FALKORDB_HOST", "FALKORDB_PORT", "FALKORDB_PASSWORD"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("FALKORDB_URL", f"redis://:{running.password}@127.0.0.1:{running.port}")
        found = connect_or_start()
        assert found.process is None and found.client().connection.ping()
        monkeypatch.setenv("FALKORDB_URL", f"redis://default:{running.password}@127.0.0.1:{running.port}")
        assert connect_or_start().client().connection.ping()
        monkeypatch.setenv("FALKORDB_URL", f"redis://127.0.0.1:{running.port}")
        with pytest.raises(ServerError, match="does not answer"):
            connect_or_start()
        monkeypatch.delenv("FALKORDB_URL")
        monkeypatch.setenv("FALKORDB_HOST", "127.0.0.1")
        monkeypatch.setenv("FALKORDB_PORT", str(running.port))
        monkeypatch.setenv("FALKORDB_PASSWORD", running.password)
        assert connect_or_start().client().connection.ping()
        settings = Settings(falkordb_url=f"redis://:{running.password}@127.0.0.1:{running.port}")
        with opened(settings) as db:
            assert db.select_graph("g").query("RETURN 1").result_set == [[1]]


def test_a_password_is_never_said_back(monkeypatch):
    with pytest.raises(ServerError) as refused:
        from_environment({"FALKORDB_URL": "redis://:sekrit@h:6379/3"})
    assert "sekrit" not in str(refused.value) and "***" in str(refused.value)
    with pytest.raises(ServerError) as refused:
        from_environment({"FALKORDB_URL": "redis://:sekrit@h:port"})
    assert "sekrit" not in str(refused.value)
    with pytest.raises(SettingsError) as refused:
        load(environ={"FALKORDB_URL": "http://:sekrit@h:1"})
    assert "sekrit" not in str(refused.value)
    with pytest.raises(ServerError) as refused, opened(Settings(falkordb_url="redis://:sekrit@127.0.0.1:1")):
        pass
    assert "sekrit" not in str(refused.value)


def test_lighthouse_server_says_where_the_password_is_and_requires_it(tmp_path):
    from service_process import environment

    port = free_port()
    data = tmp_path / "data"
    command = [sys.executable, "-m", "lighthouse_server.command", "server", "--data", str(data)]
    process = subprocess.Popen(
        [*command, "--port", str(port)], env=environment(), stdout=subprocess.PIPE, text=True
    )
    try:
        said = process.stdout.readline()
        assert f"FalkorDB on 127.0.0.1:{port} (password in {data.resolve() / PASSWORD_FILE})" in said
        _refused_without_password(port)
        assert Redis("127.0.0.1", port, password=password_of(data)).ping()
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=60) == 0


def test_a_backup_is_its_owners_alone(tmp_path):
    from lighthouse_server.backup import backup

    with _umask(0o022), start(data_dir=tmp_path / "data") as running:
        running.client().select_graph("g").query("CREATE (:A)")
        backup(running, tmp_path / "copy")
    assert stat.S_IMODE((tmp_path / "copy").stat().st_mode) == 0o700
