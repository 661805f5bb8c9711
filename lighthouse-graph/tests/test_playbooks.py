"""Playbooks: evidence of ended episodes, versions that replace, runs judged once, switched off after
three failures in a row, and triggers compared in the query by value and type."""

from __future__ import annotations

from datetime import timedelta

import pytest
from devices import DEVICE, KINDS
from ended_episodes import ended, overheat
from graph_contents import assert_one_refusal, snapshot
from lighthouse import ensure_schema, open_episode, remember
from lighthouse.clock import now
from lighthouse.graphs import read
from lighthouse.playbooks import playbook, playbooks_for, ran, switch, write_playbook
from lighthouse.values import MAX_NAME, MAX_REFERENCES, MAX_TEXT, MAX_VALUES, Refused
from lighthouse.write.failures import failures
from racing import at_once

HOT = {"status": "hot"}
STEPS = [{"do": "check the fan"}, {"do": "look again in an hour"}]
EVIDENCE = ["e1", "e2", "e3"]


@pytest.fixture
def world(graph):
    """d1, twelve episodes that ended (e1..e12), and e-open that has not."""
    ensure_schema(graph, KINDS)
    remember(graph, DEVICE, by="inventory", rows=[{"key": "d1", "t": "2026-01-02T00:00:00Z", "values": HOT}])
    for n in range(1, 13):
        ended(graph, f"e{n}", {"fixed": True})
    open_episode(graph, "e-open", by="watcher", about=[(DEVICE, "d1")])
    return graph


def write(graph, name="hot-device", trigger=HOT, steps=STEPS, supported_by=EVIDENCE, **more) -> dict:
    return write_playbook(
        graph, name, by="reviewer", trigger=trigger, steps=steps, supported_by=supported_by, **more
    )


# The seed's example


def test_the_seed_example(graph):
    overheat(graph)
    receipt = write_playbook(
        graph,
        "hot-device",
        by="reviewer",
        trigger={"status": "hot"},
        steps=[{"do": "check the fan"}, {"do": "look again in an hour"}],
        supported_by=["d1-overheat"],
        needs=1,  # 3 by default
    )
    assert receipt == {"id": "hot-device#1", "version": 1, "status": "written"}
    assert playbooks_for(graph, {"status": "hot", "room": "r2"})[0]["steps"][0] == {"do": "check the fan"}


# write_playbook()


def test_a_written_playbook_reads_back_whole(world):
    assert write(world) == {"id": "hot-device#1", "version": 1, "status": "written"}
    found = playbook(world, "hot-device#1")
    assert found["name"] == "hot-device" and found["version"] == 1
    assert found["trigger"] == HOT and found["steps"] == STEPS
    assert found["by"] == "reviewer" and found["needs"] == 3 and found["enabled"] is True
    assert found["drawn_from"] == EVIDENCE and found["replaces"] is None
    assert (found["runs"], found["succeeded"], found["failed"], found["failures_in_row"]) == (0, 0, 0, 0)
    assert found["switched_by"] is None and found["switched_at"] is None
    assert abs(found["written_at"] - now()) < timedelta(seconds=5)
    # the trigger is also stored value by value, so a query can compare it
    assert read(world, "MATCH (p:Playbook) RETURN p.t_status") == [["hot"]]
    assert playbook(world, "hot-device") == found
    assert playbook(world, "nothing") is None and playbook(world, "hot-device#2") is None


def test_a_playbook_needs_three_ended_episodes_by_default(world):
    before = snapshot(world)
    receipt = write(world, supported_by=["e1", "e2"])
    assert receipt["status"] == "invalid" and "at least 3" in receipt["reason"]
    assert write(world, supported_by=["e1", "e1", "e2"])["status"] == "invalid"  # one episode counts once
    assert write(world, supported_by=["e1", "e2", "e-open"])["status"] == "open"
    assert write(world, supported_by=["e1", "e2", "e99"])["status"] == "missing"
    assert write(world, supported_by=["e1"], needs=2)["status"] == "invalid"
    assert snapshot(world) == before
    assert sorted(f["reason"] for f in failures(world)) == [
        "invalid",
        "invalid",
        "invalid",
        "missing",
        "open",
    ]
    assert write(world, supported_by=["e1", "e2"], needs=2)["status"] == "written"


