"""Each tenant graph's edge types read across now and then, so that a new edge costs what it should.

In FalkorDB 4.22.1 a query that makes an edge pays for the edges of that type made since a query last
read across the type: 0.06 ms after 2,000 of them, 0.35 ms after 20,000 (bench/edge_growth.py). Only a
read (or a DELETE) that crosses the type brings it back, and only once DELTA_MAX_PENDING_CHANGES of them
wait. No single write reads the types it makes, and some types are read by few reads (WROTE only by
trust()). So the serve reads across one edge of each type of each tenant graph every SETTLE_EVERY
seconds (two small reads a graph: 0.1 to 0.2 ms inside FalkorDB, and a few ms when a type's edges are
brought back), and the embedded FalkorDB waits for 1,000 (embedded.DELTA_MAX_PENDING). Over 20,000
record() calls that kept a call at 0.73 to 0.85 ms inside FalkorDB throughout, against 0.71 to 0.78 ms
in the first fifth and 1.18 to 1.29 in the last without either (two runs).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from contextlib import nullcontext

from lighthouse import tenant

from .worker.loop import tenant_ids

SETTLE_EVERY = 5.0  # seconds between two passes over the tenant graphs
TYPES = "CALL db.relationshipTypes() YIELD relationshipType RETURN relationshipType"
_log = logging.getLogger(__name__)


def across(types: list[str]) -> str:
    """One read that crosses one edge of each type (a name is written between backticks, which FalkorDB
    4.22 cannot escape inside one: a name holding a backtick cannot be made or read by Cypher)."""
    return " UNION ALL ".join(
        f"MATCH ()-[edge:`{name}`]->() WITH edge LIMIT 1 RETURN {place} AS crossed"
        for place, name in enumerate(types)
    )


def settle(graph) -> list[str]:
    """Reads across one edge of each relation type of the graph, writing nothing: the types read."""
    types = [row[0] for row in graph.ro_query(TYPES).result_set if "`" not in row[0]]
    if types:
        graph.ro_query(across(types))
    return types


class Settler:
    """settle() of every tenant graph every `every` seconds, in a thread of its own once started.

    gates: the serve's tenant gates (declarations.Kinds.gate): each read waits out a schema change of
    its tenant in this process, as every call does (FalkorDB 4.22.1 crashed when queries met one)."""

    def __init__(self, db, every: float = SETTLE_EVERY, gates: Callable | None = None) -> None:
        self.db, self.every, self.gates = db, every, gates
        self.stop_event = threading.Event()
        self.passes = 0  # passes over the tenants done (what a test waits for)
        self._thread: threading.Thread | None = None

    def settle_all(self) -> None:
        """One pass; one tenant's trouble (a graph deleted meanwhile, say) stops neither the pass nor it."""
        for tenant_id in tenant_ids(self.db):
            if self.stop_event.is_set():
                return
            try:
                with self.gates(tenant_id).writing() if self.gates is not None else nullcontext():
                    settle(tenant(self.db, tenant_id))
            except Exception as error:  # noqa: BLE001 - logged; the next pass reads it again
                _log.warning("tenant %s: its edge types were not read across: %s", tenant_id, error)
        self.passes += 1

    def run(self) -> None:
        while not self.stop_event.wait(self.every):
            try:
                self.settle_all()
            except Exception as error:  # noqa: BLE001 - the database went away: the next pass tries again
                _log.warning("a pass over the tenants' edge types failed: %s", error)

    def start(self) -> Settler:
        self._thread = threading.Thread(target=self.run, name="lighthouse-settler", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 10.0) -> None:
        self.stop_event.set()
        if self._thread is not None:
            self._thread.join(timeout)
