"""Lessons: learned from ended episodes only, every count changed once with its edge, ranked by weight."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from devices import DEVICE, KINDS, ROOM
from graph_contents import snapshot
from hostile import HostileList, HostileMap, HostileNumber, HostileText
from lighthouse import close_episode, ensure_schema, open_episode, remember
from lighthouse.errors import Refused, WrongType
from lighthouse.graphs import read
from lighthouse.lessons import RESERVED, learn, lesson, lessons_about, retire, used, weigh
from racing import at_once

STATEMENT = "A hot device in room r2 did not fail."
STORED = {"id", "statement", "by", "at", "recorded_at", "touched_at", "support", "against", "used"}
STORED |= {"helped", "failed", "weight", "supported_by", "contradicted_by", "about"}


class Counting:
    """A falkordb Graph that counts the queries sent through it (and sends each to the real one)."""

    def __init__(self, graph) -> None:
        self.graph, self.sent = graph, 0

    def query(self, *args, **kwargs):
        self.sent += 1
        return self.graph.query(*args, **kwargs)

    def ro_query(self, *args, **kwargs):
        self.sent += 1
        return self.graph.ro_query(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.graph, name)


def ended(graph, name: str) -> str:
    assert open_episode(graph, name, by="watcher", about=[(DEVICE, "d1")])["status"] == "opened"
    assert close_episode(graph, name, by="reviewer", outcome={"failed": False})["status"] == "recorded"
    return name


def kept(graph) -> list:
    """The WriteFailures: count and times in all."""
    found = read(graph, "MATCH (f:WriteFailure) RETURN count(f), sum(f.times)")
    return [found[0][0], found[0][1] or 0] if found else [0, 0]


def refused_once(graph, action, status: str = "invalid", reason: str | None = None) -> dict:
    """A write that must be refused: its receipt, the graph as it was, and one WriteFailure more."""
    before, failures = snapshot(graph), kept(graph)
    receipt = action()
    assert set(receipt) == {"id", "status", "reason"} and receipt["id"] is None, receipt
    assert receipt["status"] == status and isinstance(receipt["reason"], str) and receipt["reason"]
    assert reason is None or receipt["reason"] == reason
    assert snapshot(graph) == before
    assert kept(graph) == [failures[0] + 1, failures[1] + 1]
    return receipt


def raises_and_keeps_nothing(graph, action, error=Refused, match: str = "must be text") -> None:
    before, failures = snapshot(graph), kept(graph)
    with pytest.raises(error, match=match):
        action()
    assert snapshot(graph) == before and kept(graph) == failures


@pytest.fixture
def world(graph):
    """d1 and d2, three episodes about d1 that ended (e1, e2, e3) and one still open (e-open)."""
    ensure_schema(graph, KINDS)
    rows = [
        {
            "key": "d1",
            "t": "2026-01-02T00:00:00Z",
            "values": {"status": "hot"},
            "relations": {"LOCATED_IN": "r2"},
        }
    ]
    rows.append({"key": "d2", "t": "2026-01-02T00:00:00Z", "values": {"status": "ok"}})
    remember(graph, DEVICE, by="inventory", rows=rows)
    for name in ("e1", "e2", "e3"):
        ended(graph, name)
    open_episode(graph, "e-open", by="watcher", about=[(DEVICE, "d1")])
    return graph


def counts(graph, lesson_id: str) -> tuple:
    found = lesson(graph, lesson_id)
    return (
        found["support"],
        found["against"],
        found["used"],
        found["helped"],
        found["failed"],
        found["weight"],
    )


def test_the_seed_example(graph):
    ensure_schema(graph, KINDS)
    remember(
        graph, DEVICE, by="inventory", rows=[{"key": "d1", "t": "2026-01-01T00:00:00Z", "values": {"s": 1}}]
    )
    ended(graph, "d1-overheat")
    receipt = learn(
        graph,
        "hot-in-r2",
        by="reviewer",
        statement=STATEMENT,
        supported_by=["d1-overheat"],
        about=[(DEVICE, "d1")],
    )
    assert receipt == {"id": "hot-in-r2", "status": "learned"}
    assert lessons_about(graph, DEVICE, "d1")[0]["weight"] == 1


# learn()


def test_learn_stores_the_statement_its_episodes_what_it_is_about_and_its_values(world):
    receipt = learn(
        world, "l1", "reviewer", STATEMENT, ["e2", "e1", "e2"], [(DEVICE, "d1")], {"kind": "k", "n": 2}
    )
    assert receipt == {"id": "l1", "status": "learned"}
    found = lesson(world, "l1")
    assert set(found) == STORED | {"kind", "n"}
    assert (found["id"], found["statement"], found["by"], found["kind"], found["n"]) == (
        "l1",
        STATEMENT,
        "reviewer",
        "k",
        2,
    )
    assert found["supported_by"] == ["e1", "e2"] and found["contradicted_by"] == []
    assert found["about"] == [("Device", "d1")]
    assert counts(world, "l1") == (2, 0, 0, 0, 0, 2) and type(found["weight"]) is int
    for moment in ("at", "recorded_at", "touched_at"):
        assert isinstance(found[moment], datetime) and found[moment].tzinfo is not None


def test_learn_takes_the_time_it_is_given(world):
    learn(world, "l1", "reviewer", STATEMENT, ["e1"], at="2026-03-04T05:06:07.9Z")
    found = lesson(world, "l1")
    assert found["at"] == found["touched_at"] == datetime(2026, 3, 4, 5, 6, 7, tzinfo=UTC)


def test_every_value_name_the_api_allows_is_stored_and_read_back(world):
    names = {"kind": "a", "rev": 1, "key": 2.5, "name": True, "enabled": [1, 2], "version": "v", "lh": "x"}
    assert (
        learn(world, "l1", "reviewer", STATEMENT, ["e1"], values={**names, "dropped": None})["status"]
        == "learned"
    )
    found = lesson(world, "l1")
    assert {name: found[name] for name in names} == names and "dropped" not in found


def test_learned_again_is_exists_and_changes_nothing(world):
    learn(world, "l1", "reviewer", STATEMENT, ["e1"])
    before = snapshot(world)
    assert learn(world, "l1", "other", "another statement", ["e2"]) == {"id": "l1", "status": "exists"}
    assert snapshot(world) == before


@pytest.mark.parametrize(
    "changes",
    [
        {"statement": ""},
        {"statement": "   "},
        {"statement": 5},
        {"statement": None},
        {"statement": "x" * 100_001},
        {"supported_by": []},
        {"supported_by": None},
        {"supported_by": "e1"},
        {"supported_by": [5]},
        {"supported_by": [""]},
        {"supported_by": [f"e{n}" for n in range(201)]},
        {"about": None},
        {"about": [("Episode", "e1")]},
        {"about": [("Device", "d1")]},  # API 1.2: an entity is named by its Kind, not its label as text
        {"about": [(DEVICE, "d1"), ["Device", "d1"]]},
        {"about": ["e1/1"]},
        {"about": [(DEVICE, 1.5)]},
        {"values": {"bad name": 1}},
        {"values": {"a": {"nested": 1}}},
        {"values": [("a", 1)]},
        {"at": "not a time"},
        {"at": 17},
        {"at": "2999-01-01T00:00:00Z"},
    ],
)
def test_bad_content_is_an_invalid_receipt_and_one_failure(world, changes):
    arguments = {"statement": STATEMENT, "supported_by": ["e1"], "about": [(DEVICE, "d1")], **changes}
    refused_once(world, lambda: learn(world, "l1", "reviewer", **arguments))
    assert lesson(world, "l1") is None


@pytest.mark.parametrize("name", sorted(RESERVED))
def test_a_reserved_value_name_is_refused(world, name):
    refused_once(world, lambda: learn(world, "l1", "reviewer", STATEMENT, ["e1"], values={name: 1}))


@pytest.mark.parametrize(
    ("supported_by", "about", "reason"),
    [
        (["e1", "nowhere"], [], "an episode it rests on does not exist or has not ended"),
        (["e1", "e-open"], [], "an episode it rests on does not exist or has not ended"),
        (["e1"], [(DEVICE, "d1"), (DEVICE, "nobody")], "something it refers to does not exist"),
    ],
)
def test_what_it_rests_on_or_is_about_must_exist(world, supported_by, about, reason):
    refused_once(
        world, lambda: learn(world, "l1", "reviewer", STATEMENT, supported_by, about), "missing", reason
    )


def test_an_entity_that_only_relations_point_at_can_be_what_it_is_about(world):
    assert learn(world, "l1", "reviewer", STATEMENT, ["e1"], [(ROOM, "r2")])["status"] == "learned"
    assert lesson(world, "l1")["about"] == [("Room", "r2")]


@pytest.mark.parametrize(
    "make",
    [
        lambda: "",
        lambda: " l1",
        lambda: "l1\n",
        lambda: 5,
        lambda: None,
        lambda: "x" * 201,
        lambda: HostileText("l1"),
    ],
)
def test_identity_that_is_not_a_name_raises_and_keeps_nothing(world, make):
    bad = make()
    raises_and_keeps_nothing(world, lambda: learn(world, bad, "reviewer", STATEMENT, ["e1"]))
    raises_and_keeps_nothing(world, lambda: learn(world, "l1", bad, STATEMENT, ["e1"]))
    learn(world, "l1", "reviewer", STATEMENT, ["e1"])
    raises_and_keeps_nothing(world, lambda: weigh(world, bad, "reviewer", "e2", True))
    raises_and_keeps_nothing(world, lambda: weigh(world, "l1", "reviewer", bad, True))
    raises_and_keeps_nothing(world, lambda: used(world, "l1", bad, "e2"))
    raises_and_keeps_nothing(world, lambda: retire(world, "l1", "reviewer", bad))


@pytest.mark.parametrize(
    "hostile",
    [
        lambda: {"statement": HostileText("a statement")},
        lambda: {"supported_by": HostileList(["e1"])},
        lambda: {"supported_by": [HostileText("e1")]},
        lambda: {"about": HostileList([(DEVICE, "d1")])},
        lambda: {"about": [(DEVICE, HostileText("d1"))]},
        lambda: {"about": [(DEVICE, HostileNumber(1))]},
        lambda: {"values": HostileMap({"a": 1})},
        lambda: {"values": {"a": HostileText("x")}},
        lambda: {"values": {"a": HostileList([1])}},
        lambda: {"at": HostileText("2026-01-01T00:00:00")},
    ],
)
def test_a_hostile_object_as_content_costs_one_refusal(world, hostile):
    arguments = {"statement": STATEMENT, "supported_by": ["e1"], "about": [(DEVICE, "d1")], **hostile()}
    refused_once(world, lambda: learn(world, "l1", "reviewer", **arguments))


def test_hostile_times_of_weigh_used_and_retire_cost_one_refusal_each(world):
    learn(world, "l1", "reviewer", STATEMENT, ["e1"])
    hostile = HostileText("2026-01-01T00:00:00")
    refused_once(world, lambda: weigh(world, "l1", "reviewer", "e2", True, at=hostile))
    refused_once(world, lambda: used(world, "l1", "reviewer", "e2", True, at=HostileMap()))
    refused_once(world, lambda: retire(world, "l1", "reviewer", "wrong", at=HostileList()))
    assert counts(world, "l1") == (1, 0, 0, 0, 0, 1) and "retired_at" not in lesson(world, "l1")


def test_learn_is_one_round_trip(world):
    counting = Counting(world)
    assert (
        learn(counting, "l1", "reviewer", STATEMENT, ["e1", "e2"], [(DEVICE, "d1"), (DEVICE, "d2")])["status"]
        == "learned"
    )
    assert counting.sent == 1
    assert learn(counting, "l1", "reviewer", STATEMENT, ["e1"])["status"] == "exists"
    assert counting.sent == 2


def test_a_database_error_is_a_failed_receipt(db):
    db.connection.set("not-a-graph", "text")
    try:
        broken = db.select_graph("not-a-graph")
        receipt = learn(broken, "l1", "reviewer", STATEMENT, ["e1"])
        assert receipt["status"] == "failed" and receipt["id"] is None and receipt["reason"]
        assert weigh(broken, "l1", "reviewer", "e1", True)["status"] == "failed"
        assert used(broken, "l1", "reviewer", "e1")["status"] == "failed"
        assert retire(broken, "l1", "reviewer", "why")["status"] == "failed"
    finally:
        db.connection.delete("not-a-graph")


# weigh()


def test_weigh_counts_an_episode_once_for_or_against(world):
    learn(world, "l1", "reviewer", STATEMENT, ["e1"], [(DEVICE, "d1")])
    assert weigh(world, "l1", "checker", "e2", False) == {"id": "l1", "status": "weighed"}
    assert weigh(world, "l1", "checker", "e2", False) == {"id": "l1", "status": "exists"}
    assert weigh(world, "l1", "checker", "e2", True) == {"id": "l1", "status": "exists"}
    assert weigh(world, "l1", "checker", "e1", False) == {"id": "l1", "status": "exists"}
    assert weigh(world, "l1", "checker", "e3", True) == {"id": "l1", "status": "weighed"}
    found = lesson(world, "l1")
    assert found["supported_by"] == ["e1", "e3"] and found["contradicted_by"] == ["e2"]
    assert counts(world, "l1") == (2, 1, 0, 0, 0, 1)


def test_weigh_is_one_round_trip(world):
    learn(world, "l1", "reviewer", STATEMENT, ["e1"])
    counting = Counting(world)
    assert weigh(counting, "l1", "checker", "e2", True)["status"] == "weighed"
    assert counting.sent == 1


def test_weigh_refusals(world):
    learn(world, "l1", "reviewer", STATEMENT, ["e1"])
    missing = "an episode it rests on does not exist or has not ended"
    refused_once(world, lambda: weigh(world, "l1", "checker", "e-open", True), "missing", missing)
    refused_once(world, lambda: weigh(world, "l1", "checker", "nowhere", True), "missing", missing)
    refused_once(world, lambda: weigh(world, "nothing", "checker", "e2", True), "unknown")
    refused_once(world, lambda: weigh(world, "l1", "checker", "e2", True, at="later"), "invalid")
    retire(world, "l1", "reviewer", "wrong")
    refused_once(world, lambda: weigh(world, "l1", "checker", "e2", True), "retired")


@pytest.mark.parametrize("flag", [None, 1, "yes", 0])
def test_a_flag_that_is_not_a_bool_raises_wrong_type(world, flag):
    learn(world, "l1", "reviewer", STATEMENT, ["e1"])
    raises_and_keeps_nothing(world, lambda: weigh(world, "l1", "checker", "e2", flag), WrongType, "agrees")
    if flag is not None:
        raises_and_keeps_nothing(world, lambda: used(world, "l1", "checker", "e2", flag), WrongType, "helped")


def test_eight_agents_weighing_one_episode_at_once_count_it_once(world, db):
    learn(world, "l1", "reviewer", STATEMENT, ["e1"])
    answers = at_once(
        db, world, lambda number, own: weigh(own, "l1", f"agent{number}", "e2", number % 2 == 0)
    )
    assert sorted(answer["status"] for answer in answers) == ["exists"] * 7 + ["weighed"]
    support, against, *_rest = counts(world, "l1")
    assert support + against == 2


# used()


def test_a_use_is_counted_once_and_judged_once(world):
    learn(world, "l1", "reviewer", STATEMENT, ["e1"])
    assert used(world, "l1", "agent", "e-open") == {"id": "l1", "status": "used"}  # it need not have ended
    assert used(world, "l1", "agent", "e-open") == {"id": "l1", "status": "exists"}
    assert counts(world, "l1") == (1, 0, 1, 0, 0, 1)
    assert used(world, "l1", "agent", "e-open", helped=False) == {"id": "l1", "status": "judged"}
    assert used(world, "l1", "agent", "e-open", helped=True) == {"id": "l1", "status": "exists"}
    assert counts(world, "l1") == (1, 0, 1, 0, 1, 0)
    assert used(world, "l1", "agent", "e2", helped=True) == {"id": "l1", "status": "used"}
    assert used(world, "l1", "agent", "e3", helped=True)["status"] == "used"
    assert counts(world, "l1") == (1, 0, 3, 2, 1, 2)


def test_used_refusals(world):
    learn(world, "l1", "reviewer", STATEMENT, ["e1"])
    refused_once(
        world, lambda: used(world, "l1", "agent", "nowhere"), "missing", "the episode does not exist"
    )
    refused_once(world, lambda: used(world, "nothing", "agent", "e1"), "unknown")
    refused_once(world, lambda: used(world, "l1", "agent", "e1", at="2999-01-01"), "invalid")
    retire(world, "l1", "reviewer", "wrong")
    refused_once(world, lambda: used(world, "l1", "agent", "e1"), "retired")


# retire()


def test_retire_once_and_the_lesson_is_no_longer_given_out(world):
    learn(world, "l1", "reviewer", STATEMENT, ["e1"], [(DEVICE, "d1")])
    assert retire(world, "l1", "reviewer", "it was wrong", at="2026-05-01T00:00:00Z") == {
        "id": "l1",
        "status": "retired",
    }
    assert retire(world, "l1", "other", "again") == {"id": "l1", "status": "exists"}
    found = lesson(world, "l1")
    assert (found["retired_by"], found["retired_why"]) == ("reviewer", "it was wrong")
    assert found["retired_at"] == datetime(2026, 5, 1, tzinfo=UTC)
    assert lessons_about(world, DEVICE, "d1", at_least=-(2**70)) == []
    refused_once(world, lambda: retire(world, "nothing", "reviewer", "why"), "unknown")


# lesson() and lessons_about()


def test_lesson_of_nothing_is_none_and_a_bad_id_raises(world):
    assert lesson(world, "nothing") is None
    with pytest.raises(Refused, match="must be text"):
        lesson(world, 5)


def test_lessons_about_orders_by_weight_then_touched_last_then_id(world):
    learn(world, "heavy", "reviewer", STATEMENT, ["e1", "e2"], [(DEVICE, "d1")], at="2026-01-01T00:00:00Z")
    learn(world, "b-old", "reviewer", STATEMENT, ["e1"], [(DEVICE, "d1")], at="2026-01-01T00:00:00Z")
    learn(world, "a-new", "reviewer", STATEMENT, ["e1"], [(DEVICE, "d1")], at="2026-02-01T00:00:00Z")
    learn(world, "c-new", "reviewer", STATEMENT, ["e1"], [(DEVICE, "d1")], at="2026-02-01T00:00:00Z")
    learn(world, "sunk", "reviewer", STATEMENT, ["e1"], [(DEVICE, "d1"), (DEVICE, "d2")])
    weigh(world, "sunk", "checker", "e2", False)
    weigh(world, "sunk", "checker", "e3", False)
    found = lessons_about(world, DEVICE, "d1")
    assert [item["id"] for item in found] == ["heavy", "a-new", "c-new", "b-old"]
    assert all(set(item) == STORED - {"supported_by", "contradicted_by", "about"} for item in found)
    assert [item["id"] for item in lessons_about(world, DEVICE, "d1", at_least=-1)][-1] == "sunk"
    assert [item["id"] for item in lessons_about(world, DEVICE, "d1", at_least=2)] == ["heavy"]
    assert [item["id"] for item in lessons_about(world, DEVICE, "d2", at_least=-5)] == ["sunk"]
    assert lessons_about(world, DEVICE, "d2") == [] and lessons_about(world, DEVICE, "nobody") == []


def test_since_leaves_out_what_nothing_touched_since(world):
    learn(world, "old", "reviewer", STATEMENT, ["e1"], [(DEVICE, "d1")], at="2026-01-01T00:00:00Z")
    learn(world, "touched", "reviewer", STATEMENT, ["e1"], [(DEVICE, "d1")], at="2026-01-01T00:00:00Z")
    weigh(world, "touched", "checker", "e2", True, at="2026-06-01T00:00:00Z")
    weigh(
        world, "touched", "checker", "e3", True, at="2026-03-01T00:00:00Z"
    )  # an earlier time keeps the later
    assert lesson(world, "touched")["touched_at"] == datetime(2026, 6, 1, tzinfo=UTC)
    assert [item["id"] for item in lessons_about(world, DEVICE, "d1", since="2026-05-01")] == ["touched"]
    assert len(lessons_about(world, DEVICE, "d1", since=datetime(2025, 1, 1, tzinfo=UTC))) == 2
    used(world, "old", "agent", "e-open")  # a use touches it now
    yesterday = datetime.now(UTC) - timedelta(days=1)
    assert [item["id"] for item in lessons_about(world, DEVICE, "d1", since=yesterday)] == ["old"]


@pytest.mark.parametrize(
    ("arguments", "match"),
    [
        ({"at_least": True}, "at_least"),
        ({"at_least": 1.0}, "at_least"),
        ({"at_least": "1"}, "at_least"),
        ({"since": ""}, "since"),
        ({"since": "  "}, "since"),
        ({"since": "yesterday"}, "time"),
    ],
)
def test_lessons_about_refuses_bad_arguments(world, arguments, match):
    with pytest.raises(Refused, match=match):
        lessons_about(world, DEVICE, "d1", **arguments)


def test_lessons_about_refuses_a_bad_key_or_a_record(world):
    with pytest.raises(Refused):
        lessons_about(world, DEVICE, 1.5)
    with pytest.raises(Refused):
        lessons_about(world, "Episode", "e1")


def test_a_refusal_is_decided_by_the_one_query_and_stored_by_one_more(world):
    learn(world, "l1", "reviewer", STATEMENT, ["e1"])
    counting = Counting(world)
    assert weigh(counting, "l1", "checker", "e-open", True)["status"] == "missing"
    assert learn(counting, "l2", "reviewer", STATEMENT, ["e1"], [(DEVICE, "nobody")])["status"] == "missing"
    assert counting.sent == 4
