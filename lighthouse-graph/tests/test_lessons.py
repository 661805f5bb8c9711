"""Lessons: learned from ended episodes only, every count changed once with its edge, ranked by weight."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from devices import DEVICE, KINDS, ROOM
from ended_episodes import ended, overheat
from graph_contents import assert_one_refusal, snapshot
from lighthouse import close_episode, ensure_schema, open_episode, remember
from lighthouse.clock import now
from lighthouse.graphs import read
from lighthouse.lessons import learn, lesson, lessons_about, retire, used, weigh
from lighthouse.values import MAX_NAME, MAX_REFERENCES, MAX_TEXT, Refused
from lighthouse.write.failures import failures
from query_plans import scans
from racing import at_once

STATEMENT = "A hot device in room r2 did not fail."


@pytest.fixture
def world(graph):
    """d1 (hot in r2), d2, and three episodes about d1 that ended: e1, e2, e3; e-open is still open."""
    ensure_schema(graph, KINDS)
    rows = [
        {
            "key": "d1",
            "t": "2026-01-02T00:00:00Z",
            "values": {"status": "hot"},
            "relations": {"LOCATED_IN": "r2"},
        },
        {"key": "d2", "t": "2026-01-02T00:00:00Z", "values": {"status": "ok"}},
    ]
    remember(graph, DEVICE, by="inventory", rows=rows)
    for name in ("e1", "e2", "e3"):
        ended(graph, name)
    open_episode(graph, "e-open", by="watcher", about=[(DEVICE, "d1")])
    return graph


def counts(graph, lesson_id: str) -> tuple:
    found = lesson(graph, lesson_id)
    return found["support"], found["against"], found["helped"], found["failed"], found["weight"]


# The seed's example


def test_the_seed_example(graph):
    overheat(graph)
    receipt = learn(
        graph,
        "hot-in-r2",
        by="reviewer",
        statement="A hot device in room r2 did not fail.",
        supported_by=["d1-overheat"],
        about=[(DEVICE, "d1")],
    )
    assert receipt == {"id": "hot-in-r2", "status": "learned"}
    assert lessons_about(graph, DEVICE, "d1")[0]["weight"] == 1


# learn()


def test_learn_stores_the_statement_its_episodes_and_what_it_is_about(world):
    assert (
        learn(
            world, "l1", by="reviewer", statement=STATEMENT, supported_by=["e1", "e2"], about=[(DEVICE, "d1")]
        )["status"]
        == "learned"
    )
    found = lesson(world, "l1")
    assert found["statement"] == STATEMENT and found["by"] == "reviewer"
    assert found["supported_by"] == ["e1", "e2"] and found["against_episodes"] == []
    assert found["about"] == [("Device", "d1")]
    assert (found["support"], found["against"], found["helped"], found["failed"], found["weight"]) == (
        2,
        0,
        0,
        0,
        2,
    )
    assert (
        abs(found["learned_at"] - now()) < timedelta(seconds=5) and found["touched_at"] == found["learned_at"]
    )
    assert found["retired_at"] is None and found["used_in"] == []
    edges = read(
        world, "MATCH (:Lesson {id: 'l1'})-[s:SUPPORTED_BY]->(ep:Episode) RETURN ep.id, s.by ORDER BY ep.id"
    )
    assert edges == [["e1", "reviewer"], ["e2", "reviewer"]]


def test_learn_with_episodes_against_it(world):
    learn(world, "l1", by="reviewer", statement=STATEMENT, supported_by=["e1", "e2"], against=["e3"])
    assert counts(world, "l1") == (2, 1, 0, 0, 1)
    assert lesson(world, "l1")["against_episodes"] == ["e3"]


def test_learn_is_refused_without_an_episode(world):
    before = snapshot(world)
    for given in (None, [], []):
        receipt = learn(world, "l1", by="reviewer", statement=STATEMENT, supported_by=given)
        assert receipt["status"] == "invalid" and "at least one episode" in receipt["reason"]
    assert snapshot(world) == before
    assert lesson(world, "l1") is None
    # the same refusal again is counted on its node
    assert sorted((f["reason"], f["times"]) for f in failures(world)) == [("invalid", 1), ("invalid", 2)]


def test_learn_is_refused_while_an_episode_has_not_ended(world):
    before = snapshot(world)
    receipt = learn(world, "l1", by="reviewer", statement=STATEMENT, supported_by=["e1", "e-open"])
    assert receipt["status"] == "open" and "'e-open'" in receipt["reason"]
    assert snapshot(world) == before
    assert [(f["reason"], f["kind"], f["key"]) for f in failures(world)] == [("open", "Lesson", "l1")]
    close_episode(world, "e-open", by="reviewer")
    assert (
        learn(world, "l1", by="reviewer", statement=STATEMENT, supported_by=["e1", "e-open"])["status"]
        == "learned"
    )


def test_learn_is_refused_when_an_episode_or_an_entity_does_not_exist(world):
    before = snapshot(world)
    receipt = learn(world, "l1", by="reviewer", statement=STATEMENT, supported_by=["e1", "nowhere"])
    assert receipt["status"] == "missing" and "'nowhere'" in receipt["reason"]
    receipt = learn(
        world, "l1", by="reviewer", statement=STATEMENT, supported_by=["e1"], about=[(DEVICE, "d9")]
    )
    assert receipt["status"] == "missing" and "Device 'd9'" in receipt["reason"]
    receipt = learn(world, "l1", by="reviewer", statement=STATEMENT, supported_by=["e1"], against=["e-open"])
    assert receipt["status"] == "open"
    assert snapshot(world) == before
    assert sorted(f["reason"] for f in failures(world)) == ["missing", "missing", "open"]


def test_learn_again_weighs_in_new_episodes_only(world):
    learn(world, "l1", by="reviewer", statement=STATEMENT, supported_by=["e1"], about=[(DEVICE, "d1")])
    receipt = learn(
        world, "l1", by="other", statement=STATEMENT, supported_by=["e1", "e2"], about=[(DEVICE, "d1")]
    )
    assert receipt == {"id": "l1", "status": "weighed"}
    assert counts(world, "l1") == (2, 0, 0, 0, 2)
    before = snapshot(world)
    again = learn(
        world, "l1", by="other", statement=STATEMENT, supported_by=["e2", "e1"], about=[(DEVICE, "d1")]
    )
    assert again == {"id": "l1", "status": "unchanged"}
    assert snapshot(world) == before
    assert lesson(world, "l1")["by"] == "reviewer"  # the one who learned it first


def test_learn_again_can_add_what_it_is_about(world):
    learn(world, "l1", by="reviewer", statement=STATEMENT, supported_by=["e1"], about=[(DEVICE, "d1")])
    receipt = learn(
        world, "l1", by="reviewer", statement=STATEMENT, supported_by=["e1"], about=[(DEVICE, "d2")]
    )
    assert receipt["status"] == "weighed"
    assert lesson(world, "l1")["about"] == [("Device", "d1"), ("Device", "d2")]
    assert counts(world, "l1") == (1, 0, 0, 0, 1)
    assert [one["id"] for one in lessons_about(world, DEVICE, "d2")] == ["l1"]


def test_learn_again_with_another_statement_is_a_conflict(world):
    learn(world, "l1", by="reviewer", statement=STATEMENT, supported_by=["e1"])
    before = snapshot(world)
    receipt = learn(world, "l1", by="reviewer", statement="Something else.", supported_by=["e2"])
    assert receipt["status"] == "conflict" and "another statement" in receipt["reason"]
    assert snapshot(world) == before
    assert lesson(world, "l1")["statement"] == STATEMENT


def test_an_episode_is_never_for_and_against_one_lesson(world):
    learn(world, "l1", by="reviewer", statement=STATEMENT, supported_by=["e1"])
    before = snapshot(world)
    receipt = learn(world, "l1", by="reviewer", statement=STATEMENT, supported_by=["e2"], against=["e1"])
    assert receipt["status"] == "conflict" and "'e1'" in receipt["reason"]
    both = learn(world, "l2", by="reviewer", statement=STATEMENT, supported_by=["e2"], against=["e2"])
    assert both["status"] == "invalid"
    assert snapshot(world) == before


# weigh()


def test_weigh_counts_an_episode_for_or_against_once(world):
    learn(world, "l1", by="reviewer", statement=STATEMENT, supported_by=["e1"])
    assert weigh(world, "l1", "judge", "e2", True) == {"id": "l1", "status": "weighed"}
    assert weigh(world, "l1", "judge", "e3", False) == {"id": "l1", "status": "weighed"}
    assert counts(world, "l1") == (2, 1, 0, 0, 1)
    before = snapshot(world)
    assert weigh(world, "l1", "judge", "e2", True) == {"id": "l1", "status": "unchanged"}
    assert weigh(world, "l1", "judge", "e1", True)["status"] == "unchanged"
    assert weigh(world, "l1", "judge", "e3", True)["status"] == "conflict"
    assert weigh(world, "l1", "judge", "e1", False)["status"] == "conflict"
    assert snapshot(world) == before
    assert counts(world, "l1") == (2, 1, 0, 0, 1)


def test_weigh_refusals(world):
    learn(world, "l1", by="reviewer", statement=STATEMENT, supported_by=["e1"])
    before = snapshot(world)
    assert weigh(world, "nothing", "judge", "e2", True)["status"] == "unknown"
    assert weigh(world, "l1", "judge", "e-open", True)["status"] == "open"
    assert weigh(world, "l1", "judge", "e9", False)["status"] == "missing"
    assert weigh(world, "l1", "judge", "e2", 1)["status"] == "invalid"
    assert weigh(world, "l1", "judge", ["e2"], True)["status"] == "invalid"
    assert snapshot(world) == before
    assert len(failures(world)) == 5


def test_eight_agents_weighing_one_lesson_at_once_lose_no_count(world, db):
    for n in range(8):
        ended(world, f"w{n}")
    learn(world, "l1", by="reviewer", statement=STATEMENT, supported_by=["e1"])
    # two of them against
    receipts = at_once(db, world, lambda n, own: weigh(own, "l1", f"agent-{n}", f"w{n}", n % 4 != 0))
    assert [r["status"] for r in receipts] == ["weighed"] * 8
    assert counts(world, "l1") == (7, 2, 0, 0, 5)
    assert read(world, "MATCH (:Lesson)-[r]->(:Episode) RETURN count(r)") == [[9]]


def test_the_same_episode_added_by_eight_agents_counts_once(world, db):
    learn(world, "l1", by="reviewer", statement=STATEMENT, supported_by=["e1"])

    def agent(n: int, own) -> dict:
        if n % 2:
            return weigh(own, "l1", f"agent-{n}", "e2", True)
        return learn(own, "l1", by=f"agent-{n}", statement=STATEMENT, supported_by=["e2", "e1"])

    receipts = at_once(db, world, agent)
    assert sorted(r["status"] for r in receipts) == ["unchanged"] * 7 + ["weighed"]
    assert counts(world, "l1") == (2, 0, 0, 0, 2)
    assert read(world, "MATCH (:Lesson)-[r:SUPPORTED_BY]->(:Episode {id: 'e2'}) RETURN count(r)") == [[1]]


def test_eight_agents_learning_one_new_lesson_at_once_make_one(world, db):
    receipts = at_once(
        db,
        world,
        lambda n, own: learn(own, "l1", by=f"agent-{n}", statement=STATEMENT, supported_by=["e1", "e2"]),
    )
    assert sorted(r["status"] for r in receipts) == ["learned"] + ["unchanged"] * 7
    assert read(world, "MATCH (l:Lesson) RETURN count(l)") == [[1]]
    assert counts(world, "l1") == (2, 0, 0, 0, 2)


# used()


def test_used_counts_helped_and_failed_once_per_episode(world):
    learn(world, "l1", by="reviewer", statement=STATEMENT, supported_by=["e1"], about=[(DEVICE, "d1")])
    assert used(world, "l1", "agent", "e2", True) == {"id": "l1", "status": "used"}
    assert used(world, "l1", "agent", "e3", False) == {"id": "l1", "status": "used"}
    assert counts(world, "l1") == (1, 0, 1, 1, 1)
    before = snapshot(world)
    assert used(world, "l1", "agent", "e2", True)["status"] == "unchanged"
    assert used(world, "l1", "agent", "e2", False)["status"] == "conflict"
    assert snapshot(world) == before
    # a use is not a vote: the episode it was learned from can also be where it was used
    assert used(world, "l1", "agent", "e1", False)["status"] == "used"
    found = lesson(world, "l1")
    assert (found["support"], found["helped"], found["failed"], found["weight"]) == (1, 1, 2, 0)
    assert found["used_in"] == [
        {"episode": "e1", "helped": False},
        {"episode": "e2", "helped": True},
        {"episode": "e3", "helped": False},
    ]


def test_used_refusals(world):
    learn(world, "l1", by="reviewer", statement=STATEMENT, supported_by=["e1"])
    before = snapshot(world)
    assert used(world, "l9", "agent", "e2", True)["status"] == "unknown"
    assert used(world, "l1", "agent", "e-open", True)["status"] == "open"
    assert used(world, "l1", "agent", "e9", True)["status"] == "missing"
    assert used(world, "l1", "agent", "e2", "yes")["status"] == "invalid"
    assert snapshot(world) == before
    assert sorted(f["reason"] for f in failures(world)) == ["invalid", "missing", "open", "unknown"]


def test_a_lesson_that_fails_sinks_below_at_least(world):
    learn(world, "l1", by="reviewer", statement=STATEMENT, supported_by=["e1"], about=[(DEVICE, "d1")])
    assert [one["id"] for one in lessons_about(world, DEVICE, "d1")] == ["l1"]
    used(world, "l1", "agent", "e2", False)
    assert lessons_about(world, DEVICE, "d1") == []
    assert [one["weight"] for one in lessons_about(world, DEVICE, "d1", at_least=0)] == [0]
    assert [one["weight"] for one in lessons_about(world, DEVICE, "d1", at_least=-5)] == [0]


# retire()


def test_retire_stops_a_lesson_being_given_out(world):
    learn(world, "l1", by="reviewer", statement=STATEMENT, supported_by=["e1"], about=[(DEVICE, "d1")])
    assert retire(world, "l1", "curator") == {"id": "l1", "status": "retired"}
    assert lessons_about(world, DEVICE, "d1", at_least=-100) == []
    found = lesson(world, "l1")
    assert found["retired_by"] == "curator" and abs(found["retired_at"] - now()) < timedelta(seconds=5)
    before = snapshot(world)
    assert retire(world, "l1", "someone") == {"id": "l1", "status": "unchanged"}
    assert snapshot(world) == before
    assert retire(world, "l9", "curator")["status"] == "unknown"
    assert retire(world, "l1", "")["status"] == "invalid"
    assert len(failures(world)) == 2


# lesson() and lessons_about()


def test_lessons_about_orders_by_weight_then_id_and_keeps_to_the_entity(world):
    for n in range(4):
        ended(world, f"x{n}")
    learn(world, "b", by="r", statement="b", supported_by=["e1", "e2"], about=[(DEVICE, "d1")])
    learn(
        world, "a", by="r", statement="a", supported_by=["e1", "e2"], about=[(DEVICE, "d1"), (DEVICE, "d2")]
    )
    learn(world, "c", by="r", statement="c", supported_by=["x0", "x1", "x2"], about=[(DEVICE, "d1")])
    learn(world, "d", by="r", statement="d", supported_by=["x3"], about=[(DEVICE, "d2")])
    learn(world, "room", by="r", statement="r", supported_by=["x3"], about=[(ROOM, "r2")])
    assert [(one["id"], one["weight"]) for one in lessons_about(world, DEVICE, "d1")] == [
        ("c", 3),
        ("a", 2),
        ("b", 2),
    ]
    assert [one["id"] for one in lessons_about(world, DEVICE, "d1", at_least=3)] == ["c"]
    assert [one["id"] for one in lessons_about(world, DEVICE, "d1", at_least=4)] == []
    assert [one["id"] for one in lessons_about(world, DEVICE, "d1", limit=2)] == ["c", "a"]
    assert [one["id"] for one in lessons_about(world, "Device", "d2")] == ["a", "d"]
    assert [one["id"] for one in lessons_about(world, ROOM, "r2")] == ["room"]
    assert lessons_about(world, DEVICE, "d9") == []


def test_since_leaves_out_lessons_nothing_touched_since(world):
    learn(world, "old", by="r", statement="old", supported_by=["e1"], about=[(DEVICE, "d1")])
    learn(world, "fresh", by="r", statement="fresh", supported_by=["e1"], about=[(DEVICE, "d1")])
    learn(world, "used", by="r", statement="used", supported_by=["e1"], about=[(DEVICE, "d1")])
    time.sleep(1.1)
    since = now()
    weigh(world, "fresh", "judge", "e2", True)
    used(world, "used", "agent", "e3", True)
    assert sorted(one["id"] for one in lessons_about(world, DEVICE, "d1", since=since)) == ["fresh", "used"]
    assert lesson(world, "fresh")["touched_at"] >= since > lesson(world, "old")["touched_at"]
    assert len(lessons_about(world, DEVICE, "d1", since=since - timedelta(minutes=1))) == 3
    assert lessons_about(world, DEVICE, "d1", since=since + timedelta(minutes=1)) == []
    # a weighing that changes nothing does not touch it
    weigh(world, "old", "judge", "e1", True)
    assert "old" not in [one["id"] for one in lessons_about(world, DEVICE, "d1", since=since)]
    everything = lessons_about(world, DEVICE, "d1", since="2026-01-01T00:00:00Z")
    assert [one["id"] for one in everything] == ["fresh", "used", "old"]


def test_lesson_reads_none_for_an_unknown_id_and_refuses_a_bad_one(world):
    assert lesson(world, "nothing") is None
    with pytest.raises(Refused):
        lesson(world, "bad\x00id")


@pytest.mark.parametrize(
    "arguments",
    [
        {"kind": "Episode"},
        {"key": None},
        {"at_least": True},
        {"at_least": 1.5},
        {"limit": 0},
        {"limit": 1_001},
        {"since": "yesterday"},
        {"since": "2026-01-01T00:00:00"},
    ],
)
def test_lessons_about_refuses_bad_arguments(world, arguments):
    given = {"kind": DEVICE, "key": "d1", **arguments}
    with pytest.raises(Refused):
        lessons_about(world, given.pop("kind"), given.pop("key"), **given)


# What a hostile caller can send: one refusal kept, nothing else changed


HOSTILE = [
    ("id", "bad\x00id"),
    ("id", "x" * (MAX_NAME + 1)),
    ("id", "a\u202eb"),
    ("id", ""),
    ("id", 7),
    ("by", " padded"),
    ("by", None),
    ("statement", "x" * (MAX_TEXT + 1)),
    ("statement", "   "),
    ("statement", b"bytes"),
    ("statement", "lone \ud800 surrogate"),
    ("supported_by", [f"ep{n}" for n in range(MAX_REFERENCES + 1)]),
    ("supported_by", "e1"),
    ("supported_by", ["e1", {"id": "e2"}]),
    ("supported_by", ["e" * 181]),
    ("against", [f"ep{n}" for n in range(MAX_REFERENCES)]),
    ("about", [("Episode", "e1")]),
    ("about", [("Lesson", "l0")]),
    ("about", [("Device) DETACH DELETE (n", "d1")]),
    ("about", "d1"),
    ("about", [(DEVICE, "d1")] * 2 + [(DEVICE, f"k{n}") for n in range(MAX_REFERENCES)]),
]


@pytest.mark.parametrize(("field", "value"), HOSTILE, ids=[f"{f}-{n}" for n, (f, _v) in enumerate(HOSTILE)])
def test_hostile_input_to_learn_costs_one_refusal(world, field, value):
    before = snapshot(world)
    given = {
        "id": "l1",
        "by": "reviewer",
        "statement": STATEMENT,
        "supported_by": ["e1"],
        "about": [(DEVICE, "d1")],
    }
    given[field] = value
    assert_one_refusal(world, before, learn(world, **given), kind="Lesson")


def test_a_whole_lesson_over_the_limit_is_refused(world):
    before = snapshot(world)
    # \x01 is six characters of JSON: the statement is within its limit, the whole is not.
    receipt = learn(world, "l1", by="r", statement="\x01" * MAX_TEXT, supported_by=["e1"])
    assert receipt["status"] == "invalid" and "200,000" in receipt["reason"]
    assert snapshot(world) == before and len(failures(world)) == 1


@pytest.mark.parametrize(
    ("call", "arguments"),
    [
        (weigh, {"id": "l1", "by": "judge", "episode": "e2\x00", "agrees": True}),
        (weigh, {"id": "l1", "by": "j" * 201, "episode": "e2", "agrees": True}),
        (weigh, {"id": "l1", "by": "judge", "episode": "e2", "agrees": None}),
        (used, {"id": "l\n1", "by": "agent", "episode": "e2", "helped": True}),
        (used, {"id": "l1", "by": "agent", "episode": 2, "helped": True}),
        (used, {"id": "l1", "by": "agent", "episode": "e2", "helped": 0}),
        (retire, {"id": ["l1"], "by": "curator"}),
    ],
)
def test_hostile_input_to_weigh_used_and_retire_costs_one_refusal(world, call, arguments):
    learn(world, "l1", by="reviewer", statement=STATEMENT, supported_by=["e1"])
    before = snapshot(world)
    receipt = call(world, **arguments)
    assert receipt["status"] == "invalid"
    assert snapshot(world) == before
    assert len(failures(world)) == 1


def test_lessons_about_starts_from_the_entity(world):
    # With the filters on l in the MATCH that found the entity, FalkorDB 4.22 read every Lesson.
    assert (
        learn(world, "fan", by="r", statement="the fan", supported_by=["e1"], about=[(DEVICE, "d1")])[
            "status"
        ]
        == "learned"
    )
    assert (
        learn(world, "d2", by="r", statement="d2", supported_by=["e2"], about=[(DEVICE, "d2")])["status"]
        == "learned"
    )
    sent = []
    real = world.ro_query

    def seen(query, params=None, **more):
        sent.append((query, params))
        return real(query, params, **more)

    world.ro_query = seen  # sees what lessons_about() sends; FalkorDB answers it
    try:
        found = lessons_about(world, DEVICE, "d1")
    finally:
        del world.ro_query
    assert [one["id"] for one in found] == ["fan"]
    ((query, params),) = sent
    assert scans(world.explain(query, params))[0] == "Node By Index Scan | (thing:Device)"
    assert not any("(l:Lesson)" in line for line in scans(world.explain(query, params)))
