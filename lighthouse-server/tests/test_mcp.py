"""MCP through the SDK's own client: every tool over streamable HTTP (the key as bearer token) and over
stdio (`lighthouse mcp` with LIGHTHOUSE_KEY), each checked against what it returns."""

from __future__ import annotations

import contextlib
import json
import sys
import uuid

import anyio
import anyio.to_thread
import httpx
import httpx2
import pytest
from lighthouse_server.mcp.tools import AGENT_TOOLS
from lighthouse_server.operations import TABLE
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from service_process import environment


@contextlib.asynccontextmanager
async def connected(lighthouse, key: str):
    """The SDK's client over streamable HTTP, with the key as the bearer token."""
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=60) as http,
        Client(streamable_http_client(f"{lighthouse.url}/mcp", http_client=http)) as client,
    ):
        yield client


# What each write gives for its example, called in the table's order on a fresh tenant.
WRITES = {
    "declare_kinds": [
        {"label": "Room", "status": "declared"},
        {"label": "Device", "status": "declared"},
        {"label": "Note", "status": "declared"},
    ],
    "embed": {"embedded": 0, "waiting": 0},
    "remember": [{"key": "d1", "status": "created"}],
    "update_rows": [{"key": "d1", "status": "changed"}],
    "update": {"key": "d1", "status": "changed"},
    "confirm": {"key": "d1", "valid_from": "2026-01-02T00:00:00+00:00", "status": "confirmed"},
    "reject": {"key": "d1", "valid_from": "2026-01-02T00:00:00+00:00", "status": "rejected"},
    "open_episode": {"id": "ep1", "status": "opened"},
    "record": {"id": "ep1/1", "seq": 1, "status": "recorded"},
    "close_episode": {"id": "ep1/2", "seq": 2, "status": "recorded"},
    "hand_off": {"id": "h1", "status": "given"},
    "add_task": True,
    "complete": True,
    "release": False,
    "say": {"id": "s1", "seq": 1, "status": "said"},
    "summarize": {"id": "s1", "upto": 1, "status": "summed"},
    "forget_session": {"id": "s-gone", "status": "unknown", "messages": 0},
    "forget_user": {"user": "u-gone", "sessions": 0, "messages": 0},
    "learn": {"id": "l1", "status": "learned"},
    "write_playbook": {"id": "leak#1", "version": 1, "status": "written"},
}


async def _every_tool(client: Client, check, settle=None, expected=tuple(TABLE)) -> dict:
    """Every tool of the list, which is expected, called with its example in the table's order."""
    listed = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert set(listed) == set(expected)
    for name, tool in listed.items():
        operation = TABLE[name]
        assert tool.annotations.read_only_hint is (not operation.writes)
        assert tool.annotations.destructive_hint is operation.destructive
        assert ("idempotency_key" in tool.input_schema["properties"]) is operation.writes
        assert "by" not in tool.input_schema["properties"] and "tenant" not in tool.input_schema["properties"]
    results = {}
    for name, operation in TABLE.items():
        if name not in listed:
            continue
        if settle is not None and not operation.writes:
            await anyio.to_thread.run_sync(settle)  # the workers' vectors land before a read is compared
        answer = await client.call_tool(name, operation.example)
        assert not answer.is_error, (name, answer.content)
        result = answer.structured_content["result"]
        assert json.loads(answer.content[0].text) == answer.structured_content  # one shape
        if name in WRITES:
            assert result == WRITES[name], name
        elif not operation.writes and name not in ("health", "audit", "status"):  # these move with time
            assert result == check(name, operation.example), name
        results[name] = result
    return results


def _checker(lighthouse, tenant):
    """The same call over HTTP, with another key of the tenant (heavy calls are counted per key)."""
    key = lighthouse.key(tenant)
    return lambda name, example: lighthouse.result(name, example, key)


def _settler(lighthouse, tenant):
    key = lighthouse.key(tenant)
    return lambda: lighthouse.settled(key)


