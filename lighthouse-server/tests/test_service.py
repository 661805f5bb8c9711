"""Service.run(): the checks every call passes whichever way it came (HTTP or MCP)."""

from __future__ import annotations

import contextlib
import uuid

import pytest
from lighthouse import tenant
from lighthouse_server import keys
from lighthouse_server.problems import Problem
from lighthouse_server.service import Service
from lighthouse_server.settings import Settings


@pytest.fixture
def service(db):
    keys.ensure_service_schema(db)
    return Service(db, Settings(heavy_per_minute=1))


@pytest.fixture
def principal(db):
    name = f"v{uuid.uuid4().hex[:10]}"
    yield keys.Principal("key-1", name, "worker", frozenset({"read", "write"}))
    with contextlib.suppress(Exception):
        tenant(db, name).delete()


def _code(call) -> str:
    with pytest.raises(Problem) as raised:
        call()
    return raised.value.code


def test_scope_operation_and_arguments_are_checked_before_anything_runs(service, principal):
    assert _code(lambda: service.run(principal, "forget_user", {"user": "u"})) == "forbidden"
    assert _code(lambda: service.run(principal, "no_such", {})) == "not_found"
    assert _code(lambda: service.run(principal, "history", {"kind": "Device", "key": "d"})) == "not_found"
    assert _code(lambda: service.run(principal, "say", "not an object")) == "invalid_body"
    assert (
        _code(lambda: service.run(principal, "messages", {"user": "u", "session_id": "s"}, "key"))
        == "invalid_argument"
    )
    assert _code(
        lambda: service.run(principal, "messages", {"user": "u", "session_id": "s", "last": True})
    ) == ("invalid_argument")


def test_the_library_refusals_and_receipts_come_through(service, principal):
    assert (
        _code(lambda: service.run(principal, "messages", {"user": " padded", "session_id": "s"}))
        == "invalid_argument"
    )
    said = service.run(principal, "say", {"user": "u", "session_id": "s", "role": "user", "text": "hi"})
    assert said == {"id": "s", "seq": 1, "status": "said"}
    assert service.run(principal, "messages", {"user": "u", "session_id": "s"})[0]["by"] == "worker"


def test_a_heavy_call_counts_against_its_key(service, principal):
    admin = keys.Principal("key-2", principal.tenant, "boss", frozenset(keys.SCOPES))
    kinds = [{"label": "Room", "key": "code"}, {"label": "Pump", "relations": {"IN": "Room"}}]
    service.run(admin, "declare_kinds", {"kinds": kinds})
    assert service.run(admin, "groups", {"kinds": ["Pump"]}) == []
    assert _code(lambda: service.run(admin, "groups", {"kinds": ["Pump"]})) == "rate_limited"
    assert service.run(principal, "kinds", {})[0]["label"] == "Pump"  # not heavy: never limited


def test_health_says_the_database_answers(service):
    assert service.health() == {"status": "ok", "database": "ok"}
    assert _code(lambda: service.principal(None)) == "unauthorized"
    assert _code(lambda: service.principal("lh_unknown")) == "unauthorized"
