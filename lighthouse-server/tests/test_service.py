"""Service.run(): the checks every call passes whichever way it came (HTTP or MCP)."""

from __future__ import annotations

import contextlib
import dataclasses
import uuid

import pytest
from lighthouse import tenant
from lighthouse.graphs import schema_turn
from lighthouse_server import keys
from lighthouse_server.declarations import Kinds
from lighthouse_server.embedders import Configured
from lighthouse_server.gathering import Gathering, remember_telling_endings
from lighthouse_server.parts import Parts
from lighthouse_server.problems import Problem
from lighthouse_server.service import Service
from lighthouse_server.settings import Settings


@pytest.fixture
def service(db):
    keys.ensure_service_schema(db)
    return Service(Parts.built(db, Settings(heavy_per_minute=1)))


@pytest.fixture
def principal(db):
    name = f"v{uuid.uuid4().hex[:10]}"
    yield keys.Principal("key-1", name, "worker", frozenset({"read", "write"}))
    # a deletion drops indexes: in the schema turn
    with contextlib.suppress(Exception), schema_turn(tenant(db, name), 10.0):
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


def test_a_heavy_call_refused_for_its_arguments_costs_none_of_the_budget(service, principal):
    admin = keys.Principal(f"key-{uuid.uuid4().hex[:8]}", principal.tenant, "boss", frozenset(keys.SCOPES))
    kinds = [{"label": "Room", "key": "code"}, {"label": "Pump", "relations": {"IN": "Room"}}]
    service.run(admin, "declare_kinds", {"kinds": kinds})
    refused = [
        {"kinds": ["Pump"], "colour": "red"},  # an argument it does not take
        {"kinds": "Pump"},  # of the wrong type
        {"kinds": ["NoSuchKind"]},  # a kind not declared
        {"kinds": ["Pump"], "at": "not a time"},  # refused by the library itself
        {"kinds": ["Pump"], "limit": -3},
    ]
    for arguments in refused:
        assert _code(lambda arguments=arguments: service.run(admin, "groups", arguments)) != "rate_limited"
    assert service.run(admin, "groups", {"kinds": ["Pump"]}) == []  # the one call of the minute
    assert _code(lambda: service.run(admin, "groups", {"kinds": ["Pump"]})) == "rate_limited"


def test_health_says_the_database_answers(service):
    assert service.health() == {"status": "ok", "database": "ok", "topology": "single"}
    assert _code(lambda: service.principal(None)) == "unauthorized"
    assert _code(lambda: service.principal("lh_unknown")) == "unauthorized"


def test_an_answer_that_did_not_settle_is_not_kept_for_the_retry(service, principal, monkeypatch):
    from lighthouse_server.operations import TABLE, Operation

    # A write whose first attempt meets a database error (a "failed" receipt), as remember can.
    attempts: list[int] = []

    def write_once_the_database_answers(call, arguments):
        attempts.append(1)
        if len(attempts) == 1:
            return [{"key": "d1", "status": "failed", "reason": "the database said no"}]
        return [{"key": "d1", "status": "created"}]

    monkeypatch.setitem(
        TABLE,
        "flaky_write",
        Operation(
            "flaky_write",
            None,
            "write",
            (),
            "receipts",
            "a write",
            writes=True,
            answer=write_once_the_database_answers,
        ),
    )
    first = service.run(principal, "flaky_write", {}, "retry-1")
    assert first[0]["status"] == "failed"
    again = service.run(principal, "flaky_write", {}, "retry-1")
    assert again == [{"key": "d1", "status": "created"}] and len(attempts) == 2
    assert service.run(principal, "flaky_write", {}, "retry-1") == again and len(attempts) == 2


def test_every_audit_record_can_be_paged_to(service, principal, db):
    from lighthouse_server import audit

    admin = keys.Principal("key-3", principal.tenant, "boss", frozenset(keys.SCOPES))
    for number in range(10_005):
        audit.write(
            db, tenant=principal.tenant, action="kind_declared", who="boss", key_id="k", what={"n": number}
        )
    try:
        page = service.run(admin, "audit", {"cursor": "10000", "page_size": 10})
        assert [record["what"]["n"] for record in page["items"]] == [10_000, 10_001, 10_002, 10_003, 10_004]
        assert page["next_cursor"] is None
        first = service.run(admin, "audit", {"page_size": 2})
        assert [record["what"]["n"] for record in first["items"]] == [0, 1] and first["next_cursor"] == "2"
    finally:
        keys.service_graph(db).query("MATCH (a:AuditRecord {tenant: $t}) DELETE a", {"t": principal.tenant})