def test_the_compact_tools_over_streamable_http(lighthouse):
    """The serve's default mcp_tools: an admin key sees the compact set, and each tool works."""
    tenant, key = lighthouse.tenant("m")
    lighthouse.result("add_task", TABLE["add_task"].example, key)

    async def run() -> dict:
        async with connected(lighthouse, key) as client:
            check, settle = _checker(lighthouse, tenant), _settler(lighthouse, tenant)
            results = await _every_tool(client, check, settle, expected=AGENT_TOOLS)
            refused = await client.call_tool("remember", {"kind": "Boat", "rows": []})
            assert refused.is_error and refused.structured_content["error"]["code"] == "not_found"
            return results

    results = anyio.run(run)
    assert results["history"]["items"][0]["by"] == "planner"  # the key's agent
    assert results["claim"]["id"] == "t1" and results["tasks"][0]["id"] == "t1"
    assert results["recall"]["facts"][0]["key"] == "d1"


def test_idempotency_key_of_a_tool(lighthouse):
    tenant = f"m{uuid.uuid4().hex[:10]}"
    key = lighthouse.key(tenant)
    say = {"user": "u", "session_id": "s", "role": "user", "text": "hi", "idempotency_key": "once"}

    async def run() -> None:
        async with connected(lighthouse, key) as client:
            first = await client.call_tool("say", say)
            again = await client.call_tool("say", say)
            assert first.structured_content == again.structured_content
            read = await client.call_tool("context", {"user": "u", "session_id": "s"})
            assert len(read.structured_content["result"]["messages"]) == 1

    anyio.run(run)


@pytest.mark.parametrize("authorization", [None, "Bearer lh_nope_nope", "Basic abc"])
def test_streamable_http_without_a_good_key_is_refused(lighthouse, authorization):
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    if authorization:
        headers["Authorization"] = authorization
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    answer = httpx.post(f"{lighthouse.url}/mcp", json=body, headers=headers)
    assert answer.status_code == 401
    assert answer.json()["error"]["code"] == "unauthorized" and answer.json()["error"]["status"] == 401
    assert "Authorization: Bearer" in answer.json()["error"]["message"]
    # No challenge and no OAuth metadata: an MCP client would start OAuth discovery from either.
    assert "www-authenticate" not in answer.headers
    for path in ("oauth-protected-resource", "oauth-protected-resource/mcp", "oauth-authorization-server"):
        metadata = httpx.get(f"{lighthouse.url}/.well-known/{path}")
        assert metadata.status_code == 404 and metadata.json()["error"]["code"] == "not_found"


def test_the_transports_refusals_are_in_the_one_error_shape(lighthouse):
    key = lighthouse.key(f"m{uuid.uuid4().hex[:10]}")
    good = {
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "Authorization": f"Bearer {key}",
    }
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    for changed, status, code in [
        ({"Content-Type": "text/plain"}, 400, "invalid_argument"),
        ({"Host": "evil.com"}, 403, "forbidden"),
        ({"Origin": "http://evil.com"}, 403, "forbidden"),
    ]:
        answer = httpx.post(f"{lighthouse.url}/mcp", content=json.dumps(body), headers={**good, **changed})
        assert answer.status_code == status, answer.text
        assert answer.json() == {
            "error": {"code": code, "status": status, "message": answer.json()["error"]["message"]}
        }
        assert answer.json()["error"]["message"]
    # A JSON-RPC answer passes as it is: an MCP client reads that one.
    parse = httpx.post(f"{lighthouse.url}/mcp", content=b"{not json", headers=good)
    assert parse.json()["jsonrpc"] == "2.0" and parse.json()["error"]["code"] == -32700
    listed = httpx.post(f"{lighthouse.url}/mcp", json=body, headers=good)
    assert listed.status_code == 200 and listed.json()["result"]["tools"]


