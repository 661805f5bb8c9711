"""settling: each tenant graph's edge types read across, writing nothing; the settler's passes."""

from __future__ import annotations

import contextlib
import logging
import threading
import time
import uuid

import pytest
from lighthouse import tenant
from lighthouse_server import settling
from lighthouse_server.declarations import Kinds
from lighthouse_server.settling import Settler, across, settle

COUNTS = "MATCH (n) OPTIONAL MATCH (n)-[r]->() RETURN count(DISTINCT n), count(r), collect(DISTINCT type(r))"


def test_settle_reads_across_every_edge_type_and_writes_nothing(graph) -> None:
    graph.query("CREATE (a:A)-[:KNOWS]->(b:B), (a)-[:`ODD TYPE-1`]->(b), (b)-[:LOOP]->(b)")
    graph.query("UNWIND range(1, 50) AS i MATCH (a:A) CREATE (a)-[:KNOWS]->(:C {i: i})")
    before = graph.ro_query(COUNTS).result_set
    assert sorted(settle(graph)) == ["KNOWS", "LOOP", "ODD TYPE-1"]
    assert graph.ro_query(COUNTS).result_set == before


def test_the_read_across_gives_one_row_for_each_type_that_has_an_edge(graph) -> None:
    graph.query("UNWIND range(1, 30) AS i CREATE (a:A {i: i})-[:KNOWS]->(:B), (a)-[:`ODD TYPE-1`]->(a)")
    graph.query("CREATE (a)-[:GONE]->(b)")
    graph.query("MATCH ()-[r:GONE]->() DELETE r")
    found = graph.ro_query(across(["KNOWS", "ODD TYPE-1", "GONE"])).result_set
    assert sorted(found) == [[0], [1]]  # a type whose edges are all gone reads as no row, and no error


def test_a_graph_without_edges_has_no_type_to_read(graph) -> None:
    graph.query("CREATE (:Lonely)")
    assert settle(graph) == []


def test_a_graph_that_is_gone_is_refused_by_the_server(db) -> None:
    with pytest.raises(Exception, match="empty key"):
        settle(db.select_graph(f"test_absent_{uuid.uuid4().hex[:8]}"))


@pytest.fixture
def tenants(db):
    """Two tenant graphs of this test's own with edges, and a tenant whose key holds no graph."""
    mark = uuid.uuid4().hex[:8]
    named = [f"settle-{mark}-a", f"settle-{mark}-b"]
    for tenant_id in named:
        tenant(db, tenant_id).query("CREATE (:Device)-[:LOCATED_IN]->(:Room)")
    broken = f"settle-{mark}-broken"
    db.connection.set(f"tenant:{broken}", "not a graph")
    yield named, broken
    for tenant_id in named:
        with contextlib.suppress(Exception):
            tenant(db, tenant_id).delete()
    db.connection.delete(f"tenant:{broken}")


def test_the_settler_passes_over_every_tenant_until_stopped(db, tenants, monkeypatch, caplog) -> None:
    named, broken = tenants
    monkeypatch.setattr(settling, "tenant_ids", lambda _db: [named[0], broken, named[1]])
    settled: list[str] = []
    real = settling.settle
    monkeypatch.setattr(settling, "settle", lambda graph: settled.append(graph.name) or real(graph))
    caplog.set_level(logging.WARNING, logger="lighthouse_server.settling")
    settler = Settler(db, every=0.05).start()
    deadline = time.monotonic() + 10
    while settler.passes < 2:
        assert time.monotonic() < deadline, "the settler made no two passes in 10 s"
        time.sleep(0.02)
    settler.stop()
    assert not any(thread.name == "lighthouse-settler" for thread in threading.enumerate())
    done = settler.passes
    time.sleep(0.2)
    assert settler.passes == done  # stopped: no pass after
    # each pass read every tenant, the broken one too, and went on past it
    assert settled[:3] == [f"tenant:{named[0]}", f"tenant:{broken}", f"tenant:{named[1]}"]
    assert f"tenant {broken}: its edge types were not read across" in caplog.text


def test_a_pass_that_cannot_list_the_tenants_is_logged_and_the_next_one_runs(db, monkeypatch, caplog) -> None:
    calls = []

    def listing(_db):
        calls.append(1)
        if len(calls) == 1:
            raise ConnectionError("the server went away")
        return []

    monkeypatch.setattr(settling, "tenant_ids", listing)
    caplog.set_level(logging.WARNING, logger="lighthouse_server.settling")
    settler = Settler(db, every=0.02).start()
    deadline = time.monotonic() + 10
    while settler.passes < 1:
        assert time.monotonic() < deadline, "no pass after the failed one"
        time.sleep(0.02)
    settler.stop()
    assert "a pass over the tenants' edge types failed: the server went away" in caplog.text


def test_the_settler_waits_out_a_schema_change_of_its_tenant(db, tenants, monkeypatch) -> None:
    named, _broken = tenants
    monkeypatch.setattr(settling, "tenant_ids", lambda _db: [named[0]])
    settled: list[str] = []
    real = settling.settle
    monkeypatch.setattr(settling, "settle", lambda graph: settled.append(graph.name) or real(graph))
    kinds = Kinds(db, entry_dimensions=lambda: 0)
    with kinds.gate(named[0]).changing():
        settler = Settler(db, every=0.02, gates=kinds.gate).start()
        time.sleep(0.3)
        assert settled == []  # no read while the tenant's schema changes in this process
    deadline = time.monotonic() + 10
    while not settled:
        assert time.monotonic() < deadline, "the settler never read the tenant once the change was over"
        time.sleep(0.02)
    settler.stop()
    assert settled[0] == f"tenant:{named[0]}"