def test_every_node_of_a_large_graph_can_be_exported_page_by_page(service, principal, db):
    admin = keys.Principal("key-4", principal.tenant, "boss", frozenset(keys.SCOPES))
    tenant(db, principal.tenant).query("UNWIND range(0, 100004) AS n CREATE (:Thing {n: n})")
    page = service.run(admin, "export", {"cursor": "100000", "page_size": 1000})
    assert sorted(item["properties"]["n"] for item in page["items"]) == list(range(100_000, 100_005))
    assert page["next_cursor"] is None
    first = service.run(admin, "export", {"page_size": 3})
    assert len(first["items"]) == 3 and first["next_cursor"] == "3"


def test_an_action_done_whose_audit_record_cannot_be_kept_says_so(service, principal, db, monkeypatch):
    from lighthouse import say, sessions
    from lighthouse_server import audit
    from redis.exceptions import ResponseError

    graph = tenant(db, principal.tenant)
    say(graph, "u-gone", "s1", "user", "hello", "agent")
    tries: list[int] = []

    def refused(*_args, **_kwargs):
        tries.append(1)
        raise ResponseError("the service graph refused the write")

    monkeypatch.setattr(audit, "write", refused)
    admin = keys.Principal("key-4", principal.tenant, "boss", frozenset(keys.SCOPES))
    with pytest.raises(Problem) as raised:
        service.run(admin, "forget_user", {"user": "u-gone"})
    assert raised.value.code == "database_error" and "was done" in raised.value.message
    assert (
        '"sessions": 1' in raised.value.message and "audit record could not be kept" in raised.value.message
    )
    assert len(tries) == 3 and sessions(graph, "u-gone") == []  # done, and the caller was told


def test_a_write_done_whose_idempotency_answer_cannot_be_kept_is_answered(service, principal, monkeypatch):
    def refused(*_args, **_kwargs):
        raise RuntimeError("the answer store refused")

    monkeypatch.setattr(service._answers, "keep", refused)
    said = {"user": "u", "session_id": "s", "role": "user", "text": "hi"}
    assert service.run(principal, "say", said, "once")["status"] == "said"


def test_the_service_runs_on_the_parts_it_was_handed(db, principal):
    """serve's wiring: the workers' kinds and embedder are the service's, and a kept note wakes them."""
    keys.ensure_service_schema(db)
    woken = []
    embedder = Configured(Settings())
    kinds = Kinds(db, entry_dimensions=embedder.dimensions)
    parts = Parts.built(db, Settings(), kinds=kinds, embedder=embedder, noted=lambda: woken.append(1))
    assert parts.kinds is kinds and parts.embedder is embedder
    service = Service(parts)
    assert embedder.load() is None and embedder.dimensions() == 0  # none configured
    assert service.run(principal, "note", {"text": "the pump hums"})["status"] == "recorded"
    assert (
        service.run(principal, "notes", {"items": [{"text": "one"}, {"text": "two"}]})[1]["status"]
        == "recorded"
    )
    assert woken == [1, 1]
    alone = Parts.built(db, Settings())
    alone.noted()  # no workers in this process: nothing to wake, and nothing fails
    assert alone.kinds is not kinds and alone.health() == {"status": "ok", "database": "ok"}


def test_remember_goes_through_the_gathering_step_unless_it_has_an_idempotency_key(db, principal):
    keys.ensure_service_schema(db)
    admin = keys.Principal("key-2", principal.tenant, "planner", frozenset({"read", "write", "admin"}))
    gathered = []

    def counted(graph, kind, rows, by):
        gathered.append(len(rows))
        return remember_telling_endings(graph, kind, rows, by)

    parts = dataclasses.replace(Parts.built(db, Settings()), gathering=Gathering(counted))
    service = Service(parts)
    service.run(admin, "declare_kinds", {"kinds": [{"label": "Device", "key": "serial"}]})
    row = {"key": "d1", "t": "2026-01-01T00:00:00Z", "values": {"status": "ok"}}
    assert service.run(admin, "remember", {"kind": "Device", "rows": [row]})[0]["status"] == "created"
    assert gathered == [1]
    again = {**row, "key": "d2"}
    done = service.run(admin, "remember", {"kind": "Device", "rows": [again]}, idempotency_key="k-1")
    assert done[0]["status"] == "created" and gathered == [1]  # alone, on its once() graph
