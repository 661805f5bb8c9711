"""API keys: random, shown once, kept only as a hash in the service graph, with or without a running server."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys

import pytest
from lighthouse_server import keys
from lighthouse_server.embedded import start
from lighthouse_server.problems import Problem
from service_process import environment


def _command(data, *arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "lighthouse_server.command", "keys", *arguments, "--data", str(data)],
        env=environment(),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_keys_without_a_running_server_and_only_the_hash_is_stored(tmp_path):
    data = tmp_path / "data"
    made = _command(
        data, "create", "--tenant", "acme", "--agent", "planner", "--scope", "read", "--scope", "write"
    )
    assert made.returncode == 0, made.stderr
    created = json.loads(made.stdout)
    assert created["scopes"] == ["read", "write"] and created["key"].startswith("lh_")
    assert len(created["key"].split("_", 2)[2]) >= 32  # 24 random bytes, URL-safe: 192 bits
    listed = _command(data, "list")
    assert (
        created["key"] not in listed.stdout
        and hashlib.sha256(created["key"].encode()).hexdigest() not in listed.stdout
    )
    assert json.loads(listed.stdout.splitlines()[0])["id"] == created["id"]
    with start(data_dir=data) as server:  # what the database holds: the hash, never the key
        stored = (
            server.client()
            .select_graph(keys.SERVICE_GRAPH)
            .ro_query("MATCH (k:ApiKey) RETURN properties(k)")
            .result_set
        )
        assert stored[0][0]["hash"] == hashlib.sha256(created["key"].encode()).hexdigest()
        assert created["key"] not in json.dumps(stored)
    assert _command(data, "revoke", created["id"]).returncode == 0
    assert "revoked_at" in json.loads(_command(data, "list").stdout.splitlines()[0])
    assert _command(data, "revoke", "nope").returncode == 2


def test_keys_with_a_running_server_work_at_once(lighthouse):
    made = lighthouse.command("keys", "create", "--tenant", "live", "--agent", "a", "--scope", "read")
    assert made.returncode == 0, made.stderr
    key = json.loads(made.stdout)["key"]
    assert lighthouse.result("kinds", {}, key) == []
    assert lighthouse.post("remember", {"kind": "Device", "rows": []}, key).status_code == 403


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        (("--tenant", "Not A Tenant", "--agent", "a", "--scope", "read"), "tenant id"),
        (("--tenant", "acme", "--agent", " padded", "--scope", "read"), "agent"),
        (("--tenant", "acme", "--agent", "a", "--scope", "root"), "invalid choice"),
    ],
)
def test_a_bad_key_request_is_refused_with_its_reason(tmp_path, arguments, says):
    done = _command(tmp_path / "data", "create", *arguments)
    assert done.returncode == 2 and says in done.stderr


def test_a_key_is_checked_by_its_hash(db):
    made = keys.create(db, "hashed", "agent", ["read"])
    found = keys.principal(db, made["key"])
    assert found == keys.Principal(made["id"], "hashed", "agent", frozenset({"read"}))
    assert keys.principal(db, made["key"] + "x") is None and keys.principal(db, None) is None
    keys.revoke(db, made["id"])
    assert keys.principal(db, made["key"]) is None
    with pytest.raises(keys.KeyRefused):
        keys.create(db, "hashed", "agent", [])
    assert keys.KeyRefused("x").code == "invalid_argument" and isinstance(keys.KeyRefused("x"), Problem)


def test_a_key_id_is_current_until_its_key_is_revoked(db):
    made = keys.create(db, "current", "agent", ["read", "write"])
    assert keys.current(db, made["id"]) == keys.Principal(
        made["id"], "current", "agent", frozenset({"read", "write"})
    )
    first = keys.revoke(db, made["id"])
    assert keys.current(db, made["id"]) is None
    assert keys.current(db, "no-such-id") is None
    again = keys.revoke(db, made["id"])  # twice: the first time kept, and said to be so
    assert first["already"] is False and again["already"] is True
    assert again["revoked_at"] == first["revoked_at"]


def test_a_key_id_already_taken_is_drawn_again(db, monkeypatch):
    tenant = f"ids-{db.connection.incr('test:key-ids')}"
    first = keys.create(db, tenant, "planner", ["read"])
    drawn = iter([first["id"], first["id"], "0123456789ab"])
    monkeypatch.setattr(keys.secrets, "token_hex", lambda _n: next(drawn))
    second = keys.create(db, tenant, "planner", ["read"])
    assert second["id"] == "0123456789ab" and keys.principal(db, second["key"]).key_id == "0123456789ab"
    assert keys.principal(db, first["key"]).key_id == first["id"]  # the first key is untouched
    keys.revoke(db, "0123456789ab")


def test_no_free_key_id_raises_and_stores_nothing(db, monkeypatch):
    tenant = f"ids-{db.connection.incr('test:key-ids')}"
    first = keys.create(db, tenant, "planner", ["read"])
    monkeypatch.setattr(keys.secrets, "token_hex", lambda _n: first["id"])
    with pytest.raises(RuntimeError, match="no free key id"):
        keys.create(db, tenant, "planner", ["read"])
    assert [one["id"] for one in keys.listed(db, tenant)] == [first["id"]]
