"""entities_now(), kinds_holding(), recent_episodes(), conversation_users(): pages of lists, with what
holds now by the rule of the reads (a rejected State never holds; a candidate holds, marked)."""

from __future__ import annotations

import pytest
from devices import DEVICE, KINDS, ROOM, TEAM
from lighthouse import (
    Refused,
    WrongType,
    close_episode,
    conversation_users,
    ensure_schema,
    entities_now,
    kinds_holding,
    open_episode,
    recent_episodes,
    recent_notes,
    record,
    reject,
    remember,
    say,
)
from reviewed_devices import DAY, reviewed


def test_what_holds_now_leaves_a_rejected_state_out_and_marks_a_candidate(graph):
    reviewed(graph)
    listed = entities_now(graph, DEVICE)
    assert [one["key"] for one in listed] == ["d1", "d2"]
    d1 = listed[0]["state"]
    assert d1["status"] == "broken" and d1["note"] == "dented" and d1["trust"] == "candidate"
    assert "trust" not in listed[1]["state"] and listed[1]["state"]["status"] == "ok"
    reject(graph, DEVICE, "d1", DAY.format(6), "reviewer", "not again")
    now = entities_now(graph, DEVICE)[0]["state"]
    assert now["status"] == "warm" and "trust" not in now  # the State before both rejected ones holds on
    at_day_4 = entities_now(graph, DEVICE, at=DAY.format(4))[0]["state"]
    assert at_day_4["status"] == "warm"
    assert entities_now(graph, DEVICE, at=DAY.format(2))[0]["state"]["status"] == "ok"
    assert entities_now(graph, ROOM)[0] == {"key": "r1", "state": None}  # a target only: no State


def test_only_the_entities_whose_state_that_holds_is_a_candidate(graph):
    reviewed(graph)
    remember(
        graph, DEVICE, [{"key": "d0", "t": DAY.format(1), "values": {"status": "new"}}], "m", candidate=True
    )
    assert [one["key"] for one in entities_now(graph, DEVICE, trust="candidate")] == ["d0", "d1"]
    assert [one["key"] for one in entities_now(graph, DEVICE, 1, 1, trust="candidate")] == ["d1"]
    assert [one["key"] for one in entities_now(graph, DEVICE, trust="candidate", at=DAY.format(4))] == ["d0"]
    reject(graph, DEVICE, "d1", DAY.format(6), "reviewer", "no")
    assert [one["key"] for one in entities_now(graph, DEVICE, trust="candidate")] == ["d0"]
    with pytest.raises(Refused):
        entities_now(graph, DEVICE, trust="rejected")


def test_filters_of_the_state_that_holds_trust_writer_and_time_window(graph):
    reviewed(graph)  # now d1: a candidate by model:m1 from day 6; d2: ok by inventory from day 2
    remember(graph, DEVICE, [{"key": "d3", "t": DAY.format(4), "values": {"status": "ok"}}], "inventory")

    def keys(**chosen) -> list:
        return [one["key"] for one in entities_now(graph, DEVICE, **chosen)]

    assert keys(trust="confirmed") == ["d2", "d3"]
    assert keys(trust="candidate") == ["d1"]
    assert keys(by="inventory") == ["d2", "d3"] and keys(by="model:m1") == ["d1"] and keys(by="x") == []
    assert keys(since=DAY.format(3)) == ["d1", "d3"]
    assert keys(until=DAY.format(4)) == ["d2"]  # the window's end is left out
    assert keys(since=DAY.format(2), until=DAY.format(5), by="inventory") == ["d2", "d3"]
    assert keys(trust="candidate", by="inventory") == [] and keys(trust="candidate", since=DAY.format(6)) == [
        "d1"
    ]
    # At a time, the State that held then is the one filtered: d1 was warm from day 3, by inventory.
    assert keys(by="inventory", at=DAY.format(4)) == ["d1", "d2", "d3"]
    assert [one["key"] for one in entities_now(graph, DEVICE, 1, 1, trust="confirmed")] == ["d3"]
    assert entities_now(graph, ROOM, by="inventory") == []  # no State holds for a target: it fits no filter
    for wrong in ({"by": ""}, {"by": 7}, {"since": "soon"}, {"until": 3}, {"trust": "rejected"}):
        with pytest.raises((Refused, WrongType)):
            entities_now(graph, DEVICE, **wrong)


def test_pages_by_offset_give_one_more_when_more_follow(graph):
    reviewed(graph)
    assert [one["key"] for one in entities_now(graph, DEVICE, 0, 1)] == ["d1", "d2"]
    assert [one["key"] for one in entities_now(graph, DEVICE, 1, 1)] == ["d2"]
    assert entities_now(graph, DEVICE, 2, 1) == []
    assert entities_now(graph, TEAM) == []


def test_kinds_holding_a_key(graph):
    reviewed(graph)
    assert kinds_holding(graph, KINDS, "d1") == ["Device"]
    assert kinds_holding(graph, KINDS, "r2") == ["Room"]
    assert kinds_holding(graph, KINDS, "nowhere") == []
    assert kinds_holding(graph, [], "d1") == []