def test_the_same_trigger_and_steps_again_are_unchanged(world):
    write(world)
    before = snapshot(world)
    again = write(
        world, trigger={"status": "hot"}, steps=[dict(one) for one in STEPS], supported_by=["e4", "e5", "e6"]
    )
    assert again == {"id": "hot-device#1", "version": 1, "status": "unchanged"}
    assert snapshot(world) == before


def test_other_steps_or_trigger_write_a_version_that_replaces_the_one_before(world):
    write(world)
    first = playbook(world, "hot-device#1")
    second = write(world, steps=[{"do": "replace the fan"}], supported_by=["e4", "e5", "e6"])
    assert second == {"id": "hot-device#2", "version": 2, "status": "written"}
    third = write(world, trigger={"status": "hot", "room": "r2"}, steps=[{"do": "replace the fan"}])
    assert third["id"] == "hot-device#3"
    assert playbook(world, "hot-device#1") == first  # a version is never changed
    assert playbook(world, "hot-device")["id"] == "hot-device#3"
    assert playbook(world, "hot-device#3")["replaces"] == "hot-device#2"
    assert playbook(world, "hot-device#2")["replaces"] == "hot-device#1"
    assert playbook(world, "hot-device#2")["drawn_from"] == ["e4", "e5", "e6"]
    # the steps of version 1 again are a new version, not version 1
    assert write(world)["id"] == "hot-device#4"
    chain = read(
        world, "MATCH (a:Playbook)-[:REPLACES]->(b:Playbook) RETURN a.version, b.version ORDER BY a.version"
    )
    assert chain == [[2, 1], [3, 2], [4, 3]]


def test_a_value_of_another_type_is_another_trigger(world):
    write(world, trigger={"level": 1})
    assert write(world, trigger={"level": 1.0})["version"] == 2
    assert write(world, trigger={"level": True})["version"] == 3
    assert write(world, trigger={"level": "1"})["version"] == 4
    assert write(world, trigger={"level": "1"})["status"] == "unchanged"


def test_eight_writers_of_one_new_playbook_make_one_version(world, db):
    receipts = at_once(
        db,
        world,
        lambda n, own: write_playbook(own, "hot-device", f"agent-{n}", HOT, STEPS, supported_by=EVIDENCE),
    )
    assert sorted(r["status"] for r in receipts) == ["unchanged"] * 7 + ["written"]
    assert {r["id"] for r in receipts} == {"hot-device#1"}
    assert read(world, "MATCH (p:Playbook) RETURN count(p)") == [[1]]
    assert read(world, "MATCH (:Playbook)-[d:DRAWN_FROM]->() RETURN count(d)") == [[3]]


def test_eight_writers_of_other_steps_take_one_version_each(world, db):
    def writer(n: int, own) -> dict:
        return write_playbook(
            own, "hot-device", f"agent-{n}", HOT, [{"do": f"step {n}"}], supported_by=EVIDENCE
        )

    receipts = at_once(db, world, writer)
    assert sorted(r["version"] for r in receipts) == list(range(1, 9))
    chain = read(world, "MATCH (a:Playbook)-[:REPLACES]->(b:Playbook) RETURN a.version, b.version")
    assert sorted(chain) == [[n + 1, n] for n in range(1, 8)]


# ran()


def test_a_run_is_judged_once(world):
    write(world)
    assert ran(world, "hot-device#1", "e4", True, "agent") == {
        "id": "hot-device#1",
        "status": "judged",
        "enabled": True,
    }
    assert ran(world, "hot-device", "e5", False, "agent")["status"] == "judged"  # a name: its newest version
    before = snapshot(world)
    assert ran(world, "hot-device#1", "e4", True, "other") == {
        "id": "hot-device#1",
        "status": "unchanged",
        "enabled": True,
    }
    conflict = ran(world, "hot-device#1", "e5", True, "agent")
    assert conflict["status"] == "conflict" and "other way" in conflict["reason"]
    assert snapshot(world) == before
    found = playbook(world, "hot-device#1")
    assert (found["runs"], found["succeeded"], found["failed"], found["failures_in_row"]) == (2, 1, 1, 1)
    edges = read(
        world, "MATCH (:Playbook)-[r:RAN_IN]->(ep:Episode) RETURN ep.id, r.succeeded, r.by ORDER BY ep.id"
    )
    assert edges == [["e4", True, "agent"], ["e5", False, "agent"]]


