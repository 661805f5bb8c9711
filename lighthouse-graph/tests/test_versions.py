"""recent_history(), relation_windows(), entity_diff(), version_diff(): an entity's versions and the
differences between two of them or two times."""

from __future__ import annotations

import pytest
from devices import DEVICE, KINDS, ROOM
from lighthouse import (
    Refused,
    WrongType,
    ensure_schema,
    entity_diff,
    history,
    recent_history,
    relation_windows,
    remember,
    version_diff,
)
from reviewed_devices import DAY, reviewed


def test_the_newest_states_and_the_count(graph):
    reviewed(graph)
    every = history(graph, DEVICE, "d1")
    assert recent_history(graph, DEVICE, "d1") == {"states": every, "total": 4}
    assert recent_history(graph, DEVICE, "d1", last=2) == {"states": every[2:], "total": 4}
    assert recent_history(graph, DEVICE, "nobody") == {"states": [], "total": 0}
    assert recent_history(graph, ROOM, "r1") == {"states": [], "total": 0}  # a target holds no State


def test_relation_windows(graph):
    reviewed(graph)
    windows = relation_windows(graph, DEVICE, "d1")
    assert [(w["relation"], w["target"], w["target_label"]) for w in windows] == [
        ("LOCATED_IN", "r1", "Room"),
        ("LOCATED_IN", "r2", "Room"),
    ]
    assert windows[0]["valid_to"] == windows[1]["valid_from"]
    # The candidates' rows named no relation: the first of them ended the window (rejecting it did not
    # bring the edge back).
    assert windows[1]["valid_to"].isoformat().startswith("2026-01-05")
    assert windows[0]["by"] == "inventory" and windows[0]["recorded_at"].tzinfo is not None
    assert relation_windows(graph, ROOM, "r1") == []  # a kind without relations
    assert len(relation_windows(graph, DEVICE, "d1", limit=1)) == 1


def test_the_difference_between_two_times_counts_no_rejected_state(graph):
    reviewed(graph)
    changed = entity_diff(graph, DEVICE, "d1", DAY.format(2), DAY.format(4))
    assert changed["values"] == {"added": {}, "changed": {"status": ["ok", "warm"]}, "removed": {}}
    assert changed["relations"] == {
        "added": [["LOCATED_IN", "Room", "r2"]],
        "removed": [["LOCATED_IN", "Room", "r1"]],
    }
    # Day 5's rejected State never counts: day 5 still shows warm, day 7 the candidate.
    assert entity_diff(graph, DEVICE, "d1", DAY.format(4), DAY.format(5))["values"]["changed"] == {}
    later = entity_diff(graph, DEVICE, "d1", DAY.format(4), DAY.format(7))
    assert later["values"]["changed"] == {"status": ["warm", "broken"]}
    # The candidates named no relation, so the first of them (rejected) ended r2's window; the candidate
    # of day 6 holds none either.
    assert later["relations"] == {"added": [], "removed": [["LOCATED_IN", "Room", "r2"]]}
    rejected_between = entity_diff(graph, DEVICE, "d1", DAY.format(3), "2026-01-05T12:00:00Z")
    assert rejected_between["relations"] == {
        "added": [],
        "removed": [],
    }  # the rejected State ended r2: not counted
    assert later["values"]["added"] == {"note": "dented"} and later["after"]["trust"] == "candidate"
    created = entity_diff(graph, DEVICE, "d2", "2025-12-01T00:00:00Z", DAY.format(3))
    assert created["before"] is None and created["values"]["added"] == {"status": "ok"}
    assert created["relations"]["added"] == [["LOCATED_IN", "Room", "r1"]]


def test_the_difference_between_two_versions_whatever_their_trust(graph):
    reviewed(graph)
    changed = version_diff(graph, DEVICE, "d1", DAY.format(5), DAY.format(6))
    assert changed["before"]["trust"] == "rejected"
    assert changed["values"] == {"added": {}, "changed": {"note": ["cracked", "dented"]}, "removed": {}}
    back = version_diff(graph, DEVICE, "d1", DAY.format(6), DAY.format(1))
    assert back["values"]["removed"] == {"note": "dented"} and back["values"]["changed"] == {
        "status": ["broken", "ok"]
    }
    assert back["relations"] == {"added": [["LOCATED_IN", "Room", "r1"]], "removed": []}
    with pytest.raises(Refused, match="no version beginning at 2026-01-02T00:00:00Z"):
        version_diff(graph, DEVICE, "d1", DAY.format(1), DAY.format(2))


def test_refusals(graph):
    ensure_schema(graph, KINDS)
    with pytest.raises(Refused):
        recent_history(graph, DEVICE, "d1", last=0)
    with pytest.raises(Refused):
        recent_history(graph, DEVICE, "d1", last=10_001)
    with pytest.raises(Refused):
        recent_history(graph, "Device", "d1")
    with pytest.raises(Refused):
        relation_windows(graph, DEVICE, "d1", limit=5_001)
    with pytest.raises(Refused, match="t1"):
        entity_diff(graph, DEVICE, "d1", "yesterday", DAY.format(1))
    with pytest.raises(WrongType):
        entity_diff(graph, DEVICE, "d1", DAY.format(1), 3.5)
    with pytest.raises(Refused):
        version_diff(graph, DEVICE, None, DAY.format(1), DAY.format(1))
    remember(graph, DEVICE, [{"key": "d1", "t": DAY.format(1), "values": {"status": "ok"}}], "x")
    same = version_diff(graph, DEVICE, "d1", DAY.format(1), DAY.format(1))
    assert same["values"] == {"added": {}, "changed": {}, "removed": {}}
