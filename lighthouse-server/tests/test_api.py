"""The HTTP API of the real `lighthouse serve`: errors in one shape, auth, hostile input, idempotency."""

from __future__ import annotations

import httpx
import pytest
from lighthouse_server.operations import TABLE
from lighthouse_server.problems import CODES


def _problem(answer: httpx.Response, code: str) -> dict:
    body = answer.json()
    assert answer.status_code == CODES[code], answer.text
    assert set(body) == {"error"} and set(body["error"]) == {"code", "status", "message"}
    assert body["error"]["code"] == code and body["error"]["status"] == answer.status_code
    assert body["error"]["message"]
    return body["error"]


def test_openapi_lists_every_operation_and_docs_are_served(lighthouse):
    document = httpx.get(f"{lighthouse.url}/openapi.json").json()
    assert {f"/v1/{name}" for name in TABLE} <= set(document["paths"])
    remember = document["paths"]["/v1/remember"]["post"]["requestBody"]["content"]["application/json"][
        "schema"
    ]
    assert remember["required"] == ["kind", "rows"] and "by" not in remember["properties"]
    assert httpx.get(f"{lighthouse.url}/docs").status_code == 200


def test_health_needs_no_key(lighthouse):
    said = httpx.get(f"{lighthouse.url}/health").json()
    assert said == {"status": "ok", "database": "ok", "topology": "single"}


def test_every_auth_refusal_reads_and_writes_nothing(lighthouse):
    tenant, admin = lighthouse.tenant()
    row = {"kind": "Device", "rows": [{"key": "auth1", "t": "2026-01-01T00:00:00Z", "values": {"note": "x"}}]}
    _problem(lighthouse.post("remember", row), "unauthorized")
    _problem(lighthouse.post("remember", row, headers={"Authorization": "Basic abc"}), "unauthorized")
    _problem(lighthouse.post("remember", row, "lh_000000000000_not-a-key"), "unauthorized")
    reader = lighthouse.key(tenant, scopes=["read"])
    _problem(lighthouse.post("remember", row, reader), "forbidden")
    _problem(lighthouse.post("audit", {}, reader), "forbidden")
    _problem(
        lighthouse.post("remember", row, admin, headers={"Lighthouse-Tenant": "someone-else"}), "forbidden"
    )
    revoked = lighthouse.key(tenant)
    assert lighthouse.command("keys", "revoke", revoked.split("_")[1]).returncode == 0
    _problem(lighthouse.post("remember", row, revoked), "unauthorized")
    assert lighthouse.result("history", {"kind": "Device", "key": "auth1"}, admin)["items"] == []
    assert (
        lighthouse.result("remember", row, admin, headers={"Lighthouse-Tenant": tenant})[0]["status"]
        == "created"
    )


def test_the_error_shape_of_each_code(lighthouse):
    tenant, key = lighthouse.tenant()
    _problem(lighthouse.post("history", {"kind": "Device", "key": 1.5}, key), "invalid_argument")
    _problem(lighthouse.post("history", {"kind": "Device"}, key), "invalid_argument")
    _problem(lighthouse.post("history", {"kind": "Device", "key": "d", "extra": 1}, key), "invalid_argument")
    _problem(
        lighthouse.post("as_of", {"kind": "Device", "key": "d", "when": "not a time"}, key),
        "invalid_argument",
    )
    _problem(lighthouse.post("history", b"{not json", key), "invalid_body")
    _problem(lighthouse.post("history", b"[1, 2]", key), "invalid_body")
    assert (
        "Boat"
        in _problem(lighthouse.post("history", {"kind": "Boat", "key": "d"}, key), "not_found")["message"]
    )
    _problem(lighthouse.post("no_such_operation", {}, key), "not_found")
    _problem(httpx.get(f"{lighthouse.url}/v1/remember"), "method_not_allowed")
    _problem(lighthouse.post("history", b"x" * (9 * 1024 * 1024), key), "body_too_large")
    rows = [
        {"key": f"n{number}", "t": "2026-01-01T00:00:00Z", "values": {"note": "x"}} for number in range(30)
    ]
    lighthouse.result("remember", {"kind": "Device", "rows": rows}, key)
    everything = ",".join(f"({name}:Entity)" for name in "abcdef")  # 30**6 rows: stopped at the time limit
    slow = {"query": f"MATCH {everything} WHERE a.key + b.key + c.key + d.key + e.key + f.key = '' RETURN a"}
    _problem(lighthouse.post("cypher", slow, key), "too_slow")