def test_each_version_judges_its_own_runs(world):
    write(world)
    write(world, steps=[{"do": "replace the fan"}])
    assert ran(world, "hot-device#1", "e4", False, "agent")["status"] == "judged"
    assert ran(world, "hot-device#2", "e4", True, "agent")["status"] == "judged"
    assert (
        playbook(world, "hot-device#1")["failed"] == 1 and playbook(world, "hot-device#2")["succeeded"] == 1
    )


def test_eight_threads_judging_one_run_judge_it_once(world, db):
    write(world)
    receipts = at_once(db, world, lambda n, own: ran(own, "hot-device#1", "e4", False, f"judge-{n}"))
    assert sorted(r["status"] for r in receipts) == ["judged"] + ["unchanged"] * 7
    found = playbook(world, "hot-device#1")
    assert (found["runs"], found["failed"], found["failures_in_row"], found["enabled"]) == (1, 1, 1, True)
    assert read(world, "MATCH (:Playbook)-[r:RAN_IN]->() RETURN count(r)") == [[1]]


def test_three_failures_in_a_row_switch_a_playbook_off(world):
    write(world)
    for episode, succeeded in (("e4", False), ("e5", False), ("e6", True), ("e7", False), ("e8", False)):
        assert ran(world, "hot-device#1", episode, succeeded, "agent")["enabled"] is True
    assert playbook(world, "hot-device#1")["failures_in_row"] == 2
    receipt = ran(world, "hot-device#1", "e9", False, "agent")
    assert receipt == {"id": "hot-device#1", "status": "judged", "enabled": False}
    found = playbook(world, "hot-device#1")
    assert found["enabled"] is False and found["switched_by"] == "library"
    assert abs(found["switched_at"] - now()) < timedelta(seconds=5)
    assert playbooks_for(world, HOT) == []
    # a run judged after it was switched off still counts, and does not switch it on
    assert ran(world, "hot-device#1", "e10", True, "agent") == {
        "id": "hot-device#1",
        "status": "judged",
        "enabled": False,
    }
    assert playbook(world, "hot-device#1")["failures_in_row"] == 0


def test_steps_that_were_switched_off_are_not_written_again(world):
    write(world)
    for episode in ("e4", "e5", "e6"):
        ran(world, "hot-device#1", episode, False, "agent")
    before = snapshot(world)
    receipt = write(world, supported_by=["e7", "e8", "e9"])
    assert receipt["status"] == "switched_off" and receipt["id"] == "hot-device"
    assert write(world, trigger={"status": "hot", "room": "r2"})["status"] == "switched_off"
    assert snapshot(world) == before
    assert [f["reason"] for f in failures(world)] == ["switched_off", "switched_off"]
    assert write(world, steps=[{"do": "replace the fan"}]) == {
        "id": "hot-device#2",
        "version": 2,
        "status": "written",
    }
    # the steps of the version that was switched off stay refused after another version
    assert write(world)["status"] == "switched_off"
    assert (
        write_playbook(world, "other", "reviewer", HOT, STEPS, EVIDENCE)["status"] == "written"
    )  # another name


def test_a_newest_version_that_is_switched_off_leaves_the_one_before(world):
    write(world)
    write(world, steps=[{"do": "replace the fan"}])
    assert switch(world, "hot-device", False, "operator") == {
        "id": "hot-device#2",
        "status": "switched",
        "enabled": False,
    }
    assert [one["id"] for one in playbooks_for(world, HOT)] == ["hot-device#1"]
    switch(world, "hot-device#1", False, "operator")
    assert playbooks_for(world, HOT) == []


# switch()


def test_switch_off_and_on_again(world):
    write(world)
    ran(world, "hot-device#1", "e4", False, "agent")
    ran(world, "hot-device#1", "e5", False, "agent")
    assert switch(world, "hot-device#1", False, "operator")["status"] == "switched"
    before = snapshot(world)
    assert switch(world, "hot-device#1", False, "other") == {
        "id": "hot-device#1",
        "status": "unchanged",
        "enabled": False,
    }
    assert snapshot(world) == before
    assert switch(world, "hot-device#1", True, "operator") == {
        "id": "hot-device#1",
        "status": "switched",
        "enabled": True,
    }
    found = playbook(world, "hot-device#1")
    assert found["enabled"] is True and found["switched_by"] == "operator" and found["failures_in_row"] == 0
    # the count starts again: one more failure does not switch it off
    assert ran(world, "hot-device#1", "e6", False, "agent")["enabled"] is True
    # a version switched on again can be written again: it is the newest and enabled
    assert write(world)["status"] == "unchanged"


