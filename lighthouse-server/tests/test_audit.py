"""Audit records: every administrative action, readable by admin keys, out of every tenant's reach."""

from __future__ import annotations

import httpx
import pytest
from lighthouse_server import audit


def test_administrative_actions_are_recorded_and_admin_keys_read_them(lighthouse):
    made = lighthouse.command(
        "keys", "create", "--tenant", "audited", "--agent", "boss", "--scope", "admin", "--scope", "read"
    )
    assert made.returncode == 0, made.stderr
    import json

    created = json.loads(made.stdout)
    key = created["key"]
    lighthouse.result("declare_kinds", {"kinds": [{"label": "Room", "key": "code"}]}, key)
    lighthouse.result("forget_user", {"user": "u-gone"}, key)
    lighthouse.result("forget_session", {"user": "u-gone", "session_id": "s"}, key)
    records = httpx.get(f"{lighthouse.url}/v1/audit", headers={"Authorization": f"Bearer {key}"}).json()[
        "result"
    ]["items"]
    assert [record["action"] for record in records] == [
        "key_created",
        "kind_declared",
        "user_forgotten",
        "session_forgotten",
    ]
    assert records[0]["who"].startswith("cli") and records[0]["key_id"] is None
    assert records[0]["what"]["id"] == created["id"] and "key" not in records[0]["what"]
    assert {record["who"] for record in records[1:]} == {"boss"}
    assert {record["key_id"] for record in records[1:]} == {created["id"]}
    assert records[1]["what"]["answer"] == [{"label": "Room", "status": "declared"}]
    reader = lighthouse.key("audited", scopes=["read"])
    assert lighthouse.post("audit", {}, reader).status_code == 403


def test_no_tenant_reaches_the_audit_records_and_nothing_edits_them(lighthouse):
    tenant, key = lighthouse.tenant()
    assert lighthouse.result("cypher", {"query": "MATCH (a:AuditRecord) RETURN a"}, key)["rows"] == []
    refused = lighthouse.post("cypher", {"query": "MATCH (n) DETACH DELETE n"}, key)
    assert refused.status_code == 400 and refused.json()["error"]["code"] == "invalid_argument"
    assert len(lighthouse.result("audit", {}, key)["items"]) == 1  # its own kinds, declared


def test_an_unknown_action_is_a_bug(db):
    with pytest.raises(ValueError, match="no audit action"):
        audit.write(db, tenant="x", action="key_stolen", who="a", key_id=None, what={})
