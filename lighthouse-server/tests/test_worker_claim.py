"""One worker at a time reads a tenant's notes: the claim on the tenant graph, taken over at once from
a process of this host that is gone, after the lease from one of another host, and given up on stop."""

from __future__ import annotations

import os
import socket
import subprocess

from lighthouse import hold_extraction, leave_extraction
from lighthouse.note_extraction_hold import WORKER
from lighthouse_server.worker import lease as leasing
from lighthouse_server.worker.loop import Loop
from lighthouse_server.worker.status import extraction_status
from worker_notes import schema, settings


def _owner(graph) -> str | None:
    found = graph.ro_query(f"MATCH (w:{WORKER}) RETURN w.owner").result_set
    return found[0][0] if found else None


def _dead_pid() -> int:
    ended = subprocess.Popen(["true"])
    ended.wait()
    return ended.pid


def test_the_first_worker_holds_the_graph_and_a_second_is_refused(graph):
    first, second = leasing.me(), leasing.me()
    assert first != second  # two loops of one process are two workers
    assert hold_extraction(graph, first, "fake-1", gone=leasing.gone) is None
    assert hold_extraction(graph, first, "fake-1", gone=leasing.gone) is None  # kept
    assert hold_extraction(graph, second, "fake-2", gone=leasing.gone) == first
    status = extraction_status(graph, configured=False, declared=True)
    assert status["worker"] == first and status["model"] == "fake-1" and status["state"] == "idle"


def test_a_gone_process_of_this_host_is_taken_over_at_once(graph):
    gone = f"{socket.gethostname()}:{_dead_pid()}:dead"
    assert hold_extraction(graph, gone, "old", gone=leasing.gone) is None
    new = leasing.me()
    assert hold_extraction(graph, new, "fake-1", gone=leasing.gone) is None and _owner(graph) == new


def test_a_worker_of_another_host_is_taken_over_only_after_the_lease(graph):
    foreign = "another-host.example:4242:abcd"
    assert hold_extraction(graph, foreign, "far", gone=leasing.gone) is None
    here = leasing.me()
    assert hold_extraction(graph, here, "fake-1", gone=leasing.gone) == foreign
    graph.query(f"MATCH (w:{WORKER}) SET w.seen_at = localdatetime('2026-01-01T00:00:00')")  # it went quiet
    assert hold_extraction(graph, here, "fake-1", gone=leasing.gone) is None and _owner(graph) == here


def test_a_released_graph_is_taken_by_the_next_worker(graph):
    first, second = leasing.me(), leasing.me()
    hold_extraction(graph, first, "fake-1", gone=leasing.gone)
    leave_extraction(graph, first)
    assert _owner(graph) is None
    assert extraction_status(graph, configured=False, declared=True)["state"] == "not configured"
    assert hold_extraction(graph, second, "fake-1", gone=leasing.gone) is None
    leave_extraction(graph, first)  # only its owner gives it up
    assert _owner(graph) == second


def test_of_two_loops_on_one_database_one_reads_a_tenant(graph, db):
    schema(graph)
    one = Loop(settings("http://127.0.0.1:9/v1"), db)
    two = Loop(settings("http://127.0.0.1:9/v1"), db)
    try:
        assert one._holds("t", graph) is True
        assert two._holds("t", graph) is False
        assert one._holds("t", graph) is True
    finally:
        one.model.close()
        two.model.close()


def test_gone_knows_only_an_ended_process_of_this_host():
    here = socket.gethostname()
    assert leasing.gone(f"{here}:{_dead_pid()}:dead") is True
    assert leasing.gone(f"{here}:{os.getpid()}:alive") is False
    assert leasing.gone(f"another-host.example:{_dead_pid()}:x") is False  # another host: the lease tells
    for odd in ("", "no colon", f"{here}:", f"{here}:abc:x", f"{here}:{'9' * 12}:x", f"{here}:-1:x"):
        assert leasing.gone(odd) is False, odd
