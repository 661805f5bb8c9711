"""One line per workload: count, seconds, rate, and the ratio to its floor measured in the same run."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from registry import Measured, Workload


@dataclass
class Figure:
    name: str
    unit: str
    count: int
    seconds: float
    rate: float  # rows or calls per second
    floor: str | None
    ratio: float | None  # rate / the floor's rate
    target: float | None
    verdict: str  # PASS, MISS, "floor", or "info" (a ratio with no target)
    spread: str | None = None  # over several rounds (--rounds): the lowest and highest ratio (or rate)


def figure(chosen: Workload, measured: Measured, figures: dict[str, Figure]) -> Figure:
    rate = measured.count / measured.seconds if measured.seconds > 0 else float("inf")
    if chosen.floor is None:
        return Figure(
            chosen.name, chosen.unit, measured.count, measured.seconds, rate, None, None, None, "floor"
        )
    ratio = rate / figures[chosen.floor].rate
    verdict = "info" if chosen.target is None else "PASS" if ratio >= chosen.target else "MISS"
    return Figure(
        chosen.name,
        chosen.unit,
        measured.count,
        measured.seconds,
        rate,
        chosen.floor,
        ratio,
        chosen.target,
        verdict,
    )


def medians(rounds: list[list[Figure]]) -> list[Figure]:
    """Each workload's figure of the round whose ratio is the median of its rounds (the lower middle of an
    even count), judged again on that ratio; a floor by the median of its rate. Each round's ratio is to
    the floor measured in that round: a shared machine drifts between rounds, not within a ratio."""
    chosen = []
    for position, first in enumerate(rounds[0]):
        same = sorted(
            (one[position] for one in rounds),
            key=lambda one: one.rate if one.ratio is None else one.ratio,
        )
        middle = same[(len(same) - 1) // 2]
        low, high = same[0], same[-1]
        spread = (
            f"{low.rate:.1f} to {high.rate:.1f} {first.unit}/s"
            if first.ratio is None
            else f"{low.ratio * 100:.1f} to {high.ratio * 100:.1f} %"
        )
        chosen.append(Figure(**{**asdict(middle), "spread": spread}))
    return chosen


def line(one: Figure) -> str:
    head = f"{one.name:<16} {one.count:>7} {one.unit:<5} {one.seconds:>8.3f} s {one.rate:>10.1f} {one.unit}/s"
    spread = "" if one.spread is None else f"  [rounds: {one.spread}]"
    if one.floor is None:
        return f"{head}   floor{spread}"
    goal = "no target" if one.target is None else f"target {one.target * 100:.0f} %"
    return f"{head}   {one.ratio * 100:6.1f} % of {one.floor} ({goal})  {one.verdict}{spread}"


def write_json(
    path: str, settings: dict, figures: list[Figure], rounds: list[list[Figure]] | None = None
) -> None:
    """The settings and figures (the medians, over rounds), and each round's own figures when there
    were several."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    written: dict = {"settings": settings, "figures": [asdict(one) for one in figures]}
    if rounds is not None:
        written["rounds"] = [[asdict(one) for one in listed] for listed in rounds]
    target.write_text(json.dumps(written, indent=2) + "\n")
