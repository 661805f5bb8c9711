"""settings.load(): the command line over the environment over the TOML file over the defaults."""

from __future__ import annotations

import re

import pytest
from lighthouse_server.settings import ENVIRONMENT, Settings, SettingsError, load


def test_the_defaults_without_anything_given() -> None:
    assert load(environ={}) == Settings()
    assert Settings().port == 8765 and Settings().host == "127.0.0.1" and Settings().fsync == "everysec"


def test_each_source_over_the_one_below(tmp_path) -> None:
    config = tmp_path / "lighthouse.toml"
    config.write_text('port = 9001\nhost = "127.0.0.2"\nfsync = "always"\n')
    from_file = load(str(config), environ={})
    assert (from_file.port, from_file.host, from_file.fsync) == (9001, "127.0.0.2", "always")
    from_environment = load(str(config), environ={"LIGHTHOUSE_PORT": "9002"})
    assert from_environment.port == 9002 and from_environment.host == "127.0.0.2"
    from_command = load(str(config), {"port": 9003, "host": None}, environ={"LIGHTHOUSE_PORT": "9002"})
    assert from_command.port == 9003 and from_command.host == "127.0.0.2"


def test_the_config_file_may_come_from_the_environment(tmp_path) -> None:
    config = tmp_path / "other.toml"
    config.write_text('data = "elsewhere"\n')
    assert load(environ={"LIGHTHOUSE_CONFIG": str(config)}).data == "elsewhere"


def test_every_setting_has_its_variable() -> None:
    assert set(ENVIRONMENT) == {field for field in Settings.__dataclass_fields__}


@pytest.mark.parametrize(
    ("environ", "says"),
    [
        ({"LIGHTHOUSE_PORT": "eighty"}, "port (LIGHTHOUSE_PORT) must be a whole number"),
        ({"LIGHTHOUSE_PORT": "0"}, "must be from 1 to 65535"),
        ({"LIGHTHOUSE_FSYNC": "never"}, "fsync (LIGHTHOUSE_FSYNC) is everysec or always"),
        ({"FALKORDB_URL": "http://x"}, "must be redis://host:port"),
        ({"LIGHTHOUSE_BODY_LIMIT": "10"}, "body_limit"),
        ({"LIGHTHOUSE_MODEL_URL": "ftp://model"}, "model_url (LIGHTHOUSE_MODEL_URL) must be an http://"),
        ({"LIGHTHOUSE_EMBEDDINGS_URL": "localhost:8000"}, "embeddings_url"),
        ({"LIGHTHOUSE_MODEL": "m" * 181}, "model_name (LIGHTHOUSE_MODEL) is at most 180"),
        ({"LIGHTHOUSE_MODEL": "bad\nname"}, "model_name"),
        ({"LIGHTHOUSE_MODEL_ATTEMPTS": "0"}, "model_attempts"),
        ({"LIGHTHOUSE_MODEL_TIMEOUT_S": "601"}, "model_timeout_s"),
        ({"LIGHTHOUSE_PROMPT_ENTITIES": "201"}, "prompt_entities"),
        ({"LIGHTHOUSE_WORKER_INTERVAL_MS": "5"}, "worker_interval_ms"),
        ({"LIGHTHOUSE_MCP_TOOLS": "some"}, "mcp_tools (LIGHTHOUSE_MCP_TOOLS) is agent or all"),
        (
            {"LIGHTHOUSE_FALKORDB_CLUSTER": "host"},
            "falkordb_cluster (LIGHTHOUSE_FALKORDB_CLUSTER) is host:port",
        ),
        ({"LIGHTHOUSE_FALKORDB_CLUSTER": "a:1,b"}, "falkordb_cluster"),
        ({"LIGHTHOUSE_WAIT_REPLICAS": "17"}, "wait_replicas (LIGHTHOUSE_WAIT_REPLICAS) must be from 0 to 16"),
        ({"LIGHTHOUSE_WAIT_MS": "0"}, "wait_ms"),
        ({"LIGHTHOUSE_READ_REPLICAS": "all"}, "read_replicas (LIGHTHOUSE_READ_REPLICAS) is lagging or empty"),
    ],
)
def test_a_setting_that_cannot_be_used_is_refused_by_name(environ: dict, says: str) -> None:
    with pytest.raises(SettingsError, match=re.escape(says)):
        load(environ=environ)


def test_a_config_file_that_is_missing_wrong_or_unknown_is_refused(tmp_path) -> None:
    with pytest.raises(SettingsError, match="cannot be read"):
        load(str(tmp_path / "absent.toml"), environ={})
    broken = tmp_path / "broken.toml"
    broken.write_text("port = = 1")
    with pytest.raises(SettingsError, match="is not TOML"):
        load(str(broken), environ={})
    unknown = tmp_path / "unknown.toml"
    unknown.write_text("colour = 1")
    with pytest.raises(SettingsError, match="no setting 'colour'"):
        load(str(unknown), environ={})
    typed = tmp_path / "typed.toml"
    typed.write_text("port = true")
    with pytest.raises(SettingsError, match="whole number"):
        load(str(typed), environ={})


def test_the_embedder_is_local_http_or_none() -> None:
    assert load(environ={"LIGHTHOUSE_EMBEDDER": "local"}).embedder == "local"
    assert load(environ={"LIGHTHOUSE_EMBEDDER": "http"}).embedder == "http"
    assert load(environ={}).embedder == ""
    with pytest.raises(SettingsError, match="embedder"):
        load(environ={"LIGHTHOUSE_EMBEDDER": "openai"})
