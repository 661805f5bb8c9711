"""The service's settings, read once: the command line over the environment over a TOML file over defaults.

Every part of the service (serve, and the commands that act on its data) takes its settings from the one
Settings this module gives. Outside it, only the demo, `lighthouse server`, the tests and the benchmark
read the environment: FALKORDB_URL, FALKORDB_HOST, FALKORDB_PORT and FALKORDB_PASSWORD (database.py) and
LIGHTHOUSE_GRAPH (command/demo.py), as the README's "Two commands" says. The README's table of settings
is made from the Settings class below (its docstrings, defaults and ENVIRONMENT).
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, fields
from pathlib import Path

from .problems import InvalidArgument


class SettingsError(InvalidArgument, ValueError):
    """A setting that cannot be used as given: the message names it and where it came from."""


@dataclass(frozen=True)
class Settings:
    """What the service runs with. Field names are the keys of the TOML file; the docstring under each
    field is its line in the README's table of settings (python -m lighthouse_server.readme_tables)."""

    data: str = "data"
    """the embedded FalkorDB's data directory (`--data`)"""
    host: str = "127.0.0.1"
    """where HTTP and MCP listen (`--host`)"""
    port: int = 8765
    """the port (`--port`)"""
    falkordb_url: str = ""
    """`redis://host:port` of a FalkorDB already running (`redis://:password@host:port` for one that
    requires a password); empty starts the embedded one"""
    falkordb_cluster: str = ""
    """`host:port,host:port`: seed nodes of a FalkorDB cluster, tried in turn (the password from
    `FALKORDB_PASSWORD`); empty: `falkordb_url` or the embedded server"""
    wait_replicas: int = 0
    """replicas that must hold a write before it is acknowledged (0: none waited for); the answer's
    `Lighthouse-Replicated: n/m` header says how many did"""
    wait_ms: int = 100
    """how long a write waits for those replicas; past it the answer says it is not yet replicated"""
    read_replicas: str = ""
    """`lagging`: the reads that may lag (search, recall, the heavy questions, the console's pages) go to
    a replica, except a key's own reads for 5 s after its write; empty: every read on the master"""
    fsync: str = "everysec"
    """the append-only file's policy (`--fsync`): `everysec` may lose about the last second of
    acknowledged writes on a power loss or kernel crash, and up to two seconds of them on a crash of the
    process while a busy disk holds Redis' background fsync; `always` loses none, and each write waits
    for the disk"""
    body_limit: int = 8 * 1024 * 1024
    """bytes of one request body; more is 413"""
    body_timeout_s: int = 30
    """seconds a request's whole body may take to arrive (a body shorter than its Content-Length, a
    client that stalls); past it 408 `body_timeout`"""
    heavy_per_minute: int = 10
    """calls of `groups`, `important`, `between`, `connection` per key and minute"""
    query_timeout_ms: int = 5_000
    """time limit of the read-only `cypher` tool"""
    key: str = ""
    """the API key `lighthouse mcp` (stdio) acts with, and `kinds declare` while a `serve` runs on the
    data directory (the declaration then goes through that server, which holds the tenant's writers back;
    `--key` too); with `falkordb_url`, a key sends the declaration to the serve at `host` and `port`, and
    without one it is written directly (and says so)"""
    embedder: str = ""
    """`local`: recall by meaning with the bundled all-MiniLM-L6-v2 (384 dimensions); `http`: with the
    endpoint `embeddings_url` names; empty: by words and the graph only"""
    model_url: str = ""
    """base URL of an OpenAI-compatible chat endpoint (for example `http://127.0.0.1:8000/v1`) the
    extraction worker asks; empty: notes are kept and found by words, and no facts are drawn from them
    (the status says `not configured`)"""
    model_name: str = ""
    """the model's name; facts it draws are written with `by` = `model:<name>`"""
    model_key: str = ""
    """the model endpoint's bearer key: set it in the environment, not in a file"""
    model_timeout_s: int = 60
    """seconds one ask of the model may take, from the connection to the answer's last byte; past it the
    connection is cut and the ask counts as failed"""
    model_attempts: int = 3
    """failed asks of one note (malformed JSON, a 5xx, a timeout; or no connection, a 429, a 401/403/404
    while the model answers other notes) before the note is set aside; `replay` gives it back"""
    prompt_entities: int = 20
    """entities found by a note's words and meaning that its prompt carries (keys and current values)"""
    worker_interval_ms: int = 1_000
    """how long an idle worker waits before it looks for new notes again"""
    embeddings_url: str = ""
    """base URL of an OpenAI-compatible embeddings endpoint, for `embedder = "http"`"""
    embeddings_model: str = ""
    """the model that endpoint runs"""
    embeddings_key: str = ""
    """its bearer key: set it in the environment"""
    mcp_tools: str = "agent"
    """the MCP tools a key sees, always within its scopes: `agent`, the compact set an agent needs (see "An
    agent reaches the same tools over MCP"); `all`, every operation as a tool"""


