"""The service on one server and on a 3-master, 3-replica cluster (one fixture, two topologies: any_db):
tenants listed over every shard, keys of a tenant beside its graph, the schema turn per shard, tenant
isolation, idempotency, limits, notes, status, export, health and waiting for replicas."""

from __future__ import annotations

import contextlib
import json
import threading
import time
import uuid

import pytest
from lighthouse import tenant
from lighthouse.schema_turns import schema_turn, turn_key
from lighthouse_server import keys, topology
from lighthouse_server.answers import held_key
from lighthouse_server.export import write_jsonl
from lighthouse_server.parts import Parts
from lighthouse_server.problems import Problem
from lighthouse_server.quotas import PerMinute
from lighthouse_server.service import Service
from lighthouse_server.settings import Settings
from lighthouse_server.worker.loop import tenant_ids

ROW = {"kind": "Device", "rows": [{"key": "d1", "t": "2026-01-01T00:00:00Z", "values": {"status": "ok"}}]}
KINDS = [{"label": "Device", "key": "serial"}]


@pytest.fixture
def tenants(any_db):
    """Tenant ids of this test's own (enough to land on every shard), their graphs deleted after it."""
    made: list[str] = []

    def new() -> str:
        made.append(f"t{uuid.uuid4().hex[:10]}")
        return made[-1]

    yield new
    for name in made:
        with contextlib.suppress(Exception), schema_turn(tenant(any_db, name), 10.0):
            tenant(any_db, name).delete()


def _service(db, **settings) -> Service:
    keys.ensure_service_schema(db)
    return Service(Parts.built(db, Settings(**settings)))


def _writer(name: str) -> keys.Principal:
    return keys.Principal(f"key-{name}", name, "agent", frozenset(keys.SCOPES))


def _same_slot(db, one: str, other: str) -> bool:
    if not topology.is_cluster(db):
        return True
    return db.connection.keyslot(one) == db.connection.keyslot(other)


def test_every_tenant_is_listed_from_every_shard(any_db, tenants):
    made = [tenants() for _ in range(9)]
    for name in made:
        tenant(any_db, name).query("CREATE (:Marker)")
    listed = tenant_ids(any_db)
    assert set(made) <= set(listed) and listed == sorted(listed)
    if topology.is_cluster(any_db):  # the nine spread: more than one shard answered
        owners = {any_db.connection.get_node_from_key(f"tenant:{name}").name for name in made}
        assert len(owners) > 1


def test_writes_reads_and_isolation_between_tenants(any_db, tenants):
    service = _service(any_db)
    first, second = _writer(tenants()), _writer(tenants())
    service.run(first, "declare_kinds", {"kinds": KINDS})
    service.run(second, "declare_kinds", {"kinds": KINDS})
    service.run(first, "remember", ROW)
    assert service.run(first, "history", {"kind": "Device", "key": "d1"})["items"]
    assert service.run(second, "history", {"kind": "Device", "key": "d1"})["items"] == []
    said = service.run(first, "say", {"user": "u", "session_id": "s", "role": "user", "text": "hi"})
    assert said["status"] == "said"
    assert not service.run(second, "messages", {"user": "u", "session_id": "s"})


def test_an_idempotent_write_lands_once_and_its_hold_lives_beside_the_graph(any_db, tenants):
    service = _service(any_db)
    writer = _writer(tenants())
    sent = {"user": "u", "session_id": "s", "role": "user", "text": "once"}
    first = service.run(writer, "say", sent, "say-1")
    assert service.run(writer, "say", sent, "say-1") == first
    assert len(service.run(writer, "messages", {"user": "u", "session_id": "s"})) == 1
    with pytest.raises(Problem) as other:
        service.run(writer, "say", {**sent, "text": "other"}, "say-1")
    assert other.value.code == "invalid_argument"
    graph_name = tenant(any_db, writer.tenant).name
    assert _same_slot(any_db, held_key(graph_name, "k\x1fsay-1"), graph_name)


def test_heavy_windows_are_shared_and_live_beside_the_tenant_graph(any_db, tenants):
    name, key_id = tenants(), f"key-{uuid.uuid4().hex[:8]}"
    first, second = PerMinute(any_db, 2), PerMinute(any_db, 2)  # two serve processes
    first.take(key_id, "groups", name)
    second.take(key_id, "groups", name)
    with pytest.raises(Problem) as refused:
        first.take(key_id, "groups", name)
    assert refused.value.code == "rate_limited"
    window = PerMinute(any_db, 1).window(key_id, name)
    assert _same_slot(any_db, window, f"tenant:{name}")
    any_db.connection.delete(window)


