"""backup() and restore() against real embedded servers in temporary data directories: a copy taken
while a writer runs, restored into an empty directory, is the database of one instant, node for node."""

from __future__ import annotations

import hashlib
import io
import json
import threading
import time
from datetime import datetime
from pathlib import Path

import lighthouse
import pytest
from lighthouse import Kind
from lighthouse_server.backup import (
    AOF_BASE,
    AOF_DIRECTORY,
    MANIFEST,
    SNAPSHOT,
    BackupError,
    backup,
    read_manifest,
    restore,
)
from lighthouse_server.embedded import start

ROOM = Kind("Room", key="code")
DEVICE = Kind("Device", key="serial", times=("last_seen",), text=("note",), relations={"IN": ROOM})

TYPED = """
CREATE (a:Thing:Marked {count: 7, low: -9223372036854775808, high: 9223372036854775807, ratio: 1.25,
        tiny: -0.0, name: 'Élan ✓', yes: true, no: false, numbers: [1, 2, 3], words: ['a', 'b'],
        at: localdatetime('2026-01-02T03:04:05'), day: date('2026-01-02'), clock: localtime('03:04:05'),
        span: duration('P1DT2H'), place: point({latitude: 51.5, longitude: -0.12}),
        meaning: vecf32([0.5, -1.0, 2.25])}),
       (b:Thing {count: 8}), (c:Other),
       (a)-[:LINKS {weight: 0.5, since: localdatetime('2025-05-06T07:08:09'), tags: ['x']}]->(b),
       (b)-[:LINKS]->(c), (c)-[:BACK {n: 1}]->(a), (a)-[:SELF_LOOP]->(a)
"""


def contents(graph) -> dict:
    """Every node (labels, properties) and every edge (type, endpoints, properties) of a graph, by id."""
    found = {}
    for node_id, labels, properties in graph.ro_query(
        "MATCH (n) RETURN id(n), labels(n), properties(n)"
    ).result_set:
        found["node", node_id] = (sorted(labels), dict(properties))
    edges = graph.ro_query("MATCH (a)-[r]->(b) RETURN id(r), type(r), id(a), id(b), properties(r)").result_set
    for edge_id, relation, start_id, end_id, properties in edges:
        found["edge", edge_id] = (relation, start_id, end_id, dict(properties))
    return found


def everything(db) -> dict:
    return {name: contents(db.select_graph(name)) for name in sorted(db.list_graphs())}


def fill(db) -> None:
    """Graphs of every sort: raw values of every type, and the library's own writes in a tenant."""
    db.select_graph("typed").query(TYPED)
    tenant = lighthouse.tenant(db, "acme")
    lighthouse.ensure_schema(tenant, [DEVICE, ROOM])
    rows = [
        {"key": "b2", "t": "2026-10-01T08:00:00Z", "values": {"floor": 2}},
        {
            "key": "d1",
            "t": "2026-10-01T08:00:00Z",
            "values": {"watts": 40, "note": "fan"},
            "relations": {"IN": "b2"},
        },
        {
            "key": "d1",
            "t": "2026-10-02T08:00:00Z",
            "values": {"watts": 45, "last_seen": "2026-10-02T07:00:00Z"},
        },
    ]
    assert [r["status"] for r in lighthouse.remember(tenant, ROOM, rows[:1], "loader")] == ["created"]
    assert [r["status"] for r in lighthouse.remember(tenant, DEVICE, rows[1:], "loader")] == [
        "created",
        "changed",
    ]
    assert (
        lighthouse.remember(tenant, DEVICE, [{"key": "d2", "t": "2026-10-01"}], "loader")[0]["status"]
        == "created"
    )
    assert (
        lighthouse.remember(tenant, DEVICE, [{"key": "bad", "t": "never"}], "loader")[0]["status"]
        == "invalid"
    )
    assert lighthouse.open_episode(tenant, "ep1", "agent", about=[(DEVICE, "d1")])["status"] == "opened"
    assert lighthouse.record(tenant, "ep1", "note", "agent", {"text": "hot"})["status"] == "recorded"
    assert lighthouse.say(tenant, "ann", "s1", "user", "the fan is loud", "ann")["status"] == "said"
    db.select_graph("empty_after_delete").query("CREATE (:Gone)")
    db.select_graph("empty_after_delete").query("MATCH (n) DELETE n")


