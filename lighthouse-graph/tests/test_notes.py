"""Notes: free text kept at once as entries, dated by when it was said, one query per episode."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from graph_contents import assert_one_refusal, snapshot
from hostile import hostile_things, sort_of
from lighthouse import (
    Refused,
    WrongType,
    close_episode,
    embed_entries,
    ensure_schema,
    episode,
    nearest_entries,
    note,
    notes,
    now,
    search_entries,
)
from lighthouse.graphs import read
from lighthouse.notes import MAX_NOTES, QUERY_NOTES
from lighthouse.write.failures import failures
from test_episodes import CountingGraph, FailingOnce

FRIDAY = "2026-11-27T16:00:00Z"


@pytest.fixture
def notebook(graph):
    ensure_schema(graph)
    return graph


def today() -> str:
    return now()[:10]


def test_a_note_is_an_entry_of_its_source_episode_dated_when_it_was_said(notebook):
    receipt = note(notebook, "the pump in room 3 leaks", "planner", "chat", at=FRIDAY)
    assert receipt == {"id": f"notes:chat:{today()}/1", "seq": 1, "status": "recorded"}
    held = episode(notebook, f"notes:chat:{today()}")
    (entry,) = held["entries"]
    assert (
        entry["type"] == "note" and entry["text"] == "the pump in room 3 leaks" and entry["source"] == "chat"
    )
    assert entry["at"] == datetime(2026, 11, 27, 16, tzinfo=UTC) and entry["by"] == "planner"
    assert entry["recorded_at"].date() == datetime.now(UTC).date()  # arrival, not the said time


def test_a_note_without_a_time_is_dated_by_its_arrival(notebook):
    before = datetime.now(UTC).replace(microsecond=0)
    receipt = note(notebook, "arrived now", "planner")
    (entry,) = episode(notebook, f"notes:agent:{today()}")["entries"]
    assert receipt["status"] == "recorded" and before <= entry["at"] <= datetime.now(UTC)


def test_notes_take_serials_in_order_and_chain_in_their_episode(notebook):
    first = notes(notebook, [{"text": f"note {n}"} for n in range(3)], "planner")
    second = notes(notebook, [{"text": "note 3"}, {"text": "elsewhere", "episode": "shift-7"}], "planner")
    assert [one["seq"] for one in first + second] == [1, 2, 3, 4, 1]
    rows = read(
        notebook,
        "MATCH (n:Entry {type: 'note'}) OPTIONAL MATCH (p:Entry)-[:NEXT]->(n) "
        "RETURN n.id, n.serial, p.id ORDER BY n.serial",
    )
    day = f"notes:agent:{today()}"
    assert rows == [
        [f"{day}/1", 1, None],
        [f"{day}/2", 2, f"{day}/1"],
        [f"{day}/3", 3, f"{day}/2"],
        [f"{day}/4", 4, f"{day}/3"],
        ["shift-7/1", 5, None],
    ]


def test_each_episode_of_a_batch_is_one_query(notebook):
    counted = CountingGraph(notebook)
    receipts = notes(counted, [{"text": f"n{n}", "source": ["a", "b"][n % 2]} for n in range(10)], "planner")
    assert all(one["status"] == "recorded" for one in receipts) and len(counted.sent) == 2


def test_a_big_batch_goes_in_bounded_queries(notebook):
    counted = CountingGraph(notebook)
    receipts = notes(counted, [{"text": f"n{n}"} for n in range(MAX_NOTES)], "planner")
    assert [one["seq"] for one in receipts] == list(range(1, MAX_NOTES + 1))
    assert len(counted.sent) == MAX_NOTES // QUERY_NOTES


def test_notes_are_found_by_words_at_once_and_by_meaning_once_embedded(notebook):
    note(notebook, "the pump in room 3 leaks oil", "planner")
    note(notebook, "lunch is at noon", "planner")
    found = search_entries(notebook, "pump oil", types=["note"])
    assert [hit["entry"]["text"] for hit in found] == ["the pump in room 3 leaks oil"]

    def embedder(texts):  # a real function of the words: two dimensions, pumps and meals
        return [
            [1.0 if "pump" in text else 0.0, 1.0 if "lunch" in text or "meal" in text else 0.0]
            for text in texts
        ]

    ensure_schema(notebook, entry_dimensions=2)
    assert embed_entries(notebook, embedder, "words-2")["embedded"] == 2
    nearest = nearest_entries(notebook, "a meal", embedder, "words-2", limit=1, types=["note"])
    assert nearest[0]["entry"]["text"] == "lunch is at noon"


@pytest.mark.parametrize(
    "item, reason",
    [
        ({"text": ""}, "non-blank"),
        ({"text": "   "}, "non-blank"),
        ({"text": 7}, "non-blank"),
        ({}, "non-blank"),
        ({"text": "x", "colour": "red"}, "no field 'colour'"),
        ({"text": "x" * 100_001}, "100000"),
        ({"text": "x", "source": "a b\x00"}, "source"),
        ({"text": "x", "source": "s" * 201}, "source"),
        ({"text": "x", "source": ""}, "source"),
        ({"text": "x", "source": 0}, "source"),
        ({"text": "x", "source": []}, "source"),
        ({"text": "x", "source": False}, "source"),
        ({"text": "x", "at": "2999-01-01T00:00:00Z"}, "2068"),
        ({"text": "x", "at": "2036-01-01T00:00:00Z"}, "future"),
        ({"text": "x", "at": "not a time"}, "time"),
        ({"text": "x", "at": ""}, "blank"),
        ({"text": "x", "at": "   "}, "blank"),
        ({"text": "x", "episode": "e" * 201}, "episode id"),
        ("just text", "an object"),
    ],
)
def test_a_bad_note_costs_one_refusal_and_nothing_else(notebook, item, reason):
    before = snapshot(notebook)
    receipt = notes(notebook, [item], "planner")[0]
    assert reason in receipt["reason"] and receipt["id"] is None
    assert_one_refusal(notebook, before, receipt, kind="Entry")


def test_the_good_notes_of_a_batch_are_kept_beside_a_bad_one(notebook):
    receipts = notes(notebook, [{"text": "good"}, {"text": ""}, {"text": "also good"}], "planner")
    assert [one["status"] for one in receipts] == ["recorded", "invalid", "recorded"]
    assert [one["seq"] for one in receipts if one["status"] == "recorded"] == [1, 2]
    assert len(failures(notebook)) == 1


@pytest.mark.parametrize("thing", hostile_things(), ids=sort_of)
def test_a_hostile_object_in_a_note_costs_one_refusal(notebook, thing):
    for item in ({"text": thing}, {"text": "x", "source": thing}, {"text": "x", "at": thing}, thing):
        notebook.query("MATCH (f:WriteFailure) DELETE f")
        before = snapshot(notebook)
        receipt = notes(notebook, [item], "planner")[0]
        assert_one_refusal(notebook, before, receipt, kind="Entry")


def test_text_is_kept_as_given(notebook):
    text = "<script>alert('x')</script> \"quoted\" ' é \u202e"
    receipt = note(notebook, text, "planner")
    assert episode(notebook, receipt["id"].rsplit("/", 1)[0])["entries"][0]["text"] == text


def test_arguments_raise_and_write_nothing(notebook):
    before = snapshot(notebook)
    with pytest.raises(Refused, match="by"):
        note(notebook, "x", "")
    with pytest.raises(WrongType, match="list of notes"):
        notes(notebook, {"text": "x"}, "planner")
    with pytest.raises(Refused, match="at most 1,000"):
        notes(notebook, [{"text": "x"}] * (MAX_NOTES + 1), "planner")
    assert snapshot(notebook) == before and failures(notebook) == []
    assert notes(notebook, [], "planner") == []


def test_a_closed_episode_takes_no_note(notebook):
    note(notebook, "first", "planner", episode="shift-1")
    assert close_episode(notebook, "shift-1", "planner", {"result": "done"})["status"] == "recorded"
    receipt = note(notebook, "late", "planner", episode="shift-1")
    assert receipt["status"] == "closed" and "closed" in receipt["reason"]
    assert [one["reason"] for one in failures(notebook)] == ["closed"]


def test_a_database_error_fails_the_notes_of_that_query(notebook):
    failing = FailingOnce(notebook)
    receipts = notes(failing, [{"text": "a"}, {"text": "b", "source": "other"}], "planner")
    assert [one["status"] for one in receipts] == ["failed", "recorded"]
    assert [one["reason"] for one in failures(notebook)] == ["failed"]
