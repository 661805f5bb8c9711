"""Conversations the tests hold: the kinds they mention, and a graph whose indexes are built."""

from __future__ import annotations

import fcntl
import os
import tempfile
import time
from pathlib import Path

from lighthouse.graphs import ensure_schema
from lighthouse.kinds import Kind

PUMP = Kind("Pump", key="tag")
VALVE = Kind("Valve", key="number")


def ready(graph, kinds):
    """ensure_schema(), then a wait until every index is built.

    FalkorDB 4.22 builds a new index in the background: found here, a query that used one still under
    construction crashed the server (SIGSEGV in RediSearch_GetResultsIterator) or missed a node.
    """
    # One at a time across the xdist workers of a run: found here (09:10-09:31 UTC, 2026-12-01), two
    # GRAPH.CONSTRAINT CREATE at once from ensure_schema() crashed FalkorDB 4.22.1 (SIGSEGV).
    lock = (
        Path(tempfile.gettempdir()) / f"lighthouse-schema-{os.environ.get('FALKORDB_PORT', 'default')}.lock"
    )
    with open(lock, "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        ensure_schema(graph, kinds)
    deadline = time.monotonic() + 30
    query = "CALL db.indexes() YIELD status RETURN status"
    while any(status != "OPERATIONAL" for (status,) in graph.query(query).result_set):
        assert time.monotonic() < deadline, "the indexes were not built in 30 seconds"
        time.sleep(0.01)
    return graph


class Counting:
    """A falkordb Graph that counts the queries sent through it and forwards everything to the graph."""

    def __init__(self, graph):
        self.graph = graph
        self.sent: list[str] = []

    def query(self, *args, **kwargs):
        self.sent.append(args[0] if args else kwargs.get("q", ""))
        return self.graph.query(*args, **kwargs)

    def ro_query(self, *args, **kwargs):
        self.sent.append(args[0] if args else kwargs.get("q", ""))
        return self.graph.ro_query(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.graph, name)
