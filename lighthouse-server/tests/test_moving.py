"""Moving: `lighthouse move` takes an installation of several tenants from the embedded server to a
cluster, compares each graph and says so; a tenant whose slot moves from one shard to another while
writers write loses no acknowledged write."""

from __future__ import annotations

import json
import threading
import time
import uuid
from pathlib import Path

import lighthouse
import pytest
from falkordb import FalkorDB
from lighthouse import Kind
from lighthouse_server import audit, keys, local_cluster
from lighthouse_server.command import main
from lighthouse_server.embedded import start
from lighthouse_server.graph_backup import graph_names
from lighthouse_server.moving import MoveError, graph_digest, move

DEVICE = Kind("Device", key="serial", text=("note",))


def client(cluster) -> FalkorDB:
    host, port = cluster.seeds[0].split(":")
    return FalkorDB(host=host, port=int(port))


def installation(data: Path, count: int) -> tuple[list[str], str]:
    """An embedded installation on data: count tenants with keys and rows; its graphs and one key."""
    with start(data_dir=data) as server:
        db = server.client()
        keys.ensure_service_schema(db)
        secret = ""
        for index in range(count):
            name = f"mv{index}"
            secret = keys.create(db, name, "planner", ["read", "write"])["key"]
            graph = lighthouse.tenant(db, name)
            lighthouse.ensure_schema(graph, [DEVICE])
            rows = [
                {"key": f"d{row}", "t": "2026-10-01", "values": {"note": f"{name} {row}"}} for row in range(3)
            ]
            lighthouse.remember(graph, DEVICE, rows, "loader")
        names = graph_names(db)
    return names, secret


def test_move_takes_an_installation_to_a_cluster_compares_it_and_says_so(tmp_path, capsys) -> None:
    names, secret = installation(tmp_path / "data", 4)
    assert names == ["lighthouse:service", "tenant:mv0", "tenant:mv1", "tenant:mv2", "tenant:mv3"]
    with local_cluster.start(2, 0, tmp_path / "cluster") as cluster:
        seeds = ",".join(cluster.seeds)
        code = main(["move", "--to", seeds, "--data", str(tmp_path / "data")])
        said = capsys.readouterr()
        assert code == 0, said.err
        report = json.loads(said.out)
        assert [one["name"] for one in report["graphs"]] == names and report["topology"] == "cluster"
        assert "moved 5 graphs" in said.err and "each copy compared equal to its source" in said.err
        target = client(cluster)
        with start(data_dir=tmp_path / "data") as server:
            source = server.client()
            for name in names[1:]:
                assert graph_digest(target, name) == graph_digest(source, name), name
        # The service runs on what was moved: the key, the tenants' rows, and the audit of the move.
        principal = keys.principal(target, secret)
        assert principal is not None and principal.tenant == "mv3"
        assert lighthouse.history(lighthouse.tenant(target, "mv2"), DEVICE, "d1")[-1]["note"] == "mv2 1"
        assert [record["action"] for record in audit.read(target, "mv0")] == ["moved"]
        # Again: refused, nothing written; with --replace, done again.
        assert main(["move", "--to", seeds, "--data", str(tmp_path / "data")]) == 2
        assert "already holds 5 of the graphs" in capsys.readouterr().err
        assert [record["action"] for record in audit.read(target, "mv0")] == ["moved"]
        code = main(["move", "--to", cluster.seeds[1], "--replace", "--data", str(tmp_path / "data")])
        assert code == 0 and all(one["replaced"] for one in json.loads(capsys.readouterr().out)["graphs"])
    assert main(["move", "--to", "127.0.0.1:1", "--data", str(tmp_path / "data")]) == 2
    assert "no node --to names answers" in capsys.readouterr().err
    assert main(["move", "--to", "nowhere", "--data", str(tmp_path / "data")]) == 2
    assert "--to names redis://host:port or host:port,host:port" in capsys.readouterr().err


class Writers:
    """Threads that each write serials into one graph, retrying a refused write (MERGE: a retry that
    did land once is not stored twice); what each had acknowledged is kept."""

    def __init__(self, db, name: str, count: int) -> None:
        self.graph = db.select_graph(name)
        self.acknowledged: list[int] = []
        self.retries = 0
        self.halt = threading.Event()
        self.threads = [
            threading.Thread(target=self._write, args=(one,), daemon=True) for one in range(count)
        ]

    def _write(self, writer: int) -> None:
        serial = 0
        while not self.halt.is_set():
            value = writer * 1_000_000 + serial
            for _attempt in range(50):
                try:
                    self.graph.query("MERGE (:Written {serial: $serial})", {"serial": value})
                    break
                except Exception:  # noqa: BLE001 - refused while the slot moves: written again
                    self.retries += 1
                    time.sleep(0.05)
            else:
                return
            self.acknowledged.append(value)
            serial += 1

    def wait_for(self, count: int) -> None:
        deadline = time.monotonic() + 30
        while len(self.acknowledged) < count:
            assert time.monotonic() < deadline, "the writers stopped"
            time.sleep(0.01)


