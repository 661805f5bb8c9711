"""Handoffs: they point at what exists, are never replaced, and only their receiver accepts them, once."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from graph_contents import assert_one_refusal, snapshot
from hostile import HOSTILE_NAMES, hostile_things, sort_of
from lighthouse import Kind, remember
from lighthouse.episodes import close_episode, open_episode, record
from lighthouse.errors import WrongType
from lighthouse.graphs import read
from lighthouse.handoffs import _FOR, accept, hand_off, handoffs_for
from lighthouse.values import MAX_ROW, Refused
from lighthouse.write.failures import failures
from query_plans import scans
from racing import at_once
from redis.exceptions import ResponseError
from test_episodes import CountingGraph, FailingOnce, schema_ready

SHED = Kind("Shed", key="code")
BOILER = Kind("Boiler", key="serial", relations={"IN": SHED})
POINTS = [("Episode", "b1-hot"), (BOILER, "b1")]


@pytest.fixture
def boilers(graph):
    """Boilers b1 and 42, an episode about b1 with one entry, ended."""
    schema_ready(graph, [BOILER])
    rows = [
        {"key": "b1", "t": "2026-01-01T00:00:00Z", "values": {"status": "hot"}, "relations": {"IN": "s1"}},
        {"key": 42, "t": "2026-01-01T00:00:00Z", "values": {"status": "ok"}},
    ]
    remember(graph, BOILER, rows, "inventory")
    open_episode(graph, "b1-hot", "watcher", [(BOILER, "b1")])
    record(graph, "b1-hot", "observation", "watcher", {"status": "hot"}, [(BOILER, "b1")])
    close_episode(graph, "b1-hot", "reviewer", {"failed": False}, ["b1-hot/1"])
    return graph


# hand_off()


def test_the_seed_example(boilers):
    assert hand_off(boilers, "h1", "reviewer", "planner", POINTS) == {"id": "h1", "status": "given"}
    assert handoffs_for(boilers, "planner")[0]["points_to"] == [("Boiler", "b1"), ("Episode", "b1-hot")]
    assert accept(boilers, "h1", "planner") == {"id": "h1", "status": "accepted"}


def test_a_handoff_reads_back_its_fields_and_values_at_the_top_level(boilers):
    values = {"note": "check the fan", "urgency": 2, "ratio": 0.5, "tags": ["fan"], "gone": None}
    points = ["b1-hot/2", (BOILER, 42), ("Episode", "b1-hot")]
    hand_off(boilers, "h1", "reviewer", "planner", points, values, "2026-01-05T00:00:00Z")
    [found] = handoffs_for(boilers, "planner")
    assert found == {
        "id": "h1",
        "by": "reviewer",
        "to": "planner",
        "at": datetime(2026, 1, 5, tzinfo=UTC),
        "recorded_at": found["recorded_at"],
        "note": "check the fan",
        "urgency": 2,
        "ratio": 0.5,
        "tags": ["fan"],
        "points_to": [("Boiler", 42), ("Entry", "b1-hot/2"), ("Episode", "b1-hot")],
    }
    assert found["recorded_at"].tzinfo is UTC and "accepted_at" not in found
    edges = read(
        boilers, "MATCH (:Agent {name: 'reviewer'})-[:GAVE]->(h:Handoff)-[:TO]->(a:Agent) RETURN a.name"
    )
    assert edges == [["planner"]]


def test_every_value_name_the_api_allows_is_stored_and_read_back(boilers):
    values = {name: name for name in ("content", "note", "key", "v_note", "valid_from", "accepted")}
    assert hand_off(boilers, "h1", "reviewer", "planner", POINTS, values)["status"] == "given"
    found = handoffs_for(boilers, "planner")[0]
    assert {name: found[name] for name in values} == values


def test_a_handoff_given_again_exists_and_changes_nothing(boilers):
    hand_off(boilers, "h1", "reviewer", "planner", POINTS)
    before = snapshot(boilers)
    again = hand_off(boilers, "h1", "someone", "another", [(BOILER, 42)], {"note": "other"})
    assert again == {"id": "h1", "status": "exists"}
    assert snapshot(boilers) == before and failures(boilers) == []


def test_an_agent_hands_work_to_itself_and_accepts_it(boilers):
    # API 2.6: to == by is in no refusal's list; the same handoff given again then exists.
    assert hand_off(boilers, "h1", "reviewer", "reviewer", POINTS) == {"id": "h1", "status": "given"}
    before = snapshot(boilers)
    assert hand_off(boilers, "h1", "reviewer", "reviewer", POINTS) == {"id": "h1", "status": "exists"}
    assert snapshot(boilers) == before and failures(boilers) == []
    [found] = handoffs_for(boilers, "reviewer")
    assert (found["by"], found["to"]) == ("reviewer", "reviewer")
    assert found["points_to"] == [("Boiler", "b1"), ("Episode", "b1-hot")]
    assert accept(boilers, "h1", "reviewer") == {"id": "h1", "status": "accepted"}
    assert handoffs_for(boilers, "reviewer") == []


def test_a_handoff_that_points_at_what_does_not_exist_is_missing(boilers):
    before = snapshot(boilers)
    for points in ([(BOILER, "b1"), (BOILER, "nope")], ["b1-hot/9"], [("Lesson", "none")]):
        receipt = hand_off(boilers, "h1", "reviewer", "planner", points)
        assert receipt == {"id": None, "status": "missing", "reason": "something it points at does not exist"}
    assert snapshot(boilers) == before
    assert [one["times"] for one in failures(boilers)] == [1, 1, 1]


@pytest.mark.parametrize("reserved", ["id", "by", "to", "at", "recorded_at", "accepted_at", "points_to"])
def test_values_with_a_name_of_the_handoff_are_invalid(boilers, reserved):
    before = snapshot(boilers)
    receipt = hand_off(boilers, "h1", "reviewer", "planner", POINTS, {reserved: 1})
    assert_one_refusal(boilers, before, receipt, kind="Handoff")


@pytest.mark.parametrize(
    "to, points, values, at",
    [
        ("planner", [], None, None),
        ("planner", None, None, None),
        ("planner", "b1-hot/1", None, None),
        ("planner", [(BOILER, 1.5)], None, None),
        ("planner", POINTS, "note", None),
        ("planner", POINTS, {"note": "x" * (MAX_ROW + 1)}, None),
        ("planner", POINTS, {"bad name": 1}, None),
        ("planner", POINTS, None, "yesterday"),
        ("planner", POINTS, None, datetime.now(UTC) + timedelta(hours=1)),
    ],
)
def test_a_handoff_with_bad_content_is_invalid(boilers, to, points, values, at):
    before = snapshot(boilers)
    receipt = hand_off(boilers, "h1", "reviewer", to, points, values, at)
    assert receipt["id"] is None
    assert_one_refusal(boilers, before, receipt, kind="Handoff")


@pytest.mark.parametrize("bad", ["", " x", None, 7, "x" * 201, *HOSTILE_NAMES], ids=sort_of)
def test_bad_names_raise_and_keep_nothing(boilers, bad):
    hand_off(boilers, "h1", "reviewer", "planner", POINTS)
    before = snapshot(boilers)
    for args in ((bad, "reviewer", "planner"), ("h2", bad, "planner"), ("h2", "reviewer", bad)):
        with pytest.raises(Refused, match="must be text"):
            hand_off(boilers, *args, POINTS)
    for args in ((bad, "planner"), ("h1", bad)):
        with pytest.raises(Refused, match="must be text"):
            accept(boilers, *args)
    with pytest.raises(Refused, match="must be text"):
        handoffs_for(boilers, bad)
    assert snapshot(boilers) == before and failures(boilers) == []


@pytest.mark.parametrize("thing", hostile_things(), ids=sort_of)
def test_a_hostile_object_as_content_costs_one_refusal(boilers, thing):
    for points, values, at in (([*POINTS, thing], None, None), (thing, None, None), (POINTS, thing, None),
                               (POINTS, {"note": thing}, None), (POINTS, None, thing)):  # fmt: skip
        boilers.query("MATCH (f:WriteFailure) DELETE f")
        before = snapshot(boilers)
        receipt = hand_off(boilers, "h1", "reviewer", "planner", points, values, at)
        assert_one_refusal(boilers, before, receipt, kind="Handoff")


def test_hand_off_is_one_query_and_a_server_error_is_failed(boilers):
    counted = CountingGraph(boilers)
    assert (
        hand_off(counted, "h1", "reviewer", "planner", [*POINTS, "b1-hot/1"], {"n": 1})["status"] == "given"
    )
    assert len(counted.sent) == 1
    # A refusal is one query too, which says why it wrote nothing; a missing one is kept as well.
    counted.sent.clear()
    assert hand_off(counted, "h1", "reviewer", "planner", POINTS)["status"] == "exists"
    assert len(counted.sent) == 1
    counted.sent.clear()
    assert hand_off(counted, "h9", "reviewer", "planner", [*POINTS, "b1-hot/9"])["status"] == "missing"
    assert len(counted.sent) == 2 and "WriteFailure" in counted.sent[1]
    assert [one["reason"] for one in failures(boilers)] == ["missing"]
    boilers.query("MATCH (f:WriteFailure) DELETE f")
    receipt = hand_off(FailingOnce(boilers), "h2", "reviewer", "planner", POINTS)
    assert receipt == {"id": None, "status": "failed", "reason": "the server refused the query"}
    assert [one["reason"] for one in failures(boilers)] == ["failed"]
    assert read(boilers, "MATCH (h:Handoff) RETURN h.id") == [["h1"]]


# accept()


def test_only_the_receiver_accepts_once(boilers):
    hand_off(boilers, "h1", "reviewer", "planner", POINTS)
    before = snapshot(boilers)
    for stranger in ("reviewer", "someone"):  # the giver included
        receipt = accept(boilers, "h1", stranger)
        assert receipt == {
            "id": None,
            "status": "refused",
            "reason": "only the receiver of a handoff can accept it",
        }
    assert snapshot(boilers) == before
    assert accept(boilers, "h1", "planner") == {"id": "h1", "status": "accepted"}
    first = handoffs_for(boilers, "planner", waiting_only=False)[0]["accepted_at"]
    assert accept(boilers, "h1", "planner") == {"id": "h1", "status": "exists"}
    assert handoffs_for(boilers, "planner", False)[0]["accepted_at"] == first
    assert accept(boilers, "nothing", "planner") == {
        "id": None,
        "status": "unknown",
        "reason": "the handoff does not exist",
    }
    assert sorted((one["reason"], one["times"]) for one in failures(boilers)) == [
        ("refused", 2),
        ("unknown", 1),
    ]


def test_accept_is_one_query_and_a_server_error_propagates(boilers):
    hand_off(boilers, "h1", "reviewer", "planner", POINTS)
    counted = CountingGraph(boilers)
    assert accept(counted, "h1", "planner")["status"] == "accepted"
    assert len(counted.sent) == 1
    hand_off(boilers, "h2", "reviewer", "planner", POINTS)
    with pytest.raises(ResponseError):
        accept(FailingOnce(boilers), "h2", "planner")
    assert [one["id"] for one in handoffs_for(boilers, "planner")] == ["h2"]


def test_eight_agents_accept_at_once_and_one_is_first(boilers, db):
    hand_off(boilers, "h1", "reviewer", "planner", POINTS)
    receipts = at_once(db, boilers, lambda number, own: accept(own, "h1", "planner"))
    assert sorted(receipt["status"] for receipt in receipts) == ["accepted"] + ["exists"] * 7


# handoffs_for()


def test_handoffs_for_oldest_first_and_waiting_only_by_default(boilers):
    for handoff, at in (
        ("h3", "2026-01-02T00:00:00Z"),
        ("h2", "2026-01-01T00:00:00Z"),
        ("h1", "2026-01-02T00:00:00Z"),
    ):
        hand_off(boilers, handoff, "reviewer", "planner", POINTS, at=at)
    hand_off(boilers, "other", "reviewer", "fixer", POINTS)
    assert [one["id"] for one in handoffs_for(boilers, "planner")] == ["h2", "h1", "h3"]
    accept(boilers, "h1", "planner")
    assert [one["id"] for one in handoffs_for(boilers, "planner")] == ["h2", "h3"]
    everything = handoffs_for(boilers, "planner", waiting_only=False)
    assert [one["id"] for one in everything] == ["h2", "h1", "h3"] and "accepted_at" in everything[1]
    assert [one["id"] for one in handoffs_for(boilers, "planner", False, limit=1)] == ["h2"]
    assert handoffs_for(boilers, "nobody") == []
    with pytest.raises(WrongType):
        handoffs_for(boilers, "planner", waiting_only=None)


def test_handoffs_for_starts_from_the_agent(boilers):
    # With the filter on h in the MATCH that found the agent, FalkorDB 4.22 read every Handoff.
    hand_off(boilers, "h1", "reviewer", "planner", POINTS)
    hand_off(boilers, "h2", "reviewer", "fixer", POINTS)
    plan = boilers.explain(_FOR.format(limit=""), {"agent": "planner", "waiting": True})
    assert scans(plan) == ["Node By Index Scan | (taker:Agent)"]
    assert [one["id"] for one in handoffs_for(boilers, "planner")] == ["h1"]
