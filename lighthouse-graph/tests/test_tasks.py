"""Tasks: order by AFTER, the oldest free task first, leases that run out, owners, and hostile input."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from graph_contents import snapshot
from lighthouse import clock, ensure_schema
from lighthouse.graphs import read
from lighthouse.tasks import add_task, claim, complete, release, task, tasks
from lighthouse.values import MAX_LEASE, Refused
from lighthouse.write.failures import failures
from racing import at_once

WEEK = 7 * 24 * 3600


@pytest.fixture
def queue(graph):
    ensure_schema(graph, [])
    return graph


@pytest.fixture
def seeded(queue):
    """Two tasks of kind "work": "first" claimed by ann, "second" after it and open."""
    assert add_task(queue, "first", "work", "planner", values={"n": 1})["status"] == "added"
    assert add_task(queue, "second", "work", "planner", after=["first"])["status"] == "added"
    assert claim(queue, "work", "ann")["id"] == "first"
    return queue


def failure_rows(graph) -> list:
    return read(graph, "MATCH (f:WriteFailure) RETURN f.reason, f.times, f.kind, f.fingerprint")


def assert_refused_once(graph, call, status: str) -> dict:
    """The call is refused with status, leaves exactly one new WriteFailure, and changes nothing else."""
    before, failed_before = snapshot(graph), failure_rows(graph)
    receipt = call(graph)
    assert receipt["status"] == status, receipt
    assert isinstance(receipt["reason"], str) and receipt["reason"]
    assert snapshot(graph) == before
    after = failure_rows(graph)
    known = {row[3] for row in failed_before}
    assert sorted(failed_before) == sorted(row for row in after if row[3] in known)
    assert [row[:3] for row in after if row[3] not in known] == [[status, 1, "Task"]]
    return receipt


def states(graph) -> dict:
    return {one["id"]: one["state"] for one in tasks(graph)}


# --- add_task -------------------------------------------------------------------------------------------


def test_add_task_stores_an_open_task_with_its_values_and_order(queue):
    values = {"text": "check d1", "hours": 6, "ratio": 0.5, "urgent": True, "rooms": ["r1", "r2"]}
    assert add_task(queue, "t1", "review", "planner", values=values) == {"id": "t1", "status": "added"}
    assert add_task(queue, "t2", "review", "planner", after=["t1"]) == {"id": "t2", "status": "added"}
    first, second = tasks(queue)
    assert first["id"] == "t1" and first["state"] == "open" and first["kind"] == "review"
    assert first["values"] == values
    assert first["by"] == "planner" and first["owner"] is None and first["claims"] == []
    assert abs(first["created_at"] - clock.now()) <= timedelta(seconds=5)
    assert second["after"] == ["t1"] and second["values"] == {}
    assert first["serial"] < second["serial"]


def test_the_same_task_again_is_unchanged_and_other_content_is_a_conflict(queue):
    add_task(queue, "a", "review", "planner")
    add_task(queue, "b", "review", "planner", after=["a"], values={"x": 1})
    assert (
        add_task(queue, "b", "review", "planner", after=["a", "a"], values={"x": 1})["status"] == "unchanged"
    )
    # who sends it is not content: another agent repeating the task changes nothing
    assert add_task(queue, "b", "review", "someone", after=["a"], values={"x": 1})["status"] == "unchanged"
    for change in (
        {"kind": "other", "after": ["a"], "values": {"x": 1}},
        {"kind": "review", "after": [], "values": {"x": 1}},
        {"kind": "review", "after": ["a"], "values": {"x": 2}},
        {"kind": "review", "after": ["a"], "values": None},
    ):
        assert_refused_once(
            queue,
            lambda g, c=change: add_task(g, "b", c["kind"], "planner", after=c["after"], values=c["values"]),
            "conflict",
        )
    assert [one["id"] for one in tasks(queue)] == ["a", "b"]
    assert task(queue, "b")["values"] == {"x": 1}


def test_a_task_can_only_come_after_tasks_that_exist(queue):
    add_task(queue, "a", "review", "planner")
    receipt = assert_refused_once(
        queue, lambda g: add_task(g, "b", "review", "planner", after=["a", "ghost"]), "missing"
    )
    assert "ghost" in receipt["reason"] and "'a'" not in receipt["reason"]
    assert task(queue, "b") is None
    # once the earlier task exists, the same call goes in
    add_task(queue, "ghost", "review", "planner")
    assert add_task(queue, "b", "review", "planner", after=["a", "ghost"])["status"] == "added"
    assert task(queue, "b")["after"] == ["a", "ghost"]


def test_a_task_cannot_come_after_itself(queue):
    assert_refused_once(queue, lambda g: add_task(g, "a", "review", "planner", after=["a"]), "invalid")
    assert tasks(queue) == []


def test_add_task_needs_the_stamp_of_ensure_schema(graph):
    receipt = add_task(graph, "a", "review", "planner")
    assert receipt["status"] == "invalid" and "ensure_schema" in receipt["reason"]
    assert tasks(graph) == []
    assert [row[0] for row in failure_rows(graph)] == ["invalid"]


def test_serials_follow_the_order_tasks_were_added(queue):
    for number in range(30):
        add_task(queue, f"t{number:02d}", "review", "planner")
    listed = tasks(queue)
    assert [one["id"] for one in listed] == [f"t{number:02d}" for number in range(30)]
    serials = [one["serial"] for one in listed]
    assert serials == sorted(serials) and len(set(serials)) == 30


def test_two_hundred_earlier_tasks_are_the_limit(queue):
    names = [f"e{number}" for number in range(201)]
    for name in names:
        add_task(queue, name, "prep", "planner")
    assert add_task(queue, "last", "review", "planner", after=names[:200])["status"] == "added"
    assert len(task(queue, "last")["after"]) == 200
    assert_refused_once(queue, lambda g: add_task(g, "over", "review", "planner", after=names), "invalid")


# --- claim: order -------------------------------------------------------------------------------------


def test_claim_gives_the_oldest_free_task_of_its_kind(queue):
    for name, kind in (("r1", "review"), ("w1", "write"), ("r2", "review"), ("r3", "review")):
        add_task(queue, name, kind, "planner", values={"name": name})
    got = [claim(queue, "review", "ann")["id"] for _ in range(3)]
    assert got == ["r1", "r2", "r3"]
    assert claim(queue, "review", "ann") is None
    taken = claim(queue, "write", "bob", lease=60)
    assert taken["id"] == "w1" and taken["values"] == {"name": "w1"} and taken["status"] == "claimed"
    assert taken["owner"] == "bob" and taken["state"] == "claimed"
    assert claim(queue, "nothing-here", "bob") is None


def test_the_oldest_is_the_first_added_wherever_the_database_put_it(queue):
    # Deleted nodes (a forgotten session, say) leave internal ids that new nodes reuse, last freed first.
    queue.query("UNWIND range(1, 10) AS i CREATE (:Scratch {i: i})")
    queue.query("MATCH (n:Scratch) DELETE n")
    for number in range(10):
        add_task(queue, f"t{number}", "review", "planner")
    assert [claim(queue, "review", "ann")["id"] for _ in range(10)] == [f"t{number}" for number in range(10)]


def test_claim_sets_the_lease_and_keeps_an_edge(queue):
    add_task(queue, "a", "review", "planner")
    taken = claim(queue, "review", "ann", lease=90)
    assert abs(taken["lease_until"] - (clock.now() + timedelta(seconds=90))) <= timedelta(seconds=5)
    (only,) = task(queue, "a")["claims"]
    assert only["agent"] == "ann" and only["until"] - only["at"] == timedelta(seconds=90)
    assert only["until"] == taken["lease_until"]
    edge = read(queue, "MATCH (:Task {id: 'a'})-[c:CLAIMED_BY]->(g:Agent) RETURN g.name, c.n")
    assert edge == [["ann", 1]]


def test_a_task_waits_while_one_before_it_is_open_or_claimed(queue):
    add_task(queue, "a", "prep", "planner")
    add_task(queue, "b", "review", "planner", after=["a"])
    add_task(queue, "c", "review", "planner", after=["a", "b"])
    add_task(queue, "d", "review", "planner")
    # a is open: b and c wait, d (added later) is the oldest free review
    assert claim(queue, "review", "ann")["id"] == "d"
    assert claim(queue, "review", "ann") is None
    assert claim(queue, "prep", "bob")["id"] == "a"
    assert claim(queue, "review", "ann") is None  # a is claimed: still waiting
    assert complete(queue, "a", "bob")["status"] == "done"
    assert claim(queue, "review", "ann")["id"] == "b"
    assert claim(queue, "review", "cat") is None  # c waits on b, which is claimed
    assert release(queue, "b", "ann")["status"] == "released"
    assert claim(queue, "review", "cat")["id"] == "b"  # b is open again and older than c
    assert complete(queue, "b", "cat")["status"] == "done"
    assert claim(queue, "review", "cat")["id"] == "c"  # free once all before it are done


def test_done_tasks_are_never_claimed_again(queue):
    add_task(queue, "a", "review", "planner")
    claim(queue, "review", "ann", lease=1)
    complete(queue, "a", "ann")
    assert claim(queue, "review", "bob") is None
    assert states(queue) == {"a": "done"}


# --- leases ---------------------------------------------------------------------------------------------


def test_a_claim_that_ran_out_is_free_and_its_first_owner_keeps_it_until_then(queue):
    add_task(queue, "x", "review", "planner")
    add_task(queue, "y", "review", "planner")
    add_task(queue, "z", "review", "planner")
    assert claim(queue, "review", "ann", lease=1)["id"] == "x"
    assert claim(queue, "review", "ann", lease=1)["id"] == "y"
    assert claim(queue, "review", "cat", lease=600)["id"] == "z"
    assert claim(queue, "review", "bob") is None  # leases still hold
    time.sleep(2.1)
    assert claim(queue, "review", "bob", lease=600)["id"] == "x"  # the oldest whose lease ran out
    # nobody claimed y since its lease ran out: ann can still complete it
    assert complete(queue, "y", "ann")["status"] == "done"
    # bob claimed x: ann can no longer complete or release it
    assert_refused_once(queue, lambda g: complete(g, "x", "ann"), "conflict")
    assert_refused_once(queue, lambda g: release(g, "x", "ann"), "conflict")
    assert claim(queue, "review", "dan") is None  # z still holds its long lease
    assert complete(queue, "x", "bob", result={"ok": True})["status"] == "done"
    x = task(queue, "x")
    assert [one["agent"] for one in x["claims"]] == ["ann", "bob"]  # every claim stays
    assert x["owner"] == "bob" and x["result"] == {"ok": True}
    assert x["claims"][0]["done_at"] is None and x["claims"][1]["done_at"] == x["done_at"]


def test_leases_from_one_second_to_seven_days(queue):
    add_task(queue, "a", "review", "planner")
    add_task(queue, "b", "review", "planner")
    assert MAX_LEASE == WEEK
    long = claim(queue, "review", "ann", lease=WEEK)
    assert abs(long["lease_until"] - (clock.now() + timedelta(days=7))) <= timedelta(seconds=5)
    short = claim(queue, "review", "ann", lease=1)
    assert short["id"] == "b"
    for lease in (0, -1, WEEK + 1, 1.5, "60", True, None, 10**30):
        assert_refused_once(queue, lambda g, s=lease: claim(g, "review", "bob", lease=s), "invalid")


# --- complete and release -------------------------------------------------------------------------------


def test_only_the_owner_completes_and_twice_is_unchanged(seeded):
    assert_refused_once(seeded, lambda g: complete(g, "first", "bob"), "conflict")
    assert complete(seeded, "first", "ann", result={"answer": "fine", "score": 3}) == {
        "id": "first",
        "status": "done",
    }
    assert complete(seeded, "first", "ann", result={"answer": "fine", "score": 3})["status"] == "unchanged"
    assert_refused_once(seeded, lambda g: complete(g, "first", "ann", result={"answer": "other"}), "conflict")
    assert_refused_once(seeded, lambda g: complete(g, "first", "cat"), "conflict")
    done = task(seeded, "first")
    assert done["state"] == "done" and done["owner"] == "ann"
    assert done["result"] == {"answer": "fine", "score": 3}
    assert abs(done["done_at"] - clock.now()) <= timedelta(seconds=5)


def test_complete_refuses_a_task_that_is_not_claimed_or_does_not_exist(seeded):
    assert_refused_once(seeded, lambda g: complete(g, "second", "ann"), "conflict")
    assert_refused_once(seeded, lambda g: complete(g, "ghost", "ann"), "unknown")


def test_release_gives_the_task_back_for_its_owner_only(seeded):
    assert_refused_once(seeded, lambda g: release(g, "first", "cat"), "conflict")
    assert release(seeded, "first", "ann") == {"id": "first", "status": "released"}
    assert release(seeded, "first", "ann")["status"] == "unchanged"
    released = task(seeded, "first")
    assert released["state"] == "open" and released["owner"] is None and released["lease_until"] is None
    assert released["claims"][0]["released_at"] is not None
    # a released task is no longer the releaser's to complete
    assert_refused_once(seeded, lambda g: complete(g, "first", "ann"), "conflict")
    assert claim(seeded, "work", "bob")["id"] == "first"
    assert [one["agent"] for one in task(seeded, "first")["claims"]] == ["ann", "bob"]
    assert_refused_once(seeded, lambda g: release(g, "first", "ann"), "conflict")
    assert_refused_once(seeded, lambda g: release(g, "second", "ann"), "conflict")
    assert_refused_once(seeded, lambda g: release(g, "ghost", "ann"), "unknown")
    complete(seeded, "first", "bob")
    assert_refused_once(seeded, lambda g: release(g, "first", "bob"), "conflict")


def test_the_same_refusal_again_is_counted_on_the_same_failure(seeded):
    complete(seeded, "first", "bob")
    complete(seeded, "first", "bob")
    assert [row[:3] for row in failure_rows(seeded)] == [["conflict", 2, "Task"]]
    assert failures(seeded, kind="Task")[0]["by"] == "bob"


# --- reading ----------------------------------------------------------------------------------------------


def test_tasks_filters_by_kind_and_state(seeded):
    add_task(seeded, "other", "review", "planner")
    assert [one["id"] for one in tasks(seeded, kind="work")] == ["first", "second"]
    assert [one["id"] for one in tasks(seeded, state="open")] == ["second", "other"]
    assert [one["id"] for one in tasks(seeded, kind="work", state="claimed")] == ["first"]
    assert tasks(seeded, kind="review", state="done") == []
    assert [one["id"] for one in tasks(seeded, limit=1)] == ["first"]
    assert task(seeded, "nope") is None


@pytest.mark.parametrize(
    "arguments",
    [
        {"kind": ""},
        {"kind": 5},
        {"state": "lost"},
        {"state": ["open"]},
        {"limit": 0},
        {"limit": 1001},
        {"limit": True},
    ],
)
def test_tasks_refuses_arguments_it_cannot_use_and_writes_nothing(seeded, arguments):
    before = snapshot(seeded), failure_rows(seeded)
    with pytest.raises(Refused):
        tasks(seeded, **arguments)
    assert (snapshot(seeded), failure_rows(seeded)) == before


def test_reading_a_graph_that_does_not_exist_gives_nothing(graph):
    assert tasks(graph) == [] and task(graph, "a") is None


# --- round trips --------------------------------------------------------------------------------------


class CountedGraph:
    """The real graph, with its calls counted: how many round trips a function makes."""

    def __init__(self, graph) -> None:
        self.graph, self.calls = graph, 0

    def query(self, *args, **kwargs):
        self.calls += 1
        return self.graph.query(*args, **kwargs)

    def ro_query(self, *args, **kwargs):
        self.calls += 1
        return self.graph.ro_query(*args, **kwargs)


def test_claim_is_one_query_and_claim_then_complete_two(queue):
    add_task(queue, "a", "review", "planner", after=[])
    counted = CountedGraph(queue)
    assert claim(counted, "review", "ann")["id"] == "a"
    assert counted.calls == 1
    assert complete(counted, "a", "ann", result={"ok": True})["status"] == "done"
    assert counted.calls == 2
    assert claim(counted, "review", "ann") is None
    assert counted.calls == 3


# --- many agents ------------------------------------------------------------------------------------------


def test_eight_agents_never_share_a_task_and_finish_all_of_them(queue, db):
    for number in range(200):
        # the second hundred comes after the first: order holds while agents race
        after = [f"job{number - 100:03d}"] if number >= 100 else []
        add_task(queue, f"job{number:03d}", "batch", "planner", after=after, values={"n": number})
    taken: dict[str, list[str]] = {}
    errors: list[object] = []

    def agent(number: int, own) -> None:
        name = f"agent{number}"
        mine = taken.setdefault(name, [])
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            got = claim(own, "batch", name, lease=600)
            if got is None:
                if len(tasks(own, kind="batch", state="done", limit=1000)) == 200:
                    return
                time.sleep(0.01)  # the rest wait on tasks that others hold
                continue
            mine.append(got["id"])
            receipt = complete(own, got["id"], name, result={"by_agent": name})
            if receipt["status"] != "done":
                errors.append(receipt)
        errors.append(f"{name} ran out of time")

    at_once(db, queue, agent)
    assert errors == []
    every = [one for mine in taken.values() for one in mine]
    assert len(every) == 200 and len(set(every)) == 200
    listed = {one["id"]: one for one in tasks(queue, limit=1000)}
    assert all(one["state"] == "done" and len(one["claims"]) == 1 for one in listed.values())
    for name, mine in taken.items():
        assert all(listed[one]["owner"] == name == listed[one]["result"]["by_agent"] for one in mine)
    for one in listed.values():
        for earlier in one["after"]:
            assert one["claims"][0]["at"] >= listed[earlier]["done_at"]
    assert sum(1 for mine in taken.values() if mine) >= 2  # the agents did share the work


# --- hostile input ----------------------------------------------------------------------------------------

HOSTILE_NAMES = [
    None,
    "",
    " padded",
    "x" * 201,
    "nul\x00byte",
    "line\nbreak",
    "\ud800",
    5,
    3.5,
    True,
    ["first"],
    {"$ne": 1},
    b"first",
]
BIG = "x" * 100_001
TOO_MANY = {f"v{number}": number for number in range(201)}
WHOLE_TOO_BIG = {"a": "x" * 90_000, "b": "x" * 90_000, "c": "x" * 30_000}

ADD_ATTACKS = (
    [(f"id {bad!r:.30}", {"id": bad}) for bad in HOSTILE_NAMES]
    + [(f"kind {bad!r:.30}", {"kind": bad}) for bad in HOSTILE_NAMES]
    + [(f"by {bad!r:.30}", {"by": bad}) for bad in HOSTILE_NAMES]
    + [(f"after {bad!r:.30}", {"after": [bad]}) for bad in HOSTILE_NAMES]
    + [
        ("after not a list", {"after": "first"}),
        ("after a dict", {"after": {"first": 1}}),
        ("after 201", {"after": [f"t{number}" for number in range(201)]}),
        ("values not a dict", {"values": ["a"]}),
        ("values owned by the task", {"values": {"state": "done"}}),
        ("values owner", {"values": {"owner": "mallory"}}),
        ("values serial", {"values": {"serial": 0}}),
        ("values pending", {"values": {"pending": "work"}}),
        ("values owned by the library", {"values": {"kind": "x"}}),
        ("values a bad name", {"values": {"a b": 1}}),
        ("values an injected name", {"values": {"x`}) DETACH DELETE (n": 1}}),
        ("values a map", {"values": {"m": {"a": 1}}}),
        ("values None", {"values": {"m": None}}),
        ("values NaN", {"values": {"m": float("nan")}}),
        ("values huge int", {"values": {"m": 2**64}}),
        ("values a long text", {"values": {"m": BIG}}),
        ("values 201", {"values": TOO_MANY}),
        ("values a long list", {"values": {"m": list(range(1001))}}),
        ("values too big together", {"values": WHOLE_TOO_BIG}),
    ]
)


@pytest.mark.parametrize("change", [case for _, case in ADD_ATTACKS], ids=[name for name, _ in ADD_ATTACKS])
def test_add_task_refuses_hostile_input(seeded, change):
    call = {"id": "new", "kind": "work", "by": "planner", "after": None, "values": None, **change}
    receipt = assert_refused_once(
        seeded,
        lambda g: add_task(
            g, call["id"], call["kind"], call["by"], after=call["after"], values=call["values"]
        ),
        "invalid",
    )
    assert receipt["id"] is call["id"]


def test_add_task_refuses_earlier_tasks_that_do_not_exist_with_hostile_names(seeded):
    for ghost in ("ghost", "x'}) MATCH (n) DETACH DELETE n //", "Ω" * 200):
        assert_refused_once(
            seeded, lambda g, a=ghost: add_task(g, "new", "work", "planner", after=[a]), "missing"
        )


def test_names_that_look_like_queries_are_stored_as_given(queue):
    odd = "x'}) MATCH (n) DETACH DELETE n //"
    assert add_task(queue, odd, "work", "p$by", values={"text": "$id {}"})["status"] == "added"
    assert add_task(queue, "Ω" * 200, odd, "planner", after=[odd])["status"] == "added"
    assert claim(queue, "work", "änn $agent")["id"] == odd
    assert complete(queue, odd, "änn $agent")["status"] == "done"
    assert claim(queue, odd, "bob")["id"] == "Ω" * 200
    assert [one["id"] for one in tasks(queue)] == [odd, "Ω" * 200]
    assert task(queue, odd)["values"] == {"text": "$id {}"} and task(queue, odd)["by"] == "p$by"


CLAIM_ATTACKS = (
    [(f"kind {bad!r:.30}", {"kind": bad}) for bad in HOSTILE_NAMES]
    + [(f"agent {bad!r:.30}", {"agent": bad}) for bad in HOSTILE_NAMES]
    + [(f"lease {bad!r:.30}", {"lease": bad}) for bad in (0, -5, WEEK + 1, 2.0, "30", False, None, [30])]
)


@pytest.mark.parametrize(
    "change", [case for _, case in CLAIM_ATTACKS], ids=[name for name, _ in CLAIM_ATTACKS]
)
def test_claim_refuses_hostile_input(seeded, change):
    release(seeded, "first", "ann")  # a free task, so a claim that got through would change something
    call = {"kind": "work", "agent": "bob", "lease": 60, **change}
    receipt = assert_refused_once(
        seeded, lambda g: claim(g, call["kind"], call["agent"], lease=call["lease"]), "invalid"
    )
    assert receipt["id"] is None


COMPLETE_ATTACKS = (
    [(f"id {bad!r:.30}", {"id": bad}) for bad in HOSTILE_NAMES]
    + [(f"agent {bad!r:.30}", {"agent": bad}) for bad in HOSTILE_NAMES]
    + [
        ("result not a dict", {"result": "ok"}),
        ("result owned by the claim", {"result": {"at": 1}}),
        ("result n", {"result": {"n": 1}}),
        ("result done_at", {"result": {"done_at": "now"}}),
        ("result owned by the library", {"result": {"by": "x"}}),
        ("result a map", {"result": {"m": {"a": 1}}}),
        ("result a long text", {"result": {"m": BIG}}),
        ("result 201", {"result": TOO_MANY}),
        ("result too big together", {"result": WHOLE_TOO_BIG}),
    ]
)


@pytest.mark.parametrize(
    "change", [case for _, case in COMPLETE_ATTACKS], ids=[name for name, _ in COMPLETE_ATTACKS]
)
def test_complete_refuses_hostile_input(seeded, change):
    call = {"id": "first", "agent": "ann", "result": None, **change}
    assert_refused_once(
        seeded, lambda g: complete(g, call["id"], call["agent"], result=call["result"]), "invalid"
    )
    assert task(seeded, "first")["state"] == "claimed"


RELEASE_ATTACKS = [(f"id {bad!r:.30}", {"id": bad}) for bad in HOSTILE_NAMES] + [
    (f"agent {bad!r:.30}", {"agent": bad}) for bad in HOSTILE_NAMES
]


@pytest.mark.parametrize(
    "change", [case for _, case in RELEASE_ATTACKS], ids=[name for name, _ in RELEASE_ATTACKS]
)
def test_release_refuses_hostile_input(seeded, change):
    call = {"id": "first", "agent": "ann", **change}
    assert_refused_once(seeded, lambda g: release(g, call["id"], call["agent"]), "invalid")
    assert task(seeded, "first")["owner"] == "ann"


def test_a_refused_write_keeps_at_most_two_thousand_characters(queue):
    add_task(queue, "a", "work", "planner", values={"m": BIG})
    (stored,) = failures(queue, kind="Task")
    assert stored["reason"] == "invalid" and len(stored["content"]) <= 2000


# --- floats -----------------------------------------------------------------------------------------------

LARGEST = 1.7976931348623157e308  # reads back from FalkorDB 4.22 as infinity


def test_a_float_is_stored_as_it_reads_back_so_the_same_task_again_is_unchanged(queue):
    values = {"ratio": 0.1 + 0.2, "thirds": [1 / 3, 2 / 3], "big": 123456789.123456789}
    assert add_task(queue, "t", "review", "planner", values=values)["status"] == "added"
    stored = task(queue, "t")["values"]
    assert stored == {"ratio": 0.3, "thirds": [0.333333333333333, 0.666666666666667], "big": 123456789.123457}
    assert add_task(queue, "t", "review", "planner", values=values)["status"] == "unchanged"
    assert add_task(queue, "t", "review", "planner", values=stored)["status"] == "unchanged"
    # the stored value is the one a query compares: a query for 0.3 finds the task
    assert read(queue, "MATCH (t:Task) WHERE t.ratio = $x RETURN t.id", {"x": 0.3}) == [["t"]]


def test_the_same_values_of_another_type_are_a_conflict(queue):
    assert add_task(queue, "t", "review", "planner", values={"n": 1, "flag": True})["status"] == "added"
    for other in ({"n": 1.0, "flag": True}, {"n": True, "flag": True}, {"n": 1, "flag": 1}):
        assert_refused_once(
            queue, lambda g, given=other: add_task(g, "t", "review", "planner", values=given), "conflict"
        )
    assert add_task(queue, "t", "review", "planner", values={"n": 1, "flag": True})["status"] == "unchanged"


def test_a_float_result_again_is_unchanged(seeded):
    result = {"score": 0.1 + 0.2, "ratios": [1 / 3]}
    assert complete(seeded, "first", "ann", result=result)["status"] == "done"
    assert task(seeded, "first")["result"] == {"score": 0.3, "ratios": [0.333333333333333]}
    assert complete(seeded, "first", "ann", result=result)["status"] == "unchanged"
    assert complete(seeded, "first", "ann", result={"score": 0.3, "ratios": [1 / 3]})["status"] == "unchanged"
    assert_refused_once(
        seeded, lambda g: complete(g, "first", "ann", result={"score": 0.3, "ratios": [1]}), "conflict"
    )


@pytest.mark.parametrize("huge", [LARGEST, -LARGEST, [1.0, LARGEST]])
def test_a_float_that_would_read_back_as_infinity_is_refused(queue, huge):
    assert_refused_once(queue, lambda g: add_task(g, "t", "review", "planner", values={"m": huge}), "invalid")
    assert add_task(queue, "t", "review", "planner", values={"m": 1.79769313486231e308})["status"] == "added"
    assert task(queue, "t")["values"] == {"m": 1.79769313486231e308}