# Setting -> environment variable. FALKORDB_URL is the name the field already uses elsewhere.
ENVIRONMENT = {
    "data": "LIGHTHOUSE_DATA",
    "host": "LIGHTHOUSE_HOST",
    "port": "LIGHTHOUSE_PORT",
    "falkordb_url": "FALKORDB_URL",
    "falkordb_cluster": "LIGHTHOUSE_FALKORDB_CLUSTER",
    "wait_replicas": "LIGHTHOUSE_WAIT_REPLICAS",
    "wait_ms": "LIGHTHOUSE_WAIT_MS",
    "read_replicas": "LIGHTHOUSE_READ_REPLICAS",
    "fsync": "LIGHTHOUSE_FSYNC",
    "body_limit": "LIGHTHOUSE_BODY_LIMIT",
    "body_timeout_s": "LIGHTHOUSE_BODY_TIMEOUT_S",
    "heavy_per_minute": "LIGHTHOUSE_HEAVY_PER_MINUTE",
    "query_timeout_ms": "LIGHTHOUSE_QUERY_TIMEOUT_MS",
    "key": "LIGHTHOUSE_KEY",
    "embedder": "LIGHTHOUSE_EMBEDDER",
    "model_url": "LIGHTHOUSE_MODEL_URL",
    "model_name": "LIGHTHOUSE_MODEL",
    "model_key": "LIGHTHOUSE_MODEL_KEY",
    "model_timeout_s": "LIGHTHOUSE_MODEL_TIMEOUT_S",
    "model_attempts": "LIGHTHOUSE_MODEL_ATTEMPTS",
    "prompt_entities": "LIGHTHOUSE_PROMPT_ENTITIES",
    "worker_interval_ms": "LIGHTHOUSE_WORKER_INTERVAL_MS",
    "embeddings_url": "LIGHTHOUSE_EMBEDDINGS_URL",
    "embeddings_model": "LIGHTHOUSE_EMBEDDINGS_MODEL",
    "embeddings_key": "LIGHTHOUSE_EMBEDDINGS_KEY",
    "mcp_tools": "LIGHTHOUSE_MCP_TOOLS",
}
MODEL_NAME_MOST = 180
_SEED = re.compile(r"\A[A-Za-z0-9._-]{1,253}:[0-9]{1,5}\Z")
CONFIG_VARIABLE = "LIGHTHOUSE_CONFIG"  # the TOML file, when --config does not name one
_RANGES = {
    "port": (1, 65_535),
    "body_limit": (1_024, 256 * 1024 * 1024),
    "body_timeout_s": (1, 600),
    "heavy_per_minute": (1, 100_000),
    "query_timeout_ms": (1, 60_000),
    "model_timeout_s": (1, 600),
    "model_attempts": (1, 100),
    "prompt_entities": (0, 200),
    "worker_interval_ms": (10, 600_000),
    "wait_replicas": (0, 16),
    "wait_ms": (1, 60_000),
}


