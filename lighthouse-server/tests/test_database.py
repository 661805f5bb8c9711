"""Which FalkorDB a process uses: the one the environment names (checked), the running serve's, or one
started for it."""

from __future__ import annotations

import json

import pytest
from lighthouse_server.database import RUNNING, connect_or_start, from_environment, opened
from lighthouse_server.embedded import Server, ServerError, free_port, start
from lighthouse_server.settings import Settings


def test_a_command_starts_the_embedded_one_briefly_and_saves_it(tmp_path):
    settings = Settings(data=str(tmp_path / "data"))
    with opened(settings) as db:
        db.select_graph("kept").query("CREATE (:Thing {name: 'x'})")
    with opened(settings) as db:  # the first one was stopped, its data saved
        assert db.select_graph("kept").ro_query("MATCH (t:Thing) RETURN t.name").result_set == [["x"]]


def test_a_command_uses_the_server_that_holds_the_data_directory(tmp_path):
    data = tmp_path / "data"
    with start(data_dir=data) as running:
        with (
            pytest.raises(ServerError, match="did not say where it listens"),
            opened(Settings(data=str(data))),
        ):
            pass
        (data / RUNNING).write_text(json.dumps({"host": running.host, "port": running.port}))
        with opened(Settings(data=str(data))) as db:
            db.select_graph("shared").query("CREATE (:Thing)")
        assert running.client().select_graph("shared").ro_query("MATCH (t) RETURN count(t)").result_set == [
            [1]
        ]


def test_an_external_falkordb_is_used_and_left_alone(tmp_path):
    with start() as external:
        settings = Settings(data=str(tmp_path / "unused"), falkordb_url=f"redis://127.0.0.1:{external.port}")
        with opened(settings) as db:
            db.select_graph("outside").query("CREATE (:Thing)")
        assert external.client().select_graph("outside").ro_query("MATCH (t) RETURN count(t)").result_set == [
            [1]
        ]
        assert not (tmp_path / "unused").exists()
    with (
        pytest.raises(ServerError, match="does not answer"),
        opened(Settings(falkordb_url="redis://127.0.0.1:1")),
    ):
        pass


@pytest.fixture
def server():
    running = start()
    yield running
    running.stop()


# from_environment()


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, None),
        ({"FALKORDB_URL": "", "FALKORDB_HOST": "", "FALKORDB_PORT": ""}, None),
        ({"FALKORDB_URL": "redis://db.example:7000"}, ("db.example", 7000)),
        ({"FALKORDB_URL": "falkor://10.0.0.5"}, ("10.0.0.5", 6379)),
        ({"FALKORDB_URL": "falkordb://h:1"}, ("h", 1)),
        ({"FALKORDB_URL": "redis://h:65535/"}, ("h", 65535)),
        ({"FALKORDB_URL": "redis://h:6380/0"}, ("h", 6380)),
        ({"FALKORDB_URL": "redis://[::1]:6390"}, ("::1", 6390)),
        ({"FALKORDB_URL": " redis://h:6381 "}, ("h", 6381)),
        # The URL wins over host and port.
        ({"FALKORDB_URL": "redis://u:1", "FALKORDB_HOST": "x", "FALKORDB_PORT": "2"}, ("u", 1)),
        ({"FALKORDB_URL": "redis://:secret@h:6379"}, ("h", 6379)),
        ({"FALKORDB_URL": "redis://user:secret@h:6379"}, ("h", 6379)),
        ({"FALKORDB_HOST": "db", "FALKORDB_PORT": "6390"}, ("db", 6390)),
        ({"FALKORDB_HOST": "db"}, ("db", 6379)),
        ({"FALKORDB_PORT": "6391"}, ("127.0.0.1", 6391)),
        ({"FALKORDB_PORT": " 1 "}, ("127.0.0.1", 1)),
        ({"FALKORDB_PORT": "65535"}, ("127.0.0.1", 65535)),
    ],
)
def test_from_environment_names_the_server(environ, expected) -> None:
    assert from_environment(environ) == expected


