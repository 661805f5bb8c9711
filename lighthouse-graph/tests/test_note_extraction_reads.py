"""notes_set_aside(), extraction_progress(), extraction_states(): what the job of reading notes did and
what waits, read without writing."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from lighthouse import (
    Refused,
    WrongType,
    extraction_progress,
    extraction_states,
    finish_note,
    give_note_back,
    invalidate_entry,
    keep_note_answer,
    leave_note_waiting,
    notes_set_aside,
    set_note_aside,
    skip_note,
)
from notebooks import OWNER, held_notebook


@pytest.fixture
def notebook(graph):
    """A graph with six notes, held by OWNER asking model-1; their ids."""
    return held_notebook(graph, 6, "model-1")


def test_a_graph_never_read_has_every_note_waiting(notebook):
    graph, ids = notebook
    progress = extraction_progress(graph)
    assert progress["notes_waiting"] == 6 and progress["mark"] == 0 and progress["notes_read"] == 0
    assert progress["oldest_waiting"].tzinfo is UTC and progress["erring"] is False
    assert progress["last_error"] is None and progress["rows"] == {} and progress["notes_set_aside"] == 0
    assert notes_set_aside(graph) == []


def test_each_note_says_where_it_is(notebook):
    graph, ids = notebook
    keep_note_answer(graph, OWNER, ids[0], {"facts": []})
    keep_note_answer(graph, OWNER, ids[1], {"facts": []})
    finish_note(graph, OWNER, ids[1], {"created": 1})
    set_note_aside(graph, OWNER, ids[2], "malformed: not JSON", asks=3)
    leave_note_waiting(graph, OWNER, ids[3], "unreachable")
    invalidate_entry(graph, ids[4], "reviewer", "wrong")
    skip_note(graph, OWNER, ids[4])
    states = extraction_states(graph, [*ids, "no/1"])
    assert set(states) == set(ids)  # an id of no note is left out
    shown = {note_id: states[note_id]["state"] for note_id in ids}
    assert list(shown.values()) == ["answered", "applied", "set_aside", "waiting", "invalidated", None]
    assert states[ids[1]]["rows"] == {"created": 1} and states[ids[0]]["rows"] == {}
    assert states[ids[2]]["error"] == "malformed: not JSON" and states[ids[2]]["asks"] == 3
    assert all(isinstance(states[note_id]["at"], datetime) for note_id in ids[:5])
    assert states[ids[5]] == {"state": None, "at": None, "error": None, "asks": 0, "rows": {}}
    give_note_back(graph, ids[2])
    assert extraction_states(graph, (ids[2],))[ids[2]]["state"] == "replay"
    assert extraction_states(graph, []) == {}


def test_the_progress_counts_what_waits_behind_and_past_the_mark(notebook):
    graph, ids = notebook
    keep_note_answer(graph, OWNER, ids[0], {"facts": []})  # answered, never finished
    set_note_aside(graph, OWNER, ids[1], "timeout", asks=2)
    finish_note(graph, OWNER, ids[2], {"unchanged": 2}, failed_asks=1)
    progress = extraction_progress(graph)
    assert progress["mark"] == 3 and progress["notes_read"] == 1 and progress["asks_failed"] == 3
    assert progress["notes_waiting"] == 4  # ids[0] behind the mark, ids[3:] past it
    assert progress["notes_set_aside"] == 1 and progress["rows"] == {"unchanged": 2}
    assert progress["owner"] == OWNER and progress["model"] == "model-1"
    aside = notes_set_aside(graph)
    assert [(one["note"], one["text"], one["error"], one["asks"]) for one in aside] == [
        (ids[1], "note 1", "timeout", 2)
    ]
    assert aside[0]["at"] == datetime(2026, 11, 27, 16, tzinfo=UTC) and aside[0]["error_at"].tzinfo is UTC


def test_the_set_aside_list_is_bounded_by_its_limit(notebook):
    graph, ids = notebook
    for note_id in ids[:3]:
        set_note_aside(graph, OWNER, note_id, "timeout")
    assert [one["note"] for one in notes_set_aside(graph, 2)] == ids[:2]
    for limit in (0, 1_001, "2"):
        with pytest.raises(Refused):
            notes_set_aside(graph, limit)


@pytest.mark.parametrize(
    ("note_ids", "error"),
    [
        ("a/1", WrongType),
        ({"a/1"}, WrongType),
        (["a/1"] * 1_001, Refused),
        (["bad\x00"], Refused),
        ([7], Refused),
    ],
)
def test_extraction_states_refuses_what_is_no_list_of_note_ids(notebook, note_ids, error):
    graph, _ids = notebook
    with pytest.raises(error):
        extraction_states(graph, note_ids)


def test_a_graph_not_made_yet_reads_as_empty(db):
    graph = db.select_graph("test_never_made_note_extraction")
    progress = extraction_progress(graph)
    assert progress["notes_waiting"] == 0 and progress["owner"] is None and progress["mark"] == 0
    assert notes_set_aside(graph) == [] and extraction_states(graph, ["a/1"]) == {}