def _typed(name: str, raw: object, source: str) -> object:
    wanted = {field.name: field.type for field in fields(Settings)}[name]
    if wanted == "int":
        if isinstance(raw, bool) or not isinstance(raw, int | str):
            raise SettingsError(f"{name} ({source}) must be a whole number, not {raw!r}")
        try:
            number = int(raw)
        except ValueError:
            raise SettingsError(f"{name} ({source}) must be a whole number, not {raw!r}") from None
        low, high = _RANGES[name]
        if not low <= number <= high:
            raise SettingsError(f"{name} ({source}) must be from {low} to {high}, not {number}")
        return number
    if not isinstance(raw, str):
        raise SettingsError(f"{name} ({source}) must be text, not {raw!r}")
    if name == "embedder" and raw not in ("", "local", "http"):
        raise SettingsError(f"embedder ({source}) is local, http or empty, not {raw!r}")
    if name == "model_name" and (len(raw) > MODEL_NAME_MOST or any(ord(c) < 32 for c in raw)):
        # the model's facts are written by "model:<name>", which must stay a name of the library's
        raise SettingsError(f"model_name ({source}) is at most {MODEL_NAME_MOST} characters of text")
    if name in ("model_url", "embeddings_url") and raw and not raw.startswith(("http://", "https://")):
        raise SettingsError(f"{name} ({source}) must be an http:// or https:// URL, not {raw!r}")
    if name == "mcp_tools" and raw not in ("agent", "all"):
        raise SettingsError(f"mcp_tools ({source}) is agent or all, not {raw!r}")
    if name == "fsync" and raw not in ("everysec", "always"):
        raise SettingsError(f"fsync ({source}) is everysec or always, not {raw!r}")
    if name == "falkordb_cluster" and raw and not all(_SEED.match(seed.strip()) for seed in raw.split(",")):
        raise SettingsError(
            f"falkordb_cluster ({source}) is host:port,host:port (seed nodes), not {raw[:200]!r}"
        )
    if name == "read_replicas" and raw not in ("", "lagging"):
        raise SettingsError(f"read_replicas ({source}) is lagging or empty, not {raw!r}")
    if name == "falkordb_url" and raw and not raw.startswith(("redis://", "rediss://")):
        # not said back: the URL may carry a password
        raise SettingsError(
            f"falkordb_url ({source}) must be redis://host:port or redis://:password@host:port"
        )
    return raw


def load(config: str | None = None, overrides: dict | None = None, environ: dict | None = None) -> Settings:
    """The settings: overrides (the command line's, None meaning not given) over the environment over
    the TOML file (config, else LIGHTHOUSE_CONFIG) over the defaults. Raises SettingsError."""
    environ = os.environ if environ is None else environ
    chosen: dict[str, object] = {}
    path = config or environ.get(CONFIG_VARIABLE)
    if path:
        try:
            with Path(path).open("rb") as handle:
                table = tomllib.load(handle)
        except OSError as error:
            raise SettingsError(f"the config file {path} cannot be read: {error.strerror}") from None
        except tomllib.TOMLDecodeError as error:
            raise SettingsError(f"the config file {path} is not TOML: {error}") from None
        unknown = sorted(set(table) - set(ENVIRONMENT))
        if unknown:
            raise SettingsError(f"the config file {path} has no setting {unknown[0]!r}")
        chosen.update({name: _typed(name, raw, path) for name, raw in table.items()})
    for name, variable in ENVIRONMENT.items():
        if environ.get(variable):
            chosen[name] = _typed(name, environ[variable], variable)
    for name, raw in (overrides or {}).items():
        if raw is not None:
            chosen[name] = _typed(name, raw, f"--{name.replace('_', '-')}")
    return Settings(**chosen)
