"""One vocabulary across the operations (at, since/until, limit, cursor; the library's names accepted
too), time formats in every schema, no type unions, refusals that name the closest name, the
operations tasks and said_about, and relations in history, entity and as_of answers."""

from __future__ import annotations

import httpx
import pytest
from lighthouse_server.mcp.tools import tool
from lighthouse_server.operations import TABLE

ROWS = [
    {"key": "d1", "t": "2026-01-01T00:00:00Z", "values": {"status": "ok"}, "relations": {"LOCATED_IN": "r1"}},
    {"key": "d1", "t": "2026-01-02T00:00:00Z", "values": {"status": "ok"}, "relations": {"LOCATED_IN": "r2"}},
]


@pytest.fixture(scope="module")
def written(lighthouse):
    _tenant, key = lighthouse.tenant("y")
    for row in ROWS:
        lighthouse.result("remember", {"kind": "Device", "rows": [row]}, key)
    return lighthouse, key


def _refused(answer, status: int, code: str) -> str:
    assert answer.status_code == status, answer.text
    assert answer.json()["error"]["code"] == code
    return answer.json()["error"]["message"]


def test_the_one_vocabulary_and_the_librarys_names_give_the_same(written):
    lighthouse, key = written
    asked = {"kind": "Device", "key": "d1"}
    at = lighthouse.result("as_of", {**asked, "at": "2026-01-01T12:00:00Z"}, key)
    assert at == lighthouse.result("as_of", {**asked, "when": "2026-01-01T12:00:00Z"}, key)
    assert at["relations"] == {"LOCATED_IN": ["r1"]}
    assert lighthouse.result("as_of", asked, key)["relations"] == {"LOCATED_IN": ["r2"]}  # now
    related = {**asked, "relation": "LOCATED_IN"}
    assert lighthouse.result("related", {**related, "at": "2026-01-01T12:00:00Z"}, key)["items"] == ["r1"]
    window = {"kinds": ["Device"], "since": "2026-01-01T12:00:00Z", "until": "2026-01-02T00:00:00Z"}
    diff = lighthouse.result("diff_between", window, key)
    old = {"kinds": ["Device"], "t1": "2026-01-01T12:00:00Z", "t2": "2026-01-02T00:00:00Z"}
    assert diff == lighthouse.result("diff_between", old, key) and diff["relations_closed"]
    assert lighthouse.result("history", {**asked, "limit": 1}, key)["next_cursor"] == "1"
    assert lighthouse.result("history", {**asked, "page_size": 1}, key)["next_cursor"] == "1"
    both = lighthouse.post(
        "as_of", {**asked, "at": "2026-01-01T12:00:00Z", "when": "2026-01-01T12:00:00Z"}, key
    )
    assert "at and when are one argument" in _refused(both, 400, "invalid_argument")
    lighthouse.result("say", {"user": "u", "session_id": "s", "role": "user", "text": "a"}, key)
    lighthouse.result("say", {"user": "u", "session_id": "s", "role": "user", "text": "b"}, key)
    last = lighthouse.result("messages", {"user": "u", "session_id": "s", "last": 1}, key)
    assert last == lighthouse.result("messages", {"user": "u", "session_id": "s", "limit": 1}, key)
    assert [message["text"] for message in last] == ["b"]


def test_relations_in_history_and_entity(written):
    lighthouse, key = written
    states = lighthouse.result("history", {"kind": "Device", "key": "d1"}, key)["items"]
    assert [state["relations"] for state in states] == [{"LOCATED_IN": ["r1"]}, {"LOCATED_IN": ["r2"]}]
    entity = lighthouse.result("entity", {"kind": "Device", "key": "d1"}, key)
    assert entity["relations"] == {"LOCATED_IN": ["r2"]} and entity["current"]["status"] == "ok"
    room = lighthouse.result("entity", {"kind": "Room", "key": "r9"}, key)
    assert room == {"key": "r9", "current": None, "relations": {}}


def test_an_unknown_argument_or_operation_is_refused_with_the_closest_name(written):
    lighthouse, key = written
    said = _refused(lighthouse.post("open_episode", {"id": "e1"}, key), 400, "invalid_argument")
    assert "no argument 'id' (the closest: 'episode_id'); there are: episode_id, about, at" in said
    said = _refused(
        lighthouse.post("as_of", {"kind": "Device", "key": "d1", "zzz": "x"}, key), 400, "invalid_argument"
    )
    assert "closest" not in said and "no argument 'zzz'; there are: kind, key, at" in said
    said = _refused(lighthouse.post("histroy", {}, key), 404, "not_found")
    assert "no operation 'histroy' (the closest: 'history')" in said and "remember" in said
    said = _refused(lighthouse.post("zzz", {}, key), 404, "not_found")
    assert "closest" not in said and "POST /v1/<name>" in said
    said = _refused(
        httpx.get(f"{lighthouse.url}/v1/history", headers={"Authorization": f"Bearer {key}"}),
        405,
        "method_not_allowed",
    )
    assert "POST /v1/history" in said


def test_tasks_and_said_about(written):
    lighthouse, key = written
    assert lighthouse.result("add_task", {"task_id": "v1", "kind": "check", "ref": "d1"}, key) is True
    lighthouse.result("claim", {"kind": "check", "lease": 60}, key)
    listed = lighthouse.result("tasks", {"kind": "check"}, key)
    assert [(task["id"], task["state"], task["owner"]) for task in listed] == [("v1", "claimed", "planner")]
    assert lighthouse.result("tasks", {"state": "done"}, key) == []
    _refused(lighthouse.post("tasks", {"state": "lost"}, key), 400, "invalid_argument")
    said = {"user": "u2", "session_id": "s", "role": "user", "text": "r1 leaks", "mentions": [["Room", "r1"]]}
    lighthouse.result("say", said, key)
    lighthouse.result("say", {**said, "text": "nothing", "mentions": []}, key)
    found = lighthouse.result("said_about", {"user": "u2", "reference": ["Room", "r1"]}, key)
    assert [message["text"] for message in found] == ["r1 leaks"]
    _refused(lighthouse.post("said_about", {"user": "u2", "reference": ["Boat", "b"]}, key), 404, "not_found")


def _types(schema: object, where: str) -> list[str]:
    """Where a schema says "type" with a list (a union), anywhere inside it."""
    found = []
    if isinstance(schema, dict):
        if isinstance(schema.get("type"), list):
            found.append(where)
        for name, inner in schema.items():
            found += _types(inner, f"{where}/{name}")
    elif isinstance(schema, list):
        for index, inner in enumerate(schema):
            found += _types(inner, f"{where}[{index}]")
    return found


def test_every_schema_states_its_time_format_and_has_no_type_union():
    for name, operation in TABLE.items():
        schema = tool(operation).input_schema
        assert _types(schema, name) == []
        for param in operation.all_params():
            if param.type == "time":
                said = schema["properties"][param.name]
                assert said["format"] == "date-time" and "ISO 8601 in UTC" in said["description"], name
