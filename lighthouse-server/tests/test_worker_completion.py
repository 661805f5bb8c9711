"""A drawn fact completes what its entity held at the fact's time (a rejected State not counting)
instead of replacing it, and the prompt shows the known entities as they were at the note's said-time."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from lighthouse import history, reject, related, remember
from lighthouse_server.worker.extraction import extract_notes_with
from lighthouse_server.worker.model import Model
from lighthouse_server.worker.prompt import INSTRUCTIONS, MAX_SHOWN_TEXT
from worker_notes import DEVICE, KINDS, ROOM, held, note, schema, settings

LONG = "north wing pump room sensor, " * 25  # past what a prompt shows of a text
NOV1, NOV10, NOV20 = "2026-11-01T00:00:00Z", "2026-11-10T00:00:00Z", "2026-11-20T00:00:00Z"


@pytest.fixture
def world(graph):
    schema(graph)
    remember(graph, ROOM, [{"key": "r1", "t": NOV1}, {"key": "r2", "t": NOV1}], by="inventory")
    return graph


def _run(graph, fake) -> dict:
    asking = Model(settings(fake.url))
    try:
        return extract_notes_with(graph, KINDS, asking, owner=held(graph))
    finally:
        asking.close()


def _drawn(key: str, t: str | None = None, **given) -> dict:
    fact = {"kind": "Device", "key": key, **given}
    return fact | ({"t": t} if t else {})


def test_a_drawn_fact_keeps_the_whole_text_and_the_relations_of_its_entity(world, fake):
    assert len(LONG) > 600
    remember(
        world,
        DEVICE,
        [
            {
                "key": "d1",
                "t": NOV1,
                "values": {"note": LONG, "status": "ok", "last_seen": "2026-10-31T10:00:00Z"},
                "relations": {"LOCATED_IN": "r1"},
            }
        ],
        by="inventory",
    )
    fake.script = lambda ask: {"facts": [_drawn("d1", values={"status": "hot"})]}
    note(world, "d1 runs hot", at=NOV20)
    assert _run(world, fake)["rows"] == {"changed": 1}
    (ask,) = fake.asks
    (shown,) = [entity for entity in ask.user["known"] if entity["key"] == "d1"]
    assert len(shown["values"]["note"]) == MAX_SHOWN_TEXT + 3 and "relations" not in shown  # what it saw
    before, after = history(world, DEVICE, "d1")
    assert after["status"] == "hot" and after["note"] == LONG and after["trust"] == "candidate"
    assert after["last_seen"] == datetime(2026, 10, 31, 10, tzinfo=UTC)
    assert related(world, DEVICE, "d1", "LOCATED_IN") == ["r1"]
    assert before["note"] == LONG and before["status"] == "ok"


def test_what_the_fact_names_wins_over_what_the_entity_held(world, fake):
    remember(
        world,
        DEVICE,
        [
            {
                "key": "d2",
                "t": NOV1,
                "values": {"note": "old text", "status": "ok"},
                "relations": {"LOCATED_IN": "r1"},
            }
        ],
        by="inventory",
    )
    fake.script = lambda ask: {
        "facts": [_drawn("d2", values={"note": "new text"}, relations={"LOCATED_IN": ["r2"]})]
    }
    note(world, "d2 moved to r2", at=NOV20)
    _run(world, fake)
    latest = history(world, DEVICE, "d2")[-1]
    assert latest["note"] == "new text" and latest["status"] == "ok"
    assert related(world, DEVICE, "d2", "LOCATED_IN") == ["r2"]


def test_a_fact_is_completed_from_what_held_at_its_own_time_not_now(world, fake):
    remember(
        world,
        DEVICE,
        [
            {"key": "d3", "t": NOV1, "values": {"note": "first"}, "relations": {"LOCATED_IN": "r1"}},
            {"key": "d3", "t": NOV20, "values": {"note": "second"}, "relations": {"LOCATED_IN": "r2"}},
        ],
        by="inventory",
    )
    fake.script = lambda ask: {"facts": [_drawn("d3", NOV10, values={"status": "hot"})]}
    note(world, "on the tenth d3 ran hot", at=NOV20)
    assert _run(world, fake)["rows"] == {"inserted": 1}
    placed = [state for state in history(world, DEVICE, "d3") if state["valid_from"].day == 10]
    assert placed[0]["note"] == "first" and placed[0]["status"] == "hot"
    assert related(world, DEVICE, "d3", "LOCATED_IN", when=NOV10) == ["r1"]


def test_a_rejected_state_gives_nothing_to_the_completion_nor_to_the_prompt(world, fake):
    remember(
        world, DEVICE, [{"key": "d4", "t": NOV1, "values": {"note": "kept", "status": "ok"}}], by="inventory"
    )
    remember(
        world, DEVICE, [{"key": "d4", "t": NOV10, "values": {"note": "wrong"}}], by="model:x", candidate=True
    )
    assert reject(world, DEVICE, "d4", NOV10, "reviewer", "it never said so")["status"] == "rejected"
    fake.script = lambda ask: {"facts": [_drawn("d4", values={"status": "hot"})]}
    note(world, "d4 is hot", at=NOV20)
    _run(world, fake)
    (shown,) = [entity for entity in fake.asks[0].user["known"] if entity["key"] == "d4"]
    assert shown["values"] == {"note": "kept", "status": "ok"}
    latest = history(world, DEVICE, "d4")[-1]
    assert latest["note"] == "kept" and latest["status"] == "hot"


def test_a_fact_about_an_entity_memory_does_not_hold_is_written_as_given(world, fake):
    fake.script = lambda ask: {"facts": [_drawn("d9", values={"status": "new"})]}
    note(world, "d9 arrived", at=NOV20)
    assert _run(world, fake)["rows"] == {"created": 1}
    (state,) = history(world, DEVICE, "d9")
    assert state["status"] == "new" and "note" not in state
    assert related(world, DEVICE, "d9", "LOCATED_IN") == []


def test_the_prompt_shows_an_entity_as_it_was_when_the_note_was_said(world, fake):
    remember(
        world,
        DEVICE,
        [
            {"key": "d5", "t": NOV1, "values": {"status": "ok"}},
            {"key": "d5", "t": NOV20, "values": {"status": "broken"}},
            {"key": "d6", "t": NOV20, "values": {"status": "new"}},
        ],
        by="inventory",
    )
    note(world, "d5 and d6 on the tenth", at=NOV10)
    note(world, "d5 and d6 later", at="2026-11-21T00:00:00Z")
    _run(world, fake)
    first, second = (ask.user["known"] for ask in fake.asks)
    assert first == [{"kind": "Device", "key": "d5", "values": {"status": "ok"}}]  # d6 was not yet
    assert {"kind": "Device", "key": "d5", "values": {"status": "broken"}} in second
    assert {"kind": "Device", "key": "d6", "values": {"status": "new"}} in second


def test_the_instructions_ask_only_for_what_changes():
    assert "only what the note says changes" in INSTRUCTIONS and "whole current picture" not in INSTRUCTIONS


def test_a_bad_item_about_a_known_entity_is_still_refused_and_changes_nothing(world, fake):
    remember(world, DEVICE, [{"key": "d7", "t": NOV1, "values": {"status": "ok"}}], by="inventory")
    fake.script = lambda ask: {
        "facts": [
            _drawn("d7", values="hot"),  # values that are not an object
            _drawn("d7", relations={"OWNS": "r1"}),  # a relation Device does not declare
            _drawn("d7", "next June", values={"status": "hot"}),  # a time that is not one
        ]
    }
    note(world, "d7 is odd", at=NOV20)
    done = _run(world, fake)
    assert done["rows"] == {"invalid": 3} and done["refused"] == 3
    assert [state["status"] for state in history(world, DEVICE, "d7")] == ["ok"]
