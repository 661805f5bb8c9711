"""Writes of entities with lighthouse.remember(): create, change, replay, and late rows, in batches of 500."""

from __future__ import annotations

import time
from collections import Counter
from datetime import timedelta

from fleet import AGENT, DEVICE
from lighthouse import remember
from registry import Context, Measured, expect, workload


def _remember(ctx: Context, rows: list[dict]) -> tuple[list[dict], float]:
    """All rows through remember() in batches; the receipts in order and the seconds the calls took."""
    batches = [rows[start : start + ctx.batch] for start in range(0, len(rows), ctx.batch)]
    receipts: list[dict] = []
    began = time.perf_counter()
    for batch in batches:
        receipts += remember(ctx.graph, DEVICE, AGENT, batch)
    return receipts, time.perf_counter() - began


def _all(name: str, rows: list[dict], receipts: list[dict], status: str) -> int:
    """Checks that every receipt is for its row and has the status; the number checked."""
    expect(len(receipts) == len(rows), f"{name}: {len(receipts)} receipts for {len(rows)} rows")
    wrong = [
        receipt
        for row, receipt in zip(rows, receipts, strict=True)
        if receipt.get("key") != row["key"] or receipt.get("status") != status
    ]
    counted = dict(Counter(receipt.get("status") for receipt in receipts))
    expect(not wrong, f"{name}: expected every receipt {status!r}, got {counted}; first wrong: {wrong[:1]}")
    return len(receipts)


def _count(ctx: Context, query: str) -> int:
    return ctx.graph.ro_query(query).result_set[0][0]


def _states(ctx: Context) -> int:
    return _count(ctx, "MATCH (s:State) RETURN count(s)")


@workload(
    "create",
    "rows",
    floor="unwind_create",
    target=0.10,
    about="new entities: 5 values (one text, one time), LOCATED_IN 1 room, USED_BY 3 teams",
)
def create(ctx: Context) -> Measured:
    """Every device's first row: each receipt must be created."""
    rows = ctx.fleet.create_rows()
    receipts, seconds = _remember(ctx, rows)
    checked = _all("create", rows, receipts, "created")
    ctx.fleet.accepted(rows)
    devices = _count(ctx, f"MATCH (e:{DEVICE.label}) RETURN count(e)")
    expect(devices == len(rows), f"create: {devices} devices in the graph, not {len(rows)}")
    edges = _count(ctx, f"MATCH (:{DEVICE.label})-[r]->(:Entity) RETURN count(r)")
    expect(edges == 4 * len(rows), f"create: {edges} relation edges, not {4 * len(rows)}")
    return Measured(len(rows), seconds, checked)


@workload(
    "change",
    "rows",
    needs=("create",),
    floor="unwind_create",
    target=0.10,
    about="a later row for every entity with one value changed",
)
def change(ctx: Context) -> Measured:
    """Every device's row ten days later, status changed: each receipt must be changed."""
    rows = ctx.fleet.change_rows()
    receipts, seconds = _remember(ctx, rows)
    checked = _all("change", rows, receipts, "changed")
    ctx.fleet.accepted(rows)
    states = _states(ctx)
    expect(states == 2 * len(rows), f"change: {states} States in the graph, not {2 * len(rows)}")
    return Measured(len(rows), seconds, checked)


@workload(
    "replay",
    "rows",
    needs=("create", "change"),
    floor="unwind_create",
    target=0.10,
    about="the create rows sent again: already recorded, so nothing is written",
)
def replay(ctx: Context) -> Measured:
    """The create rows again (now older than the current State): each receipt must be unchanged."""
    before = _states(ctx)
    rows = ctx.fleet.create_rows()
    receipts, seconds = _remember(ctx, rows)
    checked = _all("replay", rows, receipts, "unchanged")
    after = _states(ctx)
    expect(after == before, f"replay: the States went from {before} to {after}")
    return Measured(len(rows), seconds, checked)


@workload(
    "late",
    "rows",
    needs=("create", "change"),
    floor="unwind_create",
    target=0.03,
    about="rows of distinct entities at a time between two States, another value and another room",
)
def late(ctx: Context) -> Measured:
    """Late rows between the create and the change, with other content: each receipt must be inserted."""
    count = min(ctx.late, ctx.fleet.count)
    indexes = ctx.rng.sample(range(ctx.fleet.count), count)
    span = int((ctx.fleet.changed - ctx.fleet.created).total_seconds())
    times = [ctx.fleet.created + timedelta(seconds=ctx.rng.randint(1, span - 1)) for _ in indexes]
    rows = ctx.fleet.late_rows(indexes, times)
    before = _states(ctx)
    receipts, seconds = _remember(ctx, rows)
    checked = _all("late", rows, receipts, "inserted")
    ctx.fleet.accepted(rows)
    after = _states(ctx)
    expect(after == before + count, f"late: the States went from {before} to {after}, not +{count}")
    return Measured(count, seconds, checked)
