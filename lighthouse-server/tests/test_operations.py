"""The one table of operations, and a key of tenant A that reaches nothing of tenant B through any of them."""

from __future__ import annotations

import json

import lighthouse
import pytest
from lighthouse_server.keys import SCOPES
from lighthouse_server.operations import TABLE

SECRET = "alpha-secret-7c1"  # only tenant A's data holds it


def test_every_operation_is_described_and_called_as_the_library_names_it():
    for operation in TABLE.values():
        assert operation.scope in SCOPES and len(operation.description) > 20 and operation.result
        if operation.function is not None:
            assert getattr(lighthouse, operation.function.__name__) is operation.function
        schema = operation.input_schema()
        assert set(operation.example) <= set(schema["properties"]), operation.name
        assert set(schema["required"]) <= set(operation.example), operation.name
        assert operation.agent_as not in schema["properties"]
        if operation.destructive or operation.audited:
            assert operation.writes and operation.scope == "admin"


def test_the_operations_cover_what_the_service_promises():
    promised = [
        "remember",
        "update_rows",
        "update",
        "history",
        "as_of",
        "related",
        "diff_between",
        "search",
        "search_history",
        "search_entries",
        "pointing_at",
        "similar",
        "recall",
        "candidates",
        "confirm",
        "reject",
        "open_episode",
        "record",
        "close_episode",
        "episode",
        "episodes_about",
        "invalidate_entry",
        "impact_of_entry",
        "hand_off",
        "accept",
        "handoffs_for",
        "add_task",
        "tasks",
        "claim",
        "complete",
        "release",
        "say",
        "messages",
        "context",
        "summarize",
        "sessions",
        "said_about",
        "said",
        "forget_session",
        "forget_user",
        "learn",
        "weigh",
        "lessons_about",
        "write_playbook",
        "playbooks_for",
        "groups",
        "important",
        "between",
        "connection",
        "failures",
        "agent_trust",
        "entity",
        "entities",
        "cypher",
        "health",
        "declare_kinds",
        "embed",
        "kinds",
        "audit",
        "export",
        "note",
        "notes",
        "search_notes",
        "status",
        "set_aside",
        "replay",
    ]
    assert sorted(promised) == sorted(TABLE)
    assert {name for name, operation in TABLE.items() if operation.heavy} == {
        "groups",
        "important",
        "between",
        "connection",
    }


def _contents(db, name: str) -> str:
    graph = db.select_graph(name)
    nodes = graph.ro_query("MATCH (n) RETURN labels(n), properties(n) ORDER BY id(n)").result_set
    edges = graph.ro_query("MATCH ()-[r]->() RETURN type(r), properties(r) ORDER BY id(r)").result_set
    return json.dumps([nodes, edges], default=str)


@pytest.fixture(scope="module")
def two_tenants(lighthouse):
    """Tenant A with data under SECRET; tenant B with the same kinds and nothing else."""
    a, key_a = lighthouse.tenant("a")
    row = {
        "key": "d1",
        "t": "2026-01-01T00:00:00Z",
        "values": {"note": f"pump {SECRET}"},
        "relations": {"LOCATED_IN": "r1"},
    }
    lighthouse.result("remember", {"kind": "Device", "rows": [row]}, key_a)
    lighthouse.result("open_episode", {"episode_id": "ep1", "about": [["Device", "d1"]]}, key_a)
    lighthouse.result(
        "record", {"episode_id": "ep1", "entry_type": "note", "values": {"text": SECRET}}, key_a
    )
    lighthouse.result("close_episode", {"episode_id": "ep1", "outcome": {"text": SECRET}}, key_a)
    lighthouse.result(
        "say", {"user": "u1", "session_id": "s1", "role": "user", "text": f"leak {SECRET}"}, key_a
    )
    lighthouse.result(
        "hand_off",
        {"handoff_id": "h1", "to": "planner", "points_to": [["Device", "d1"]], "values": {"note": SECRET}},
        key_a,
    )
    lighthouse.result("add_task", {"task_id": "t1", "kind": "inspection", "ref": SECRET}, key_a)
    lighthouse.result(
        "learn",
        {"lesson_id": "l1", "statement": SECRET, "supported_by": ["ep1"], "about": [["Device", "d1"]]},
        key_a,
    )
    lighthouse.result(
        "write_playbook",
        {
            "name": "leak",
            "trigger": {"alarm": "leak"},
            "steps": [{"do": SECRET}],
            "supported_by": ["ep1"],
            "needs": 1,
        },
        key_a,
    )
    lighthouse.result(
        "remember",
        {"kind": "Device", "rows": [{"key": "bad", "t": "2999-01-01T00:00:00Z", "values": {"note": SECRET}}]},
        key_a,
    )
    b, key_b = lighthouse.tenant("b")
    lighthouse.settled(key_a)  # the workers' vectors are written before the graph is compared
    lighthouse.settled(key_b)
    return lighthouse, a, key_a, b, key_b


@pytest.mark.parametrize("name", list(TABLE))
def test_a_key_of_one_tenant_reaches_nothing_of_another(two_tenants, name):
    lighthouse, a, key_a, b, key_b = two_tenants
    db = lighthouse.db()
    before = _contents(db, f"tenant:{a}")
    assert SECRET in before
    example = dict(TABLE[name].example)
    if name == "cypher":
        example = {"query": "MATCH (n) RETURN n"}
    if name == "kinds" or name == "declare_kinds":
        example = {"kinds": [{"label": "Other", "key": "id"}]} if name == "declare_kinds" else {}
    answer = lighthouse.post(name, example, key_b)
    assert answer.status_code == 200, answer.text
    assert SECRET not in answer.text
    assert _contents(db, f"tenant:{a}") == before
    for reading in ("search_entries", "audit", "failures"):
        if TABLE[reading].scope:
            assert (
                SECRET
                not in lighthouse.post(reading, TABLE[reading].example or {"question": "leak"}, key_b).text
            )


def test_export_gives_a_tenant_its_own_graph_and_no_other(two_tenants):
    lighthouse, a, key_a, b, key_b = two_tenants
    mine = lighthouse.post("export", {"page_size": 1000}, key_a)
    assert mine.status_code == 200, mine.text
    records = mine.json()["result"]["items"]
    assert SECRET in mine.text
    assert {record["type"] for record in records} == {"node", "edge"}
    nodes = [record for record in records if record["type"] == "node"]
    assert any("Device" in node["labels"] and node["properties"].get("key") == "d1" for node in nodes)
    theirs = lighthouse.post("export", {"page_size": 1000}, key_b)
    assert theirs.status_code == 200 and SECRET not in theirs.text


def test_the_query_tool_says_when_it_cut_rows(lighthouse):
    tenant, key = lighthouse.tenant()
    lighthouse.db().select_graph(f"tenant:{tenant}").query(
        "UNWIND range(1, 10001) AS n CREATE (:Thing {n: n})"
    )
    cut = lighthouse.result("cypher", {"query": "MATCH (t:Thing) RETURN t.n ORDER BY t.n"}, key)
    assert len(cut["rows"]) == 10_000 and cut["rows"][-1] == [10_000] and cut["truncated"] is True
    whole = lighthouse.result("cypher", {"query": "MATCH (t:Thing) RETURN t.n ORDER BY t.n LIMIT 3"}, key)
    assert whole == {"columns": ["t.n"], "rows": [[1], [2], [3]], "truncated": False}
