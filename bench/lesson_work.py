"""Lessons: learn() and weigh(), each timed alone, on the episodes episode_work.py closed.

200 lessons are learned, lesson n resting on the episodes n and n + 1 and about the device of episode n;
then each is weighed once by the episode n + 2, for it when n is even and against it when odd. Every
receipt is checked, and every lesson is read back with lesson(): its support, what it rests on and is
weighed against, what it is about.

learn() and weigh() cost what their checks cost as a read plus what their write costs blind, and 0.01 to
0.03 ms more (learn() 0.34, its checks 0.13, its blind write 0.20 ms inside FalkorDB); the library's
Python is some 0.04 ms of a call. weigh() sends one query text for each side, each with the one FOREACH
that writes: one text with two guarded FOREACHes cost 0.02 ms more.
"""

from __future__ import annotations

from breakdown import unwatched
from episode_work import EPISODES, _episode_id, _subjects
from fleet import AGENT, DEVICE
from lighthouse import learn, lesson, weigh
from registry import Context, Measured, expect, timed_calls, workload


def _lesson_id(number: int) -> str:
    return f"bench-lesson-{number:04d}"


def _resting_on(number: int) -> list[str]:
    return [_episode_id(number), _episode_id((number + 1) % EPISODES)]


def _weighed_by(number: int) -> str:
    return _episode_id((number + 2) % EPISODES)


@workload(
    "learn",
    "calls",
    needs=("close_episode",),
    floor="indexed_match",
    target=0.60,
    about="learn() of 200 lessons, each resting on two episodes that ended and about a device",
)
def learn_calls(ctx: Context) -> Measured:
    """200 learn() calls: each receipt learned, each lesson read back as it was given."""
    subjects = _subjects(ctx)
    receipts, seconds = timed_calls(
        lambda number: learn(
            ctx.graph,
            _lesson_id(number),
            AGENT,
            f"device {subjects[number]} steadies after a fan check",
            _resting_on(number),
            [(DEVICE, subjects[number])],
            {"confidence": 0.5 + number % 5 / 10},
        ),
        range(EPISODES),
    )
    for number, receipt in enumerate(receipts):
        wanted = {"id": _lesson_id(number), "status": "learned"}
        expect(receipt == wanted, f"learn({_lesson_id(number)}) gave {receipt}, not {wanted}")
        found = lesson(unwatched(ctx.graph), _lesson_id(number))
        expect(found is not None, f"lesson({_lesson_id(number)}) is None after learn()")
        where = f"lesson({_lesson_id(number)})"
        expect(found["supported_by"] == sorted(_resting_on(number)), f"{where}: {found['supported_by']}")
        expect(found["support"] == 2 and found["against"] == 0, f"{where}: support {found['support']}")
        expect(found["about"] == [("Device", subjects[number])], f"{where}: about {found['about']}")
        expect(found["confidence"] == 0.5 + number % 5 / 10, f"{where}: confidence {found['confidence']}")
    return Measured(EPISODES, seconds, len(receipts))


@workload(
    "weigh",
    "calls",
    needs=("learn",),
    floor="indexed_match",
    target=0.60,
    about="weigh() of the 200 lessons, each by one more episode that ended, for or against it",
)
def weigh_calls(ctx: Context) -> Measured:
    """200 weigh() calls: each receipt weighed, each lesson's support or against one more."""
    receipts, seconds = timed_calls(
        lambda number: weigh(ctx.graph, _lesson_id(number), AGENT, _weighed_by(number), number % 2 == 0),
        range(EPISODES),
    )
    for number, receipt in enumerate(receipts):
        wanted = {"id": _lesson_id(number), "status": "weighed"}
        expect(receipt == wanted, f"weigh({_lesson_id(number)}) gave {receipt}, not {wanted}")
        found = lesson(unwatched(ctx.graph), _lesson_id(number))
        where = f"lesson({_lesson_id(number)})"
        agrees = number % 2 == 0
        pros = sorted(_resting_on(number) + [_weighed_by(number)] * agrees)
        cons = [_weighed_by(number)] * (not agrees)
        expect(found["supported_by"] == pros and found["contradicted_by"] == cons, f"{where}: {found}")
        expect((found["support"], found["against"]) == (2 + agrees, int(not agrees)), f"{where}: {found}")
    return Measured(EPISODES, seconds, len(receipts))
