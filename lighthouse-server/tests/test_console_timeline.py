"""The console's timeline geometry (console/timeline.py): which States are late, and where bars go."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from lighthouse_server.console.timeline import LEFT, MOST_LANES, RIGHT, WIDTH, drawn, late_flags

DAY = timedelta(days=1)
T0 = datetime(2026, 1, 1, tzinfo=UTC)


def _state(day: int, recorded_day: int, until: int | None = None, trust: str | None = None) -> dict:
    state = {"valid_from": T0 + day * DAY, "recorded_at": T0 + recorded_day * DAY, "by": "x"}
    if until is not None:
        state["valid_to"] = T0 + until * DAY
    if trust:
        state["trust"] = trust
    return state


def test_a_state_recorded_after_a_later_starting_one_is_late():
    in_order = [_state(0, 0, 1), _state(1, 1, 2), _state(2, 2)]
    assert late_flags(in_order) == [False, False, False]
    placed_late = [_state(0, 0, 1), _state(1, 5, 2), _state(2, 2)]
    assert late_flags(placed_late) == [False, True, False]
    backfilled_at_once = [_state(0, 9, 1), _state(1, 9, 2), _state(2, 9)]
    assert late_flags(backfilled_at_once) == [False, False, False]
    assert late_flags([]) == []


def test_bars_follow_the_time_axis_and_marks():
    states = [_state(0, 0, 2), _state(2, 5, 4, trust="rejected"), _state(4, 4, trust="candidate")]
    windows = [
        {"relation": "IN", "target": "r1", "valid_from": T0, "valid_to": T0 + 2 * DAY},
        {"relation": "IN", "target": "r2", "valid_from": T0 + 2 * DAY, "valid_to": None},
    ]
    shown = drawn(states, windows, late_flags(states), now=T0 + 400 * DAY)
    first, second, third = shown.lanes[0].bars
    assert first.x == LEFT and abs((second.x - first.x) - first.width) < 0.01
    assert "trust-rejected" in second.css and "late" in second.css and "late" not in first.css
    assert "trust-candidate" in third.css and third.x + third.width <= WIDTH - RIGHT + 0.01
    assert [lane.name for lane in shown.lanes] == ["States", "IN → r1", "IN → r2"]
    assert shown.lanes[2].bars[0].css == "window open" and shown.lanes[1].bars[0].css == "window"
    assert shown.ticks[0][0] == LEFT and shown.ticks[-1][0] == WIDTH - RIGHT
    assert shown.ticks[-1][1] < "2026-02"  # a long quiet present does not stretch the axis


def test_lanes_past_the_most_are_counted_not_drawn():
    windows = [
        {"relation": "IN", "target": f"r{number}", "valid_from": T0, "valid_to": None}
        for number in range(MOST_LANES + 5)
    ]
    shown = drawn([], windows, now=T0 + DAY)
    assert len(shown.lanes) == MOST_LANES + 1 and shown.not_drawn == 5
    assert drawn([], [], now=T0).lanes[0].bars == []


def test_one_version_far_from_the_others_leaves_them_readable():
    near = [_state(day, day, day + 4) for day in range(0, 17, 4)]
    far = _state(400, 400)
    shown = drawn([*near, far], [], now=T0 + 401 * DAY)
    bars = shown.lanes[0].bars
    plot = WIDTH - LEFT - RIGHT
    # Linear, each of the five near versions would be 4 / 440 of the axis (7 px); cut short, the long
    # stretch leaves each of them a fifth of it or so.
    assert all(bar.width > plot / 15 for bar in bars[:5]), [bar.width for bar in bars]
    assert [bar.x for bar in bars] == sorted(bar.x for bar in bars)
    assert len(shown.breaks) == 1 and "380 days not drawn to scale" in shown.breaks[0][1]
    assert shown.ticks[0][1] == "2026-01-01" and shown.ticks[-1][1] >= "2027-02"
    even = drawn([_state(day, day, day + 1) for day in range(10)], [], now=T0 + 20 * DAY)
    assert even.breaks == []  # evenly spaced versions keep a plain linear axis
    widths = [bar.width for bar in even.lanes[0].bars[:-1]]
    assert max(widths) - min(widths) < 0.05
