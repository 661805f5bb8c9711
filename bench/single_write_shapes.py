"""What the server alone needs for each single write: the graph change a call leaves, written blind.

Each `<function>_shape` sends, one call at a time, the plain Cypher that makes the same nodes, edges and
properties as the library's function, with none of its checks: no lookup of what must exist, no refusal,
no receipt decided. They run on the graph `unwind_shape` wrote (10,000 devices with their States, rooms
and teams: the size of the library's graph), with the library's indexes. The counters are where the
library keeps them: an episode's entries and end on the Episode and the graph's serial on the Stamp, as
the design names them, a session's count on an LH_TALLY loop edge (see bench/growth.py for why), so the
ratio of a function to its shape is the part of
its cost that is the library's.
"""

from __future__ import annotations

from registry import Context, Measured, expect, timed_calls, workload
from single_write_cypher import (
    CLOSE_SHAPE,
    ENTRIES,
    HAND_OFF_SHAPE,
    LEARN_SHAPE,
    OPEN_SHAPE,
    RECORD_SHAPE,
    SAY_SHAPE,
    USERS,
    WEIGH_SHAPES,
    append_params,
    hand_off_params,
    learn_params,
    open_params,
    say_params,
    weigh_params,
)

EPISODES = 200
MESSAGES = 5_000


def _shape_graph(ctx: Context):
    expect("shape_graph" in ctx.shared, "the single-write shapes need the graph unwind_shape wrote")
    return ctx.shared["shape_graph"]


def _devices(ctx: Context) -> list[str]:
    step = max(1, ctx.fleet.count // EPISODES)
    return [ctx.fleet.keys[(number * step) % ctx.fleet.count] for number in range(EPISODES)]


def _made(results: list, nodes: int, edges: int, name: str) -> int:
    """Each call made the nodes and edges its shape writes (its first calls may also merge an Agent)."""
    for number, result in enumerate(results):
        made = (int(result.nodes_created), int(result.relationships_created))
        expect(made[1] == edges and made[0] in (nodes, nodes + 1, nodes + 2), f"{name} call {number}: {made}")
    return len(results)


@workload(
    "open_shape",
    "calls",
    needs=("unwind_shape", "indexed_match"),
    floor="indexed_match",
    about="reference: the Episode and its ABOUT edge that open_episode() writes, blind, one query a call",
)
def open_shape(ctx: Context) -> Measured:
    shape, devices = _shape_graph(ctx), _devices(ctx)
    results, seconds = timed_calls(
        lambda number: shape.query(OPEN_SHAPE, open_params(number, devices[number])),
        range(EPISODES),
    )
    return Measured(EPISODES, seconds, _made(results, 1, 1, "open_shape"))


@workload(
    "record_shape",
    "calls",
    needs=("open_shape",),
    floor="indexed_match",
    about="reference: the entry record() writes with its counters, writer, NEXT and two CITES, blind",
)
def record_shape(ctx: Context) -> Measured:
    shape, devices = _shape_graph(ctx), _devices(ctx)
    calls = [(number, seq) for number in range(EPISODES) for seq in range(1, ENTRIES + 1)]
    results, seconds = timed_calls(
        lambda call: shape.query(RECORD_SHAPE, append_params(call[0], call[1], devices[call[0]], False)),
        calls,
    )
    first = [result for (_number, seq), result in zip(calls, results, strict=True) if seq == 1]
    later = [result for (_number, seq), result in zip(calls, results, strict=True) if seq > 1]
    return Measured(
        len(calls), seconds, _made(first, 1, 3, "record_shape") + _made(later, 1, 5, "record_shape")
    )


@workload(
    "close_shape",
    "calls",
    needs=("record_shape",),
    floor="indexed_match",
    about="reference: the outcome entry close_episode() writes and the episode's end, blind",
)
def close_shape(ctx: Context) -> Measured:
    shape, devices = _shape_graph(ctx), _devices(ctx)
    results, seconds = timed_calls(
        lambda number: shape.query(CLOSE_SHAPE, append_params(number, ENTRIES + 1, devices[number], True)),
        range(EPISODES),
    )
    return Measured(EPISODES, seconds, _made(results, 1, 5, "close_shape"))


@workload(
    "hand_off_shape",
    "calls",
    needs=("close_shape",),
    floor="indexed_match",
    about="reference: the Handoff, its GAVE, TO and two POINTS_TO edges that hand_off() writes, blind",
)
def hand_off_shape(ctx: Context) -> Measured:
    shape, devices = _shape_graph(ctx), _devices(ctx)

    results, seconds = timed_calls(
        lambda number: shape.query(HAND_OFF_SHAPE, hand_off_params(number, devices[number])), range(EPISODES)
    )
    return Measured(EPISODES, seconds, _made(results, 1, 4, "hand_off_shape"))


@workload(
    "learn_shape",
    "calls",
    needs=("close_shape",),
    floor="indexed_match",
    about="reference: the Lesson, its two SUPPORTED_BY edges and its ABOUT edge that learn() writes, blind",
)
def learn_shape(ctx: Context) -> Measured:
    shape, devices = _shape_graph(ctx), _devices(ctx)
    results, seconds = timed_calls(
        lambda number: shape.query(LEARN_SHAPE, learn_params(number, EPISODES, devices[number])),
        range(EPISODES),
    )
    return Measured(EPISODES, seconds, _made(results, 1, 3, "learn_shape"))


@workload(
    "weigh_shape",
    "calls",
    needs=("learn_shape",),
    floor="indexed_match",
    about="reference: the edge for or against and the count that weigh() writes, blind",
)
def weigh_shape(ctx: Context) -> Measured:
    shape = _shape_graph(ctx)
    results, seconds = timed_calls(
        lambda number: shape.query(WEIGH_SHAPES[number % 2 == 0], weigh_params(number, EPISODES)),
        range(EPISODES),
    )
    return Measured(EPISODES, seconds, _made(results, 0, 1, "weigh_shape"))


@workload(
    "say_shape",
    "calls",
    needs=("unwind_shape", "indexed_match"),
    floor="indexed_match",
    about="reference: the message say() writes, its session's count, NEXT and (every tenth) a mention, blind",
)
def say_shape(ctx: Context) -> Measured:
    shape = _shape_graph(ctx)

    results, seconds = timed_calls(
        lambda number: shape.query(SAY_SHAPE, say_params(number, ctx.fleet.keys)), range(MESSAGES)
    )
    for number, result in enumerate(results):
        edges = 1 + (number >= USERS) + (number % 10 == 0) + (number < USERS)  # the tally with the first
        expect(
            int(result.relationships_created) == edges,
            f"say_shape call {number}: {result.relationships_created}",
        )
    return Measured(MESSAGES, seconds, len(results))
