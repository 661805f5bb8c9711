"""Trust: what a model drew is a candidate until a person confirms or rejects it; nothing is deleted."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from graph_contents import snapshot
from lighthouse import (
    Kind,
    Refused,
    WrongType,
    as_of,
    candidates,
    confirm,
    ensure_schema,
    history,
    reject,
    remember,
    search_history,
)
from lighthouse.write.failures import failures
from test_episodes import CountingGraph

DEVICE = Kind("Device", "serial", text=("place",))
ROOM = Kind("Room", "code")
DAY1, DAY2, DAY3 = "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z"


@pytest.fixture
def drawn(graph):
    """d1: a structured State from day 1, and a candidate drawn by a model from day 2."""
    ensure_schema(graph, [DEVICE, ROOM])
    remember(graph, DEVICE, [{"key": "d1", "t": DAY1, "values": {"place": "berlin"}}], "inventory")
    receipt = remember(
        graph, DEVICE, [{"key": "d1", "t": DAY2, "values": {"place": "paris"}}], "model:m1", candidate=True
    )
    assert receipt == [{"key": "d1", "status": "changed"}]
    return graph


def test_structured_rows_carry_no_mark_and_drawn_ones_are_candidates(drawn):
    first, second = history(drawn, DEVICE, "d1")
    assert "trust" not in first and "review" not in first  # the published shape, unchanged
    assert second["trust"] == "candidate" and second["by"] == "model:m1" and "review" not in second
    assert as_of(drawn, DEVICE, "d1", DAY2)["trust"] == "candidate"
    assert search_history(drawn, DEVICE, "paris")[0]["state"]["trust"] == "candidate"


def test_candidates_are_listed_oldest_first_until_reviewed(drawn):
    remember(
        drawn, DEVICE, [{"key": "d2", "t": DAY1, "values": {"place": "rome"}}], "model:m1", candidate=True
    )
    listed = candidates(drawn, [DEVICE, ROOM])
    assert [(one["kind"], one["key"], one["state"]["place"]) for one in listed] == [
        ("Device", "d1", "paris"),
        ("Device", "d2", "rome"),
    ]
    confirm(drawn, DEVICE, "d1", DAY2, "alice")
    assert [one["key"] for one in candidates(drawn, [DEVICE])] == ["d2"]
    assert candidates(drawn, [ROOM]) == [] and candidates(drawn, []) == []
    assert len(candidates(drawn, [DEVICE], limit=1)) == 1


def test_candidates_are_filtered_by_writer_and_time_window(drawn):
    remember(
        drawn, DEVICE, [{"key": "d2", "t": DAY3, "values": {"place": "rome"}}], "model:m2", candidate=True
    )

    def keys(**chosen) -> list:
        return [one["key"] for one in candidates(drawn, [DEVICE], **chosen)]

    assert keys(by="model:m1") == ["d1"] and keys(by="model:m2") == ["d2"] and keys(by="inventory") == []
    assert keys(since=DAY3) == ["d2"] and keys(until=DAY3) == ["d1"]  # the window's end is left out
    assert keys(since=DAY1, until=DAY3, by="model:m1") == ["d1"]
    for wrong in ({"by": ""}, {"by": 3}, {"since": "soon"}, {"until": []}):
        with pytest.raises((Refused, WrongType)):
            candidates(drawn, [DEVICE], **wrong)


def test_reject_marks_who_when_and_why_and_deletes_nothing(drawn):
    before = snapshot(drawn, without="lh.")
    receipt = reject(drawn, DEVICE, "d1", DAY2, "alice", "the pump never left berlin")
    assert receipt == {"key": "d1", "valid_from": datetime(2026, 1, 2, tzinfo=UTC), "status": "rejected"}
    first, second = history(drawn, DEVICE, "d1")
    assert second["trust"] == "rejected" and second["place"] == "paris"
    review = second["review"]
    assert review["by"] == "alice" and review["why"] == "the pump never left berlin"
    assert review["trust"] == "rejected" and (datetime.now(UTC) - review["at"]).total_seconds() < 60
    assert "trust" not in first and snapshot(drawn, without="lh.") == before


def test_confirm_then_reject_keeps_the_last_word(drawn):
    assert confirm(drawn, DEVICE, "d1", DAY2, "alice", "seen on site")["status"] == "confirmed"
    assert history(drawn, DEVICE, "d1")[1]["review"]["why"] == "seen on site"
    assert reject(drawn, DEVICE, "d1", DAY2, "bob", "the site was wrong")["status"] == "rejected"
    assert history(drawn, DEVICE, "d1")[1]["review"]["by"] == "bob"


def test_a_structured_state_can_be_reviewed_too(drawn):
    assert confirm(drawn, DEVICE, "d1", DAY1, "alice")["status"] == "confirmed"
    first = history(drawn, DEVICE, "d1")[0]
    assert first["trust"] == "confirmed" and first["review"]["why"] is None


def test_a_review_is_one_query(drawn):
    counted = CountingGraph(drawn)
    confirm(counted, DEVICE, "d1", DAY2, "alice")
    assert len(counted.sent) == 1


def test_a_state_that_does_not_exist_is_unknown_and_kept(drawn):
    receipt = confirm(drawn, DEVICE, "d1", DAY3, "alice")
    assert receipt["status"] == "unknown" and "2026-01-03T00:00:00" in receipt["reason"]
    assert reject(drawn, DEVICE, "nobody", DAY1, "alice", "no")["status"] == "unknown"
    assert [one["reason"] for one in failures(drawn)] == ["unknown", "unknown"]


def test_a_state_whose_values_use_the_marks_names_is_not_reviewed(drawn):
    remember(
        drawn, DEVICE, [{"key": "d3", "t": DAY1, "values": {"place": "x", "trust": "high"}}], "inventory"
    )
    receipt = confirm(drawn, DEVICE, "d3", DAY1, "alice")
    assert receipt["status"] == "invalid" and "trust or review" in receipt["reason"]
    assert history(drawn, DEVICE, "d3")[0]["trust"] == "high"  # the value, never overwritten by a mark


def test_a_drawn_row_may_not_use_the_marks_names(drawn):
    receipts = remember(
        drawn,
        DEVICE,
        [{"key": "d4", "t": DAY1, "values": {"review": "5 stars"}}, {"key": "d5", "t": DAY1, "values": {}}],
        "model:m1",
        candidate=True,
    )
    assert [one["status"] for one in receipts] == ["invalid", "created"]
    assert "trust or review" in receipts[0]["reason"] and history(drawn, DEVICE, "d4") == []


def test_a_replay_of_a_drawn_row_stays_what_it_was(drawn):
    again = remember(
        drawn, DEVICE, [{"key": "d1", "t": DAY2, "values": {"place": "paris"}}], "model:m1", candidate=True
    )
    assert again == [{"key": "d1", "status": "unchanged"}]
    assert [one.get("trust") for one in history(drawn, DEVICE, "d1")] == [None, "candidate"]


def test_arguments_raise_before_anything_is_written(drawn):
    before = snapshot(drawn)
    with pytest.raises(Refused, match="reason"):
        reject(drawn, DEVICE, "d1", DAY2, "alice", "  ")
    with pytest.raises(WrongType):
        confirm(drawn, DEVICE, "d1", DAY2, "alice", why=5)
    with pytest.raises(Refused, match="2,000"):
        reject(drawn, DEVICE, "d1", DAY2, "alice", "x" * 2_001)
    with pytest.raises(Refused):
        confirm(drawn, DEVICE, "d1", DAY2, "")
    with pytest.raises(Refused):
        confirm(drawn, DEVICE, "d1", "not a time", "alice")
    with pytest.raises(WrongType):
        confirm(drawn, DEVICE, "d1", 3.5, "alice")
    with pytest.raises(Refused):
        confirm(drawn, "Device", "d1", DAY2, "alice")
    with pytest.raises(Refused):
        confirm(drawn, DEVICE, "", DAY2, "alice")
    with pytest.raises(WrongType):
        candidates(drawn, DEVICE)
    with pytest.raises(Refused):
        candidates(drawn, [DEVICE], limit=0)
    with pytest.raises(WrongType):
        remember(drawn, DEVICE, [], "model:m1", candidate="yes")
    assert snapshot(drawn) == before and failures(drawn) == []


def test_as_of_may_leave_out_what_a_person_rejected(drawn):
    reject(drawn, DEVICE, "d1", DAY2, "alice", "never moved")
    stored = as_of(drawn, DEVICE, "d1", DAY3)
    assert stored["place"] == "paris" and stored["trust"] == "rejected"  # the published read: as stored
    counted = as_of(drawn, DEVICE, "d1", DAY3, rejected=False)
    assert counted["place"] == "berlin" and "trust" not in counted  # the State before it holds on
    assert as_of(drawn, DEVICE, "d1", DAY1, rejected=False)["place"] == "berlin"
    assert as_of(drawn, DEVICE, "d1", "2025-12-31T00:00:00Z", rejected=False) is None
    confirm(drawn, DEVICE, "d1", DAY2, "bob", "it did move after all")
    assert as_of(drawn, DEVICE, "d1", DAY3, rejected=False)["place"] == "paris"
    with pytest.raises(WrongType):
        as_of(drawn, DEVICE, "d1", DAY3, rejected="no")