def test_switch_and_ran_refusals(world):
    write(world)
    before = snapshot(world)
    assert switch(world, "nothing", False, "operator")["status"] == "unknown"
    assert switch(world, "hot-device#7", False, "operator")["status"] == "unknown"
    assert switch(world, "hot-device#1", "off", "operator")["status"] == "invalid"
    assert switch(world, "hot-device#x", False, "operator")["status"] == "invalid"
    assert switch(world, "hot-device#01", False, "operator")["status"] == "invalid"
    assert ran(world, "nothing", "e4", True, "agent")["status"] == "unknown"
    assert ran(world, "hot-device#1", "e-open", True, "agent")["status"] == "open"
    assert ran(world, "hot-device#1", "e99", True, "agent")["status"] == "missing"
    assert ran(world, "hot-device#1", "e4", 1, "agent")["status"] == "invalid"
    assert ran(world, "hot-device#1", "e4", True, "")["status"] == "invalid"
    assert snapshot(world) == before
    assert len(failures(world)) == 10


# playbooks_for()


def test_a_trigger_fits_when_each_of_its_conditions_is_in_the_situation(world):
    write(world, "hot", trigger={"status": "hot"})
    write(world, "hot-in-r2", trigger={"status": "hot", "room": "r2"})
    write(world, "cold", trigger={"status": "cold"})
    assert [one["name"] for one in playbooks_for(world, {"status": "hot", "room": "r2", "x": 1})] == [
        "hot-in-r2",
        "hot",
    ]
    assert [one["name"] for one in playbooks_for(world, {"status": "hot", "room": "r1"})] == ["hot"]
    assert [one["name"] for one in playbooks_for(world, {"room": "r2"})] == []
    assert playbooks_for(world, {}) == []
    assert [one["name"] for one in playbooks_for(world, {"status": "hot", "room": "r2"}, limit=1)] == [
        "hot-in-r2"
    ]


@pytest.mark.parametrize(
    ("trigger", "situation", "fits"),
    [
        ({"on": True}, {"on": True}, True),
        ({"on": True}, {"on": 1}, False),
        ({"on": 1}, {"on": True}, False),
        ({"n": 1}, {"n": 1}, True),
        ({"n": 1}, {"n": "1"}, False),
        ({"n": "1"}, {"n": 1}, False),
        ({"n": 1}, {"n": 1.0}, False),
        ({"n": 1.0}, {"n": 1}, False),
        ({"n": 1.5}, {"n": 1.5}, True),
        ({"n": 0}, {"n": False}, False),
        ({"s": "hot"}, {"s": "Hot"}, False),
        ({"s": ""}, {"s": ""}, True),
    ],
)
def test_a_value_fits_only_a_value_of_its_own_type(world, trigger, situation, fits):
    write(world, trigger=trigger)
    assert bool(playbooks_for(world, situation)) is fits


def test_the_newest_enabled_version_is_given_and_ordered_by_specificity_evidence_and_name(world):
    write(world, "b", supported_by=EVIDENCE)
    write(world, "a", supported_by=EVIDENCE)
    write(world, "c", supported_by=EVIDENCE + ["e4"])
    write(world, "z", trigger={"status": "hot", "kind": "pump"})
    write(world, "b", steps=[{"do": "newer"}])
    found = playbooks_for(world, {"status": "hot", "kind": "pump"})
    assert [one["id"] for one in found] == ["z#1", "c#1", "a#1", "b#2"]
    assert found[-1]["steps"] == [{"do": "newer"}]
    # a newer version whose trigger does not fit leaves the name out: the older one was replaced
    write(world, "a", trigger={"status": "cold"})
    assert [one["id"] for one in playbooks_for(world, HOT)] == ["c#1", "b#2"]


def test_playbooks_for_refuses_a_bad_situation(world):
    for situation in (
        [("status", "hot")],
        {"status": {"nested": 1}},
        {"status": ["hot"]},
        {"bad-name": 1},
        {"s": None},
    ):
        with pytest.raises(Refused):
            playbooks_for(world, situation)
    for limit in (0, 1_001, True):
        with pytest.raises(Refused):
            playbooks_for(world, HOT, limit=limit)
    with pytest.raises(Refused):
        playbook(world, "bad\x00name")


# What a hostile caller can send: one refusal kept, nothing else changed


