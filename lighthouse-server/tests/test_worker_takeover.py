"""A worker that loses the graph mid-round (another took it after the lease) writes nothing more: its
answer is not kept, its note is not marked done, and its round ends; the new owner reads each note once."""

from __future__ import annotations

import os
import socket
from datetime import UTC, datetime, timedelta

import pytest
from fake_model import FakeModel
from lighthouse import extraction_progress, history, hold_extraction
from lighthouse.note_extraction import EXTRACTION
from lighthouse.note_extraction_hold import WORKER
from lighthouse_server.worker import lease as leasing
from lighthouse_server.worker.extraction import LOST_CLAIM, extract_notes_with
from lighthouse_server.worker.loop import Loop
from lighthouse_server.worker.model import Model
from lighthouse_server.worker.status import extraction_status
from worker_notes import DEVICE, KINDS, held, note, schema, settings

OTHER = "another-host.example:4242:took"


@pytest.fixture
def fake():
    running = FakeModel(
        lambda ask: {"facts": [{"kind": "Device", "key": ask.note, "values": {"status": "ok"}}]}
    )
    yield running
    running.close()


def _taken_by_other(graph) -> None:
    graph.query(f"MATCH (w:{WORKER}) SET w.owner = $other", {"other": OTHER})


def _worker(graph) -> dict:
    return graph.ro_query(f"MATCH (w:{WORKER}) RETURN properties(w)").result_set[0][0]


def _extractions(graph) -> list:
    return graph.ro_query(f"MATCH (x:{EXTRACTION}) RETURN x.note, x.state ORDER BY x.note").result_set


def test_a_claim_lost_while_the_model_answers_keeps_nothing_and_ends_the_round(graph, fake):
    schema(graph)
    answer = fake.script

    def taken_meanwhile(ask):
        _taken_by_other(graph)
        return answer(ask)

    fake.script = taken_meanwhile
    note(graph, "d1")
    note(graph, "d2")
    asking = Model(settings(fake.url))
    done = extract_notes_with(graph, KINDS, asking, owner=held(graph))
    asking.close()
    assert done["stopped"] == LOST_CLAIM and done["read"] == 0 and len(fake.asks) == 1
    assert _extractions(graph) == [] and history(graph, DEVICE, "d1") == []
    worker = _worker(graph)
    assert (
        worker["owner"] == OTHER
        and extraction_progress(graph)["mark"] == 0
        and worker.get("notes_read", 0) == 0
    )


def test_a_claim_lost_while_rows_are_written_leaves_the_answer_for_the_new_owner(graph, fake):
    schema(graph)
    first = note(graph, "d1")
    note(graph, "d2")
    asking = Model(settings(fake.url))
    old = held(graph)

    class Taken:
        def __enter__(self):
            _taken_by_other(graph)

        def __exit__(self, *failure):
            return False

    done = extract_notes_with(graph, KINDS, asking, owner=old, writing=Taken)
    assert done["stopped"] == LOST_CLAIM and done["read"] == 0 and len(fake.asks) == 1
    assert _extractions(graph) == [[first, "answered"]] and extraction_progress(graph)["mark"] == 0
    # The old owner, back, is refused every write; the new one applies the kept answer.
    assert extract_notes_with(graph, KINDS, asking, owner=old)["stopped"] == LOST_CLAIM
    again = extract_notes_with(graph, KINDS, asking, owner=OTHER)
    asking.close()
    assert again["read"] == 2 and again["rows"] == {"unchanged": 1, "created": 1}
    assert [ask.note for ask in fake.asks] == ["d1", "d2"]  # each note asked once
    assert len(history(graph, DEVICE, "d1")) == 1 and len(history(graph, DEVICE, "d2")) == 1
    assert extraction_status(graph, configured=True, declared=True)["notes_read"] == 2


def test_the_loop_that_lost_a_graph_asks_for_it_again_next_round(graph, db, fake):
    schema(graph)
    note(graph, "d1")
    loop = Loop(settings(fake.url), db)
    try:
        assert loop._holds("t", graph) is True
        _taken_by_other(graph)
        assert loop._extract("t", graph, KINDS) is False
        assert "t" not in loop._held
        assert loop._holds("t", graph) is False  # the other looked lately: it keeps the graph
    finally:
        loop.model.close()


def test_a_live_pid_of_this_host_is_taken_over_after_the_lease(graph):
    reused = f"{socket.gethostname()}:{os.getpid()}:earlier"  # alive: this very process, a new worker
    assert hold_extraction(graph, reused, "old", gone=leasing.gone) is None
    here = leasing.me()
    assert hold_extraction(graph, here, "fake-1", gone=leasing.gone) == reused  # it looked lately
    graph.query(f"MATCH (w:{WORKER}) SET w.seen_at = localdatetime('2026-01-01T00:00:00')")
    assert (
        hold_extraction(graph, here, "fake-1", gone=leasing.gone) is None and _worker(graph)["owner"] == here
    )


def test_the_lease_outlasts_the_longest_ask_of_a_note(graph, db):
    slow = settings("http://127.0.0.1:9/v1", model_timeout_s=200, model_attempts=3)
    assert leasing.lease_for(slow) > 600 + leasing.LEASE_MARGIN - 1
    assert leasing.lease_for(settings("http://127.0.0.1:9/v1")) == leasing.LEASE
    assert hold_extraction(graph, OTHER, "far", gone=leasing.gone) is None
    graph.query(f"MATCH (w:{WORKER}) SET w.seen_at = localdatetime($at)", {"at": _ago(400)})
    loop = Loop(slow, db)
    try:
        assert loop._holds("t", graph) is False  # 400 s quiet is within a 200 s x 3 ask
    finally:
        loop.model.close()
    assert (
        hold_extraction(graph, leasing.me(), "fake-1", gone=leasing.gone) is None
    )  # the default lease: gone


def _ago(seconds: int) -> str:
    return (datetime.now(UTC) - timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S")