def test_a_revoked_key_is_refused_at_the_next_call(lighthouse):
    tenant = f"m{uuid.uuid4().hex[:10]}"
    key = lighthouse.key(tenant)

    async def run() -> None:
        async with connected(lighthouse, key) as client:
            assert not (await client.call_tool("tasks", {})).is_error
            assert lighthouse.command("keys", "revoke", key.split("_")[1]).returncode == 0
            await anyio.sleep(2.5)  # keys.REMEMBERED_FOR
            with pytest.raises(Exception):  # noqa: B017 - the transport's error for a 401
                await client.call_tool("tasks", {})

    anyio.run(run)


def test_every_tool_over_stdio(lighthouse):
    tenant = f"s{uuid.uuid4().hex[:10]}"
    key = lighthouse.key(tenant)
    parameters = StdioServerParameters(
        command=sys.executable,
        args=["-m", "lighthouse_server.command", "mcp", "--data", str(lighthouse.data)],
        env=environment(LIGHTHOUSE_KEY=key, LIGHTHOUSE_EMBEDDER="local", LIGHTHOUSE_MCP_TOOLS="all"),
    )

    async def run() -> dict:
        async with Client(parameters) as client:
            return await _every_tool(client, _checker(lighthouse, tenant), _settler(lighthouse, tenant))

    results = anyio.run(run)
    assert results["history"]["items"][0]["by"] == "planner"
    assert results["claim"]["id"] == "t1" and results["health"]["status"] == "ok"


def test_a_revoked_key_ends_a_stdio_session(lighthouse):
    tenant = f"r{uuid.uuid4().hex[:10]}"
    key = lighthouse.key(tenant)
    parameters = StdioServerParameters(
        command=sys.executable,
        args=["-m", "lighthouse_server.command", "mcp", "--data", str(lighthouse.data)],
        env=environment(LIGHTHOUSE_KEY=key),
    )

    async def run() -> None:
        async with Client(parameters) as client:
            assert not (await client.call_tool("tasks", {})).is_error
            assert lighthouse.command("keys", "revoke", key.split("_")[1]).returncode == 0
            await anyio.sleep(2.5)  # keys.REMEMBERED_FOR
            refused = await client.call_tool("tasks", {})
            assert refused.is_error
            assert json.loads(refused.content[0].text)["error"]["code"] == "unauthorized"

    anyio.run(run)


def test_stdio_without_a_key_says_so(lighthouse):
    done = lighthouse.command("mcp")
    assert done.returncode == 2 and "LIGHTHOUSE_KEY" in done.stderr
    done = lighthouse.command("mcp", key="lh_unknown_key")
    assert done.returncode == 2 and "not known" in done.stderr


def test_hostile_input_over_mcp(lighthouse):
    tenant, key = lighthouse.tenant()

    async def run() -> None:
        async with connected(lighthouse, key) as client:
            wrong = await client.call_tool("remember", {"kind": "Device", "rows": "rows"})
            assert wrong.is_error and wrong.structured_content["error"]["code"] == "invalid_argument"
            chosen = await client.call_tool("remember", {"kind": "Device", "rows": [], "by": "mallory"})
            assert chosen.is_error and "agent of the key" in chosen.structured_content["error"]["message"]
            rows = [{"key": "big", "t": "2026-01-01T00:00:00Z", "values": {"status": "s" * 100_001}}]
            past = await client.call_tool("remember", {"kind": "Device", "rows": rows})
            assert past.structured_content["result"][0]["status"] == "invalid"
            kept = await anyio.to_thread.run_sync(lighthouse.result, "failures", {}, key)
            assert [failure["key"] for failure in kept] == ["big"]
            listed = await client.call_tool("history", {"kind": "Device", "key": "big"})
            assert listed.structured_content["result"]["items"] == []

    anyio.run(run)
    headers = {
        "Authorization": f"Bearer {key}",
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
    }
    answer = httpx.post(f"{lighthouse.url}/mcp", content=b"x" * (9 * 1024 * 1024), headers=headers)
    assert answer.status_code == 413 and answer.json()["error"]["code"] == "body_too_large"
    malformed = httpx.post(f"{lighthouse.url}/mcp", content=b"{not json", headers=headers)
    assert malformed.status_code == 400
