"""The job state of reading notes with a model: the notes to read, an answer kept before its rows, the
mark moved with what finishes a note, every write guarded by the owner that holds the graph."""

from __future__ import annotations

import pytest
from lighthouse import (
    Refused,
    WrongType,
    extraction_progress,
    extraction_states,
    finish_note,
    give_note_back,
    hold_note_back,
    invalidate_entry,
    keep_extraction_error,
    keep_note_answer,
    leave_note_waiting,
    notes_to_extract,
    set_note_aside,
    skip_note,
)
from lighthouse.note_extraction import MAX_ANSWER, MAX_ERROR, STATUSES
from lighthouse.write.failures import REFUSALS
from notebooks import OWNER, held_notebook


@pytest.fixture
def notebook(graph):
    """A graph with three notes, held by OWNER; their ids."""
    return held_notebook(graph, 3)


def _ids(graph, limit=50) -> list[str]:
    return [found["id"] for found in notes_to_extract(graph, limit)]


def test_a_note_answered_then_finished_moves_the_mark_and_counts(notebook):
    graph, ids = notebook
    first = notes_to_extract(graph)[0]
    assert first["id"] == ids[0] and first["text"] == "note 0" and first["extraction"] is None
    answer = {"facts": [{"kind": "Room", "key": "r1", "note": "caf\u00e9 \ud800"}]}  # a lone surrogate too
    assert keep_note_answer(graph, OWNER, ids[0], answer, 2) is True
    kept = notes_to_extract(graph)[0]
    assert kept["extraction"] == {"state": "answered", "answer": answer, "asks": 2, "given_back": False}
    assert finish_note(graph, OWNER, ids[0], {"created": 2, "invalid": 1}, refused=1, failed_asks=1) is True
    assert _ids(graph) == ids[1:]
    progress = extraction_progress(graph)
    assert progress["mark"] == 1 and progress["notes_read"] == 1 and progress["asks_failed"] == 1
    assert progress["rows"] == {"created": 2, "invalid": 1} and progress["items_refused"] == 1
    assert extraction_states(graph, [ids[0]])[ids[0]]["rows"] == {"created": 2, "invalid": 1}


def test_the_mark_never_moves_back(notebook):
    graph, ids = notebook
    assert finish_note(graph, OWNER, ids[2]) is True
    assert finish_note(graph, OWNER, ids[0]) is True
    assert extraction_progress(graph)["mark"] == 3 and _ids(graph) == []


def test_a_note_held_back_stays_answered_behind_the_mark_and_comes_first(notebook):
    graph, ids = notebook
    keep_note_answer(graph, OWNER, ids[1], {"facts": []})
    assert hold_note_back(graph, OWNER, ids[1], "2 rows busy") is True
    finish_note(graph, OWNER, ids[2])  # the mark past it
    assert _ids(graph) == [ids[1]]  # begun and not finished, wherever the mark is
    progress = extraction_progress(graph)
    assert progress["last_error"] == "2 rows busy" and progress["erring"] is False  # a read came after
    assert progress["notes_waiting"] == 1 and progress["rows"] == {}


def test_a_waiting_note_comes_first_and_a_set_aside_one_after_give_note_back(notebook):
    graph, ids = notebook
    assert leave_note_waiting(graph, OWNER, ids[0], "unreachable: refused") is True
    assert set_note_aside(graph, OWNER, ids[1], "malformed: not JSON", asks=3) is True
    assert _ids(graph) == [ids[0], ids[2]]
    assert extraction_progress(graph)["erring"] is True  # an error and no note read yet
    assert give_note_back(graph, ids[1]) == {"note": ids[1], "status": "replayed"}
    given = notes_to_extract(graph)
    assert [found["id"] for found in given] == [ids[0], ids[1], ids[2]]
    assert given[1]["extraction"]["state"] == "replay" and given[1]["extraction"]["given_back"] is True
    assert give_note_back(graph, ids[1])["status"] == "not_set_aside"
    assert give_note_back(graph, "no/1") == {"note": "no/1", "status": "unknown"}
    with pytest.raises(Refused):
        give_note_back(graph, "bad\x00id")