HOSTILE = [
    ("name", "with#hash"),
    ("name", "bad\x00name"),
    ("name", "x" * (MAX_NAME - 11)),
    ("name", None),
    ("by", "\u2028"),
    ("trigger", {}),
    ("trigger", [("status", "hot")]),
    ("trigger", {"status": {"nested": "dict"}}),
    ("trigger", {"status": ["hot", "cold"]}),
    ("trigger", {"status": None}),
    ("trigger", {"status": float("nan")}),
    ("trigger", {"status": 2**64}),
    ("trigger", {"bad-name": 1}),
    ("trigger", {"1st": 1}),
    ("trigger", {"n" * 65: 1}),
    ("trigger", {f"k{n}": n for n in range(MAX_VALUES + 1)}),
    ("trigger", {"status": "x" * (MAX_TEXT + 1)}),
    ("steps", {"do": "check the fan"}),
    ("steps", "check the fan"),
    ("steps", []),
    ("steps", [{}]),
    ("steps", ["check the fan"]),
    ("steps", [{"do": {"nested": "dict"}}]),
    ("steps", [{"do": [["nested list"]]}]),
    ("steps", [{"bad name": 1}]),
    ("steps", [{"do": n} for n in range(MAX_VALUES + 1)]),
    ("steps", [{f"k{n}": n for n in range(MAX_VALUES + 1)}]),
    ("steps", [{"do": "x" * (MAX_TEXT + 1)}]),
    ("steps", [{"do": "\x01" * MAX_TEXT}]),  # each step within its limit, the whole over 200,000
    ("supported_by", [f"ep{n}" for n in range(MAX_REFERENCES + 1)]),
    ("supported_by", "e1"),
    ("supported_by", ["e1", "e2", 3]),
    ("needs", 0),
    ("needs", True),
    ("needs", MAX_REFERENCES + 1),
    ("needs", 2.5),
]


@pytest.mark.parametrize(("field", "value"), HOSTILE, ids=[f"{f}-{n}" for n, (f, _v) in enumerate(HOSTILE)])
def test_hostile_input_to_write_playbook_costs_one_refusal(world, field, value):
    write(world)
    before = snapshot(world)
    given = {"name": "hot-device", "by": "reviewer", "trigger": HOT, "steps": STEPS, "supported_by": EVIDENCE}
    given[field] = value
    assert_one_refusal(world, before, write_playbook(world, **given), kind="Playbook")


def test_the_longest_name_fits_its_versions(world):
    longest = "n" * (MAX_NAME - 12)
    assert write(world, name=longest)["id"] == longest + "#1"
    assert playbook(world, longest + "#1")["name"] == longest
    assert ran(world, longest, "e4", True, "agent")["status"] == "judged"


# --- floats -----------------------------------------------------------------------------------------------


def test_a_float_trigger_is_stored_as_it_reads_back(world):
    trigger = {"load": 0.1 + 0.2}
    first = write(world, trigger=trigger, steps=[{"set": 1 / 3}])
    assert first["status"] == "written"
    assert playbook(world, first["id"])["trigger"] == {"load": 0.3}
    assert playbook(world, first["id"])["steps"] == [{"set": 0.333333333333333}]
    # the situation is compared in the query with what is stored: 0.3 and 0.1 + 0.2 both fit
    assert [one["id"] for one in playbooks_for(world, {"load": 0.3})] == [first["id"]]
    assert [one["id"] for one in playbooks_for(world, {"load": 0.1 + 0.2})] == [first["id"]]
    assert playbooks_for(world, {"load": 0.31}) == []
    assert write(world, trigger=trigger, steps=[{"set": 1 / 3}])["status"] == "unchanged"
    assert write(world, trigger={"load": 0.3}, steps=[{"set": 0.333333333333333}])["status"] == "unchanged"


@pytest.mark.parametrize(
    ("trigger", "steps"),
    [({"load": 1.7976931348623157e308}, STEPS), (HOT, [{"set": -1.7976931348623157e308}])],
)
def test_a_float_that_would_read_back_as_infinity_is_refused(world, trigger, steps):
    before = snapshot(world)
    receipt = write(world, trigger=trigger, steps=steps)
    assert receipt["status"] == "invalid" and "too large to be read back" in receipt["reason"]
    assert snapshot(world) == before
    with pytest.raises(Refused, match="too large"):
        playbooks_for(world, {"load": 1.7976931348623157e308})
