"""Tasks: added after tasks that exist, claimed oldest first in one query, on a lease, done by the owner."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import pytest
from graph_contents import snapshot
from hostile import HOSTILE_NAMES, HostileList, HostileMap, HostileText, sort_of
from lighthouse.graphs import read
from lighthouse.tasks import add_task, claim, complete, release, task, tasks
from lighthouse.values import MAX_LEASE, Refused
from lighthouse.write.failures import failures
from racing import at_once
from redis.exceptions import ResponseError
from test_episodes import CountingGraph, FailingOnce

BAD_NAMES = [None, "", " padded", "x" * 201, 7, *HOSTILE_NAMES]


@pytest.fixture
def queue(graph):
    """Three review tasks, r2 after r1, and a build task."""
    assert add_task(graph, "r1", "review", "d1") is True
    assert add_task(graph, "r2", "review", 42, after=["r1"]) is True
    assert add_task(graph, "r3", "review") is True
    assert add_task(graph, "b1", "build") is True
    return graph


def run_out(graph, task_id: str) -> None:
    """The lease of a claimed task ends in the past, as it would a while after the claim."""
    graph.query(
        "MATCH (t:Task {id: $id}) SET t.until = localdatetime($then)",
        {"id": task_id, "then": (datetime.now(UTC) - timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%S")},
    )


def make_older(graph, task_id: str) -> None:
    graph.query(
        "MATCH (t:Task {id: $id}) SET t.created_at = localdatetime('2026-01-01T00:00:00')", {"id": task_id}
    )


# add_task()


def test_add_task_stores_an_open_task_and_its_order(queue):
    found = task(queue, "r2")
    assert found == {
        "id": "r2",
        "kind": "review",
        "ref": 42,
        "state": "open",
        "created_at": found["created_at"],
        "after": ["r1"],
        "claims": [],
    }
    assert found["created_at"].tzinfo is UTC
    assert "ref" not in task(queue, "r3") and task(queue, "nothing") is None


def test_an_existing_id_is_false_before_after_is_checked(queue):
    before = snapshot(queue)
    assert add_task(queue, "r1", "other", "x", after=["no-such-task"]) is False
    assert add_task(queue, "r3", "review", after=["r3"]) is False
    assert snapshot(queue) == before


def test_after_must_name_tasks_that_exist_the_task_itself_included(queue):
    before = snapshot(queue)
    for after in (["r1", "nope"], ["new"]):
        with pytest.raises(Refused, match="does not exist"):
            add_task(queue, "new", "review", after=after)
    assert snapshot(queue) == before and failures(queue) == []


@pytest.mark.parametrize(
    "ref, after",
    [
        (1.5, ()),
        (True, ()),
        (2**63, ()),
        ("", ()),
        (None, None),
        (None, "r1"),
        (None, {"r1": 1}),
        (None, ["r1", 3]),
        (None, [f"t{n}" for n in range(201)]),
        (HostileText("d1"), ()),
        (None, HostileList(["r1"])),
        (None, [HostileText("r1")]),
        (None, HostileMap()),
    ],
    ids=sort_of,
)
def test_add_task_with_a_bad_ref_or_after_raises_and_writes_nothing(queue, ref, after):
    before = snapshot(queue)
    with pytest.raises(Refused):
        add_task(queue, "new", "review", ref, after)
    assert snapshot(queue) == before and failures(queue) == []


@pytest.mark.parametrize("bad", BAD_NAMES, ids=sort_of)
def test_bad_names_raise_in_every_task_function_and_write_nothing(queue, bad):
    claim(queue, "ann", "build")
    before = snapshot(queue)
    calls = [
        lambda: add_task(queue, bad, "review"),
        lambda: add_task(queue, "new", bad),
        lambda: claim(queue, bad, "review"),
        lambda: claim(queue, "ann", bad),
        lambda: complete(queue, bad, "b1"),
        lambda: complete(queue, "ann", bad),
        lambda: release(queue, bad, "b1"),
        lambda: release(queue, "ann", bad),
        lambda: task(queue, bad),
    ]
    for call in calls:
        with pytest.raises(Refused, match="must be text"):
            call()
    assert snapshot(queue) == before and failures(queue) == []


def test_two_hundred_earlier_tasks_are_the_limit(graph):
    for number in range(200):
        add_task(graph, f"t{number}", "step")
    assert add_task(graph, "last", "step", after=[f"t{number}" for number in range(200)]) is True
    assert len(task(graph, "last")["after"]) == 200


# claim()


def test_claim_gives_the_oldest_free_task_by_created_at_then_id(queue):
    make_older(queue, "r3")
    taken = claim(queue, "ann", "review")
    assert taken == {"id": "r3", "kind": "review", "ref": None, "until": None}
    assert claim(queue, "bob", "review") == {"id": "r1", "kind": "review", "ref": "d1", "until": None}
    assert claim(queue, "bob", "review") is None  # r2 waits for r1
    before = snapshot(queue)
    assert claim(queue, "bob", "nothing-here") is None
    assert snapshot(queue) == before


def test_ties_of_created_at_go_by_id(graph):
    for task_id in ("c", "a", "b"):
        add_task(graph, task_id, "job")
    graph.query("MATCH (t:Task) SET t.created_at = localdatetime('2026-01-01T00:00:00')")
    assert [claim(graph, "ann", "job")["id"] for _ in range(3)] == ["a", "b", "c"]


def test_claim_sets_the_lease_and_keeps_an_edge(queue):
    began = datetime.now(UTC).replace(microsecond=0)
    taken = claim(queue, "ann", "build", lease=60)
    assert taken["id"] == "b1" and began + timedelta(seconds=60) <= taken["until"] <= began + timedelta(
        seconds=62
    )
    found = task(queue, "b1")
    assert (found["state"], found["owner"], found["until"]) == ("claimed", "ann", taken["until"])
    assert [one["agent"] for one in found["claims"]] == ["ann"] and found["claims"][0]["until"] == taken[
        "until"
    ]


@pytest.mark.parametrize("lease", [0, -1, MAX_LEASE + 1, 1.5, "60", True])
def test_a_lease_out_of_range_raises_naming_the_lease(queue, lease):
    before = snapshot(queue)
    with pytest.raises(Refused, match="lease"):
        claim(queue, "ann", "build", lease)
    assert snapshot(queue) == before


def test_leases_from_one_second_to_seven_days(queue):
    for kind, lease in (("build", 1), ("review", MAX_LEASE)):
        asked = datetime.now(UTC)
        until = claim(queue, "ann", kind, lease)["until"]
        # Times are kept to the second: the lease ends lease seconds after the claim, within a second.
        assert timedelta(seconds=lease - 1) <= until - asked <= timedelta(seconds=lease + 1)


def test_a_task_waits_until_every_task_before_it_is_done(queue):
    add_task(queue, "r4", "review", after=["r1", "r3"])
    seen = []
    while (taken := claim(queue, "ann", "review")) is not None:
        seen.append(taken["id"])
        assert complete(queue, "ann", taken["id"]) is True
    assert seen == ["r1", "r3", "r2", "r4"] or seen == ["r1", "r2", "r3", "r4"]
    assert all(task(queue, one)["state"] == "done" for one in seen)
    assert add_task(queue, "r5", "review", after=["r4"]) and claim(queue, "ann", "review")["id"] == "r5"


def test_a_claim_without_a_lease_never_runs_out(queue):
    claim(queue, "ann", "build")
    assert claim(queue, "bob", "build") is None and complete(queue, "ann", "b1") is True


def test_a_claim_that_ran_out_is_free_and_its_owner_keeps_it_until_then(queue):
    claim(queue, "ann", "build", lease=60)
    assert claim(queue, "bob", "build") is None
    run_out(queue, "b1")
    assert complete(queue, "ann", "b1") is True  # no one claimed it since
    add_task(queue, "b2", "build")
    claim(queue, "ann", "build", lease=60)
    run_out(queue, "b2")
    assert claim(queue, "bob", "build")["id"] == "b2"
    assert complete(queue, "ann", "b2") is False and release(queue, "ann", "b2") is False
    assert complete(queue, "bob", "b2") is True
    assert [one["agent"] for one in task(queue, "b2")["claims"]] == ["ann", "bob"]


# complete(), release()


def test_only_the_owner_completes_once(queue):
    claim(queue, "ann", "build")
    assert complete(queue, "bob", "b1") is False
    assert complete(queue, "ann", "b1") is True
    assert complete(queue, "ann", "b1") is False  # done
    assert complete(queue, "ann", "r1") is False  # not claimed
    assert complete(queue, "ann", "nothing") is False
    found = task(queue, "b1")
    assert found["state"] == "done" and found["owner"] == "ann" and "done_at" in found


def test_release_gives_the_task_back_for_its_owner_only(queue):
    claim(queue, "ann", "build", lease=60)
    assert release(queue, "bob", "b1") is False
    assert release(queue, "ann", "b1") is True
    found = task(queue, "b1")
    assert found["state"] == "open" and "owner" not in found and "until" not in found
    assert release(queue, "ann", "b1") is False and complete(queue, "ann", "b1") is False
    assert claim(queue, "bob", "build")["id"] == "b1" and complete(queue, "bob", "b1") is True
    assert release(queue, "bob", "b1") is False and release(queue, "ann", "nothing") is False


def test_each_task_write_is_one_query_and_a_server_error_propagates(queue):
    counted = CountingGraph(queue)
    assert add_task(counted, "new", "build", "d1", after=["r1", "r3"]) is True
    assert claim(counted, "ann", "build", 60)["id"] == "b1"
    assert release(counted, "ann", "b1") is True
    assert claim(counted, "ann", "build")["id"] == "b1"
    assert complete(counted, "ann", "b1") is True
    assert len(counted.sent) == 5
    before = snapshot(queue)
    calls = [
        lambda failing: add_task(failing, "other", "build"),
        lambda failing: claim(failing, "ann", "review"),
        lambda failing: complete(failing, "ann", "b1"),
        lambda failing: release(failing, "ann", "b1"),
    ]
    for call in calls:
        with pytest.raises(ResponseError):
            call(FailingOnce(queue))
    assert snapshot(queue) == before


# tasks()


def test_tasks_filters_by_kind_and_state_in_claim_order(queue):
    make_older(queue, "r3")
    claim(queue, "ann", "review")
    assert [one["id"] for one in tasks(queue)] == ["r3", "b1", "r1", "r2"]
    assert [one["id"] for one in tasks(queue, kind="review", state="open")] == ["r1", "r2"]
    assert [one["id"] for one in tasks(queue, state="claimed")] == ["r3"]
    assert [one["id"] for one in tasks(queue, limit=1)] == ["r3"]
    for arguments in (
        {"state": "lost"},
        {"kind": ""},
        {"limit": 0},
        {"limit": 1001},
        {"state": HostileText("open")},
    ):
        with pytest.raises(Refused):
            tasks(queue, **arguments)


def test_reading_a_graph_that_does_not_exist_gives_nothing(graph):
    assert tasks(graph) == [] and task(graph, "t") is None
    assert read(graph, "MATCH (n) RETURN count(n)") == []


def test_eight_agents_never_share_a_task_and_finish_all_of_them(graph, db):
    for number in range(120):
        # the second half comes after the first: order holds while agents race
        add_task(
            graph,
            f"job{number:03d}",
            "batch",
            number,
            after=[f"job{number - 60:03d}"] if number >= 60 else [],
        )
    taken: dict[int, list[str]] = {}

    def agent(number: int, own) -> None:
        mine = taken.setdefault(number, [])
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            got = claim(own, f"agent{number}", "batch", lease=600)
            if got is None:
                if len(tasks(own, kind="batch", state="done", limit=1000)) == 120:
                    return
                time.sleep(0.01)  # the rest wait on tasks that others hold
                continue
            mine.append(got["id"])
            assert complete(own, f"agent{number}", got["id"]) is True

    at_once(db, graph, agent)
    every = [one for mine in taken.values() for one in mine]
    assert len(every) == 120 and len(set(every)) == 120
    listed = {one["id"]: one for one in tasks(graph, limit=1000)}
    assert all(one["state"] == "done" and len(one["claims"]) == 1 for one in listed.values())
    for one in listed.values():
        for earlier in one["after"]:
            assert one["claims"][0]["at"] >= listed[earlier]["done_at"]
