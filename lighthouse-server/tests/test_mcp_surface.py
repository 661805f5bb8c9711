"""What a key sees over MCP (the official SDK client, streamable HTTP): the tools its scopes allow, of
the compact set by default, each saying its scope."""

from __future__ import annotations

import anyio
import httpx
from lighthouse_server.mcp.tools import AGENT_TOOLS
from lighthouse_server.operations import TABLE
from test_mcp import connected

COMPACT_MOST = 25_000  # characters of tools/list for a key with every scope, the compact set


async def _listed(lighthouse, key: str) -> dict:
    async with connected(lighthouse, key) as client:
        return {tool.name: tool for tool in (await client.list_tools()).tools}


def test_each_key_sees_what_its_scopes_allow(lighthouse):
    tenant, admin = lighthouse.tenant("v")
    keys = {
        ("read",): lighthouse.key(tenant, scopes=["read"]),
        ("read", "write"): lighthouse.key(tenant, scopes=["read", "write"]),
        ("read", "write", "review", "admin"): admin,
    }

    async def run() -> None:
        for scopes, key in keys.items():
            listed = await _listed(lighthouse, key)
            assert set(listed) == {name for name in AGENT_TOOLS if TABLE[name].scope in scopes}, scopes
            for name, tool in listed.items():
                assert tool.description.endswith(f"Scope: {TABLE[name].scope}."), name
        read_only = await _listed(lighthouse, keys[("read",)])
        assert read_only and not any(TABLE[name].writes for name in read_only)
        assert all(tool.annotations.read_only_hint for tool in read_only.values())

    anyio.run(run)


def test_the_compact_list_is_small(lighthouse):
    _tenant, key = lighthouse.tenant("v")
    headers = {"Accept": "application/json, text/event-stream", "Authorization": f"Bearer {key}"}
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    answer = httpx.post(f"{lighthouse.url}/mcp", json=body, headers=headers, timeout=60)
    assert answer.status_code == 200
    assert len(answer.json()["result"]["tools"]) == len(AGENT_TOOLS)
    assert len(answer.text) < COMPACT_MOST


def test_a_tool_outside_the_list_is_refused_with_where_it_is(lighthouse):
    _tenant, key = lighthouse.tenant("v")
    read_key = lighthouse.key(_tenant, scopes=["read"])

    async def run() -> None:
        async with connected(lighthouse, key) as client:
            refused = await client.call_tool("entities", {"kind": "Device"})
            error = refused.structured_content["error"]
            assert refused.is_error and error["code"] == "not_found"
            assert "POST /v1/entities" in error["message"] and "mcp_tools" in error["message"]
        async with connected(lighthouse, read_key) as client:
            refused = await client.call_tool("remember", {"kind": "Device", "rows": []})
            assert refused.is_error and refused.structured_content["error"]["code"] == "forbidden"

    anyio.run(run)
