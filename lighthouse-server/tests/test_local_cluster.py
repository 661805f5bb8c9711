"""The local cluster (local_cluster.py) and `lighthouse cluster start|stop|status`: joined, its data kept
across a stop and a start, a killed master replaced by its replica, its refusals."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket

import pytest
from falkordb import FalkorDB
from lighthouse_server import local_cluster
from lighthouse_server.command import main
from lighthouse_server.embedded import ServerError


def _lighthouse(capsys, *arguments: str) -> tuple[int, str, str]:
    code = main(list(arguments))
    said = capsys.readouterr()
    return code, said.out, said.err


def test_the_session_cluster_has_three_masters_each_with_a_replica(falkordb_cluster):
    said = falkordb_cluster.status()
    assert said["state"] == "ok"
    roles = [node["role"] for node in said["nodes"]]
    assert roles.count("master") == 3 and roles.count("replica") == 3
    masters = {node["slots"] for node in said["nodes"] if node["role"] == "master"}
    assert masters == {"0-5460", "5461-10921", "10922-16383"}
    host, port = falkordb_cluster.seeds[0].split(":")
    db = FalkorDB(host=host, port=int(port))
    assert type(db.connection).__name__ == "RedisCluster"
    assert db.select_graph("tenant:local-cluster").query("RETURN 1").result_set == [[1]]


def test_command_starts_a_cluster_keeps_its_data_across_a_stop_and_stops_it(tmp_path, capsys):
    folder = str(tmp_path / "cl")
    code, out, err = _lighthouse(
        capsys, "cluster", "start", "--masters", "1", "--replicas", "1", "--data", folder
    )
    assert code == 0, err
    seeds = json.loads(out)["falkordb_cluster"].split(",")
    try:
        assert len(seeds) == 2
        code, _, err = _lighthouse(capsys, "cluster", "start", "--data", folder)
        assert code == 2 and "already runs" in err
        code, out, _ = _lighthouse(capsys, "cluster", "status", "--data", folder)
        assert code == 0 and json.loads(out)["state"] == "ok"
        host, port = seeds[0].split(":")
        FalkorDB(host=host, port=int(port)).select_graph("tenant:kept").query("CREATE (:Kept {n: 7})")
        assert _lighthouse(capsys, "cluster", "stop", "--data", folder)[0] == 0
        code, out, _ = _lighthouse(capsys, "cluster", "status", "--data", folder)
        assert code == 1 and json.loads(out)["state"] == "stopped"
        code, out, err = _lighthouse(capsys, "cluster", "start", "--data", folder)
        assert code == 0, err
        assert json.loads(out)["falkordb_cluster"].split(",") == seeds  # the same ports
        graph = FalkorDB(host=host, port=int(port)).select_graph("tenant:kept")
        assert graph.ro_query("MATCH (k:Kept) RETURN k.n").result_set == [[7]]
    finally:
        _lighthouse(capsys, "cluster", "stop", "--data", folder)


def test_a_killed_master_is_replaced_by_its_replica_and_rejoins_as_one(tmp_path):
    with local_cluster.start(1, 1, tmp_path / "cl", node_timeout_ms=2000) as cluster:
        master, replica = cluster.nodes
        host, port = replica.address.split(":")
        graph = FalkorDB(host=host, port=int(port)).select_graph("tenant:failing")
        graph.query("CREATE (:Kept {n: 1})")
        with master.connection() as connection:
            connection.execute_command("WAIT", 1, 2000)
        os.kill(master.pid, signal.SIGKILL)
        master.process.wait()
        cluster.start_node(master)  # rejoins from its nodes.conf; a replica takes over meanwhile
        cluster.wait_ok(60)
        roles = {node["address"]: node["role"] for node in cluster.status()["nodes"]}
        assert sorted(roles.values()) == ["master", "replica"]
        graph = FalkorDB(host=host, port=int(port)).select_graph("tenant:failing")
        assert graph.ro_query("MATCH (k:Kept) RETURN k.n").result_set == [[1]]


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        (["--masters", "0"], "masters must be a whole number from 1 to 16"),
        (["--replicas", "5"], "replicas must be a whole number from 0 to 4"),
        (["--replicas", "0", "--min-replicas-to-write", "1"], "min_replicas_to_write must be"),
        (["--base-port", "80"], "the base port must be from 1024"),
    ],
)
def test_start_refuses_what_cannot_run(tmp_path, capsys, arguments, said):
    assert main(["cluster", "start", "--data", str(tmp_path / "cl"), *arguments]) == 2
    assert said in capsys.readouterr().err


def test_status_and_stop_of_a_folder_without_a_cluster_are_refused(tmp_path, capsys):
    for action in ("status", "stop"):
        assert main(["cluster", action, "--data", str(tmp_path)]) == 2
        assert "there is no local cluster" in capsys.readouterr().err


def test_a_taken_base_port_is_refused(tmp_path):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        for port in range(20_000, 21_000):  # below 55535: its bus port (10000 above) must be a port too
            with contextlib.suppress(OSError):
                taken.bind(("127.0.0.1", port))
                break
        taken.listen()
        with pytest.raises(ServerError, match=f"port {port} is taken"):
            local_cluster.start(1, 0, tmp_path / "cl", base_port=port)
