"""Exactly once through a crash: serve killed between a write and its idempotency answer, then the retry.

The fault point (LIGHTHOUSE_FAULT_AFTER_WRITE, a file naming an operation) kills serve with SIGKILL after
that operation's call wrote and before its answer is kept. serve starts again on the same database, the
client retries with the same Idempotency-Key, and the graph holds exactly what the first call wrote.
"""

from __future__ import annotations

import os
import uuid

import httpx
import pytest
from lighthouse.graphs import read, tenant
from lighthouse_server import audit, keys
from service_process import KINDS, Lighthouse

# Each write of the table, in an order in which each finds what it is about; the body of each call.
CALLS = [
    ("declare_kinds", {"kinds": KINDS}),
    (
        "remember",
        {"kind": "Device", "rows": [{"key": "d1", "t": "2026-01-01T00:00:00Z", "values": {"status": "ok"}}]},
    ),
    ("update", {"kind": "Device", "key": "d1", "t": "2026-01-02T00:00:00Z", "values": {"status": "worn"}}),
    ("confirm", {"kind": "Device", "key": "d1", "valid_from": "2026-01-02T00:00:00Z", "why": "seen"}),
    ("reject", {"kind": "Device", "key": "d1", "valid_from": "2026-01-02T00:00:00Z", "why": "never moved"}),
    ("open_episode", {"episode_id": "ep1", "about": [["Device", "d1"]], "at": "2026-01-01T01:00:00Z"}),
    ("record", {"episode_id": "ep1", "entry_type": "observation", "values": {"text": "a small leak"}}),
    ("invalidate_entry", {"entry_id": "ep1/1", "reason": "miscalibrated"}),
    ("close_episode", {"episode_id": "ep1", "outcome": {"result": "sealed"}}),
    ("hand_off", {"handoff_id": "h1", "to": "planner", "points_to": [["Device", "d1"]]}),
    ("accept", {"handoff_id": "h1"}),
    ("add_task", {"task_id": "t1", "kind": "inspection", "ref": "d1"}),
    ("add_task", {"task_id": "t2", "kind": "inspection"}),
    ("claim", {"kind": "inspection", "lease": 600}),
    ("complete", {"task_id": "t1"}),
    ("claim", {"kind": "inspection", "lease": 600}),
    ("release", {"task_id": "t2"}),
    ("say", {"user": "u1", "session_id": "s1", "role": "user", "text": "the pump leaks"}),
    ("summarize", {"user": "u1", "session_id": "s1", "text": "a leak", "upto": 1}),
    ("say", {"user": "u2", "session_id": "s2", "role": "user", "text": "bye"}),
    ("forget_session", {"user": "u2", "session_id": "s2"}),
    ("forget_user", {"user": "u1"}),
    ("learn", {"lesson_id": "l1", "statement": "pumps leak after a cold night", "supported_by": ["ep1"]}),
    ("open_episode", {"episode_id": "ep2", "about": [["Device", "d1"]]}),
    ("close_episode", {"episode_id": "ep2", "outcome": {"result": "leaked again"}}),
    ("weigh", {"lesson_id": "l1", "episode_id": "ep2", "agrees": True}),
    (
        "write_playbook",
        {
            "name": "leak",
            "trigger": {"alarm": "leak"},
            "steps": [{"do": "close"}],
            "supported_by": ["ep1"],
            "needs": 1,
        },
    ),
    ("note", {"text": "The pump in room r1 leaks a little."}),
    ("notes", {"items": [{"text": "Room r2 is cold."}, {"text": "Fan replaced.", "episode": "fans"}]}),
    ("replay", {"note": "fans/1"}),
]
SERVICE_LABELS = ("lh.Answer", "lh.Reply")


def contents(graph) -> tuple[list, list]:
    """Every node and edge of the tenant's graph but the idempotency answers and kept replies."""
    nodes = read(graph, "MATCH (n) RETURN labels(n), properties(n)")
    edges = read(
        graph, "MATCH (a)-[r]->(b) RETURN type(r), properties(r), labels(a), a.id, a.key, b.id, b.key"
    )
    kept = [repr(row) for row in nodes if not set(row[0]) & set(SERVICE_LABELS)]
    return sorted(kept), sorted(repr(row) for row in edges)


def test_every_write_killed_before_its_answer_is_kept_once_and_answered_on_retry(tmp_path, serves, db):
    url = f"redis://{os.environ.get('FALKORDB_HOST', '127.0.0.1')}:{os.environ.get('FALKORDB_PORT', '26379')}"
    armed = tmp_path / "fault"
    running = Lighthouse(tmp_path / "data", fault_after_write=str(armed))
    running.extra = {"FALKORDB_URL": url}
    serves.append(running.start(timeout=300))
    name = f"once{uuid.uuid4().hex[:10]}"
    key = keys.create(db, name, "planner", list(keys.SCOPES))["key"]
    graph = tenant(db, name)
    for operation, body in CALLS:
        headers = {"Idempotency-Key": f"{operation}-{uuid.uuid4().hex}"}
        if operation == "replay":  # a note the worker set aside, as a model that failed on it leaves it
            graph.query(
                "MATCH (n:Entry {id: 'fans/1'}) MERGE (x:`lh.Extraction` {note: n.id}) "
                "SET x.state = 'set_aside', x.error = 'the model failed', x.asks = 3"
            )
        before = contents(graph)
        armed.write_text(operation)
        with pytest.raises(httpx.HTTPError):
            running.post(operation, body, key, headers=headers)
        running.process.wait(timeout=30)
        assert running.process.returncode != 0, operation
        written = contents(graph)
        assert written != before, f"{operation} wrote nothing before the crash"
        running.log.close()
        running.start(timeout=300)
        answer = running.post(operation, body, key, headers=headers)
        assert answer.status_code == 200, (operation, answer.text)
        assert contents(graph) == written, f"{operation}: the retry wrote again"
        again = running.post(operation, body, key, headers=headers)
        assert again.json() == answer.json(), operation
        assert read(graph, "MATCH (r:`lh.Reply`) RETURN count(r)") == [[0]], operation
        _said_as_first(operation, answer.json()["result"])
    # the administrative calls, each killed past its audit record and made again: one record each
    actions = [record["action"] for record in audit.read(db, name)]
    assert sorted(actions) == ["kind_declared", "session_forgotten", "user_forgotten"], actions


def _said_as_first(operation: str, result) -> None:
    """The retry's answer is the first call's: what was written, not "exists" or "unchanged"."""
    receipts = result if isinstance(result, list) else [result]
    for receipt in receipts:
        if isinstance(receipt, dict) and "status" in receipt:
            assert receipt["status"] not in ("exists", "unchanged", "failed", "busy"), (operation, result)
    if operation in ("add_task", "complete", "release"):
        assert result is True, (operation, result)
    if operation == "claim":
        assert result is not None and result["id"] in ("t1", "t2"), result