def test_the_schema_turn_is_one_per_server_and_lives_on_the_graphs_shard(any_db, tenants):
    names = [tenants() for _ in range(9)]
    graphs = [tenant(any_db, name) for name in names]
    turns = {turn_key(graph) for graph in graphs}
    if not topology.is_cluster(any_db):
        assert turns == {"lighthouse:schema-turn"}
        return
    assert len(turns) == len({any_db.connection.get_node_from_key(g.name).name for g in graphs}) > 1
    for graph in graphs:
        owner = any_db.connection.get_node_from_key(graph.name).name
        assert any_db.connection.get_node_from_key(turn_key(graph)).name == owner
    # schema changes of tenants on two shards go on side by side, and are all built
    service, failures = _service(any_db), []

    def declare(name: str) -> None:
        try:
            service.run(_writer(name), "declare_kinds", {"kinds": KINDS})
        except Exception as error:  # noqa: BLE001 - collected for the assertion
            failures.append(error)

    threads = [threading.Thread(target=declare, args=(name,)) for name in names[:4]]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


def test_notes_status_and_export_work_on_the_topology(any_db, tenants, tmp_path):
    service = _service(any_db)
    writer = _writer(tenants())
    kept = service.run(writer, "note", {"text": "the pump leaks", "source": "agent"})
    assert kept["status"] == "recorded"
    status = service.run(writer, "status", {})
    assert status["tenant"] == writer.tenant and status["extraction"]["notes_waiting"] == 1
    counts = write_jsonl(tenant(any_db, writer.tenant), tmp_path / "out.jsonl")
    lines = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert counts["nodes"] == sum(1 for line in lines if line.get("type") == "node") > 0


def test_health_says_the_topology_and_each_shard(any_db):
    said = topology.health(any_db)
    assert said["status"] == "ok" and said["database"] == "ok"
    if topology.is_cluster(any_db):
        assert said["topology"] == "cluster" and len(said["shards"]) == 3
        for shard in said["shards"]:
            assert shard["state"] == "ok" and [n["role"] for n in shard["nodes"]] == ["master", "replica"]
    else:
        assert said["topology"] == "single" and "shards" not in said


def test_a_write_waits_for_replicas_and_says_how_many_hold_it(any_db, tenants):
    service = _service(any_db, wait_replicas=1, wait_ms=200)
    writer = _writer(tenants())
    service.run(writer, "say", {"user": "u", "session_id": "s", "role": "user", "text": "kept"})
    # the cluster's shard has its replica; the tests' one server has none: on its master only
    assert service.replicated() == ((1, 1) if topology.is_cluster(any_db) else (0, 1))
    service.run(writer, "messages", {"user": "u", "session_id": "s"})
    assert service.replicated() is None  # a read waits for nothing


def test_the_status_command_on_a_cluster_says_each_shard_and_every_tenant(
    falkordb_cluster, cluster_db, monkeypatch, capsys, tmp_path
):
    from lighthouse_server.command import main

    names = [f"c{uuid.uuid4().hex[:10]}" for _ in range(4)]
    for name in names:
        tenant(cluster_db, name).query("CREATE (:Marker)")
    # a seed that does not answer is passed over: the next one is tried
    seeds = ["127.0.0.1:1", *reversed(falkordb_cluster.seeds)]
    monkeypatch.setenv("LIGHTHOUSE_FALKORDB_CLUSTER", ",".join(seeds))
    try:
        assert main(["status", "--data", str(tmp_path / "unused")]) == 0
        said = capsys.readouterr()
        health = json.loads(said.err.split("lighthouse status: database: ", 1)[1].splitlines()[0])
        assert (
            health["topology"] == "cluster" and [shard["state"] for shard in health["shards"]] == ["ok"] * 3
        )
        listed = {json.loads(line)["tenant"] for line in said.out.splitlines()}
        assert set(names) <= listed
    finally:
        for name in names:
            with contextlib.suppress(Exception), schema_turn(tenant(cluster_db, name), 10.0):
                tenant(cluster_db, name).delete()


