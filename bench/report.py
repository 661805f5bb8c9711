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


def line(one: Figure) -> str:
    head = f"{one.name:<16} {one.count:>7} {one.unit:<5} {one.seconds:>8.3f} s {one.rate:>10.1f} {one.unit}/s"
    if one.floor is None:
        return f"{head}   floor"
    goal = "no target" if one.target is None else f"target {one.target * 100:.0f} %"
    return f"{head}   {one.ratio * 100:6.1f} % of {one.floor} ({goal})  {one.verdict}"


def write_json(path: str, settings: dict, figures: list[Figure]) -> None:
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(
        json.dumps({"settings": settings, "figures": [asdict(one) for one in figures]}, indent=2) + "\n"
    )