def test_a_body_shorter_than_its_content_length_is_408_within_the_deadline(lighthouse):
    import json
    import socket
    import time

    _tenant, key = lighthouse.tenant()
    with socket.create_connection(("127.0.0.1", lighthouse.port), timeout=60) as sent:
        head = (
            f"POST /v1/note HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {key}\r\n"
            "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n"
        )
        started = time.monotonic()
        sent.sendall(head.encode() + b'{"text": "')  # 10 bytes of the 100 it announced, then nothing
        answer = b""
        while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
            part = sent.recv(65536)
            if not part:
                break
            answer += part
        waited = time.monotonic() - started
    status_line, _, rest = answer.partition(b"\r\n")
    assert b" 408 " in status_line, answer
    body = json.loads(rest.partition(b"\r\n\r\n")[2])
    assert body["error"]["code"] == "body_timeout" and body["error"]["status"] == 408
    assert waited >= 4  # the deadline of this serve (5 s), not at once
    assert lighthouse.result("note", {"text": "after the slow one"}, key)["status"] == "recorded"


def test_hostile_requests_are_refused_in_the_one_shape_and_the_service_goes_on(lighthouse):
    tenant, key = lighthouse.tenant()
    deep = b"[" * 100_000 + b"]" * 100_000
    assert "nested too deep" in _problem(lighthouse.post("remember", deep, key), "invalid_body")["message"]
    nested = b'{"kind": "Device", "rows": [{"key": "dz", "t": "2026-01-01T00:00:00Z", "values": {"x": '
    nested += b"[" * 3_000 + b"]" * 3_000 + b"}}]}"
    _problem(lighthouse.post("remember", nested, key), "invalid_body")
    surrogate = b'{"kind": "Device", "key": "c1", "valid_from": "2026-01-05T00:00:00Z", "why": "bad\\ud800"}'
    for name in ("reject", "confirm"):
        said = _problem(lighthouse.post(name, surrogate, key), "invalid_argument")["message"]
        assert "surrogate" in said, said
    _problem(lighthouse.post("failures", b'{"kind": "\\ud800"}', key), "invalid_argument")
    _problem(lighthouse.post("replay", b'{"note": "\\udfff"}', key), "invalid_argument")
    _problem(lighthouse.post("failures", {"reason": "a\u0000b"}, key), "invalid_argument")
    _problem(lighthouse.post("replay", {"note": "n\u0000"}, key), "invalid_argument")
    for query, parameters in [
        ("MATCH (n RETURN n", {}),
        ("", {}),
        ("RETURN 1/0", {}),
        ("RETURN $x", {"x y": 1}),
        ("RETURN $x", {"": 1}),
        ("RETURN $x", {"x": 2**70}),
        ("RETURN $x", {"x": "a\u0000"}),
        ("RETURN '\ud800'", {}),
        ("LOAD CSV FROM 'file:///etc/passwd' AS row RETURN row", {}),
        ("load /* a comment */ csv from 'https://127.0.0.1:9/x.csv' AS row RETURN row", {}),
        ("WITH '//' AS x LOAD/**/CSV FROM 'https://127.0.0.1:9/x.csv' AS row RETURN row", {}),
    ]:
        _problem(
            lighthouse.post("cypher", {"query": query, "parameters": parameters}, key), "invalid_argument"
        )
    # More than the database lets one query take (embedded.QUERY_MEMORY): refused, and nothing else is.
    memory = _problem(
        lighthouse.post("cypher", {"query": "RETURN size(range(1, 100000000))"}, key), "invalid_argument"
    )
    assert "capacity" in memory["message"]
    assert lighthouse.result("cypher", {"query": "RETURN 1"}, key)["rows"] == [[1]]
    assert httpx.get(f"{lighthouse.url}/health").json()["status"] == "ok"


