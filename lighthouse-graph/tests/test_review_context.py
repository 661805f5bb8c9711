"""review_context(): a candidate beside the State it would replace, the difference, and the earlier
rejections it repeats with who rejected them and why."""

from __future__ import annotations

import pytest
from devices import DEVICE, KINDS
from lighthouse import Refused, WrongType, ensure_schema, remember, review_context
from reviewed_devices import DAY, reviewed


def test_a_candidate_beside_what_it_would_replace_and_the_rejection_it_repeats(graph):
    reviewed(graph)
    seen = review_context(graph, DEVICE, "d1", DAY.format(6))
    assert seen["state"]["trust"] == "candidate" and seen["state"]["note"] == "dented"
    # Not the rejected State of day 5: the one that counts before the candidate.
    assert seen["replaces"]["status"] == "warm" and "trust" not in seen["replaces"]
    assert seen["changes"]["values"] == {
        "added": {"note": "dented"},
        "changed": {"status": ["warm", "broken"]},
        "removed": {},
    }
    assert seen["changes"]["relations"] == {"added": [], "removed": [["LOCATED_IN", "Room", "r2"]]}
    (repeat,) = seen["repeats"]
    assert repeat["names"] == ["status"]  # the note differs: only the status says again what was rejected
    assert (
        repeat["state"]["review"]["by"] == "reviewer"
        and repeat["state"]["review"]["why"] == "the pump was fine"
    )
    first = review_context(graph, DEVICE, "d1", DAY.format(5))
    assert first["repeats"] == []  # a rejected State does not repeat itself; the later one is a candidate


def test_a_candidate_that_creates_its_entity(graph):
    ensure_schema(graph, KINDS)
    remember(
        graph, DEVICE, [{"key": "new", "t": DAY.format(1), "values": {"status": "ok"}}], "m", candidate=True
    )
    seen = review_context(graph, DEVICE, "new", DAY.format(1))
    assert seen["replaces"] is None and seen["changes"]["values"]["added"] == {"status": "ok"}
    assert seen["repeats"] == []


def test_refusals(graph):
    reviewed(graph)
    with pytest.raises(Refused, match="no version beginning"):
        review_context(graph, DEVICE, "d1", DAY.format(2))
    with pytest.raises(Refused):
        review_context(graph, DEVICE, "d1", "soon")
    with pytest.raises(WrongType):
        review_context(graph, DEVICE, "d1", 3.5)
    with pytest.raises(Refused):
        review_context(graph, "Device", "d1", DAY.format(6))