class Writer(threading.Thread):
    """Writes Items into two graphs in turn, each query one Item and its counter: a copy of one instant
    holds, in each graph, Items 0..n-1 and a counter of n-1, and the two graphs differ by at most one."""

    def __init__(self, db) -> None:
        super().__init__(daemon=True)
        self.graphs = [db.select_graph("busy_a"), db.select_graph("busy_b")]
        for graph in self.graphs:
            graph.query("CREATE (:Counter {last: -1})")
        self.acknowledged = [0, 0]
        self.halt = threading.Event()
        self.error: BaseException | None = None

    def run(self) -> None:
        serial = 0
        try:
            while not self.halt.is_set():
                for index, graph in enumerate(self.graphs):
                    graph.query(
                        "MATCH (c:Counter) SET c.last = $n CREATE (c)-[:COUNTED {n: $n}]->(:Item {serial: $n})",
                        {"n": serial},
                    )
                    self.acknowledged[index] = serial + 1
                serial += 1
        except BaseException as error:  # noqa: BLE001 - the test reports it
            self.error = error

    def wait_for(self, count: int) -> None:
        deadline = time.monotonic() + 30
        while min(self.acknowledged) < count:
            assert self.error is None and time.monotonic() < deadline
            time.sleep(0.01)


def items_of(graph_contents: dict) -> int:
    """The number of Items of a busy graph, checked to be 0..n-1 with the counter at n-1."""
    serials = sorted(props["serial"] for labels, props in _nodes(graph_contents) if labels == ["Item"])
    (last,) = [props["last"] for labels, props in _nodes(graph_contents) if labels == ["Counter"]]
    assert serials == list(range(len(serials)))
    assert last == len(serials) - 1
    return len(serials)


def _nodes(graph_contents: dict) -> list:
    return [value for (sort, _), value in graph_contents.items() if sort == "node"]


def upto(graph_contents: dict, count: int) -> dict:
    """A busy graph as it was when it held count Items (ids and all)."""
    kept = {}
    for (sort, ident), value in graph_contents.items():
        if sort == "node" and value[0] == ["Item"] and value[1]["serial"] >= count:
            continue
        if sort == "edge" and value[3]["n"] >= count:
            continue
        if sort == "node" and value[0] == ["Counter"]:
            value = (value[0], {"last": count - 1})
        kept[sort, ident] = value
    return kept


@pytest.fixture
def source(tmp_path: Path):
    server = start(data_dir=tmp_path / "source")
    yield server
    server.stop()


def test_a_backup_taken_during_writes_restores_every_node_and_edge_of_one_instant(
    source, tmp_path: Path
) -> None:
    db = source.client()
    fill(db)
    writer = Writer(db)
    writer.start()
    writer.wait_for(50)
    before = list(writer.acknowledged)
    report = backup(source, tmp_path / "copy")
    after = list(writer.acknowledged)
    writer.wait_for(after[1] + 50)  # the writes went on during and after the copy
    writer.halt.set()
    writer.join(10)
    assert writer.error is None
    original = everything(db)

    restored_report = restore(tmp_path / "copy", tmp_path / "restored")
    assert restored_report["checked"] is True
    assert restored_report["graphs"] == report["graphs"] == sorted(original)
    server = start(data_dir=tmp_path / "restored")
    try:
        copy_db = server.client()
        copied = everything(copy_db)
        assert sorted(copied) == sorted(original)
        for name in ("typed", "tenant:acme", "empty_after_delete"):
            assert copied[name] == original[name], name
        assert len(copied["typed"]) == 7 and len(copied["tenant:acme"]) > 10
        counts = [items_of(copied["busy_a"]), items_of(copied["busy_b"])]
        assert counts[0] - counts[1] in (0, 1)  # one instant across the two graphs
        assert before[1] <= counts[1] and counts[0] <= after[0] + 1
        assert counts[0] < items_of(original["busy_a"])
        assert copied["busy_a"] == upto(original["busy_a"], counts[0])
        assert copied["busy_b"] == upto(original["busy_b"], counts[1])
        # The library reads the restored tenant as it read the original.
        tenant, copy_tenant = lighthouse.tenant(db, "acme"), lighthouse.tenant(copy_db, "acme")
        assert lighthouse.history(copy_tenant, DEVICE, "d1") == lighthouse.history(tenant, DEVICE, "d1")
        assert lighthouse.episode(copy_tenant, "ep1") == lighthouse.episode(tenant, "ep1")
        assert lighthouse.messages(copy_tenant, "ann", "s1") == lighthouse.messages(tenant, "ann", "s1")
        # The restored directory is an ordinary data directory: it keeps writes across a restart.
        copy_db.select_graph("typed").query("CREATE (:AfterRestore)")
    finally:
        server.stop()
    server = start(data_dir=tmp_path / "restored")
    try:
        rows = (
            server.client()
            .select_graph("typed")
            .ro_query("MATCH (n:AfterRestore) RETURN count(n)")
            .result_set
        )
        assert rows == [[1]]
    finally:
        server.stop()


