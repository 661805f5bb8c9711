"""The turn a schema change takes on its server: one at a time per server, side by side across shards."""

from __future__ import annotations

import time
import uuid
from contextlib import contextmanager

from .errors import SchemaNotReady

# FalkorDB 4.22.1 crashed (SIGSEGV) when two clients changed the schema of two graphs of one server at
# the same time (unique constraints, and relation-type indexes, seen in the tests' server logs). A key on
# the server itself makes every client of it, in any process, take its turn. On a Redis Cluster each
# shard is a server of its own: its turn is a key that lives on it (turn_key()), so the shards' schema
# changes go on side by side and two on one shard take turns.
_SCHEMA_TURN = "lighthouse:schema-turn"
_TAGS_TRIED = 100_000  # hash tags {0}, {1}, ... tried for one of the shard's slots: ~shards tries needed


def turn_key(graph) -> str:
    """The schema turn's key for the server that holds graph: one key per server; on a cluster, the
    first of lighthouse:schema-turn:{0}, {1}, ... whose slot that graph's shard serves, so every client
    of the shard picks the same one."""
    cluster = getattr(getattr(graph, "client", None), "connection", None)
    if not hasattr(cluster, "nodes_manager"):
        return _SCHEMA_TURN
    slots = cluster.nodes_manager.slots_cache
    owner = slots[cluster.keyslot(graph.name)][0].name
    for number in range(_TAGS_TRIED):
        key = f"{_SCHEMA_TURN}:{{{number}}}"
        if slots[cluster.keyslot(key)][0].name == owner:
            return key
    return f"{_SCHEMA_TURN}:{{{graph.name}}}"  # unreachable with every slot served: the graph's own


@contextmanager
def schema_turn(graph, wait: float):
    """The server's turn to change a schema (or to delete a graph, which drops its indexes: a crash of the
    tests' server came while one graph was deleted and another's constraint made). SchemaNotReady when
    another client keeps it for wait seconds."""
    turn, deadline, key = uuid.uuid4().hex, time.monotonic() + max(wait, 1.0), turn_key(graph)
    while not graph.execute_command("SET", key, turn, "NX", "PX", 60_000):
        if time.monotonic() >= deadline:
            raise SchemaNotReady(f"schema not ready: another client kept {key} for {wait:g} s")
        time.sleep(0.005)
    try:
        yield
    finally:
        # Only our own turn is given back: one that expired and was taken by another stays theirs.
        if graph.execute_command("GET", key) in (turn, turn.encode()):
            graph.execute_command("DEL", key)
