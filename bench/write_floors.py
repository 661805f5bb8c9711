"""The write floor: what the same server does with plain Cypher, for the writes to be compared with.

It runs on a graph of its own, on the same server, with nodes of the same properties as the devices.
The shape references write the whole graph a create leaves, on another fresh graph, and then what a
change of every entity writes there.
"""

from __future__ import annotations

import hashlib
import time

from fleet import AGENT, DEVICE
from lighthouse import ensure_schema
from lighthouse.values import words
from registry import Context, Measured, expect, workload

_CREATE = (
    "UNWIND $rows AS row "
    "CREATE (n:Device:Entity {key: row.key, serial: row.key, status: row.status, note: row.note, "
    "temperature: row.temperature, firmware: row.firmware, last_seen: localdatetime(row.last_seen)})"
)


# The nodes and edges that remember() makes for a new entity, written blind in one query per batch:
# the entity, its first State, HAS_STATE, LOCATED_IN to a merged Room and USED_BY to three merged Teams.
_SHAPE = (
    "UNWIND $rows AS row "
    "CREATE (e:Device:Entity {key: row.key, serial: row.key, rev: 1, valid_from: localdatetime(row.t), "
    "  words: row.words, by: $by, recorded_at: localdatetime($now), last_seen: localdatetime(row.last_seen)}) "
    "SET e += row.values "
    "CREATE (e)-[:HAS_STATE]->(s:State {kind: 'Device', key: row.key, valid_from: localdatetime(row.t), "
    "  by: $by, recorded_at: localdatetime($now), words: row.words, last_seen: localdatetime(row.last_seen)}) "
    "SET s += row.values "
    "MERGE (room:Room {key: row.room}) ON CREATE SET room:Entity, room.rev = 0, room.code = row.room "
    "CREATE (e)-[:LOCATED_IN {valid_from: localdatetime(row.t), by: $by, recorded_at: localdatetime($now)}]->(room) "
    "FOREACH (name IN row.teams | "
    "  MERGE (team:Team {key: name}) ON CREATE SET team:Entity, team.rev = 0, team.name = name "
    "  CREATE (e)-[:USED_BY {valid_from: localdatetime(row.t), by: $by, recorded_at: localdatetime($now)}]->(team))"
)


def _flat(row: dict) -> dict:
    flat = {"key": row["key"], **row["values"]}
    flat["last_seen"] = flat["last_seen"].rstrip("Z")  # localdatetime() reads no zone
    return flat


@workload(
    "unwind_create",
    "rows",
    about="raw Cypher UNWIND CREATE of the same nodes and properties, batches of 500 (key indexed)",
)
def unwind_create(ctx: Context) -> Measured:
    """The write floor: the devices' nodes with their values, created in one query per batch."""
    # The key is indexed first, as the library's graph has it indexed while it writes.
    ctx.floor_graph.query(f"CREATE INDEX FOR (n:{DEVICE.label}) ON (n.key)")
    rows = [_flat(row) for row in ctx.fleet.create_rows()]
    batches = [rows[start : start + ctx.batch] for start in range(0, len(rows), ctx.batch)]
    created = 0
    began = time.perf_counter()
    for batch in batches:
        created += int(ctx.floor_graph.query(_CREATE, {"rows": batch}).nodes_created)
    seconds = time.perf_counter() - began
    expect(created == len(rows), f"unwind_create created {created} nodes, not {len(rows)}")
    return Measured(len(rows), seconds, created)


def _shaped(row: dict) -> dict:
    plain = {name: item for name, item in row["values"].items() if name not in DEVICE.times}
    return {
        "key": row["key"],
        "t": row["t"].rstrip("Z"),
        "values": plain,
        "last_seen": row["values"]["last_seen"].rstrip("Z"),
        "words": words(row["values"]["note"]),
        "room": row["relations"]["LOCATED_IN"],
        "teams": row["relations"]["USED_BY"],
    }


