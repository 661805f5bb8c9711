"""recall(): facts valid at a time (compared with the time), their evidence and trust, and the notes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from graph_contents import snapshot
from lighthouse import (
    Kind,
    Refused,
    WrongType,
    embed,
    ensure_schema,
    note,
    recall,
    reject,
    remember,
    stamp,
)

DEVICE = Kind("Device", "serial", text=("place",))
PERSON = Kind("Person", "name", text=("role",), dimensions=2)
DAY1, DAY2 = "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z"


def facts(answer: dict) -> list[tuple]:
    return [
        (fact["kind"], fact["key"], fact["valid_from"].isoformat()[:10], fact["trust"])
        for fact in answer["facts"]
    ]


@pytest.fixture
def memory(graph):
    ensure_schema(graph, [DEVICE, PERSON])
    return graph


def test_a_drawn_fact_comes_with_its_note_its_window_and_its_trust(memory):
    said = note(memory, "the pump moved to paris", "planner", at=DAY2)
    remember(
        memory, DEVICE, [{"key": "d1", "t": DAY1, "values": {"place": "pump hall in berlin"}}], "inventory"
    )
    remember(
        memory,
        DEVICE,
        [{"key": "d1", "t": DAY2, "values": {"place": "pump hall in paris"}, "entry": said["id"]}],
        "model:m1",
        candidate=True,
    )
    answer = recall(memory, [DEVICE], "pump paris")
    (fact,) = answer["facts"]
    assert fact["key"] == "d1" and fact["state"]["place"] == "pump hall in paris"
    assert fact["trust"] == "candidate" and fact["current"] and fact["valid_to"] is None
    assert fact["valid_from"] == datetime(2026, 1, 2, tzinfo=UTC)
    evidence = fact["evidence"]
    assert evidence["id"] == said["id"] and evidence["text"] == "the pump moved to paris"
    assert evidence["type"] == "note" and evidence["by"] == "planner"
    assert [one["id"] for one in answer["notes"]] == [said["id"]]
    assert answer["notes"][0]["text"] == "the pump moved to paris" and answer["notes"][0]["source"] == "agent"


def test_a_fact_whose_end_lies_ahead_is_current(memory):
    # The next State begins four minutes from now (the most a write may look ahead is five): the one
    # before it ends then, and is still the fact of the present.
    ahead = stamp(datetime.now(UTC) + timedelta(minutes=4))
    remember(memory, DEVICE, [{"key": "d1", "t": DAY1, "values": {"place": "pump in berlin"}}], "inventory")
    remember(memory, DEVICE, [{"key": "d1", "t": ahead, "values": {"place": "pump in paris"}}], "inventory")
    (fact,) = recall(memory, [DEVICE], "pump")["facts"]
    assert fact["state"]["place"] == "pump in berlin" and fact["current"]
    assert fact["valid_to"] is not None and fact["valid_to"] > datetime.now(UTC)
    later = recall(memory, [DEVICE], "pump", when=ahead)["facts"]
    assert [one["state"]["place"] for one in later] == ["pump in paris"]


def test_a_replaced_fact_and_a_rejected_one_only_when_asked(memory):
    remember(memory, DEVICE, [{"key": "d1", "t": DAY1, "values": {"place": "pump in berlin"}}], "inventory")
    remember(memory, DEVICE, [{"key": "d2", "t": DAY1, "values": {"place": "pump in rome"}}], "inventory")
    remember(memory, DEVICE, [{"key": "d2", "t": DAY2, "values": {"place": "pump in oslo"}}], "inventory")
    remember(
        memory,
        DEVICE,
        [{"key": "d1", "t": DAY2, "values": {"place": "pump in paris"}}],
        "model:m1",
        candidate=True,
    )
    reject(memory, DEVICE, "d1", DAY2, "alice", "never moved")
    assert sorted(facts(recall(memory, [DEVICE], "pump"))) == [
        ("Device", "d1", "2026-01-01", "confirmed"),  # the rejected row never came: berlin holds on
        ("Device", "d2", "2026-01-02", "confirmed"),
    ]
    assert recall(memory, [DEVICE], "paris")["facts"] == []
    assert facts(recall(memory, [DEVICE], "paris", rejected=True)) == [
        ("Device", "d1", "2026-01-02", "rejected")
    ]
    assert facts(recall(memory, [DEVICE], "rome")) == []
    (rome,) = recall(memory, [DEVICE], "rome", past=True)["facts"]
    assert not rome["current"] and rome["valid_to"] == datetime(2026, 1, 2, tzinfo=UTC)


def test_a_time_in_the_past_gives_what_held_then(memory):
    remember(memory, DEVICE, [{"key": "d2", "t": DAY1, "values": {"place": "pump in rome"}}], "inventory")
    remember(memory, DEVICE, [{"key": "d2", "t": DAY2, "values": {"place": "pump in oslo"}}], "inventory")
    then = recall(memory, [DEVICE], "pump", when="2026-01-01T12:00:00Z")["facts"]
    assert [one["state"]["place"] for one in then] == ["pump in rome"]
    assert recall(memory, [DEVICE], "pump", when="2025-12-31T00:00:00Z")["facts"] == []


def test_the_facts_drawn_from_a_matching_note_come_with_it(memory):
    said = note(memory, "alice runs the night shift now", "planner")
    remember(
        memory,
        PERSON,
        [{"key": "alice", "t": DAY2, "values": {"role": "supervisor"}, "entry": said["id"]}],
        "model:m1",
    )
    answer = recall(memory, [DEVICE, PERSON], "night shift")
    assert [(one["kind"], one["key"]) for one in answer["facts"]] == [("Person", "alice")]
    assert answer["facts"][0]["evidence"]["id"] == said["id"]


def test_meaning_finds_what_words_do_not(memory):
    def embedder(texts):  # two dimensions: people who lead, people who build
        return [
            [1.0 if "lead" in text or "supervisor" in text else 0.0, 1.0 if "build" in text else 0.1]
            for text in texts
        ]

    remember(memory, PERSON, [{"key": "bob", "t": DAY1, "values": {"role": "supervisor"}}], "hr")
    remember(memory, PERSON, [{"key": "eve", "t": DAY1, "values": {"role": "builder"}}], "hr")
    embed(memory, PERSON, embedder, "toy-2")
    assert recall(memory, [PERSON], "who leads")["facts"] == []  # no word in common
    found = recall(memory, [PERSON], "who leads", embedder=embedder, model="toy-2", limit=1)["facts"]
    assert [one["key"] for one in found] == ["bob"]


def test_limit_bounds_each_list(memory):
    remember(
        memory,
        DEVICE,
        [{"key": f"d{n}", "t": DAY1, "values": {"place": "pump"}} for n in range(5)],
        "inventory",
    )
    for n in range(4):
        note(memory, f"pump note {n}", "planner")
    answer = recall(memory, [DEVICE], "pump", limit=2)
    assert len(answer["facts"]) == 2 and len(answer["notes"]) == 2


def test_arguments_raise_and_nothing_is_written(memory):
    before = snapshot(memory)
    with pytest.raises(WrongType):
        recall(memory, DEVICE, "pump")
    with pytest.raises(Refused):
        recall(memory, ["Device"], "pump")
    with pytest.raises(WrongType):
        recall(memory, [DEVICE], 5)
    with pytest.raises(Refused):
        recall(memory, [DEVICE], "pump", limit=0)
    with pytest.raises(Refused):
        recall(memory, [DEVICE], "pump", when="yesterday-ish")
    with pytest.raises(WrongType):
        recall(memory, [DEVICE], "pump", past="yes")
    with pytest.raises(WrongType):
        recall(memory, [DEVICE], "pump", embedder="not a function")
    assert recall(memory, [DEVICE], "") == {"facts": [], "notes": [], "episodes": []}
    assert recall(memory, [], "pump") == {"facts": [], "notes": [], "episodes": []}
    # A bad answer of the embedder is refused as embed() and nearest() refuse it: EmbedderError, a
    # ValueError (Refused), whatever its shape.
    for answer in (None, [], [[]], [[1.0], [1.0]], ([float("nan")],), {"v": [1.0]}, [[0.0, 0.0]]):
        with pytest.raises(Refused, match="embedder"):
            recall(memory, [DEVICE], "pump", embedder=lambda texts, given=answer: given, model="m")
    assert snapshot(memory) == before


def test_asked_for_rejected_facts_the_confirmed_ones_stay_beside_them(memory):
    remember(memory, DEVICE, [{"key": "d1", "t": DAY1, "values": {"place": "pump in berlin"}}], "inventory")
    remember(
        memory,
        DEVICE,
        [{"key": "d1", "t": DAY2, "values": {"place": "pump in paris"}}],
        "model:m1",
        candidate=True,
    )
    reject(memory, DEVICE, "d1", DAY2, "alice", "never moved")
    both = recall(memory, [DEVICE], "pump", rejected=True)["facts"]
    assert sorted((fact["state"]["place"], fact["trust"], fact["current"]) for fact in both) == [
        ("pump in berlin", "confirmed", True),
        ("pump in paris", "rejected", True),
    ]


def test_a_value_named_trust_is_a_value_not_the_mark(memory):
    rows = [
        {"key": "d1", "t": DAY1, "values": {"place": "pump one", "trust": "rejected"}},
        {"key": "d2", "t": DAY1, "values": {"place": "pump two", "trust": "high"}},
    ]
    remember(memory, DEVICE, rows, "inventory")
    found = recall(memory, [DEVICE], "pump")["facts"]
    assert sorted((fact["key"], fact["trust"], fact["state"]["trust"]) for fact in found) == [
        ("d1", "confirmed", "rejected"),
        ("d2", "confirmed", "high"),
    ]


def test_the_graph_around_the_best_hit_is_a_ranking_too(memory):
    room = Kind("Room", "code")
    placed = Kind("Machine", "tag", text=("name",), relations={"IN": room})
    ensure_schema(memory, [room, placed])
    rows = [
        {"key": "m1", "t": DAY1, "values": {"name": "boiler"}, "relations": {"IN": "r1"}},
        {"key": "m2", "t": DAY1, "values": {"name": "valve"}, "relations": {"IN": "r1"}},
        {"key": "m3", "t": DAY1, "values": {"name": "lamp"}, "relations": {"IN": "r2"}},
    ]
    remember(memory, placed, rows, "inventory")
    found = recall(memory, [placed], "boiler")["facts"]
    assert [(fact["key"], sorted(fact["places"])) for fact in found] == [("m1", ["words"]), ("m2", ["graph"])]