def test_an_invalidated_note_is_given_and_skip_note_passes_it(notebook):
    graph, ids = notebook
    invalidate_entry(graph, ids[0], "reviewer", "wrong")
    first = notes_to_extract(graph)[0]
    assert first["id"] == ids[0] and "invalidated_at" in first
    assert skip_note(graph, OWNER, ids[0]) is True
    assert _ids(graph) == ids[1:] and extraction_progress(graph)["notes_invalidated"] == 1


def test_a_worker_that_does_not_hold_the_graph_writes_nothing(notebook):
    graph, ids = notebook
    other = "there:2:b"
    assert keep_note_answer(graph, other, ids[0], {"facts": []}) is False
    assert finish_note(graph, other, ids[0]) is False
    assert set_note_aside(graph, other, ids[0], "x") is False
    assert leave_note_waiting(graph, other, ids[0], "x") is False
    assert hold_note_back(graph, other, ids[0], "x") is False
    assert skip_note(graph, other, ids[0]) is False
    assert extraction_states(graph, [ids[0]])[ids[0]]["state"] is None
    assert extraction_progress(graph)["mark"] == 0


def test_the_limit_bounds_the_notes_given(notebook):
    graph, ids = notebook
    assert _ids(graph, 2) == ids[:2]
    with pytest.raises(Refused):
        notes_to_extract(graph, 0)
    with pytest.raises(Refused):
        notes_to_extract(graph, 1_001)


def test_keep_extraction_error_keeps_the_last_error_cut_and_storable(notebook):
    graph, _ids_ = notebook
    keep_extraction_error(graph, "bad\x00\udc80" + "x" * (MAX_ERROR + 10))
    kept = extraction_progress(graph)["last_error"]
    assert len(kept) == MAX_ERROR and kept.startswith("bad\ufffd\ufffdx")
    with pytest.raises(WrongType):
        keep_extraction_error(graph, 42)


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda g, i: keep_note_answer(g, OWNER, i, ["not", "a", "dict"]), WrongType),
        (lambda g, i: keep_note_answer(g, OWNER, i, {"x": object()}), WrongType),
        (lambda g, i: keep_note_answer(g, OWNER, i, {"x": "y" * MAX_ANSWER}), Refused),
        (lambda g, i: keep_note_answer(g, OWNER, i, {}, asks=0), Refused),
        (lambda g, i: keep_note_answer(g, "", i, {}), Refused),
        (lambda g, i: keep_note_answer(g, OWNER, "bad\x00id", {}), Refused),
        (lambda g, i: finish_note(g, OWNER, i, {"made": 1}), Refused),
        (lambda g, i: finish_note(g, OWNER, i, {"created": -1}), Refused),
        (lambda g, i: finish_note(g, OWNER, i, [("created", 1)]), WrongType),
        (lambda g, i: finish_note(g, OWNER, i, refused=True), Refused),
        (lambda g, i: finish_note(g, OWNER, i, failed_asks=10**10), Refused),
        (lambda g, i: set_note_aside(g, OWNER, i, None), WrongType),
        (lambda g, i: set_note_aside(g, OWNER, i, "x", asks=0), Refused),
        (lambda g, i: leave_note_waiting(g, OWNER, i, b"bytes"), WrongType),
        (lambda g, i: hold_note_back(g, OWNER, i, 3), WrongType),
    ],
)
def test_bad_arguments_are_refused_and_nothing_is_written(notebook, call, error):
    graph, ids = notebook
    with pytest.raises(error):
        call(graph, ids[0])
    assert extraction_states(graph, [ids[0]])[ids[0]]["state"] is None
    assert extraction_progress(graph)["mark"] == 0


def test_an_id_of_no_note_is_refused_as_unknown(notebook):
    graph, _ids_ = notebook
    with pytest.raises(Refused) as refused:
        finish_note(graph, OWNER, "no/1")
    assert refused.value.reason == "unknown"
    with pytest.raises(Refused, match="no note"):
        keep_note_answer(graph, OWNER, "no/1", {})


def test_every_receipt_status_of_the_write_rule_is_counted():
    assert {"created", "changed", "inserted", "unchanged"} | REFUSALS == set(STATUSES)
