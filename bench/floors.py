"""The floors: what the same server does with plain Cypher, for the library's figures to be compared with.

They run on a graph of their own, on the same server, with nodes of the same properties as the devices.
"""

from __future__ import annotations

import time

from fleet import DEVICE
from registry import Context, Measured, expect, workload

_CREATE = (
    "UNWIND $rows AS row "
    "CREATE (n:Device:Entity {key: row.key, serial: row.key, status: row.status, note: row.note, "
    "temperature: row.temperature, firmware: row.firmware, last_seen: localdatetime(row.last_seen)})"
)
_MATCH = "MATCH (n:Device {key: $key}) RETURN properties(n)"


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


@workload(
    "indexed_match",
    "calls",
    needs=("unwind_create",),
    about="single-node MATCH by the indexed key, properties returned, one call each",
)
def indexed_match(ctx: Context) -> Measured:
    """The read floor: one node by its indexed key, a round trip per call."""
    keys = [ctx.rng.choice(ctx.fleet.keys) for _ in range(ctx.calls)]
    answers = []
    began = time.perf_counter()
    for key in keys:
        answers.append(ctx.floor_graph.ro_query(_MATCH, {"key": key}).result_set)
    seconds = time.perf_counter() - began
    checked = 0
    for key, answer in zip(keys, answers, strict=True):
        expect(len(answer) == 1 and answer[0][0]["key"] == key, f"indexed_match of {key} gave {answer!r}")
        checked += 1
    return Measured(len(keys), seconds, checked)
