"""The tests' FalkorDB cluster: 3 masters and 3 replicas on loopback (local_cluster.py), one per test
session and xdist worker, on free ports, stopped at the session's end. conftest.py imports it."""

from __future__ import annotations

import pytest
from lighthouse_server import local_cluster


@pytest.fixture(scope="session")
def falkordb_cluster(tmp_path_factory):
    """A running 3 + 3 cluster; its `seeds` name it for falkordb_cluster. A test that kills a node
    starts it again (cluster.start_node) and waits for cluster.wait_ok() before it ends."""
    # A 5 s node timeout: the failover tests wait for it; the tests' writes never stall a fork that long.
    cluster = local_cluster.start(3, 1, tmp_path_factory.mktemp("cluster"), node_timeout_ms=5000)
    yield cluster
    cluster.stop()
