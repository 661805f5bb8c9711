"""The per-key, per-minute limit of heavy calls, kept on the real database server."""

from __future__ import annotations

import threading
import uuid

import pytest
from lighthouse.values import Refused
from lighthouse_server import quotas
from lighthouse_server.problems import Problem
from lighthouse_server.quotas import PerMinute

TENANT = "limits"  # the tenant whose keys these are: its window carries its hash tag


@pytest.fixture
def key_ids(db):
    """Key ids of this test's own; their windows are deleted after it."""
    made: list[str] = []

    def new() -> str:
        made.append(f"test-{uuid.uuid4().hex[:12]}")
        return made[-1]

    yield new
    for key_id in made:
        db.connection.delete(PerMinute(db, 1).window(key_id, TENANT))


def test_the_limit_counts_per_key_and_says_when_to_come_back(db, key_ids, monkeypatch):
    moment = [1_000_000.0]
    monkeypatch.setattr(quotas.time, "time", lambda: moment[0])
    a, b = key_ids(), key_ids()
    limit = PerMinute(db, 2)
    limit.take(a, "groups", TENANT)
    limit.take(a, "groups", TENANT)
    limit.take(b, "groups", TENANT)
    with pytest.raises(Problem) as refused:
        limit.take(a, "groups", TENANT)
    assert refused.value.code == "rate_limited" and refused.value.retry_after == 60
    moment[0] += 30
    with pytest.raises(Problem) as refused:
        limit.take(a, "between", TENANT)
    assert refused.value.retry_after == 30 and "between" in refused.value.message
    moment[0] += 30
    limit.take(a, "groups", TENANT)  # the first two calls left the window


def test_two_processes_share_one_window(db, key_ids):
    # Two PerMinute objects stand for two serve processes on one database: together they take `most`.
    key_id = key_ids()
    first, second = PerMinute(db, 3), PerMinute(db, 3)
    first.take(key_id, "groups", TENANT)
    second.take(key_id, "groups", TENANT)
    first.take(key_id, "groups", TENANT)
    with pytest.raises(Problem):
        second.take(key_id, "groups", TENANT)


def test_racing_callers_take_exactly_the_limit(db, key_ids):
    key_id = key_ids()
    limit = PerMinute(db, 5)
    taken, refused = [], []
    barrier = threading.Barrier(12)

    def call() -> None:
        barrier.wait()
        try:
            limit.take(key_id, "groups", TENANT)
            taken.append(1)
        except Problem:
            refused.append(1)

    threads = [threading.Thread(target=call) for _ in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(taken) == 5 and len(refused) == 7


def test_the_window_expires_on_the_server(db, key_ids):
    key_id = key_ids()
    PerMinute(db, 1).take(key_id, "groups", TENANT)
    remaining = db.connection.pttl(PerMinute(db, 1).window(key_id, TENANT))
    assert 0 < remaining <= 60_000


def test_the_window_is_named_beside_the_tenants_graph_without_a_graph_object(db, key_ids, monkeypatch):
    key_id = key_ids()
    limit = PerMinute(db, 1)
    # The name alone: a heavy call makes no graph object to learn its tenant's graph name.
    monkeypatch.setattr(db, "select_graph", lambda name: pytest.fail(f"select_graph({name!r}) called"))
    assert limit.window(key_id, TENANT) == f"lighthouse:heavy:{key_id}:{{tenant:{TENANT}}}"
    limit.take(key_id, "groups", TENANT)
    assert db.connection.zcard(limit.window(key_id, TENANT)) == 1


@pytest.mark.parametrize("tenant_id", [None, "", "Acme", "a b", "a" * 64])
def test_a_window_of_no_tenant_is_refused_and_nothing_counted(db, key_ids, tenant_id):
    key_id = key_ids()
    with pytest.raises(Refused, match="tenant id"):
        PerMinute(db, 1).take(key_id, "groups", tenant_id)
    assert db.connection.zcard(PerMinute(db, 1).window(key_id, TENANT)) == 0
