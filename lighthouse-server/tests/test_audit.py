"""Audit records: every administrative action, readable by admin keys, out of every tenant's reach."""

from __future__ import annotations

import uuid

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


def test_the_record_of_a_request_made_again_is_written_once(db):
    """A call made again with its idempotency key (once_for: its request) after a crash past its record
    finds that record: one record, the first one; another request, or none, is a record of its own."""
    tenant = f"again-{uuid.uuid4().hex[:8]}"
    first = audit.write(
        db, tenant=tenant, action="user_forgotten", who="a", key_id="k1", what={"n": 1}, once_for="idem:r1"
    )
    again = audit.write(
        db, tenant=tenant, action="user_forgotten", who="a", key_id="k1", what={"n": 1}, once_for="idem:r1"
    )
    assert again["id"] == first["id"] and len(first["id"]) == 16
    audit.write(db, tenant=tenant, action="user_forgotten", who="a", key_id="k1", what={}, once_for="idem:r2")
    audit.write(db, tenant=tenant, action="user_forgotten", who="a", key_id="k1", what={})
    records = audit.read(db, tenant)
    assert [record["id"] for record in records][0] == first["id"] and len(records) == 3
    assert records[0]["at"] == first["at"] and records[0]["what"] == {"n": 1}
    # the same request under another tenant is that tenant's own record
    other = audit.write(
        db, tenant=tenant + "x", action="user_forgotten", who="a", key_id="k1", what={}, once_for="idem:r1"
    )
    assert len(audit.read(db, tenant + "x")) == 1 and other["id"] == first["id"]