def test_the_get_answers_take_their_query_strings_as_arguments(lighthouse):
    _tenant, key = lighthouse.tenant()
    headers = {"Authorization": f"Bearer {key}"}
    for path in ("kinds", "status", "audit"):
        assert httpx.get(f"{lighthouse.url}/v1/{path}", headers=headers).status_code == 200
        _problem(httpx.get(f"{lighthouse.url}/v1/{path}?x=1", headers=headers), "invalid_argument")
    # Only ASCII digits are a number: an Arabic-Indic one is text, and page_size must be a number.
    _problem(httpx.get(f"{lighthouse.url}/v1/audit?page_size=%D9%A1", headers=headers), "invalid_argument")
    assert httpx.get(f"{lighthouse.url}/v1/audit?page_size=1", headers=headers).status_code == 200


def test_heavy_calls_are_limited_per_key(lighthouse):
    tenant, key = lighthouse.tenant()
    for _ in range(5):
        lighthouse.result("groups", {"kinds": ["Device"]}, key)
    refused = lighthouse.post("groups", {"kinds": ["Device"]}, key)
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    _problem(refused, "rate_limited")
    assert lighthouse.result("groups", {"kinds": ["Device"]}, lighthouse.key(tenant)) == []  # another key


def test_a_write_is_by_the_key_agent_whatever_the_request_says(lighthouse):
    tenant, _ = lighthouse.tenant()
    key = lighthouse.key(tenant, agent="night-shift")
    row = {"key": "by1", "t": "2026-01-01T00:00:00Z", "values": {"note": "x"}}
    _problem(
        lighthouse.post("remember", {"kind": "Device", "rows": [row], "by": "mallory"}, key),
        "invalid_argument",
    )
    _problem(lighthouse.post("claim", {"kind": "inspection", "agent": "mallory"}, key), "invalid_argument")
    assert lighthouse.result("history", {"kind": "Device", "key": "by1"}, key)["items"] == []
    lighthouse.result("remember", {"kind": "Device", "rows": [row]}, key)
    assert [
        state["by"] for state in lighthouse.result("history", {"kind": "Device", "key": "by1"}, key)["items"]
    ] == ["night-shift"]
    lighthouse.result("open_episode", {"episode_id": "e-by"}, key)
    assert lighthouse.result("episode", {"episode_id": "e-by"}, key)["by"] == "night-shift"


def test_library_limits_at_and_past_their_edge(lighthouse):
    tenant, key = lighthouse.tenant()
    edge = {"key": "big", "t": "2026-01-01T00:00:00Z", "values": {"status": "s" * 100_000}}
    past = {"key": "bigger", "t": "2026-01-01T00:00:00Z", "values": {"status": "s" * 100_001}}
    receipts = lighthouse.result("remember", {"kind": "Device", "rows": [edge, past]}, key)
    assert [receipt["status"] for receipt in receipts] == ["created", "invalid"]
    assert receipts[1]["reason"]
    assert lighthouse.result("entities", {"kind": "Device"}, key)["items"] == ["big"]
    assert [failure["key"] for failure in lighthouse.result("failures", {"kind": "Device"}, key)] == [
        "bigger"
    ]
    wrong = lighthouse.post("remember", {"kind": "Device", "rows": "not rows"}, key)
    _problem(wrong, "invalid_argument")
    hostile = lighthouse.post(
        "say", {"user": "u", "session_id": "s", "role": "user", "text": "x", "at": "2999-01-01"}, key
    )
    assert hostile.json()["result"]["status"] == "invalid"
    assert lighthouse.result("messages", {"user": "u", "session_id": "s"}, key) == []


