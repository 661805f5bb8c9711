"""Reads of entities with lighthouse.read: history(), as_of() and related(), one call each, on random keys.

They run after the writes, on entities with two or three States, and each answer is checked against
what the fleet wrote.
"""

from __future__ import annotations

from datetime import datetime

from fleet import DEVICE, state_differs
from lighthouse import as_of, history, related
from registry import Context, Measured, expect, timed_calls, workload

_READS_NEED = ("create", "change", "late")


def _moments(ctx: Context) -> list[datetime]:
    return [ctx.fleet.moment(ctx.rng) for _ in range(ctx.calls)]


def _keys(ctx: Context) -> list[str]:
    return [ctx.rng.choice(ctx.fleet.keys) for _ in range(ctx.calls)]


@workload(
    "history",
    "calls",
    needs=_READS_NEED,
    floor="indexed_match",
    target=0.60,
    about="every State of an entity, oldest first",
)
def history_calls(ctx: Context) -> Measured:
    """history() of random devices; each must list the States the fleet wrote."""
    keys = _keys(ctx)
    answers, seconds = timed_calls(lambda key: history(ctx.graph, DEVICE, key), keys)
    for key, answer in zip(keys, answers, strict=True):
        expected = ctx.fleet.states(key)
        expect(len(answer) == len(expected), f"history({key}): {len(answer)} States, not {len(expected)}")
        for got, wanted in zip(answer, expected, strict=True):
            why = state_differs(got, wanted)
            expect(why is None, f"history({key}): {why}")
    return Measured(len(keys), seconds, len(answers))


@workload(
    "as_of",
    "calls",
    needs=_READS_NEED,
    floor="indexed_match",
    target=0.60,
    about="the State of an entity at a random time (before it existed too)",
)
def as_of_calls(ctx: Context) -> Measured:
    """as_of() of random devices at random times; each must be the State that held then, or None."""
    keys, moments = _keys(ctx), _moments(ctx)
    answers, seconds = timed_calls(
        lambda asked: as_of(ctx.graph, DEVICE, *asked), list(zip(keys, moments, strict=True))
    )
    for key, moment, answer in zip(keys, moments, answers, strict=True):
        why = state_differs(answer, ctx.fleet.at(key, moment))
        expect(why is None, f"as_of({key}, {moment}): {why}")
    return Measured(len(keys), seconds, len(answers))


@workload(
    "related",
    "calls",
    needs=_READS_NEED,
    floor="indexed_match",
    target=0.60,
    about="the targets of a relation (LOCATED_IN or USED_BY) at a random time",
)
def related_calls(ctx: Context) -> Measured:
    """related() of random devices, relations and times; each must give the targets that held then."""
    keys, moments = _keys(ctx), _moments(ctx)
    relations = [ctx.rng.choice(sorted(DEVICE.relations)) for _ in keys]
    answers, seconds = timed_calls(
        lambda asked: related(ctx.graph, DEVICE, *asked), list(zip(keys, relations, moments, strict=True))
    )
    for key, relation, moment, answer in zip(keys, relations, moments, answers, strict=True):
        state = ctx.fleet.at(key, moment)
        wanted = [] if state is None else state.relations[relation]
        expect(answer == wanted, f"related({key}, {relation}, {moment}): {answer}, not {wanted}")
    return Measured(len(keys), seconds, len(answers))
