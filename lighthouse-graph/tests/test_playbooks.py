"""Playbooks: versions resting on ended episodes, triggers matched by type, runs judged once."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from devices import DEVICE, KINDS
from graph_contents import snapshot
from hostile import HostileList, HostileMap, HostileNumber, HostileText
from lighthouse import ensure_schema, groups, open_episode, remember
from lighthouse.errors import Refused, WrongType
from lighthouse.graphs import read
from lighthouse.playbooks import playbook, playbooks_for, ran, switch, write_playbook
from racing import at_once
from redis.exceptions import ResponseError
from test_lessons import ended, raises_and_keeps_nothing, refused_once

STEPS = [{"do": "check the fan"}, {"do": "look again in an hour", "hours": 1}]
STORED = {"id", "name", "version", "by", "at", "recorded_at", "enabled", "runs", "succeeded", "failed"}
STORED |= {"failed_in_a_row", "trigger", "steps", "supported_by"}
MISSING = "an episode it rests on does not exist or has not ended"


@pytest.fixture
def world(graph):
    """d1, four episodes about it that ended (e1 to e4) and one still open (e-open)."""
    ensure_schema(graph, KINDS)
    remember(
        graph, DEVICE, by="inventory", rows=[{"key": "d1", "t": "2026-01-02T00:00:00Z", "values": {"s": 1}}]
    )
    for name in ("e1", "e2", "e3", "e4"):
        ended(graph, name)
    open_episode(graph, "e-open", by="watcher", about=[(DEVICE, "d1")])
    return graph


def write(graph, name="hot", trigger=None, steps=None, **more):
    more.setdefault("supported_by", ["e1", "e2", "e3"])
    return write_playbook(graph, name, "reviewer", trigger or {"status": "hot"}, steps or STEPS, **more)


def test_the_seed_example(world):
    receipt = write_playbook(
        world,
        "hot-device",
        by="reviewer",
        trigger={"status": "hot"},
        steps=[{"do": "check the fan"}, {"do": "look again in an hour"}],
        supported_by=["e1"],
        needs=1,
    )
    assert receipt == {"id": "hot-device#1", "version": 1, "status": "written"}
    assert playbooks_for(world, {"status": "hot", "room": "r2"})[0]["steps"][0] == {"do": "check the fan"}


def test_a_written_playbook_reads_back_whole(world):
    write(
        world,
        trigger={"status": "hot", "level": 2, "gone": None},
        steps=[{"do": "a", "gone": None}, {"do": "b"}],
        supported_by=["e3", "e1", "e2"],
        at="2026-02-03T04:05:06Z",
    )
    found = playbook(world, "hot")
    assert set(found) == STORED
    assert (found["id"], found["name"], found["version"], found["by"], found["enabled"]) == (
        "hot#1",
        "hot",
        1,
        "reviewer",
        True,
    )
    assert (found["runs"], found["succeeded"], found["failed"], found["failed_in_a_row"]) == (0, 0, 0, 0)
    assert found["trigger"] == {"status": "hot", "level": 2}
    assert found["steps"] == [{"do": "a"}, {"do": "b"}]
    assert found["supported_by"] == ["e1", "e2", "e3"]
    assert (
        found["at"] == datetime(2026, 2, 3, 4, 5, 6, tzinfo=UTC) and found["recorded_at"].tzinfo is not None
    )
    assert (
        playbook(world, "hot", 1) == found
        and playbook(world, "hot", 2) is None
        and playbook(world, "nothing") is None
    )


def test_any_property_name_can_be_a_trigger_or_a_step(world):
    trigger = {"enabled": True, "id": "x", "version": 3, "lh": "a", "seq_no": 1}
    steps = [{"name": "n", "enabled": [1, 2], "runs": 1.5}]
    assert write(world, trigger=trigger, steps=steps)["status"] == "written"
    found = playbook(world, "hot")
    assert found["trigger"] == trigger and found["steps"] == steps and found["enabled"] is True
    assert [one["id"] for one in playbooks_for(world, trigger)] == ["hot#1"]


def test_a_playbook_rests_on_three_ended_episodes_by_default(world):
    refused_once(world, lambda: write(world, supported_by=["e1", "e2"]), "unsupported")
    refused_once(world, lambda: write(world, supported_by=["e1", "e2", "e1", "e2"]), "unsupported")
    refused_once(world, lambda: write(world, supported_by=["e1", "e2", "e-open"]), "missing", MISSING)
    refused_once(world, lambda: write(world, supported_by=["e1", "e2", "nowhere"]), "missing", MISSING)
    refused_once(world, lambda: write(world, supported_by=[]), "unsupported")
    assert write(world, supported_by=["e1", "e2"], needs=2)["status"] == "written"


def test_the_next_version_switches_the_one_before_off(world):
    assert write(world) == {"id": "hot#1", "version": 1, "status": "written"}
    assert write(world) == {"id": "hot#2", "version": 2, "status": "written"}
    assert write(world, steps=[{"do": "other"}]) == {"id": "hot#3", "version": 3, "status": "written"}
    assert [playbook(world, "hot", n)["enabled"] for n in (1, 2, 3)] == [False, False, True]
    assert [one["id"] for one in playbooks_for(world, {"status": "hot"})] == ["hot#3"]
    assert playbook(world, "hot")["id"] == "hot#3"


@pytest.mark.parametrize(
    "changes",
    [
        {"trigger": {}},
        {"trigger": {"a": None}},
        {"trigger": {f"t{n}": n for n in range(21)}},
        {"trigger": [("status", "hot")]},
        {"trigger": {"a": {"b": 1}}},
        {"trigger": {"bad name": 1}},
        {"trigger": {"a": float("inf")}},
        {"steps": []},
        {"steps": [{"do": n} for n in range(51)]},
        {"steps": {"do": "x"}},
        {"steps": [5]},
        {"steps": [{"seq": 1}]},
        {"steps": [{"do": [None]}]},
        {"steps": [{"do": "x" * 100_001}]},
        {"steps": [{"do": "x" * 90_000}, {"do": "x" * 90_000}, {"do": "x" * 90_000}]},
        {"needs": 0},
        {"needs": 201},
        {"needs": True},
        {"needs": 1.0},
        {"needs": "3"},
        {"supported_by": None},
        {"supported_by": "e1"},
        {"supported_by": [5]},
        {"supported_by": [f"e{n}" for n in range(201)]},
        {"at": "soon"},
        {"at": "2999-01-01T00:00:00Z"},
        {"at": 5},
    ],
)
def test_bad_content_is_an_invalid_receipt_and_one_failure(world, changes):
    arguments = {"trigger": {"status": "hot"}, "steps": STEPS, "supported_by": ["e1", "e2", "e3"], **changes}
    refused_once(world, lambda: write_playbook(world, "hot", "reviewer", **arguments))


@pytest.mark.parametrize(
    "hostile",
    [
        lambda: {"trigger": HostileMap({"status": "hot"})},
        lambda: {"trigger": {"status": HostileText("hot")}},
        lambda: {"steps": HostileList(STEPS)},
        lambda: {"steps": [HostileMap({"do": "x"})]},
        lambda: {"steps": [{"do": HostileNumber(1)}]},
        lambda: {"supported_by": HostileList(["e1", "e2", "e3"])},
        lambda: {"supported_by": ["e1", HostileText("e2"), "e3"]},
        lambda: {"needs": HostileNumber(3)},
        lambda: {"at": HostileText("2026-01-01")},
    ],
)
def test_a_hostile_object_as_content_costs_one_refusal(world, hostile):
    arguments = {
        "trigger": {"status": "hot"},
        "steps": STEPS,
        "supported_by": ["e1", "e2", "e3"],
        **hostile(),
    }
    refused_once(world, lambda: write_playbook(world, "hot", "reviewer", **arguments))


@pytest.mark.parametrize(
    "make",
    [lambda: "", lambda: "hot ", lambda: 7, lambda: None, lambda: "x" * 201, lambda: HostileText("hot")],
)
def test_names_that_are_not_names_raise_and_keep_nothing(world, make):
    bad = make()
    raises_and_keeps_nothing(
        world, lambda: write_playbook(world, bad, "reviewer", {"a": 1}, STEPS, ["e1"], 1)
    )
    raises_and_keeps_nothing(world, lambda: write_playbook(world, "hot", bad, {"a": 1}, STEPS, ["e1"], 1))
    write(world)
    raises_and_keeps_nothing(world, lambda: ran(world, bad, "agent", "e1"))
    raises_and_keeps_nothing(world, lambda: ran(world, "hot", bad, "e1"))
    raises_and_keeps_nothing(world, lambda: ran(world, "hot", "agent", bad))
    raises_and_keeps_nothing(world, lambda: switch(world, bad, "agent", False))
    raises_and_keeps_nothing(world, lambda: switch(world, "hot", bad, False))
    with pytest.raises(Refused, match="must be text"):
        playbook(world, bad)


def test_eight_writers_take_one_version_each(world, db):
    answers = at_once(db, world, lambda number, own: write(own, steps=[{"do": f"step {number}"}]))
    assert sorted(answer["version"] for answer in answers) == list(range(1, 9))
    assert [playbook(world, "hot", n)["enabled"] for n in range(1, 9)] == [False] * 7 + [True]


def test_write_over_writes_only_over_the_version_read(world):
    from lighthouse.playbooks import write_over

    over = lambda newest: write_over(  # noqa: E731
        world, newest, "hot", "promoter", {"status": "hot"}, STEPS, ["e1", "e2", "e3"]
    )
    assert over("hot#1") == {"id": "hot", "status": "unchanged"}  # read a version that is not there
    assert over(None) == {"id": "hot#1", "version": 1, "status": "written"}
    assert over(None) == {"id": "hot#1", "status": "unchanged"}  # another came first: nothing written
    assert over("hot#1") == {"id": "hot#2", "version": 2, "status": "written"}
    assert [playbook(world, "hot", n)["enabled"] for n in (1, 2)] == [False, True]
    assert playbook(world, "hot", 3) is None
    assert read(world, "MATCH (f:WriteFailure) RETURN count(f)") == [[0]]
    refused = write_over(world, "hot#2", "hot", "promoter", {"status": "hot"}, STEPS, ["e-open"])
    assert refused["status"] == "missing"


# playbooks_for()


@pytest.mark.parametrize(
    ("trigger", "situation", "fits"),
    [
        ({"status": "hot"}, {"status": "hot", "room": "r2"}, True),
        ({"status": "hot", "room": "r2"}, {"status": "hot"}, False),
        ({"level": 1}, {"level": True}, False),
        ({"on": True}, {"on": 1}, False),
        ({"level": 3}, {"level": "3"}, False),
        ({"level": 1}, {"level": 1.0}, False),
        ({"level": 1.5}, {"level": 1.5}, True),
        ({"level": 0.0}, {"level": -0.0}, True),  # equal floats, though their JSON texts differ
        ({"level": -0.0}, {"level": 0.0}, True),
        ({"tags": [-0.0]}, {"tags": [0.0]}, True),
        ({"tags": ["a", "b"]}, {"tags": ["a", "b"]}, True),
        ({"tags": [1, 2]}, {"tags": [1.0, 2.0]}, False),
        ({"status": "hot"}, {"status": "Hot"}, False),
        ({"status": "hot"}, {"status": None}, False),
        ({"status": "hot"}, {}, False),
    ],
)
def test_a_trigger_fits_only_values_of_the_same_type(world, trigger, situation, fits):
    write(world, trigger=trigger)
    assert [one["id"] for one in playbooks_for(world, situation)] == (["hot#1"] if fits else [])


def test_playbooks_for_orders_by_failures_less_successes_then_runs_then_name(world):
    for name in ("b-none", "a-none", "c-ran", "d-good", "e-bad"):
        write(world, name)
    ran(world, "c-ran", "agent", "e1")
    ran(world, "d-good", "agent", "e1", True)
    ran(world, "e-bad", "agent", "e1", False)
    found = playbooks_for(world, {"status": "hot"})
    assert [one["name"] for one in found] == ["d-good", "c-ran", "a-none", "b-none", "e-bad"]
    assert all(set(one) == STORED for one in found)
    switch(world, "d-good", "agent", False)
    assert [one["name"] for one in playbooks_for(world, {"status": "hot"})][0] == "c-ran"


def test_playbooks_for_refuses_a_bad_situation(world):
    with pytest.raises(WrongType):
        playbooks_for(world, [("status", "hot")])
    with pytest.raises(WrongType):
        playbooks_for(world, None)
    for bad in ({"bad name": 1}, {"a": {"b": 1}}, {"a": float("nan")}, {5: 1}, {"a": HostileText("x")}):
        with pytest.raises(Refused):
            playbooks_for(world, bad)


# ran() and switch()


def test_a_run_is_recorded_once_and_judged_once(world):
    write(world)
    assert ran(world, "hot", "agent", "e-open") == {"id": "hot#1", "status": "recorded", "enabled": True}
    assert ran(world, "hot", "agent", "e-open") == {"id": "hot#1", "status": "exists", "enabled": True}
    assert ran(world, "hot", "agent", "e-open", succeeded=False) == {
        "id": "hot#1",
        "status": "judged",
        "enabled": True,
    }
    assert ran(world, "hot", "agent", "e-open", succeeded=True)["status"] == "exists"
    assert ran(world, "hot", "agent", "e1", succeeded=True)["status"] == "recorded"
    found = playbook(world, "hot")
    assert (found["runs"], found["succeeded"], found["failed"], found["failed_in_a_row"]) == (2, 1, 1, 0)
    runs = read(
        world, "MATCH (:Playbook)-[r:RAN_IN]->(ep:Episode) RETURN ep.id, r.by, r.succeeded ORDER BY ep.id"
    )
    assert runs == [["e-open", "agent", False], ["e1", "agent", True]]


def test_a_run_is_of_the_newest_version(world):
    write(world)
    ran(world, "hot", "agent", "e1", True)
    write(world, steps=[{"do": "other"}])
    assert ran(world, "hot", "agent", "e1", True) == {"id": "hot#2", "status": "recorded", "enabled": True}
    assert (playbook(world, "hot", 1)["runs"], playbook(world, "hot", 2)["runs"]) == (1, 1)


def test_failures_in_a_row_switch_it_off_and_switching_on_starts_again(world):
    write(world)
    assert ran(world, "hot", "agent", "e1", False)["enabled"] is True
    assert ran(world, "hot", "agent", "e2", True)["enabled"] is True  # a success ends the row
    assert ran(world, "hot", "agent", "e3", False)["enabled"] is True
    assert ran(world, "hot", "agent", "e4", False)["enabled"] is True
    assert ran(world, "hot", "agent", "e-open", False) == {
        "id": "hot#1",
        "status": "recorded",
        "enabled": False,
    }
    found = playbook(world, "hot")
    assert (found["failed_in_a_row"], found["enabled"]) == (3, False) and "stopped_at" in found
    assert "switched_at" not in found and playbooks_for(world, {"status": "hot"}) == []
    assert switch(world, "hot", "operator", True) == {"id": "hot#1", "status": "on"}
    found = playbook(world, "hot")
    assert (found["failed_in_a_row"], found["enabled"], found["switched_by"]) == (0, True, "operator")
    assert isinstance(found["switched_at"], datetime)


def test_stop_after_sets_how_many_failures_in_a_row_switch_it_off(world):
    write(world)
    assert ran(world, "hot", "agent", "e1", False, stop_after=1)["enabled"] is False
    write(world, "other")
    assert ran(world, "other", "agent", "e1", False, 2)["enabled"] is True


@pytest.mark.parametrize("stop_after", [0, -1, True, 1.0, "3", None])
def test_a_bad_stop_after_raises(world, stop_after):
    write(world)
    raises_and_keeps_nothing(
        world, lambda: ran(world, "hot", "agent", "e1", False, stop_after), Refused, "stop_after"
    )


@pytest.mark.parametrize("flag", [1, "yes", 0])
def test_flags_that_are_not_bools_raise_wrong_type(world, flag):
    write(world)
    raises_and_keeps_nothing(world, lambda: ran(world, "hot", "agent", "e1", flag), WrongType, "succeeded")
    raises_and_keeps_nothing(world, lambda: switch(world, "hot", "agent", flag), WrongType, "on")
    raises_and_keeps_nothing(world, lambda: switch(world, "hot", "agent", None), WrongType, "on")


def test_ran_and_switch_refusals(world):
    write(world)
    refused_once(world, lambda: ran(world, "nothing", "agent", "e1"), "unknown")
    refused_once(
        world, lambda: ran(world, "hot", "agent", "nowhere"), "missing", "the episode does not exist"
    )
    refused_once(world, lambda: ran(world, "hot", "agent", "e1", at="never"), "invalid")
    refused_once(world, lambda: ran(world, "hot", "agent", "e1", at=HostileText("2026-01-01")), "invalid")
    refused_once(world, lambda: switch(world, "nothing", "agent", True), "unknown")


def test_switch_off_on_and_as_it_is(world):
    write(world)
    assert switch(world, "hot", "operator", True) == {"id": "hot#1", "status": "exists"}
    assert switch(world, "hot", "operator", False) == {"id": "hot#1", "status": "off"}
    assert switch(world, "hot", "operator", False) == {"id": "hot#1", "status": "exists"}
    assert playbook(world, "hot")["enabled"] is False
    assert switch(world, "hot", "operator", True) == {"id": "hot#1", "status": "on"}


def test_playbook_refuses_a_version_that_is_not_an_int(world):
    write(world)
    for bad in ("1", 1.0, True):
        with pytest.raises(Refused):
            playbook(world, "hot", bad)
    assert playbook(world, "hot", 0) is None and playbook(world, "hot", 2**80) is None


def test_database_errors(db):
    db.connection.set("not-a-graph", "text")
    try:
        broken = db.select_graph("not-a-graph")
        receipt = write_playbook(broken, "hot", "reviewer", {"a": 1}, STEPS, ["e1"], 1)
        assert receipt["status"] == "failed" and receipt["id"] is None and receipt["reason"]
        with pytest.raises(ResponseError):
            ran(broken, "hot", "agent", "e1")
        with pytest.raises(ResponseError):
            switch(broken, "hot", "agent", True)
        with pytest.raises(ResponseError):
            playbook(broken, "hot")
    finally:
        db.connection.delete("not-a-graph")


def test_a_refused_write_changes_nothing_of_what_is_there(world):
    write(world)
    before = snapshot(world)
    write(world, supported_by=["e1"])
    assert snapshot(world) == before


def test_eight_agents_judging_one_run_at_once_judge_it_once(world, db):
    write(world)
    ran(world, "hot", "agent", "e1")
    answers = at_once(db, world, lambda number, own: ran(own, "hot", f"agent{number}", "e1", number % 2 == 0))
    assert sorted(answer["status"] for answer in answers) == ["exists"] * 7 + ["judged"]
    found = playbook(world, "hot")
    assert (found["runs"], found["succeeded"] + found["failed"]) == (1, 1)


def test_a_version_is_stored_as_the_design_names_it(world):
    write(world, trigger={"status": "hot", "level": 2, "gone": None})
    write(world, steps=[{"do": "replace the fan", "gone": None}], supported_by=["e1", "e2", "e3", "e4"])
    trigger = read(world, "MATCH (p:Playbook {id: 'hot#1'})-[:HAS]->(t:Trigger) RETURN properties(t)")
    assert trigger == [[{"status": "hot", "level": 2}]]
    steps = read(
        world,
        "MATCH (p:Playbook {id: 'hot#1'})-[:HAS]->(s:Step) RETURN properties(s) ORDER BY s.seq",
    )
    assert steps == [[{"seq": 1, **STEPS[0]}], [{"seq": 2, **STEPS[1]}]]
    newer = read(world, "MATCH (:Playbook {id: 'hot#2'})-[:HAS]->(s:Step) RETURN properties(s)")
    assert newer == [[{"seq": 1, "do": "replace the fan"}]]
    rests = read(
        world,
        "MATCH (p:Playbook)-[:SUPPORTED_BY]->(ep:Episode) RETURN p.id, collect(ep.id) ORDER BY p.id",
    )
    assert [[one, sorted(ids)] for one, ids in rests] == [
        ["hot#1", ["e1", "e2", "e3"]],
        ["hot#2", ["e1", "e2", "e3", "e4"]],
    ]
    assert read(world, "MATCH ()-[drawn:DRAWN_FROM]->() RETURN count(drawn)") == [[0]]


def test_groups_reach_a_playbook_through_the_episodes_it_rests_on(world):
    write(world)
    [group] = groups(world, [DEVICE], ["ABOUT", "SUPPORTED_BY"], records=["Episode", "Playbook"])
    assert ("Playbook", "hot#1") in group["members"] and ("Device", "d1") in group["members"]