def test_the_same_idempotency_key_gives_the_first_answer_and_writes_once(lighthouse):
    tenant, key = lighthouse.tenant()
    say = {"user": "u", "session_id": "s", "role": "user", "text": "hello"}
    first = lighthouse.result("say", say, key, headers={"Idempotency-Key": "retry-1"})
    again = lighthouse.result("say", say, key, headers={"Idempotency-Key": "retry-1"})
    assert first == again == {"id": "s", "seq": 1, "status": "said"}
    assert len(lighthouse.result("messages", {"user": "u", "session_id": "s"}, key)) == 1
    other = lighthouse.post("say", {**say, "text": "bye"}, key, headers={"Idempotency-Key": "retry-1"})
    _problem(other, "invalid_argument")
    _problem(
        lighthouse.post("history", {"kind": "Device", "key": "x"}, key, headers={"Idempotency-Key": "r"}),
        "invalid_argument",
    )
    assert lighthouse.result("say", say, key)["seq"] == 2  # without the key, a second message


def test_a_remember_with_an_idempotency_key_says_what_it_ended_and_the_same_again(lighthouse):
    # With a key the write goes alone on its once() graph, not gathered: the receipts still name what
    # each row ended, and the call made again answers the same without writing again.
    tenant, key = lighthouse.tenant()
    first = {"key": "e1", "t": "2026-01-01T00:00:00Z", "values": {"status": "ok", "note": "n"}}
    lighthouse.result("remember", {"kind": "Device", "rows": [first]}, key)
    change = {"kind": "Device", "rows": [{**first, "t": "2026-01-02T00:00:00Z", "values": {"status": "x"}}]}
    said = lighthouse.result("remember", change, key, headers={"Idempotency-Key": "ended-1"})
    again = lighthouse.result("remember", change, key, headers={"Idempotency-Key": "ended-1"})
    assert said == again == [{"key": "e1", "status": "changed", "ended": {"values": ["note"]}}]
    assert len(lighthouse.result("history", {"kind": "Device", "key": "e1"}, key)) == 2


@pytest.mark.parametrize("name", sorted(TABLE))
def test_every_operation_refuses_a_call_without_a_key(lighthouse, name):
    _problem(lighthouse.post(name, TABLE[name].example), "unauthorized")


def test_recall_fuses_words_and_meaning_once_embedded(lighthouse):
    tenant, key = lighthouse.tenant()
    notes = [
        {"key": "n1", "t": "2026-01-01T00:00:00Z", "values": {"text": "water is leaking from the pump"}},
        {"key": "n2", "t": "2026-01-01T00:00:00Z", "values": {"text": "the invoice was paid on Friday"}},
    ]
    lighthouse.result("remember", {"kind": "Note", "rows": notes}, key)
    asked = {"kinds": ["Note"], "question": "liquid spilling out of a machine"}  # no word in common
    # This serve's embedding worker gives the notes their vectors; the embed call then finds none waiting.
    assert lighthouse.settled(key)["embedding"]["waiting"] == 0
    assert lighthouse.result("embed", {"kind": "Note"}, key) == {"embedded": 0, "waiting": 0}
    after = lighthouse.result("recall", asked, key)["facts"]
    assert after[0]["key"] == "n1" and set(after[0]["places"]) == {"meaning"}
    assert after[0]["state"]["text"] == "water is leaking from the pump" and after[0]["trust"] == "confirmed"
    both = lighthouse.result("recall", {"question": "pump leaking"}, key)["facts"]
    assert both[0]["key"] == "n1" and set(both[0]["places"]) == {"words", "meaning"}
    refused = lighthouse.post("embed", {"kind": "Device"}, key)
    assert refused.status_code == 400 and "dimensions" in refused.json()["error"]["message"]
