"""The marks on the Stamp, one mechanism for extract() and extract_notes(): a mark moves forward in the
query that finishes its work, never back, and a graph written when a mark was kept elsewhere (another
name on the Stamp, the note job's node) is read there until the first move takes it onto the Stamp."""

from __future__ import annotations

import pytest
from devices import DEVICE
from lighthouse import (
    ensure_schema,
    extract,
    extract_notes,
    extraction_progress,
    hold_extraction,
    note,
    notes_to_extract,
)
from lighthouse.extraction import _mark_before, _mark_name
from lighthouse.note_extraction import NOTE_MARK
from lighthouse.stamp_marks import mark_moved, mark_read


def _stamp(graph) -> dict:
    return graph.ro_query("MATCH (st:Stamp) RETURN properties(st)").result_set[0][0]


def test_a_mark_moves_forward_never_back_and_clears_its_old_place(graph):
    ensure_schema(graph)
    graph.query("MATCH (st:Stamp) SET st.`extract_old` = 5")
    read = f"MATCH (st:Stamp) RETURN {mark_read('extract_new', 'st.`extract_old`')}"
    assert graph.ro_query(read).result_set == [[5]]  # the old place, while the Stamp has none
    for to, held in ((3, 5), (9, 9), (4, 9)):
        graph.query(
            f"MATCH (st:Stamp) SET {mark_moved('extract_new', '$to', 'st.`extract_old`')}", {"to": to}
        )
        assert graph.ro_query(read).result_set == [[held]]
        assert "extract_old" not in _stamp(graph) and _stamp(graph)["extract_new"] == held


@pytest.mark.parametrize(
    ("name", "before"), [("a b", None), ("x`) DETACH DELETE st //", None), ("ok", "st.x = 1, st.y")]
)
def test_a_mark_named_otherwise_than_by_a_name_is_refused(name, before):
    with pytest.raises(ValueError, match="mark"):
        mark_read(name, before)


def test_extract_reads_a_mark_kept_under_its_old_name_and_moves_it(graph):
    ensure_schema(graph, [DEVICE])
    ids = [note(graph, f"d{number} hums", "watcher")["id"] for number in range(3)]
    old, new = _mark_before(DEVICE, None), _mark_name(DEVICE, None)
    graph.query(f"MATCH (st:Stamp) SET st.`{old}` = 2")  # a graph written before the label was in the name
    read: list[str] = []
    done = extract(graph, DEVICE, lambda entry: read.append(entry["id"]) or [], "reader")
    assert done["read"] == 1 and read == ids[2:]
    assert old not in _stamp(graph) and _stamp(graph)[new] == 3


def test_the_note_job_reads_the_mark_its_node_kept_and_moves_it_to_the_stamp(graph):
    ensure_schema(graph)
    ids = [note(graph, f"note n{number}", "agent")["id"] for number in range(3)]
    assert hold_extraction(graph, "here:1:a") is None
    graph.query("MATCH (w:`lh.Worker`) SET w.mark = 2")  # a graph written when the mark was on the job node
    assert extraction_progress(graph)["mark"] == 2
    assert [found["id"] for found in notes_to_extract(graph)] == ids[2:]
    done = extract_notes(graph, [DEVICE], lambda found, patient: [], owner="here:1:a", by="model:test")
    assert done["read"] == 1 and _stamp(graph)[NOTE_MARK] == 3 and extraction_progress(graph)["mark"] == 3
    job = graph.ro_query("MATCH (w:`lh.Worker`) RETURN properties(w)").result_set[0][0]
    assert "mark" not in job and job["notes_read"] == 1