def test_the_manifest_describes_the_snapshot(source, tmp_path: Path) -> None:
    source.client().select_graph("one").query("CREATE (:A)-[:R]->(:B)")
    source.client().connection.set("plain", "value")  # a key that is not a graph is kept too
    report = backup(source.client(), tmp_path / "copy")
    manifest = json.loads((tmp_path / "copy" / MANIFEST).read_text())
    assert report == {**manifest, "directory": str((tmp_path / "copy").resolve())}
    assert manifest["graphs"] == ["one"] and manifest["keys"] == 2 and manifest["checked"] is True
    assert manifest["counts"] == {"one": {"nodes": 2, "edges": 1}}
    assert sorted(path.name for path in (tmp_path / "copy").iterdir()) == [
        SNAPSHOT,
        MANIFEST,
    ]  # the trial is gone
    data = (tmp_path / "copy" / SNAPSHOT).read_bytes()
    assert data.startswith(b"REDIS")
    assert manifest["files"][SNAPSHOT] == {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    assert abs(datetime.fromisoformat(manifest["created_at"]).timestamp() - time.time()) < 60
    assert manifest["versions"]["redis"].startswith("8.") and manifest["versions"]["falkordb"] > 0
    assert read_manifest(tmp_path / "copy") == manifest
    restore(tmp_path / "copy", tmp_path / "restored", check=False)
    assert (tmp_path / "restored" / AOF_DIRECTORY / AOF_BASE).read_bytes() == data
    server = start(data_dir=tmp_path / "restored")
    try:
        assert server.client().connection.get("plain") == "value"
        assert contents(server.client().select_graph("one")) == contents(source.client().select_graph("one"))
    finally:
        server.stop()


def test_an_unchecked_backup_lists_the_graphs_and_restores(source, tmp_path: Path) -> None:
    source.client().select_graph("one").query("CREATE (:A {v: 1})")
    report = backup(source, tmp_path / "copy", check=False)
    assert (report["checked"], report["graphs"], report["keys"], report["counts"]) == (
        False,
        ["one"],
        None,
        None,
    )
    restored = restore(tmp_path / "copy", tmp_path / "restored")
    assert (restored["graphs"], restored["keys"], restored["counts"]) == (
        ["one"],
        1,
        {"one": {"nodes": 1, "edges": 0}},
    )
    assert restore(tmp_path / "copy", tmp_path / "again", check=False)["keys"] is None


def test_a_backup_of_an_empty_database_restores_an_empty_one(source, tmp_path: Path) -> None:
    report = backup(source, tmp_path / "copy")
    assert report["graphs"] == [] and report["keys"] == 0
    assert restore(tmp_path / "copy", tmp_path / "restored")["graphs"] == []


def test_backup_refuses_a_directory_that_is_not_empty(source, tmp_path: Path) -> None:
    (tmp_path / "copy").mkdir()
    (tmp_path / "copy" / "other.txt").write_text("keep me")
    with pytest.raises(BackupError, match="not empty"):
        backup(source, tmp_path / "copy")
    assert [path.name for path in (tmp_path / "copy").iterdir()] == ["other.txt"]


def test_backup_refuses_what_is_not_a_server_or_client(tmp_path: Path) -> None:
    with pytest.raises(BackupError, match="not <class 'str'>"):
        backup("localhost", tmp_path / "copy")
    assert not (tmp_path / "copy").exists()


def test_restore_refuses_a_data_directory_that_is_not_empty(source, tmp_path: Path) -> None:
    source.client().select_graph("one").query("CREATE (:A)")
    backup(source, tmp_path / "copy")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "leftover").write_text("x")
    with pytest.raises(BackupError, match=r"the data directory .*data is not empty"):
        restore(tmp_path / "copy", tmp_path / "data")
    assert [path.name for path in (tmp_path / "data").iterdir()] == ["leftover"]
    with pytest.raises(BackupError, match="not empty"):
        restore(tmp_path / "copy", source.data_dir)  # the running server's own directory


