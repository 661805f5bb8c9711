"""notes_after(), notes_by_id(), notes_waiting(): the notes as a worker reads them off the write path."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from lighthouse import (
    Refused,
    WrongType,
    ensure_schema,
    invalidate_entry,
    note,
    notes_after,
    notes_by_id,
    notes_waiting,
)

SAID = "2026-11-27T16:00:00Z"


@pytest.fixture
def notebook(graph):
    ensure_schema(graph)
    return graph


def test_notes_after_lists_the_notes_past_a_serial_oldest_first(notebook):
    ids = [note(notebook, f"note {n}", "agent", at=SAID)["id"] for n in range(3)]
    notebook.query(  # an entry of another type takes a serial too and is not a note
        "MATCH (st:Stamp) SET st.serial = st.serial + 1 "
        "CREATE (:Entry {id: 'other/1', serial: st.serial, type: 'observation', words: 'x'})"
    )
    listed = notes_after(notebook)
    assert [found["id"] for found in listed] == ids
    first = listed[0]
    assert (first["text"], first["source"], first["serial"], first["type"]) == ("note 0", "agent", 1, "note")
    assert first["at"] == datetime(2026, 11, 27, 16, tzinfo=UTC) and first["recorded_at"].tzinfo is UTC
    assert [found["id"] for found in notes_after(notebook, 1)] == ids[1:]
    assert [found["id"] for found in notes_after(notebook, 0, 2)] == ids[:2]
    assert notes_after(notebook, 3) == []
    invalidate_entry(notebook, ids[0], "agent", "wrong")
    assert "invalidated_at" in notes_after(notebook)[0]  # listed still: a worker moves past it


def test_notes_by_id_finds_notes_only_in_serial_order(notebook):
    ids = [note(notebook, f"note {n}", "agent")["id"] for n in range(3)]
    found = notes_by_id(notebook, [ids[2], "no/such", ids[0], ids[2]])
    assert [one["id"] for one in found] == [ids[0], ids[2]]
    assert notes_by_id(notebook, []) == [] and notes_by_id(notebook, ()) == []


def test_notes_waiting_counts_what_no_agent_invalidated(notebook):
    assert notes_waiting(notebook) == {"count": 0, "oldest": None}
    ids = [note(notebook, f"note {n}", "agent")["id"] for n in range(3)]
    waiting = notes_waiting(notebook)
    assert waiting["count"] == 3 and waiting["oldest"] == notes_after(notebook)[0]["recorded_at"]
    assert notes_waiting(notebook, 2)["count"] == 1
    invalidate_entry(notebook, ids[2], "agent", "wrong")
    assert notes_waiting(notebook, 2) == {"count": 0, "oldest": None}


def test_the_notes_reads_of_a_graph_not_made_yet_are_empty(graph):
    assert notes_after(graph) == [] and notes_by_id(graph, ["a/1"]) == []
    assert notes_waiting(graph) == {"count": 0, "oldest": None}


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda g: notes_after(g, -1), Refused),
        (lambda g: notes_after(g, True), Refused),
        (lambda g: notes_after(g, 0, 0), Refused),
        (lambda g: notes_after(g, 0, 1_001), Refused),
        (lambda g: notes_waiting(g, "1"), Refused),
        (lambda g: notes_by_id(g, "a/1"), WrongType),
        (lambda g: notes_by_id(g, [" a/1"]), Refused),
        (lambda g: notes_by_id(g, [None]), Refused),
        (lambda g: notes_by_id(g, ["a/1"] * 1_001), Refused),
    ],
)
def test_the_notes_reads_refuse_bad_arguments(graph, call, error):
    with pytest.raises(error):
        call(graph)
