"""Handoffs: they point at what exists, are never replaced, and only their receiver accepts them, once."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from graph_contents import assert_one_refusal, snapshot
from lighthouse import Kind, ensure_schema, remember
from lighthouse.clock import from_store, now
from lighthouse.episodes import close_episode, open_episode, record
from lighthouse.graphs import read
from lighthouse.handoffs import _FOR, accept, hand_off, handoffs_for
from lighthouse.values import MAX_TEXT, Refused
from lighthouse.write.failures import failures
from query_plans import scans
from racing import at_once

SHED = Kind("Shed", key="code")
BOILER = Kind("Boiler", key="serial", relations={"IN": SHED})


@pytest.fixture
def boilers(graph):
    """Boilers b1 and 42, an episode about b1 with one entry, ended."""
    ensure_schema(graph, [BOILER])
    rows = [
        {"key": "b1", "t": "2026-01-01T00:00:00Z", "values": {"status": "hot"}, "relations": {"IN": "s1"}},
        {"key": 42, "t": "2026-01-01T00:00:00Z", "values": {"status": "ok"}},
    ]
    remember(graph, BOILER, by="inventory", rows=rows)
    open_episode(graph, "b1-hot", by="watcher", about=[(BOILER, "b1")])
    record(graph, "b1-hot", "observation", by="watcher", values={"status": "hot"}, cites=[(BOILER, "b1")])
    close_episode(graph, "b1-hot", by="reviewer", outcome={"failed": False}, cites=["b1-hot/1"])
    return graph


def give(graph, id="h1", by="reviewer", to="planner", points_to=None, **more) -> dict:
    points = [("Episode", "b1-hot"), (BOILER, "b1")] if points_to is None else points_to
    return hand_off(graph, id, by=by, to=to, points_to=points, **more)


# hand_off()


def test_the_seed_example(boilers):
    assert give(boilers) == {"id": "h1", "status": "given"}
    assert handoffs_for(boilers, "planner")[0]["points_to"] == [("Boiler", "b1"), ("Episode", "b1-hot")]
    assert accept(boilers, "h1", by="planner") == {"id": "h1", "status": "accepted"}


def test_a_handoff_is_linked_to_its_agents_and_what_it_points_at(boilers):
    give(
        boilers,
        points_to=["b1-hot/2", (BOILER, 42), ("Episode", "b1-hot")],
        note="check the fan",
        at="2026-01-05T00:00:00Z",
    )
    found = read(
        boilers,
        "MATCH (g:Agent)-[:GAVE]->(h:Handoff {id: 'h1'})-[:TO]->(r:Agent) RETURN g.name, r.name, h.note, h.at",
    )
    assert [row[:3] for row in found] == [["reviewer", "planner", "check the fan"]]
    assert from_store(found[0][3]) == datetime(2026, 1, 5, tzinfo=UTC)
    points = read(
        boilers,
        "MATCH (:Handoff {id: 'h1'})-[p:POINTS_TO]->(x) RETURN coalesce(x.id, x.key), p.as_of ORDER BY p.as_of",
    )
    assert sorted((row[0] for row in points), key=str) == sorted(["b1-hot/2", 42, "b1-hot"], key=str)
    assert {from_store(row[1]) for row in points} == {datetime(2026, 1, 5, tzinfo=UTC)}
    # The handoff holds no copy: the entry's values are on the entry only.
    assert set(read(boilers, "MATCH (h:Handoff) RETURN keys(h)")[0][0]) == {"id", "at", "recorded_at", "note"}


def test_the_same_handoff_again_is_unchanged(boilers):
    give(boilers, note="n")
    before = snapshot(boilers)
    assert give(boilers, note="n", points_to=[(BOILER, "b1"), ("Episode", "b1-hot"), ("Boiler", "b1")]) == {
        "id": "h1",
        "status": "unchanged",
    }
    assert snapshot(boilers) == before
    assert failures(boilers) == []


@pytest.mark.parametrize(
    "change",
    [
        {"to": "someone-else"},
        {"by": "another-giver"},
        {"points_to": [("Episode", "b1-hot")]},
        {"points_to": [("Episode", "b1-hot"), (BOILER, "b1"), (BOILER, 42)]},
        {"note": "another note"},
    ],
)
def test_a_handoff_is_never_replaced(boilers, change):
    give(boilers, note="n")
    before = snapshot(boilers)
    receipt = give(boilers, **{"note": "n", **change})
    assert receipt["status"] == "conflict"
    assert snapshot(boilers) == before
    assert [f["reason"] for f in failures(boilers)] == ["conflict"]
    assert handoffs_for(boilers, "planner")[0]["points_to"] == [("Boiler", "b1"), ("Episode", "b1-hot")]


def test_what_it_points_at_must_exist(boilers):
    for points in (
        [("Episode", "nope")],
        ["b1-hot/9"],
        [(BOILER, "b1"), (BOILER, "b9")],
        [("Lesson", "l1")],
        [(BOILER, "42")],
    ):
        before = snapshot(boilers)
        receipt = give(boilers, points_to=points)
        assert receipt["status"] == "missing" and "does not exist" in receipt["reason"]
        assert snapshot(boilers) == before
    assert len(failures(boilers, reason="missing")) == 5
    assert handoffs_for(boilers, "planner", accepted=None) == []


def test_lessons_playbooks_and_tasks_can_be_pointed_at(boilers):
    boilers.query("CREATE (:Lesson {id: 'l1'}), (:Playbook {id: 'cool#1'}), (:Task {id: 't1'})")
    points = [("Playbook", "cool#1"), ("Lesson", "l1"), ("Task", "t1")]
    assert give(boilers, points_to=points)["status"] == "given"
    assert handoffs_for(boilers, "planner")[0]["points_to"] == [
        ("Lesson", "l1"),
        ("Playbook", "cool#1"),
        ("Task", "t1"),
    ]


# accept()


def test_only_the_receiver_accepts_and_only_once(boilers):
    give(boilers)
    before = snapshot(boilers)
    denied = accept(boilers, "h1", by="reviewer")
    assert denied["status"] == "denied" and "receiver" in denied["reason"]
    assert snapshot(boilers) == before
    assert accept(boilers, "h1", by="planner")["status"] == "accepted"
    first = handoffs_for(boilers, "planner", accepted=True)[0]["accepted_at"]
    assert abs(first - now()) < timedelta(seconds=5)
    # Accepted again later: its first time stays.
    boilers.query("MATCH (h:Handoff {id: 'h1'}) SET h.accepted_at = localdatetime('2026-01-01T00:00:00')")
    after = snapshot(boilers)
    assert accept(boilers, "h1", by="planner") == {"id": "h1", "status": "unchanged"}
    assert snapshot(boilers) == after
    assert handoffs_for(boilers, "planner", accepted=True)[0]["accepted_at"] == datetime(
        2026, 1, 1, tzinfo=UTC
    )
    assert [f["reason"] for f in failures(boilers)] == ["denied"]


def test_accepting_what_does_not_exist_is_unknown(boilers):
    before = snapshot(boilers)
    assert accept(boilers, "nope", by="planner")["status"] == "unknown"
    assert snapshot(boilers) == before
    assert [(f["reason"], f["kind"], f["key"]) for f in failures(boilers)] == [("unknown", "Handoff", "nope")]


def test_eight_agents_accept_at_once_and_one_is_first(boilers, db):
    give(boilers)
    receipts = at_once(
        db, boilers, lambda n, graph: accept(graph, "h1", by="planner" if n % 2 else "intruder")
    )
    statuses = [receipt["status"] for receipt in receipts]
    assert sorted(statuses) == [
        "accepted",
        "denied",
        "denied",
        "denied",
        "denied",
        "unchanged",
        "unchanged",
        "unchanged",
    ]
    assert failures(boilers)[0]["times"] == 4


# handoffs_for()


def test_handoffs_for_filters_and_orders(boilers):
    give(boilers, id="late", at="2026-01-03T00:00:00Z")
    give(boilers, id="early", at="2026-01-02T00:00:00Z", note="first")
    give(boilers, id="same-b", at="2026-01-02T00:00:00Z")
    give(boilers, id="other", to="someone", at="2026-01-01T00:00:00Z")
    accept(boilers, "late", by="planner")
    waiting = handoffs_for(boilers, "planner")
    assert [h["id"] for h in waiting] == ["early", "same-b"]
    assert waiting[0] == {
        "id": "early",
        "by": "reviewer",
        "to": "planner",
        "at": datetime(2026, 1, 2, tzinfo=UTC),
        "note": "first",
        "accepted_at": None,
        "points_to": [("Boiler", "b1"), ("Episode", "b1-hot")],
    }
    assert [h["id"] for h in handoffs_for(boilers, "planner", accepted=True)] == ["late"]
    assert [h["id"] for h in handoffs_for(boilers, "planner", accepted=None)] == ["early", "same-b", "late"]
    assert [h["id"] for h in handoffs_for(boilers, "planner", accepted=None, limit=2)] == ["early", "same-b"]
    assert handoffs_for(boilers, "nobody") == []
    assert [h["id"] for h in handoffs_for(boilers, "someone")] == ["other"]


def test_handoffs_for_sorts_references_by_label_then_key(boilers):
    give(boilers, points_to=[(BOILER, "b1"), ("Episode", "b1-hot"), (BOILER, 42), "b1-hot/1", (SHED, "s1")])
    assert handoffs_for(boilers, "planner")[0]["points_to"] == [
        ("Boiler", 42),
        ("Boiler", "b1"),
        ("Entry", "b1-hot/1"),
        ("Episode", "b1-hot"),
        ("Shed", "s1"),
    ]


def test_handoffs_for_on_a_graph_that_does_not_exist(graph):
    assert handoffs_for(graph, "planner") == []


@pytest.mark.parametrize(
    "agent, accepted, limit",
    [
        ("", False, 10),
        (None, False, 10),
        ("a\x00", False, 10),
        ("p", "yes", 10),
        ("p", False, 0),
        ("p", None, 1001),
    ],
)
def test_handoffs_for_refuses_bad_questions(boilers, agent, accepted, limit):
    with pytest.raises(Refused):
        handoffs_for(boilers, agent, accepted=accepted, limit=limit)


# Attacks: each refused write leaves one WriteFailure and changes nothing else.

FUTURE = (datetime.now(UTC) + timedelta(minutes=10)).strftime("%Y-%m-%dT%H:%M:%SZ")
HOSTILE = "') MATCH (n) DETACH DELETE n //"
POINTS = [("Episode", "b1-hot")]

ATTACKS = {
    "to nobody": lambda g: hand_off(g, "h9", by="r", to=None, points_to=POINTS),
    "to an empty name": lambda g: hand_off(g, "h9", by="r", to="", points_to=POINTS),
    "to a name with spaces around": lambda g: hand_off(g, "h9", by="r", to=" planner", points_to=POINTS),
    "to a name too long": lambda g: hand_off(g, "h9", by="r", to="p" * 201, points_to=POINTS),
    "to a name with a control character": lambda g: hand_off(
        g, "h9", by="r", to="plan\x07ner", points_to=POINTS
    ),
    "to a name with NUL": lambda g: hand_off(g, "h9", by="r", to="planner\x00", points_to=POINTS),
    "to a list of names": lambda g: hand_off(g, "h9", by="r", to=["planner"], points_to=POINTS),
    "to the giver": lambda g: hand_off(g, "h9", by="r", to="r", points_to=POINTS),
    "by nobody": lambda g: hand_off(g, "h9", by=None, to="p", points_to=POINTS),
    "id with a lone surrogate": lambda g: hand_off(g, "h\udfff", by="r", to="p", points_to=POINTS),
    "id too long": lambda g: hand_off(g, "h" * 201, by="r", to="p", points_to=POINTS),
    "id a number": lambda g: hand_off(g, 9, by="r", to="p", points_to=POINTS),
    "pointing at nothing": lambda g: hand_off(g, "h9", by="r", to="p", points_to=[]),
    "pointing at None": lambda g: hand_off(g, "h9", by="r", to="p", points_to=None),
    "only text": lambda g: hand_off(g, "h9", by="r", to="p", points_to=[], note="do the thing"),
    "a reference of the wrong form": lambda g: hand_off(g, "h9", by="r", to="p", points_to=[("Episode",)]),
    "a reference with a hostile label": lambda g: hand_off(
        g, "h9", by="r", to="p", points_to=[(HOSTILE, "x")]
    ),
    "a reference to a WriteFailure": lambda g: hand_off(
        g, "h9", by="r", to="p", points_to=[("WriteFailure", "x")]
    ),
    "201 references": lambda g: hand_off(
        g, "h9", by="r", to="p", points_to=[("Boiler", f"b{n}") for n in range(201)]
    ),
    "a reference that is missing": lambda g: hand_off(g, "h9", by="r", to="p", points_to=[("Boiler", "b9")]),
    "a note over the limit": lambda g: hand_off(
        g, "h9", by="r", to="p", points_to=POINTS, note="x" * (MAX_TEXT + 1)
    ),
    "a note that is not text": lambda g: hand_off(g, "h9", by="r", to="p", points_to=POINTS, note={"a": 1}),
    "a note with NUL": lambda g: hand_off(g, "h9", by="r", to="p", points_to=POINTS, note="a\x00"),
    "a time in the future": lambda g: hand_off(g, "h9", by="r", to="p", points_to=POINTS, at=FUTURE),
    "a time that is not one": lambda g: hand_off(g, "h9", by="r", to="p", points_to=POINTS, at=HOSTILE),
    "a time as a number": lambda g: hand_off(g, "h9", by="r", to="p", points_to=POINTS, at=1767225600),
    "accept: by nobody": lambda g: accept(g, "h1", by=None),
    "accept: an id with a line break": lambda g: accept(g, "h\n1", by="planner"),
    "accept: by someone else": lambda g: accept(g, "h1", by=HOSTILE),
    "accept: a handoff that does not exist": lambda g: accept(g, HOSTILE, by="planner"),
}


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_an_attack_costs_one_failure_and_nothing_else(boilers, attack):
    give(boilers)
    before = snapshot(boilers)
    receipt = ATTACKS[attack](boilers)
    assert_one_refusal(
        boilers, before, receipt, statuses={"invalid", "missing", "denied", "unknown"}, kind="Handoff"
    )


def test_hostile_names_are_stored_as_given(boilers):
    receipt = hand_off(
        boilers, HOSTILE, by=HOSTILE, to="Ω ✓ " + HOSTILE, points_to=POINTS, note=HOSTILE + "\n\x01"
    )
    assert receipt == {"id": HOSTILE, "status": "given"}
    found = handoffs_for(boilers, "Ω ✓ " + HOSTILE)
    assert [(h["id"], h["by"], h["note"]) for h in found] == [(HOSTILE, HOSTILE, HOSTILE + "\n\x01")]
    assert accept(boilers, HOSTILE, by="Ω ✓ " + HOSTILE)["status"] == "accepted"
    assert read(boilers, "MATCH (e:Episode) RETURN count(e)") == [[1]]


def test_handoffs_for_starts_from_the_agent(boilers):
    # With the filter on h in the MATCH that found the agent, FalkorDB 4.22 read every Handoff.
    assert give(boilers, "h1", to="planner")["status"] == "given"
    assert give(boilers, "h2", to="fixer")["status"] == "given"
    params = {"agent": "planner", "accepted": False, "limit": 10}
    assert scans(boilers.explain(_FOR, params)) == ["Node By Index Scan | (taker:Agent)"]
    assert [one["id"] for one in handoffs_for(boilers, "planner")] == ["h1"]