def test_episodes_newest_first_and_users(graph):
    first, second = "ep-1", "ep-2"
    open_episode(graph, first, "planner", at="2026-01-01T00:00:00Z")
    open_episode(graph, second, "planner", at="2026-01-02T00:00:00Z")
    close_episode(graph, first, "planner", {"result": "done"})
    listed = recent_episodes(graph)
    assert [one["id"] for one in listed] == [second, first]
    assert listed[1]["closed_at"] is not None and listed[0]["closed_at"] is None
    assert type(listed[1]["entry_count"]) is int and listed[1]["entry_count"] == 1
    assert [one["id"] for one in recent_episodes(graph, 1, 1)] == [first]
    open_episode(graph, "ep-3", "auditor", at="2026-01-03T00:00:00Z")
    assert [one["id"] for one in recent_episodes(graph, by="planner")] == [second, first]
    assert [one["id"] for one in recent_episodes(graph, since="2026-01-02T00:00:00Z")] == ["ep-3", second]
    assert [one["id"] for one in recent_episodes(graph, until="2026-01-02T00:00:00Z")] == [first]
    assert recent_episodes(graph, by="auditor", until="2026-01-03T00:00:00Z") == []
    for wrong in ({"by": ""}, {"by": 1}, {"since": "soon"}, {"until": {}}):
        with pytest.raises((Refused, WrongType)):
            recent_episodes(graph, **wrong)
    say(graph, "ada", "s1", "user", "hello", "agent")
    say(graph, "ada", "s2", "user", "hello", "agent")
    say(graph, "bo", "s1", "user", "hello", "agent")
    users = conversation_users(graph)
    assert [(one["user"], one["sessions"]) for one in users] == [("ada", 2), ("bo", 1)]
    assert users[0]["active_at"].tzinfo is not None
    assert conversation_users(graph, 0, 1)[0]["user"] == "ada" and len(conversation_users(graph, 0, 1)) == 2


@pytest.mark.parametrize("offset, limit", [(-1, 10), (100_001, 10), (0, 0), (0, 1_001), ("0", 10), (0, True)])
def test_pages_out_of_bounds_are_refused(graph, offset, limit):
    for listing in (recent_episodes, conversation_users):
        with pytest.raises(Refused):
            listing(graph, offset, limit)
    with pytest.raises(Refused):
        entities_now(graph, DEVICE, offset, limit)


def test_other_refusals(graph):
    with pytest.raises(Refused):
        entities_now(graph, "Device")
    with pytest.raises(Refused):
        entities_now(graph, DEVICE, at="not a time")
    with pytest.raises(WrongType):
        kinds_holding(graph, "Device", "d1")
    with pytest.raises(Refused):
        kinds_holding(graph, KINDS, 1.5)


def test_an_episode_whose_count_a_graph_written_before_kept_on_a_tally_edge(graph):
    ensure_schema(graph, [])
    for number in range(5):
        assert (
            open_episode(graph, f"ep{number}", "tester", at=f"2026-01-0{number + 1}T00:00:00Z")["status"]
            == "opened"
        )
        for _ in range(number):
            assert record(graph, f"ep{number}", "seen", "tester")["status"] == "recorded"
    graph.query(
        "MATCH (ep:Episode {id: 'ep1'}) CREATE (ep)-[:LH_TALLY {entries: ep.entry_count}]->(ep) "
        "REMOVE ep.entry_count"
    )
    first = recent_episodes(graph, 0, 2)
    assert [(one["id"], one["entry_count"]) for one in first] == [("ep4", 4), ("ep3", 3), ("ep2", 2)]
    rest = recent_episodes(graph, 2, 2)
    assert [(one["id"], one["entry_count"]) for one in rest] == [("ep2", 2), ("ep1", 1), ("ep0", 0)]
    assert first[0]["opened_at"].isoformat().startswith("2026-01-05") and first[0]["closed_at"] is None


def test_notes_newest_first_with_the_facts_drawn_from_each_and_filters(graph):
    notes = reviewed(graph)
    listed = recent_notes(graph)
    assert [one["id"] for one in listed] == [notes["second"], notes["first"]]
    second, first = listed
    assert second["text"] == "d1 looks broken again" and second["by"] == "ops"
    assert second["recorded_at"].tzinfo is not None and second["at"].tzinfo is not None
    assert [(f["kind"], f["key"], f["trust"]) for f in second["drawn"]] == [("Device", "d1", "candidate")]
    assert [(f["kind"], f["key"], f["trust"]) for f in first["drawn"]] == [("Device", "d1", "rejected")]
    assert first["drawn"][0]["valid_from"].isoformat().startswith("2026-01-05")
    assert [one["id"] for one in recent_notes(graph, 0, 1)] == [notes["second"], notes["first"]]
    assert [one["id"] for one in recent_notes(graph, 1, 1)] == [notes["first"]]
    assert recent_notes(graph, by="somebody else") == []
    assert len(recent_notes(graph, by="ops")) == 2
    assert recent_notes(graph, until="2000-01-02T00:00:00Z") == []
    assert len(recent_notes(graph, since="2000-01-02T00:00:00Z")) == 2
    with pytest.raises(Refused):
        recent_notes(graph, by=" padded ")
    with pytest.raises(Refused):
        recent_notes(graph, since="not a time")
    with pytest.raises(Refused):
        recent_notes(graph, 0, 0)
