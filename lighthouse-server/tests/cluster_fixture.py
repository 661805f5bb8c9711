"""The tests' FalkorDB cluster: 3 masters and 3 replicas on loopback (local_cluster.py), one per test
session and xdist worker, on free ports, stopped at the session's end. conftest.py imports it."""

from __future__ import annotations

import pytest
from falkordb import FalkorDB
from lighthouse_server import local_cluster
from lighthouse_server.topology import without_resends


@pytest.fixture(scope="session")
def falkordb_cluster(tmp_path_factory):
    """A running 3 + 3 cluster; its `seeds` name it for falkordb_cluster. A test that kills a node
    starts it again (cluster.start_node) and waits for cluster.wait_ok() before it ends."""
    # The 15 s node timeout of a real cluster: with 5 s, a node of a busy test machine that took seconds
    # over one query was taken for dead and replaced, again and again.
    cluster = local_cluster.start(3, 1, tmp_path_factory.mktemp("cluster"))
    yield cluster
    cluster.stop()


def cluster_client(cluster) -> FalkorDB:
    """A FalkorDB client of the cluster, through its first seed (the client finds every node)."""
    host, port = cluster.seeds[0].split(":")
    return without_resends(FalkorDB(host=host, port=int(port)))


@pytest.fixture(scope="session")
def cluster_db(falkordb_cluster) -> FalkorDB:
    return cluster_client(falkordb_cluster)


@pytest.fixture(params=["single", "cluster"])
def any_db(request) -> FalkorDB:
    """The tests' database on each topology in turn: the one server of the tests (the root conftest's
    `db`), then the 3 + 3 cluster: one test, two topologies."""
    return request.getfixturevalue("db" if request.param == "single" else "cluster_db")
