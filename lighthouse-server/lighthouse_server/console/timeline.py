"""An entity's timeline as shapes for an inline SVG: its States on one lane, each relation target's
validity windows on a lane of its own, along one time axis.

Time runs along the axis in proportion, except that a stretch far longer than the typical one is cut
short and drawn as a break, so versions far apart in time keep the others readable. Only geometry is
computed here; the template draws it, escaping every label. A State is late when it was
recorded after a State that begins later had been recorded already (the write rule placed it in the
past); a rejected State is drawn hatched, a candidate dashed.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import lru_cache

WIDTH = 960
LEFT = 170  # room for the lanes' names
RIGHT = 16
LANE = 22
TOP = 8
AXIS = 28
MOST_LANES = 200  # relation lanes drawn; the rest are counted
GAP_CAP = 3  # a stretch between two moments is drawn at most this many typical stretches wide
MOST_BREAKS = 50


@dataclass(slots=True)
class Bar:
    x: float
    width: float
    css: str
    title: str
    ident: str  # the data-id of a State's bar; a window's lane names it


@dataclass
class Lane:
    name: str
    y: float
    bars: list[Bar] = field(default_factory=list)


@dataclass
class Timeline:
    width: int
    height: int
    lanes: list[Lane]
    ticks: list[tuple[float, str, str]]  # x, label, text-anchor
    axis_y: float
    left: int
    not_drawn: int = 0
    breaks: list[tuple[float, str]] = field(default_factory=list)  # x of a stretch cut short, what it hides


def late_flags(states: list[dict]) -> list[bool]:
    """For States oldest first by valid_from: whether each was recorded after a later-starting one."""
    flags = [False] * len(states)
    earliest_later: datetime | None = None
    for place in range(len(states) - 1, -1, -1):
        recorded = states[place].get("recorded_at")
        if earliest_later is not None and recorded is not None and recorded > earliest_later:
            flags[place] = True
        if recorded is not None and (earliest_later is None or recorded < earliest_later):
            earliest_later = recorded
    return flags


@lru_cache(maxsize=8_192)
def _moment(moment: datetime) -> str:
    """2026-01-31 12:00:00: isoformat() is C, a tenth of strftime()'s time (a bar's title has one or two;
    a State's end is the next one's start, so each is written once)."""
    return moment.isoformat(" ", "seconds")[:19] + "Z"


def _length(gap: timedelta) -> str:
    if gap >= timedelta(days=2):
        return f"{gap.days:,} days"
    if gap >= timedelta(hours=2):
        return f"{gap.total_seconds() / 3600:.0f} hours"
    return f"{gap.total_seconds() / 60:.0f} minutes"


def _label(moment: datetime, span: timedelta) -> str:
    if span <= timedelta(days=2):
        return moment.strftime("%m-%d %H:%M")
    return moment.strftime("%Y-%m-%d")


class Axis:
    """Time to x, piecewise: each stretch between two moments the timeline shows is as wide as its length,
    but no wider than GAP_CAP times the typical (median) stretch, so one version far from the others
    does not squeeze the rest into slivers. The stretches cut short are kept, to be drawn as breaks."""

    def __init__(self, moments: list[datetime], left: float, width: float) -> None:
        self.points = sorted(set(moments))
        gaps = [later - earlier for earlier, later in zip(self.points, self.points[1:], strict=False)]
        typical = sorted(gaps)[len(gaps) // 2] if gaps else timedelta(hours=1)
        cap = max(typical * GAP_CAP, timedelta(seconds=1))
        # The axis ends a little after the last change, so that a long quiet present does not squeeze the
        # history into a corner; open windows run to its end.
        span = self.points[-1] - self.points[0]
        self.end = self.points[-1] + max(min(span * 0.1, cap), timedelta(hours=1))
        self.points.append(self.end)
        gaps.append(self.end - self.points[-2])
        cap = max(cap, gaps[-1])
        weights = [min(gap, cap) / cap for gap in gaps]
        total = sum(weights) or 1.0
        self.left, self.width = left, width
        self.starts = [0.0]
        for weight in weights:
            self.starts.append(self.starts[-1] + width * weight / total)
        self.gaps = gaps
        self.breaks = [(self.starts[n], self.starts[n + 1], gap) for n, gap in enumerate(gaps) if gap > cap]

    def x(self, moment: datetime) -> float:
        points = self.points
        if len(points) < 2 or moment <= points[0]:
            return self.left
        if moment >= points[-1]:
            return self.left + self.width
        place = bisect_right(points, moment) - 1
        share = (moment - points[place]) / self.gaps[place]
        return self.left + self.starts[place] + (self.starts[place + 1] - self.starts[place]) * share

    def moment(self, x: float) -> datetime:
        """The time at an x, for the labels of the ticks."""
        offset = x - self.left
        place = max(bisect_right(self.starts, offset) - 1, 0)
        if place >= len(self.gaps):
            return self.points[-1]
        width = self.starts[place + 1] - self.starts[place]
        share = (offset - self.starts[place]) / width if width else 0.0
        return self.points[place] + self.gaps[place] * share


def drawn(
    states: list[dict], windows: list[dict], late: list[bool] | None = None, now: datetime | None = None
) -> Timeline:
    """The shapes of the timeline of these States (as history() gives them; late as late_flags() gives
    it) and relation windows (as lighthouse.relation_windows() gives them)."""
    late = late if late is not None else late_flags(states)
    now = now or datetime.now(UTC)
    starts = [s["valid_from"] for s in states] + [w["valid_from"] for w in windows if w["valid_from"]]
    closed = [s["valid_to"] for s in states if s.get("valid_to")] + [
        w["valid_to"] for w in windows if w["valid_to"]
    ]
    begin = min(starts, default=now - timedelta(days=1))
    last = max(starts + closed, default=now)
    plot = WIDTH - LEFT - RIGHT
    axis = Axis([begin, last, *starts, *closed], LEFT, plot)
    end = axis.end
    span = end - begin
    placed: dict[datetime, float] = {}  # a State's end is the next one's start: each x found once

    def x_of(moment: datetime) -> float:
        x = placed.get(moment)
        if x is None:
            x = placed[moment] = axis.x(moment)
        return x

    def bar(since: datetime, until: datetime | None, css: str, title: str, ident: str) -> Bar:
        x = x_of(since)
        return Bar(round(x, 2), round(max(x_of(until or end) - x, 1.0), 2), css, title, ident)

    lanes = [Lane("States", TOP)]
    for place, state in enumerate(states):
        trust = state.get("trust", "confirmed")
        css = ["state", f"trust-{trust}", "even" if place % 2 == 0 else "odd"]
        if late[place]:
            css.append("late")
        until = state.get("valid_to")
        title = f"State {place + 1}: from {_moment(state['valid_from'])}" + (
            f" to {_moment(until)}" if until else " (open)"
        )
        title += f", {trust}" + (", late" if late[place] else "") + f", by {state.get('by', '')}"
        lanes[0].bars.append(bar(state["valid_from"], until, " ".join(css), title, f"state-{place + 1}"))
    by_lane: dict[tuple[str, object], list[dict]] = {}
    for window in windows:
        by_lane.setdefault((window["relation"], window["target"]), []).append(window)
    drawn_lanes = list(by_lane.items())[:MOST_LANES]
    for number, ((relation, target), found) in enumerate(drawn_lanes):
        lane = Lane(f"{relation} → {target}", TOP + LANE * (number + 1))
        for window in found:
            if window["valid_from"] is None:
                continue
            until = window["valid_to"]
            title = f"{relation} {target}: from {_moment(window['valid_from'])}" + (
                f" to {_moment(until)}" if until else " (open)"
            )
            css = "window open" if until is None else "window"
            lane.bars.append(bar(window["valid_from"], until, css, title, ""))
        lanes.append(lane)
    axis_y = TOP + LANE * len(lanes) + 4
    ticks = []
    for step in range(6):
        x = LEFT + plot * step / 5
        anchor = "start" if step == 0 else "end" if step == 5 else "middle"
        ticks.append((round(x, 2), _label(axis.moment(x), span), anchor))
    breaks = [
        (round(LEFT + (low + high) / 2, 2), f"{_length(gap)} not drawn to scale")
        for low, high, gap in axis.breaks
    ]
    return Timeline(
        width=WIDTH,
        height=int(axis_y + AXIS),
        lanes=lanes,
        ticks=ticks,
        axis_y=axis_y,
        left=LEFT,
        not_drawn=len(by_lane) - len(drawn_lanes),
        breaks=breaks[:MOST_BREAKS],
    )
