"""Conversations the tests hold: the kinds they mention, and a graph whose indexes are built."""

from __future__ import annotations

import time

from lighthouse.graphs import ensure_schema
from lighthouse.kinds import Kind

PUMP = Kind("Pump", key="tag")
VALVE = Kind("Valve", key="number")


def ready(graph, kinds):
    """ensure_schema(), then a wait until every index is built.

    FalkorDB 4.22 builds a new index in the background: found here, a query that used one still under
    construction crashed the server (SIGSEGV in RediSearch_GetResultsIterator) or missed a node.
    """
    ensure_schema(graph, kinds)
    deadline = time.monotonic() + 30
    query = "CALL db.indexes() YIELD status RETURN status"
    while any(status != "OPERATIONAL" for (status,) in graph.query(query).result_set):
        assert time.monotonic() < deadline, "the indexes were not built in 30 seconds"
        time.sleep(0.01)
    return graph