@pytest.mark.parametrize(
    ("environ", "says"),
    [
        ({"FALKORDB_URL": "http://h:1"}, "redis://host:port"),
        ({"FALKORDB_URL": "h:6379"}, "redis://host:port"),
        ({"FALKORDB_URL": "redis://"}, "redis://host:port"),
        ({"FALKORDB_URL": "redis://:6379"}, "redis://host:port"),
        ({"FALKORDB_URL": "redis://h:abc"}, "port"),
        ({"FALKORDB_URL": "redis://h:70000"}, "port"),
        ({"FALKORDB_URL": "redis://h:0"}, "1 to 65535"),
        ({"FALKORDB_URL": "redis://user@h:6379"}, "without a password"),
        ({"FALKORDB_URL": "redis://h:6379/3"}, "nothing after"),
        ({"FALKORDB_URL": "redis://h:6379?x=1"}, "nothing after"),
        ({"FALKORDB_URL": "redis://h:6379#x"}, "nothing after"),
        ({"FALKORDB_PORT": "abc"}, "FALKORDB_PORT"),
        ({"FALKORDB_PORT": "0"}, "1 to 65535"),
        ({"FALKORDB_PORT": "65536"}, "1 to 65535"),
        ({"FALKORDB_PORT": "-1"}, "FALKORDB_PORT"),
        ({"FALKORDB_PORT": "6379.0"}, "FALKORDB_PORT"),
        ({"FALKORDB_PORT": "\u0663"}, "FALKORDB_PORT"),  # an Arabic-Indic three: a digit, not ASCII
        ({"FALKORDB_HOST": "db", "FALKORDB_PORT": "x"}, "FALKORDB_PORT"),
        ({"FALKORDB_HOST": "bad host"}, "FALKORDB_HOST"),
        ({"FALKORDB_HOST": "db/evil"}, "FALKORDB_HOST"),
        ({"FALKORDB_HOST": "a@b"}, "FALKORDB_HOST"),
        ({"FALKORDB_HOST": "h" * 254}, "FALKORDB_HOST"),
    ],
)
def test_from_environment_refuses_what_names_no_server(environ, says) -> None:
    with pytest.raises(ServerError, match=says):
        from_environment(environ)


def test_from_environment_reads_the_process_environment(monkeypatch) -> None:
    monkeypatch.delenv("FALKORDB_URL", raising=False)
    monkeypatch.setenv("FALKORDB_HOST", "envhost")
    monkeypatch.setenv("FALKORDB_PORT", "6400")
    assert from_environment() == ("envhost", 6400)
    monkeypatch.setenv("FALKORDB_URL", "redis://urlhost:6401")
    assert from_environment() == ("urlhost", 6401)


def test_a_host_of_253_characters_is_accepted() -> None:
    assert from_environment({"FALKORDB_HOST": "h" * 253}) == ("h" * 253, 6379)


# connect_or_start()


def test_connect_or_start_uses_the_named_server(monkeypatch, server: Server) -> None:
    monkeypatch.setenv("FALKORDB_URL", f"redis://127.0.0.1:{server.port}")
    found = connect_or_start()
    assert (found.host, found.port) == ("127.0.0.1", server.port)
    assert found.process is None  # not ours: stop() leaves it running
    found.stop()
    assert server.client().connection.ping()


def test_connect_or_start_refuses_a_named_server_that_does_not_answer(monkeypatch) -> None:
    monkeypatch.delenv("FALKORDB_URL", raising=False)
    monkeypatch.setenv("FALKORDB_HOST", "127.0.0.1")
    monkeypatch.setenv("FALKORDB_PORT", str(free_port()))
    with pytest.raises(ServerError, match="does not answer"):
        connect_or_start()


def test_connect_or_start_starts_one_when_none_is_named(monkeypatch, tmp_path) -> None:
    for name in ("FALKORDB_URL", "FALKORDB_HOST", "FALKORDB_PORT"):
        monkeypatch.delenv(name, raising=False)
    with connect_or_start(data_dir=tmp_path / "data", fsync="always") as running:
        assert running.process is not None and running.running
        assert running.data_dir == (tmp_path / "data").resolve()
        assert running.connection().config_get("appendfsync")["appendfsync"] == "always"
    assert running.process.returncode == 0