def _written(ctx: Context, graph, query: str, rows: list[dict], t: str) -> tuple[int, int, float]:
    """The rows written by the query in batches, timed: the nodes and edges made, and the seconds."""
    batches = [rows[start : start + ctx.batch] for start in range(0, len(rows), ctx.batch)]
    nodes = edges = 0
    now = t.rstrip("Z")  # localdatetime() reads no zone
    began = time.perf_counter()
    for batch in batches:
        result = graph.query(query, {"rows": batch, "by": AGENT, "now": now})
        nodes, edges = nodes + int(result.nodes_created), edges + int(result.relationships_created)
    return nodes, edges, time.perf_counter() - began


@workload(
    "unwind_shape",
    "rows",
    floor="unwind_create",
    about="raw Cypher writing the nodes and edges a create makes (no reads, no decisions), same indexes",
)
def unwind_shape(ctx: Context) -> Measured:
    """What the server alone needs for the graph a create leaves: a reference, with no target."""
    shape_graph = ctx.new_graph("shape")
    ensure_schema(shape_graph, [DEVICE])  # the same indexes as the library's graph
    ctx.shared["shape_graph"] = shape_graph  # where the single-write shapes write, at the same size
    created = ctx.fleet.create_rows()
    rows = [_shaped(row) for row in created]
    nodes, edges, seconds = _written(ctx, shape_graph, _SHAPE, rows, created[0]["t"])
    targets = len({row["room"] for row in rows}) + len({team for row in rows for team in row["teams"]})
    expect(
        nodes == 2 * len(rows) + targets, f"unwind_shape created {nodes} nodes, not {2 * len(rows) + targets}"
    )
    expect(edges == 5 * len(rows), f"unwind_shape created {edges} edges, not {5 * len(rows)}")
    return Measured(len(rows), seconds, len(rows))


# What remember() writes for a change of one value (every relation target kept), written blind in one query
# per batch: the current State found and ended, the entity's values and times set, a new State with its
# HAS_STATE and the NEXT link from the one it replaces. No read before it, no guard, no decision.
_CHANGE_SHAPE = (
    "UNWIND $rows AS row "
    "MATCH (e:Device {key: row.key})-[:HAS_STATE]->(s) WHERE s.valid_to IS NULL "
    "SET s.valid_to = localdatetime(row.t), e.rev = e.rev + 1, e.valid_from = localdatetime(row.t), "
    "  e += row.values, e.words = row.words, e.fp = row.fp, e.links_fp = row.links_fp, e.by = $by, "
    "  e.recorded_at = localdatetime($now), e.last_seen = localdatetime(row.last_seen) "
    "CREATE (e)-[:HAS_STATE]->(n:State {kind: 'Device', key: row.key, valid_from: localdatetime(row.t), "
    "  by: $by, recorded_at: localdatetime($now), words: row.words, fp: row.fp, "
    "  last_seen: localdatetime(row.last_seen)}) "
    "SET n += row.values "
    "CREATE (s)-[:NEXT]->(n)"
)


def _digest(row: dict, what: str) -> str:
    return hashlib.blake2b(f"{what} {row['key']} {row['t']}".encode(), digest_size=16).hexdigest()


@workload(
    "change_shape",
    "rows",
    needs=("unwind_shape",),
    floor="unwind_create",
    about="raw Cypher writing what a change writes (the State ended, the entity set, a new State), blind",
)
def change_shape(ctx: Context) -> Measured:
    """What the server alone needs for a change of every device: a reference, with no target."""
    expect("shape_graph" in ctx.shared, "change_shape needs the graph unwind_shape wrote")
    shape_graph = ctx.shared["shape_graph"]
    changed = ctx.fleet.change_rows()
    # the fingerprints' size: digests of 32 hex digits
    rows = [{**_shaped(row), "fp": _digest(row, "fp"), "links_fp": _digest(row, "links")} for row in changed]
    nodes, edges, seconds = _written(ctx, shape_graph, _CHANGE_SHAPE, rows, changed[0]["t"])
    expect(nodes == len(rows), f"change_shape created {nodes} States, not {len(rows)}")
    expect(edges == 2 * len(rows), f"change_shape created {edges} edges, not {2 * len(rows)}")
    return Measured(len(rows), seconds, len(rows))
