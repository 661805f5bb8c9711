"""console/entity_markup.py: the entity page's long parts written in Python escape every text from the
graph, as the templates' autoescape would, and keep the markup the page and its script rely on."""

from __future__ import annotations

import html
from datetime import UTC, datetime

from lighthouse_server.console import entity_markup, timeline

HOSTILE = "<script>x()</script>\"'&"
T1, T2 = datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 1, 5, tzinfo=UTC)


def _row(**state) -> dict:
    return {
        "state": {"valid_from": T1, "valid_to": T2, "recorded_at": T2, "by": HOSTILE, **state},
        "values": {HOSTILE: HOSTILE, "plain": 5.0},
        "late": True,
        "cited_by": [{"id": HOSTILE}],
        "evidence": {
            "id": HOSTILE,
            "type": HOSTILE,
            "episode": HOSTILE,
            "text": HOSTILE,
            "invalidated_at": T2,
            "invalidated_by": HOSTILE,
            "invalidated_why": HOSTILE,
        },
        "compare": f"/console/diff?kind=Device&key={HOSTILE}",
    }


def test_every_text_of_the_rows_and_bars_is_escaped():
    review = {"trust": "rejected", "by": HOSTILE, "at": T2, "why": HOSTILE}
    rows = str(entity_markup.state_rows([_row(trust="rejected", review=review), _row(trust=HOSTILE)]))
    window = {
        "relation": HOSTILE,
        "target": HOSTILE,
        "target_label": "Room",
        "valid_from": T1,
        "valid_to": None,
        "by": HOSTILE,
        "recorded_at": None,
    }
    windows = str(entity_markup.window_rows([window]))
    drawn = timeline.drawn([_row()["state"]], [window], [True], T2)
    bars = "".join(str(entity_markup.lane_bars(lane)) for lane in drawn.lanes)
    for written in (rows, windows, bars):
        assert "<script" not in written and "x()</script>" not in written
        assert html.escape(HOSTILE) in written
    assert rows.count('class="state-row trust-rejected late" id="state-1"') == 1
    assert 'class="state-row trust-confirmed late" id="state-2"' in rows  # a trust of no known kind
    assert '<td class="when">2026-01-01 00:00:00Z → 2026-01-05 00:00:00Z</td>' in rows
    assert '<b>plain</b> <span class="value">5</span>' in rows  # a whole float as a whole number
    assert 'class="compare">Δ</a>' in rows and "late-badge" in rows and 'class="review-record"' in rows
    assert '<td class="when">2026-01-01 00:00:00Z → open</td>' in windows
    assert '<span class="none">—</span>' in windows  # no recorded time: a dash
    assert 'data-id="state-1"' in bars and 'class="late-mark"' in bars and 'class="window open"' in bars
