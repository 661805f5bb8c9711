"""An entity's timeline as shapes for an inline SVG: its States on one lane, each relation target's
validity windows on a lane of its own, along one time axis.

Only geometry is computed here; the template draws it, escaping every label. A State is late when it was
recorded after a State that begins later had been recorded already (the write rule placed it in the
past); a rejected State is drawn hatched, a candidate dashed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

WIDTH = 960
LEFT = 170  # room for the lanes' names
RIGHT = 16
LANE = 22
TOP = 8
AXIS = 28
MOST_LANES = 200  # relation lanes drawn; the rest are counted


@dataclass
class Bar:
    x: float
    width: float
    css: str
    title: str
    ident: str


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


def _moment(moment: datetime) -> str:
    """2026-01-31 12:00:00: isoformat() is C, a tenth of strftime()'s time (a bar's title has one or two)."""
    return moment.isoformat(" ", "seconds")[:19]


def _label(moment: datetime, span: timedelta) -> str:
    if span <= timedelta(days=2):
        return moment.strftime("%m-%d %H:%M")
    return moment.strftime("%Y-%m-%d")


def drawn(
    states: list[dict], windows: list[dict], late: list[bool] | None = None, now: datetime | None = None
) -> Timeline:
    """The shapes of the timeline of these States (as history() gives them; late as late_flags() gives
    it) and relation windows (as reads.windows() gives them)."""
    late = late if late is not None else late_flags(states)
    now = now or datetime.now(UTC)
    starts = [s["valid_from"] for s in states] + [w["valid_from"] for w in windows if w["valid_from"]]
    closed = [s["valid_to"] for s in states if s.get("valid_to")] + [
        w["valid_to"] for w in windows if w["valid_to"]
    ]
    begin = min(starts, default=now - timedelta(days=1))
    last = max(starts + closed, default=now)
    # The axis ends a little after the last change, so that a long quiet present does not squeeze the
    # history into a corner; open windows run to its end.
    end = last + max((last - begin) * 0.1, timedelta(hours=1))
    span = end - begin
    plot = WIDTH - LEFT - RIGHT

    def x_of(moment: datetime) -> float:
        return LEFT + plot * ((moment - begin) / span)

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
            lane.bars.append(bar(window["valid_from"], until, css, title, f"window-{relation}-{target}"))
        lanes.append(lane)
    axis_y = TOP + LANE * len(lanes) + 4
    ticks = []
    for step in range(6):
        moment = begin + span * (step / 5)
        anchor = "start" if step == 0 else "end" if step == 5 else "middle"
        ticks.append((round(x_of(moment), 2), _label(moment, span), anchor))
    return Timeline(
        width=WIDTH,
        height=int(axis_y + AXIS),
        lanes=lanes,
        ticks=ticks,
        axis_y=axis_y,
        left=LEFT,
        not_drawn=len(by_lane) - len(drawn_lanes),
    )