def _node_id(node) -> str:
    with node.connection() as connection:
        return connection.execute_command("CLUSTER", "MYID")


def _moved_slot(cluster, slot: int, source, target) -> int:
    """Moves a slot from one master to another as `redis-cli --cluster reshard` does: IMPORTING on the
    target, MIGRATING on the source, MIGRATE of each of its keys, then the slot's owner on every master."""
    source_id, target_id = _node_id(source), _node_id(target)
    with target.connection(30) as to, source.connection(30) as from_:
        to.execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", source_id)
        from_.execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", target_id)
        moved = 0
        while batch := from_.execute_command("CLUSTER", "GETKEYSINSLOT", slot, 100):
            from_.execute_command("MIGRATE", "127.0.0.1", target.port, "", 0, 20_000, "KEYS", *batch)
            moved += len(batch)
        for master in cluster.nodes[: cluster.masters]:
            with master.connection() as connection:
                connection.execute_command("CLUSTER", "SETSLOT", slot, "NODE", target_id)
    return moved


def test_a_tenant_whose_slot_moves_to_another_shard_while_written_loses_nothing(falkordb_cluster) -> None:
    db = client(falkordb_cluster)
    name = f"tenant:moving{uuid.uuid4().hex[:8]}"
    slot = db.connection.keyslot(name)
    owner = db.connection.get_node_from_key(name)
    masters = falkordb_cluster.nodes[: falkordb_cluster.masters]
    source = next(node for node in masters if node.port == owner.port)
    target = next(node for node in masters if node is not source)
    db.select_graph(name).query("CREATE INDEX FOR (w:Written) ON (w.serial)")
    writers = Writers(db, name, 3)
    for thread in writers.threads:
        thread.start()
    try:
        writers.wait_for(60)
        assert _moved_slot(falkordb_cluster, slot, source, target) >= 1
        before_back = len(writers.acknowledged)
        writers.wait_for(before_back + 60)  # they write on the new shard
        with target.connection() as connection:
            assert name in connection.execute_command("GRAPH.LIST")
        assert _moved_slot(falkordb_cluster, slot, target, source) >= 1  # and back, as the cluster was
        writers.wait_for(len(writers.acknowledged) + 60)
    finally:
        writers.halt.set()
        for thread in writers.threads:
            thread.join(30)
    try:
        assert all(not thread.is_alive() for thread in writers.threads)
        stored = db.select_graph(name).ro_query("MATCH (w:Written) RETURN w.serial").result_set
        stored = [row[0] for row in stored]
        assert len(stored) == len(set(stored))  # a retried write is stored once
        assert set(writers.acknowledged) <= set(stored), "an acknowledged write was lost"
        assert len(writers.acknowledged) >= 180
        with source.connection() as connection:
            assert name in connection.execute_command("GRAPH.LIST")
    finally:
        db.connection.delete(name)


@pytest.fixture(autouse=True)
def _quiet(monkeypatch):
    """The move command reads the environment's FalkorDB only through the settings: none here."""
    for variable in ("FALKORDB_URL", "FALKORDB_HOST", "FALKORDB_PORT", "LIGHTHOUSE_CONFIG"):
        monkeypatch.delenv(variable, raising=False)


def test_move_refuses_itself_and_a_graph_written_while_it_is_moved(tmp_path) -> None:
    with start() as source_server, start() as target_server:
        source, target = source_server.client(), target_server.client()
        with pytest.raises(MoveError, match="the target is the source database itself"):
            move(source, source)
        busy = source.select_graph("tenant:busy")
        busy.query("UNWIND range(1, 20000) AS i CREATE (:Filler {i: i})")  # a read of it takes a while
        halt = threading.Event()

        def write() -> None:
            while not halt.is_set():
                busy.query("CREATE (:Written)")

        writer = threading.Thread(target=write, daemon=True)
        writer.start()
        try:
            with pytest.raises(MoveError, match="'tenant:busy' was written while it was moved"):
                move(source, target)
        finally:
            halt.set()
            writer.join(10)
        assert graph_names(target) == []
