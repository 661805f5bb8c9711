"""graph_backup.py against real servers: several tenants backed up graph by graph from one embedded
server and restored into the session's 3 + 3 cluster (and back into one server) compare equal graph by
graph; a damaged or mismatched backup, or a clash, is refused with nothing written."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import lighthouse
import pytest
import test_backup
from falkordb import FalkorDB
from lighthouse import Kind
from lighthouse_server.backup import BackupError, backup
from lighthouse_server.command import main
from lighthouse_server.embedded import start
from lighthouse_server.graph_backup import (
    MANIFEST,
    backup_graphs,
    graph_names,
    read_backup,
    restore_graphs,
)
from lighthouse_server.moving import graph_digest

source = test_backup.source  # the fixture: an embedded server on a data directory of its own
DEVICE = Kind("Device", key="serial", text=("note",))
TYPED = """
CREATE (a:Thing:Marked {count: 7, ratio: 0.1 + 0.2, name: 'Élan ✓', numbers: [1, 2, 3],
        at: localdatetime('2026-01-02T03:04:05'), day: date('2026-01-02'), span: duration('P1DT2H'),
        place: point({latitude: 51.5, longitude: -0.12}), meaning: vecf32([0.5, -1.0, 2.25])}),
       (b:Thing {count: 8}), (a)-[:LINKS {weight: 0.5, tags: ['x']}]->(b), (b)-[:BACK]->(a)
