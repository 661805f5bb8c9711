"""neighbourhood(): the graph around an entity as it was at a time, one or two steps out."""

from __future__ import annotations

import pytest
from devices import DEVICE, KINDS, ROOM, TEAM
from lighthouse import Refused, WrongType, neighbourhood, remember
from reviewed_devices import DAY, reviewed


def _refs(found: dict) -> set:
    return {(node["kind"], node["key"], node["depth"]) for node in found["nodes"]}


def test_the_neighbourhood_differs_as_the_data_did(graph):
    reviewed(graph)
    at_2 = neighbourhood(graph, KINDS, DEVICE, "d1", DAY.format(2))
    assert _refs(at_2) == {("Device", "d1", 0), ("Room", "r1", 1)}
    assert at_2["edges"] == [{"from": ["Device", "d1"], "relation": "LOCATED_IN", "to": ["Room", "r1"]}]
    assert at_2["at"].isoformat().startswith("2026-01-02") and at_2["truncated"] is False
    at_4 = neighbourhood(graph, KINDS, DEVICE, "d1", DAY.format(4))
    assert _refs(at_4) == {("Device", "d1", 0), ("Room", "r2", 1)}
    # Two steps: d1 -> r1 <- d2, the edge pointing at r1 followed backwards.
    two = neighbourhood(graph, KINDS, DEVICE, "d1", DAY.format(2), steps=2)
    assert _refs(two) == {("Device", "d1", 0), ("Room", "r1", 1), ("Device", "d2", 2)}
    assert {"from": ["Device", "d2"], "relation": "LOCATED_IN", "to": ["Room", "r1"]} in two["edges"]
    # What points at a room, from the room.
    room = neighbourhood(graph, KINDS, ROOM, "r1", DAY.format(2))
    assert _refs(room) == {("Room", "r1", 0), ("Device", "d1", 1), ("Device", "d2", 1)}
    assert neighbourhood(graph, KINDS, ROOM, "r1", "2025-06-01T00:00:00Z")["edges"] == []
    now = neighbourhood(graph, KINDS, ROOM, "r1")  # now: d1 left on day 3, d2 is still there
    assert _refs(now) == {("Room", "r1", 0), ("Device", "d2", 1)}


def test_the_limit_leaves_nodes_out_and_says_so(graph):
    rows = [
        {"key": f"d{n}", "t": DAY.format(1), "values": {}, "relations": {"USED_BY": "t1"}} for n in range(5)
    ]
    reviewed(graph)
    remember(graph, DEVICE, rows, "inventory")
    found = neighbourhood(graph, KINDS, TEAM, "t1", limit=3)
    assert len(found["nodes"]) == 3 and found["truncated"] is True
    assert len(found["edges"]) == 2  # only edges between nodes it kept


@pytest.mark.parametrize(
    "arguments, error",
    [
        ({"steps": 0}, Refused),
        ({"steps": 3}, Refused),
        ({"limit": 0}, Refused),
        ({"limit": 501}, Refused),
        ({"when": "not a time"}, Refused),
        ({"when": 3.5}, WrongType),
    ],
)
def test_refusals(graph, arguments, error):
    with pytest.raises(error):
        neighbourhood(graph, KINDS, DEVICE, "d1", **arguments)
    with pytest.raises(WrongType):
        neighbourhood(graph, "Device", DEVICE, "d1")
    with pytest.raises(Refused):
        neighbourhood(graph, KINDS, "Device", "d1")