def test_a_cluster_none_of_whose_seeds_answers_is_said(monkeypatch, capsys, tmp_path):
    from lighthouse_server.command import main

    monkeypatch.setenv("LIGHTHOUSE_FALKORDB_CLUSTER", "127.0.0.1:1,127.0.0.1:2")
    assert main(["status", "--data", str(tmp_path)]) == 2
    said = capsys.readouterr().err
    assert "no seed node of falkordb_cluster answers" in said and "127.0.0.1:2" in said


def _replica_online(db, graph_name: str) -> bool:
    primary = db.connection.get_node_from_key(graph_name).name
    for shard in topology.shards(db):
        if shard["nodes"][0]["address"] == primary:
            return any(node["role"] == "replica" and node["health"] == "online" for node in shard["nodes"])
    return False


def _ro_queries(node) -> int:
    with node.connection() as connection:
        return int(connection.info("commandstats").get("cmdstat_graph.RO_QUERY", {}).get("calls", 0))


def test_lagging_reads_go_to_a_replica_and_a_writer_reads_its_own_writes(falkordb_cluster, cluster_db):
    keys.ensure_service_schema(cluster_db)
    parts = Parts.built(cluster_db, Settings(read_replicas="lagging", wait_replicas=1, wait_ms=2000))
    service = Service(parts)
    name = f"r{uuid.uuid4().hex[:10]}"
    writer, reader = _writer(name), keys.Principal(f"other-{name}", name, "reader", frozenset({"read"}))
    service.run(writer, "declare_kinds", {"kinds": [{"label": "Device", "key": "serial", "text": ["note"]}]})
    row = {"key": "d1", "t": "2026-01-01T00:00:00Z", "values": {"note": "the pump room sensor"}}
    service.run(writer, "remember", {"kind": "Device", "rows": [row]})
    assert service.replicated() == (1, 1)
    graph_name = tenant(cluster_db, name).name
    deadline = time.monotonic() + 30  # a replica says "online" once the cluster's gossip carries its offset
    while not _replica_online(cluster_db, graph_name) and time.monotonic() < deadline:
        time.sleep(0.2)
    replica = topology.on_replica(cluster_db, graph_name).client.connection.get_connection_kwargs()
    node = next(one for one in falkordb_cluster.nodes if one.port == replica["port"])
    # The writer writes again now: the wait above may outlast its READ_OWN_WRITES_S on a busy machine.
    service.run(writer, "remember", {"kind": "Device", "rows": [row]})
    before = _ro_queries(node)
    own = service.run(writer, "search", {"kind": "Device", "question": "pump"})  # on the master
    assert _ro_queries(node) == before
    other = service.run(reader, "search", {"kind": "Device", "question": "pump"})  # on the replica
    assert _ro_queries(node) > before
    assert other == own and json.dumps(other).count("d1") >= 1
    assert service.run(reader, "recall", {"question": "pump"}) is not None  # on the replica too
    with pytest.raises(Problem) as heavy:  # a heavy question read there: the library's own refusal
        service.run(reader, "groups", {"kinds": ["Device"]})
    assert heavy.value.code == "invalid_argument" and "no relation" in heavy.value.message
    with pytest.raises(Problem) as refused:
        service.run(reader, "remember", {"kind": "Device", "rows": [row]})
    assert refused.value.code == "forbidden"  # the replica path never carries a write: the scope refuses
    # The console's pages read where the service does: the reader's on the replica, the writer's own on
    # the master right after its write.
    from types import SimpleNamespace

    from lighthouse_server.console.app import Console
    from lighthouse_server.console.pages import graph_of

    console = Console(service, parts.kinds, parts.embedder)
    read_there = graph_of(console, SimpleNamespace(principal=reader))
    assert read_there.client.connection.get_connection_kwargs()["port"] == node.port
    service.run(writer, "remember", {"kind": "Device", "rows": [row]})
    own_page = graph_of(console, SimpleNamespace(principal=writer))
    assert own_page.name == graph_name and topology.is_cluster(own_page.client)  # the cluster's master


def test_read_replicas_on_one_server_reads_the_server(db):
    service = _service(db, read_replicas="lagging")
    reader = keys.Principal("k-one", f"r{uuid.uuid4().hex[:10]}", "reader", frozenset({"read"}))
    assert topology.on_replica(db, "tenant:x") is None
    assert service.run(reader, "search_notes", {"question": "pump"}) is not None
