"""A note an agent marked wrong (invalidate_entry) is not read: the worker skips it, moves the mark past
it, and counts it in the status; a note whose answer was kept before it was marked is skipped too."""

from __future__ import annotations

import pytest
from fake_model import FakeModel
from lighthouse import history, invalidate_entry
from lighthouse.note_extraction import EXTRACTION
from lighthouse_server.worker.extraction import extract_notes_with
from lighthouse_server.worker.model import Model
from lighthouse_server.worker.status import extraction_status
from worker_notes import DEVICE, KINDS, held, note, schema, settings


@pytest.fixture
def fake():
    running = FakeModel(
        lambda ask: {"facts": [{"kind": "Device", "key": ask.note, "values": {"status": "ok"}}]}
    )
    yield running
    running.close()


def _status(graph) -> dict:
    return extraction_status(graph, configured=True, declared=True)


def _invalidate(graph, entry: str) -> None:
    assert invalidate_entry(graph, entry, "planner", "said of the wrong device")["status"] == "invalidated"


def test_an_invalidated_note_is_skipped_and_counted(graph, fake):
    schema(graph)
    wrong = note(graph, "wrong")
    note(graph, "right")
    _invalidate(graph, wrong)
    assert _status(graph)["notes_waiting"] == 1  # the wrong one does not wait
    asking = Model(settings(fake.url))
    done = extract_notes_with(graph, KINDS, asking, owner=held(graph))
    asking.close()
    assert done["invalidated"] == 1 and done["read"] == 1
    assert [ask.note for ask in fake.asks] == ["right"]
    assert history(graph, DEVICE, "wrong") == [] and len(history(graph, DEVICE, "right")) == 1
    status = _status(graph)
    assert status["notes_invalidated"] == 1 and status["notes_read"] == 1 and status["notes_waiting"] == 0
    state = graph.ro_query(f"MATCH (x:{EXTRACTION} {{note: $n}}) RETURN x.state", {"n": wrong}).result_set
    assert state == [["invalidated"]]


class Crash(Exception):
    """The worker dying after the answer was kept."""


def _crashing():
    raise Crash


def test_a_note_invalidated_after_its_answer_was_kept_is_not_applied(graph, fake):
    schema(graph)
    kept = note(graph, "kept")
    asking = Model(settings(fake.url))
    owner = held(graph)
    with pytest.raises(Crash):
        extract_notes_with(graph, KINDS, asking, owner=owner, writing=_crashing)
    _invalidate(graph, kept)
    done = extract_notes_with(graph, KINDS, asking, owner=owner)
    asking.close()
    assert done["invalidated"] == 1 and done["read"] == 0 and history(graph, DEVICE, "kept") == []
    assert _status(graph)["notes_waiting"] == 0 and _status(graph)["notes_invalidated"] == 1
    assert extract_notes_with(graph, KINDS, Model(settings(fake.url)), owner=owner)["invalidated"] == 0