"""


def client(cluster) -> FalkorDB:
    host, port = cluster.seeds[0].split(":")
    return FalkorDB(host=host, port=int(port))


def tenants(db, count: int) -> list[str]:
    """count tenants of unique names, each with its own versions written by the library, and a graph of
    raw values of every type in the first."""
    names = [f"bk{uuid.uuid4().hex[:8]}" for _ in range(count)]
    for index, name in enumerate(names):
        graph = lighthouse.tenant(db, name)
        lighthouse.ensure_schema(graph, [DEVICE])
        rows = [
            {"key": f"d{row}", "t": "2026-10-01T08:00:00Z", "values": {"watts": row, "note": name}}
            for row in range(index + 2)
        ]
        assert {r["status"] for r in lighthouse.remember(graph, DEVICE, rows, "loader")} == {"created"}
    lighthouse.tenant(db, names[0]).query(TYPED)
    return [f"tenant:{name}" for name in names]


def digests(db, names: list[str]) -> dict:
    return {name: graph_digest(db, name) for name in names}


def test_tenants_backed_up_from_one_server_restore_into_a_cluster_equal_graph_by_graph(
    source, falkordb_cluster, tmp_path: Path
) -> None:
    db = source.client()
    names = tenants(db, 4)
    manifest = backup_graphs(db, tmp_path / "copy")
    assert [entry["name"] for entry in manifest["graphs"]] == sorted(names)
    assert manifest["topology"] == "server" and manifest["versions"]["falkordb"] >= 42201
    on_disk = json.loads((tmp_path / "copy" / MANIFEST).read_text())
    assert on_disk == {name: value for name, value in manifest.items() if name != "directory"}
    cluster = client(falkordb_cluster)
    try:
        report = restore_graphs(cluster, tmp_path / "copy")
        assert [one["name"] for one in report["graphs"]] == sorted(names)
        assert digests(cluster, names) == digests(db, names)
        assert set(names) <= set(graph_names(cluster))  # listed from every primary
        for name in names:  # each graph on the shard of its slot, and only there
            holder = cluster.connection.get_node_from_key(name)
            for node in cluster.connection.get_primaries():
                listed = cluster.connection.execute_command("GRAPH.LIST", target_nodes=node)
                assert (name in listed) == (node.name == holder.name), name
        # The library reads a restored tenant there as here.
        first = names[0].removeprefix("tenant:")
        assert lighthouse.history(lighthouse.tenant(cluster, first), DEVICE, "d1") == lighthouse.history(
            lighthouse.tenant(db, first), DEVICE, "d1"
        )
        # A graph of the same name is never overwritten unless asked.
        with pytest.raises(BackupError, match="already holds 4 of the graphs.*nothing was written"):
            restore_graphs(cluster, tmp_path / "copy")
        lighthouse.tenant(cluster, first).query("CREATE (:Extra)")
        replaced = restore_graphs(cluster, tmp_path / "copy", replace=True)
        assert all(one["replaced"] for one in replaced["graphs"])
        assert digests(cluster, names) == digests(db, names)
        # The cluster's own backup lists every shard's graphs and restores into one server.
        back = backup_graphs(cluster, tmp_path / "from-cluster")
        assert back["topology"] == "cluster" and set(names) <= {g["name"] for g in back["graphs"]}
        with pytest.raises(BackupError, match="a snapshot copies one server, and this is a cluster"):
            backup(cluster, tmp_path / "snapshot")
    finally:
        for name in names:
            cluster.connection.delete(name)
    with start() as other:
        restore_graphs(other.client(), tmp_path / "from-cluster")
        assert digests(other.client(), names) == digests(db, names)


def test_a_damaged_or_mismatched_backup_is_refused_with_nothing_written(source, tmp_path: Path) -> None:
    db = source.client()
    names = tenants(db, 2)
    backup_graphs(db, tmp_path / "copy")
    manifest_path = tmp_path / "copy" / MANIFEST
    manifest = json.loads(manifest_path.read_text())
    dump = tmp_path / "copy" / manifest["graphs"][1]["file"]
    with start() as target:
        into = target.client()

        def refused(match: str) -> None:
            with pytest.raises(BackupError, match=match):
                restore_graphs(into, tmp_path / "copy")
            assert graph_names(into) == []

        whole = dump.read_bytes()
        data = bytearray(whole)
        data[len(data) // 2] ^= 0xFF
        dump.write_bytes(bytes(data))
        refused(
            r"the dump of the graph 'tenant:.*' \(graph-0002.dump\) is not the file its manifest describes"
        )
        dump.unlink()
        refused("cannot be read")
        dump.write_bytes(whole)
        manifest_path.write_text("{not json")
        refused("not JSON")
        first = manifest["graphs"][0]
        for damaged in (
            {**manifest, "versions": {}},
            {**manifest, "graphs": "all"},
            {**manifest, "graphs": [{**first, "file": "../../etc/passwd"}]},
            {**manifest, "graphs": [{**first, "sha256": "abc"}]},
            {**manifest, "graphs": [{**first, "nodes": -1}]},
            {**manifest, "graphs": [first, first]},
        ):
            manifest_path.write_text(json.dumps(damaged))
            refused("is damaged")
        manifest_path.write_text(json.dumps({**manifest, "version": 9}))
        refused("of version 9")
        newer = {**manifest, "versions": {**manifest["versions"], "falkordb": 99_99_99}}
        manifest_path.write_text(json.dumps(newer))
        refused("written by FalkorDB 999999, newer than the target's")
        # A restore that fails part way (the second graph's counts are not what was restored) deletes
        # the graph it had created before it.
        lying = {**manifest, "graphs": [first, {**manifest["graphs"][1], "nodes": 12345}]}
        manifest_path.write_text(json.dumps(lying))
        with pytest.raises(BackupError, match=r"holds \d+ nodes .*, the backup 12345"):
            restore_graphs(into, tmp_path / "copy")
        assert graph_names(into) == []
        # A manifest that names a dump after another graph (its checksums right) is found out and undone.
        swapped = {**manifest, "graphs": [{**first, "name": "tenant:another"}]}
        manifest_path.write_text(json.dumps(swapped))
        with pytest.raises(BackupError, match="'tenant:another' in the manifest holds another graph"):
            restore_graphs(into, tmp_path / "copy")
        assert graph_names(into) == [] and into.connection.dbsize() == 0
    manifest_path.write_text(json.dumps(manifest))
    assert read_backup(tmp_path / "copy")["graphs"][0]["name"] == sorted(names)[0]
    with pytest.raises(BackupError, match="holds no backup"):
        restore_graphs(db, tmp_path / "nothing")
    with pytest.raises(BackupError, match="not empty"):
        backup_graphs(db, tmp_path / "copy")


def test_the_commands_back_up_either_way_and_restore_each_where_it_belongs(
    falkordb_cluster, tmp_path: Path, capsys, monkeypatch
) -> None:
    for variable in ("FALKORDB_URL", "LIGHTHOUSE_CONFIG", "LIGHTHOUSE_DATA"):
        monkeypatch.delenv(variable, raising=False)
    data = str(tmp_path / "data")
    with start(data_dir=data) as server:
        names = tenants(server.client(), 2)
        kept = digests(server.client(), names)
    assert main(["backup", str(tmp_path / "graphs"), "--data", data]) == 0
    said = json.loads(capsys.readouterr().out)
    assert said["topology"] == "server" and [g["name"] for g in said["graphs"]] == sorted(names)
    assert main(["backup", "--snapshot", str(tmp_path / "snapshot"), "--data", data]) == 0
    assert json.loads(capsys.readouterr().out)["graphs"] == sorted(names)
    assert main(["restore", str(tmp_path / "snapshot"), "--data", str(tmp_path / "restored")]) == 0
    capsys.readouterr()
    with start(data_dir=tmp_path / "restored") as server:
        assert digests(server.client(), names) == kept
    # With the cluster named: a snapshot is refused both ways; the graph backup restores into it.
    monkeypatch.setenv("FALKORDB_URL", f"redis://{falkordb_cluster.seeds[0]}")
    assert main(["backup", "--snapshot", str(tmp_path / "other")]) == 2
    assert "a snapshot copies one server, and this is a cluster" in capsys.readouterr().err
    assert main(["restore", str(tmp_path / "snapshot")]) == 2
    assert "a snapshot backup restores into an empty data directory" in capsys.readouterr().err
    cluster = client(falkordb_cluster)
    try:
        assert main(["restore", str(tmp_path / "graphs")]) == 0
        assert [one["name"] for one in json.loads(capsys.readouterr().out)["graphs"]] == sorted(names)
        assert digests(cluster, names) == kept
        assert main(["restore", str(tmp_path / "graphs")]) == 2
        assert "give --replace to overwrite them" in capsys.readouterr().err
        assert main(["restore", str(tmp_path / "graphs"), "--replace"]) == 0
    finally:
        for name in names:
            cluster.connection.delete(name)
