"""overview(): counts a person reads first, each a whole number."""

from __future__ import annotations

import pytest
from devices import DEVICE, KINDS, MANUAL, ROOM
from lighthouse import Kind, Refused, WrongType, overview, remember
from reviewed_devices import reviewed


def test_the_counts_of_a_reviewed_graph(graph):
    reviewed(graph)
    refused = [{"key": "d9", "t": "not a time", "values": {}}] * 2
    remember(graph, DEVICE, refused[:1], "inventory")
    remember(graph, DEVICE, refused[1:], "inventory")
    seen = overview(graph, KINDS)
    assert seen["entities"] == {"Room": 2, "Team": 0, "Device": 2, "Person": 0, "Manual": 1}
    assert seen["embeddings_waiting"] == {"Manual": 1}  # only kinds with dimensions
    assert seen["notes"] == 2
    assert seen["candidates_waiting"] == 1  # the rejected one no longer waits
    (reason,) = seen["failures_by_reason"]
    assert reason["kept"] == 1 and reason["times"] == 2 and type(reason["times"]) is int
    assert reason["last_at"].tzinfo is not None


def test_an_empty_graph_and_no_kinds(graph):
    assert overview(graph, []) == {
        "entities": {},
        "embeddings_waiting": {},
        "notes": 0,
        "candidates_waiting": 0,
        "failures_by_reason": [],
    }
    assert overview(graph, [MANUAL, ROOM])["entities"] == {"Manual": 0, "Room": 0}


def test_refusals(graph):
    with pytest.raises(WrongType):
        overview(graph, "Device")
    with pytest.raises(WrongType):
        overview(graph, ["Device"])
    with pytest.raises(Refused):
        overview(graph, [Kind(f"K{n}") for n in range(201)])
