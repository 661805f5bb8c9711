"""The read floor: one node by its indexed key, on the floor graph that unwind_create wrote.

Registered after the writes, so it runs just before the reads it is compared with: on a shared machine
the load drifts, and a floor measured minutes earlier would compare other conditions.
"""

from __future__ import annotations

from registry import Context, Measured, expect, timed_calls, workload

_MATCH = "MATCH (n:Device {key: $key}) RETURN properties(n)"


@workload(
    "indexed_match",
    "calls",
    needs=("unwind_create",),
    about="single-node MATCH by the indexed key, properties returned, one call each",
)
def indexed_match(ctx: Context) -> Measured:
    """The read floor: one node by its indexed key, a round trip per call."""
    keys = [ctx.rng.choice(ctx.fleet.keys) for _ in range(ctx.calls)]
    answers, seconds = timed_calls(
        lambda key: ctx.floor_graph.ro_query(_MATCH, {"key": key}).result_set, keys
    )
    checked = 0
    for key, answer in zip(keys, answers, strict=True):
        expect(len(answer) == 1 and answer[0][0]["key"] == key, f"indexed_match of {key} gave {answer!r}")
        checked += 1
    return Measured(len(keys), seconds, checked)
