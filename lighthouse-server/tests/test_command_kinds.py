"""`lighthouse kinds declare|list`: through a running `lighthouse serve` (with an admin key of the tenant)
or, with none running on the data directory, straight into the database."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid

import pytest
from lighthouse_server import audit, keys
from lighthouse_server.command import main
from lighthouse_server.command.kinds import serving
from lighthouse_server.database import RUNNING
from lighthouse_server.embedded import start
from lighthouse_server.settings import Settings
from service_process import Lighthouse, environment

KINDS = [{"label": "Room", "key": "code"}, {"label": "Pump", "relations": {"IN": "Room"}}]


@pytest.fixture
def declaration(tmp_path):
    path = tmp_path / "kinds.json"
    path.write_text(json.dumps(KINDS))
    return path


def _fresh() -> str:
    return f"ck{uuid.uuid4().hex[:10]}"


def _declared(lighthouse: Lighthouse, tenant: str) -> list[str]:
    listed = lighthouse.command("kinds", "list", "--tenant", tenant)
    assert listed.returncode == 0, listed.stderr
    return [json.loads(line)["label"] for line in listed.stdout.splitlines()]


def _declared_by_audit(db, tenant: str) -> list[dict]:
    return [record for record in audit.read(db, tenant) if record["action"] == "kind_declared"]


@pytest.mark.parametrize("given_as", ["--key", "LIGHTHOUSE_KEY"])
def test_declaring_while_serve_runs_goes_through_the_server(lighthouse, declaration, given_as):
    tenant = _fresh()
    made = keys.create(lighthouse.db(), tenant, "planner", ["admin"])
    if given_as == "--key":
        done = lighthouse.command(
            "kinds", "declare", str(declaration), "--tenant", tenant, "--key", made["key"]
        )
    else:
        done = lighthouse.command("kinds", "declare", str(declaration), "--tenant", tenant, key=made["key"])
    assert done.returncode == 0, done.stderr
    assert [json.loads(line) for line in done.stdout.splitlines()] == [
        {"label": "Room", "status": "declared"},
        {"label": "Pump", "status": "declared"},
    ]
    assert _declared(lighthouse, tenant) == ["Pump", "Room"]
    (record,) = _declared_by_audit(lighthouse.db(), tenant)
    assert record["key_id"] == made["id"] and record["who"] == "planner"  # the server's record, of the key
    assert record["what"]["operation"] == "declare_kinds"
    reader = lighthouse.key(tenant)
    assert lighthouse.result("kinds", {}, reader)[0]["relations"] == {"IN": "Room"}  # the server sees them
    again = lighthouse.command("kinds", "declare", str(declaration), "--tenant", tenant, key=made["key"])
    assert [json.loads(line)["status"] for line in again.stdout.splitlines()] == ["unchanged", "unchanged"]


def test_without_a_key_while_serve_runs_it_refuses_and_writes_nothing(lighthouse, declaration):
    tenant = _fresh()
    refused = lighthouse.command("kinds", "declare", str(declaration), "--tenant", tenant)
    assert refused.returncode == 2
    for said in ("lighthouse serve runs", "--key", "LIGHTHOUSE_KEY", "admin", "Nothing was declared"):
        assert said in refused.stderr
    assert refused.stdout == ""
    assert _declared(lighthouse, tenant) == []
    assert _declared_by_audit(lighthouse.db(), tenant) == []


@pytest.mark.parametrize(
    ("key_of", "scopes", "code"),
    [("another tenant", ["admin"], "forbidden"), ("the tenant", ["read", "write"], "forbidden")],
)
def test_a_key_the_server_refuses_declares_nothing(lighthouse, declaration, key_of, scopes, code):
    tenant = _fresh()
    owner = _fresh() if key_of == "another tenant" else tenant
    key = keys.create(lighthouse.db(), owner, "planner", scopes)["key"]
    refused = lighthouse.command("kinds", "declare", str(declaration), "--tenant", tenant, "--key", key)
    assert refused.returncode == 2 and f"{code}: the server refused" in refused.stderr
    assert _declared(lighthouse, tenant) == [] and _declared(lighthouse, owner) == []
    assert (
        _declared_by_audit(lighthouse.db(), tenant) == [] and _declared_by_audit(lighthouse.db(), owner) == []
    )


@pytest.mark.parametrize("bad_key", ["lh_x\r\nX-Injected: 1", "lh_\u00e9", "lh_\x7f"])
def test_a_key_no_header_can_carry_is_refused_before_anything_is_sent(lighthouse, declaration, bad_key):
    """Said as what was given (exit 2), not as a serve that does not answer; and nothing declared."""
    tenant = _fresh()
    for command in (
        ("kinds", "declare", str(declaration), "--tenant", tenant),
        ("status", "--tenant", tenant),
    ):
        refused = lighthouse.command(*command, "--key", bad_key)
        assert refused.returncode == 2, (command, refused.stdout, refused.stderr)
        assert "invalid_argument: the key holds a character an HTTP header cannot carry" in refused.stderr
        assert "Traceback" not in refused.stderr and "does not answer" not in refused.stderr
    assert _declared(lighthouse, tenant) == [] and _declared_by_audit(lighthouse.db(), tenant) == []


def test_a_tenant_id_no_header_can_carry_is_refused_before_anything_is_sent(lighthouse, declaration):
    key = keys.create(lighthouse.db(), _fresh(), "planner", ["admin"])["key"]
    for command in (("kinds", "declare", str(declaration)), ("status",)):
        refused = lighthouse.command(*command, "--tenant", "acme\r\nX-Injected: 1", "--key", key)
        assert refused.returncode == 2, (command, refused.stdout, refused.stderr)
        assert (
            "invalid_argument: the tenant id holds a character an HTTP header cannot carry" in refused.stderr
        )


def test_a_bad_declaration_is_refused_by_the_server(lighthouse, tmp_path):
    tenant = _fresh()
    key = keys.create(lighthouse.db(), tenant, "planner", ["admin"])["key"]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"label": "Pump", "relations": {"IN": "Nowhere"}}))
    refused = lighthouse.command("kinds", "declare", str(bad), "--tenant", tenant, key=key)
    assert refused.returncode == 2 and "not_found" in refused.stderr and "Nowhere" in refused.stderr
    assert _declared(lighthouse, tenant) == []
    bad.write_text("not json")
    unreadable = lighthouse.command("kinds", "declare", str(bad), "--tenant", tenant, key=key)
    assert unreadable.returncode == 2 and "not a readable JSON file" in unreadable.stderr


def _dead_pid() -> int:
    ended = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    return int(ended.stdout)


def test_with_no_server_it_declares_directly(tmp_path, declaration):
    data = tmp_path / "data"
    data.mkdir()
    # What a serve killed with -9 leaves behind: its announcement, of a process that is gone.
    (data / RUNNING).write_text(
        json.dumps({"host": "127.0.0.1", "port": 1, "pid": _dead_pid(), "http_port": 1})
    )
    alone = Lighthouse(data)
    tenant = _fresh()
    done = alone.command("kinds", "declare", str(declaration), "--tenant", tenant)  # no key needed
    assert done.returncode == 0, done.stderr
    assert [json.loads(line)["status"] for line in done.stdout.splitlines()] == ["declared", "declared"]
    assert _declared(alone, tenant) == ["Pump", "Room"]
    with start(data_dir=data) as server:
        (record,) = _declared_by_audit(server.client(), tenant)
    assert record["key_id"] is None and record["who"].startswith("cli")


def test_a_server_is_found_by_its_live_announcement(tmp_path, lighthouse):
    assert serving(Settings(data=str(tmp_path))) is None  # nothing announced
    found = serving(Settings(data=str(lighthouse.data)))
    assert (
        found is not None and found["http_port"] == lighthouse.port and found["pid"] == lighthouse.process.pid
    )
    assert found["http_host"] == "127.0.0.1"  # where its HTTP API listens, which a declaration goes to
    # With an external FalkorDB the data directory is not the database: nothing runs on it.
    assert serving(Settings(data=str(lighthouse.data), falkordb_url="redis://127.0.0.1:1")) is None
    (tmp_path / RUNNING).write_text(json.dumps({"pid": os.getpid(), "http_port": "no port"}))
    assert serving(Settings(data=str(tmp_path))) is None


def test_declare_help_says_when_a_key_is_needed(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["kinds", "declare", "--help"])
    assert exited.value.code == 0
    shown = " ".join(capsys.readouterr().out.split())
    for said in ("--key", "LIGHTHOUSE_KEY", "admin", "lighthouse serve", "--tenant", "--data"):
        assert said in shown


def test_with_an_external_falkordb_a_key_declares_through_the_serve_and_none_says_it_goes_direct(
    tmp_path, declaration, serves
):
    external = start()
    try:
        url = f"redis://127.0.0.1:{external.port}"
        running = Lighthouse(tmp_path / "data")
        running.extra = {"FALKORDB_URL": url}
        serves.append(running.start())
        tenant = _fresh()
        made = keys.create(external.client(), tenant, "planner", ["admin"])
        where = {"FALKORDB_URL": url, "LIGHTHOUSE_PORT": str(running.port)}

        def declare(tenant_id: str, **more: str) -> subprocess.CompletedProcess:
            command = [
                sys.executable,
                "-m",
                "lighthouse_server.command",
                "kinds",
                "declare",
                str(declaration),
            ]
            return subprocess.run(
                [*command, "--tenant", tenant_id, "--data", str(running.data)],
                env=environment(**where, **more),
                capture_output=True,
                text=True,
                timeout=120,
            )

        through = declare(tenant, LIGHTHOUSE_KEY=made["key"])
        assert through.returncode == 0, through.stderr
        (record,) = _declared_by_audit(external.client(), tenant)
        assert record["who"] == "planner" and record["key_id"] == made["id"]  # the serve declared it
        other = _fresh()
        direct = declare(other)
        assert direct.returncode == 0 and "declared directly" in direct.stderr
        (record,) = _declared_by_audit(external.client(), other)
        assert record["who"].startswith("cli") and record["key_id"] is None
        assert running.stop() == 0
    finally:
        external.stop()
