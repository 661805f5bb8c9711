"""The extraction phase's state in the status: what is configured here, what a worker did lately, and
what waits; never "ok"."""

from __future__ import annotations

from lighthouse import hold_extraction
from lighthouse_server.worker import lease as leasing
from lighthouse_server.worker.status import extraction_status
from worker_notes import note, schema


def _state(graph, configured: bool, declared: bool = True) -> str:
    return extraction_status(graph, configured=configured, declared=declared)["state"]


def test_each_state_says_what_is_true(graph):
    schema(graph)
    assert _state(graph, configured=False) == "not configured"  # nothing here, no worker seen
    assert _state(graph, configured=True) == "idle"  # nothing waits
    note(graph, "a note")
    assert _state(graph, configured=False) == "not configured"
    assert _state(graph, configured=True, declared=False) == "no kinds"
    assert _state(graph, configured=True) == "stalled"  # it waits, and no worker looks
    hold_extraction(graph, leasing.me(), "fake-1")
    assert _state(graph, configured=True) == "working"
    assert _state(graph, configured=False) == "working"  # a worker of another process is alive
    status = extraction_status(graph, configured=True, declared=True)
    assert status["notes_waiting"] == 1 and status["last_seen_s"] <= 1 and status["model"] == "fake-1"
    assert "ok" not in {_state(graph, configured=c, declared=d) for c in (True, False) for d in (True, False)}


def test_a_graph_never_written_has_nothing_waiting(db):
    status = extraction_status(db.select_graph("test_never_written_status"), configured=True, declared=True)
    assert status["notes_waiting"] == 0 and status["notes_read"] == 0 and status["state"] == "idle"
    assert status["rows"] == {} and status["last_error"] is None and status["worker"] is None