def test_restore_refuses_a_damaged_or_missing_backup_and_leaves_the_directory_empty(
    source, tmp_path: Path
) -> None:
    source.client().select_graph("one").query("CREATE (:A)")
    backup(source, tmp_path / "copy")
    snapshot = tmp_path / "copy" / SNAPSHOT
    data = bytearray(snapshot.read_bytes())
    data[len(data) // 2] ^= 0xFF
    snapshot.write_bytes(bytes(data))
    with pytest.raises(BackupError, match="damaged"):
        restore(tmp_path / "copy", tmp_path / "data")
    assert not (tmp_path / "data").exists()
    with pytest.raises(BackupError, match="holds no backup"):
        restore(tmp_path / "nothing", tmp_path / "data")
    (tmp_path / "copy" / MANIFEST).write_text("{not json")
    with pytest.raises(BackupError, match="not JSON"):
        restore(tmp_path / "copy", tmp_path / "data")
    (tmp_path / "copy" / MANIFEST).write_text(json.dumps({"format": 99}))
    with pytest.raises(BackupError, match="format 1"):
        restore(tmp_path / "copy", tmp_path / "data")


def test_a_manifest_of_the_wrong_form_is_refused_before_anything_is_written(source, tmp_path: Path) -> None:
    source.client().select_graph("one").query("CREATE (:A)")
    backup(source, tmp_path / "copy")
    manifest_path = tmp_path / "copy" / MANIFEST
    manifest = json.loads(manifest_path.read_text())
    for changed in (
        {"files": "x"},
        {"files": [1]},
        {"files": {SNAPSHOT: "abc"}},
        {"created_at": None},
        {"checked": "yes"},
        {"graphs": "one"},
    ):
        manifest_path.write_text(json.dumps({**manifest, **changed}))
        with pytest.raises(BackupError, match="damaged"):
            restore(tmp_path / "copy", tmp_path / "data")
        assert not (tmp_path / "data").exists()
    for missing in ("created_at", "checked"):
        manifest_path.write_text(
            json.dumps({name: item for name, item in manifest.items() if name != missing})
        )
        with pytest.raises(BackupError, match="damaged"):
            restore(tmp_path / "copy", tmp_path / "data")
        assert not (tmp_path / "data").exists()


def test_a_copy_that_fails_leaves_no_half_file(tmp_path: Path) -> None:
    from lighthouse_server.backup import _copied

    class Failing(io.BytesIO):
        def read(self, *_args):
            raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space"):
        _copied(Failing(b"x"), tmp_path / SNAPSHOT)
    assert list(tmp_path.iterdir()) == []


def test_a_restore_whose_check_fails_leaves_the_directory_empty(source, tmp_path: Path) -> None:
    source.client().select_graph("one").query("CREATE (:A)")
    backup(source, tmp_path / "copy")
    manifest_path = tmp_path / "copy" / MANIFEST
    manifest = json.loads(manifest_path.read_text())
    manifest_path.write_text(json.dumps({**manifest, "graphs": ["one", "two"]}))  # claims a graph it lacks
    with pytest.raises(
        BackupError, match=r"the restored data holds 1 graphs and 1 keys .*, the backup 2 graphs"
    ):
        restore(tmp_path / "copy", tmp_path / "data")
    assert list((tmp_path / "data").iterdir()) == []
