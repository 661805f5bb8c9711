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
            unknown = await client.call_tool("histroy", {"kind": "Device", "key": "d1"})
            said = unknown.structured_content["error"]["message"]
            assert unknown.is_error and "no operation 'histroy' (the closest: 'history')" in said
            wrong = await client.call_tool("history", {"kind": "Device", "id": "d1"})
            said = wrong.structured_content["error"]["message"]
            assert "no argument 'id' (the closest: 'kind'); there are: kind, key, cursor, limit" in said
        async with connected(lighthouse, read_key) as client:
            refused = await client.call_tool("remember", {"kind": "Device", "rows": []})
            assert refused.is_error and refused.structured_content["error"]["code"] == "forbidden"

    anyio.run(run)


FULL = {
    "key": "d2",
    "t": "2026-01-01T00:00:00Z",
    "values": {"status": "ok", "note": "pump room", "last_seen": "2026-01-01T00:00:00Z"},
    "relations": {"LOCATED_IN": "r1"},
}


def _result(answer) -> object:
    assert not answer.is_error, answer.content
    return answer.structured_content["result"]


def test_update_rows_keeps_what_a_row_does_not_name(lighthouse):
    _tenant, key = lighthouse.tenant("w")
    write_key = lighthouse.key(_tenant, scopes=["read", "write"])

    async def run() -> None:
        async with connected(lighthouse, write_key) as client:
            await client.call_tool("remember", {"kind": "Device", "rows": [FULL]})
            changed = [{"key": "d2", "t": "2026-01-02T00:00:00Z", "values": {"status": "cool"}}]
            receipts = _result(await client.call_tool("update_rows", {"kind": "Device", "rows": changed}))
            assert receipts == [{"key": "d2", "status": "changed"}]
            ended = [{"key": "d2", "t": "2026-01-03T00:00:00Z", "values": {"note": None}}]
            _result(await client.call_tool("update_rows", {"kind": "Device", "rows": ended}))
            many = [
                {"key": "d3", "t": "2026-01-02T00:00:00Z", "values": {"status": "new"}},
                {"key": "d2", "t": "2026-01-04T00:00:00Z", "relations": {"LOCATED_IN": "r2"}},
                {"key": "d4", "when": "2026-01-02T00:00:00Z"},
                "not a row",
            ]
            receipts = _result(await client.call_tool("update_rows", {"kind": "Device", "rows": many}))
            assert [receipt["status"] for receipt in receipts] == ["created", "changed", "invalid", "invalid"]
            assert "no field 'when'" in receipts[2]["reason"] and "key, t, values" in receipts[2]["reason"]
            states = _result(await client.call_tool("history", {"kind": "Device", "key": "d2"}))["items"]
            assert [state["status"] for state in states] == ["ok", "cool", "cool", "cool"]
            assert states[1]["note"] == "pump room" and states[1]["last_seen"] == "2026-01-01T00:00:00+00:00"
            assert "note" not in states[2] and states[2]["last_seen"] == "2026-01-01T00:00:00+00:00"

    anyio.run(run)
    related = lighthouse.result("related", {"kind": "Device", "key": "d2", "relation": "LOCATED_IN"}, key)
    assert related["items"] == ["r2"]
    before = {"kind": "Device", "key": "d2", "relation": "LOCATED_IN", "when": "2026-01-03T00:00:00Z"}
    assert lighthouse.result("related", before, key)["items"] == ["r1"]  # kept by the updates before


def test_remember_says_what_a_full_picture_row_ended(lighthouse):
    _tenant, key = lighthouse.tenant("w")

    async def run() -> None:
        async with connected(lighthouse, key) as client:
            listed = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert "ENDS at t" in listed["remember"].description and "busy" in listed["remember"].description
            assert "ended" in listed["remember"].description
            first = _result(await client.call_tool("remember", {"kind": "Device", "rows": [FULL]}))
            assert first == [{"key": "d2", "status": "created"}]
            partial = {"key": "d2", "t": "2026-01-02T00:00:00Z", "values": {"status": "cool"}}
            same = {**FULL, "key": "d5"}
            receipts = _result(
                await client.call_tool("remember", {"kind": "Device", "rows": [partial, same]})
            )
            assert receipts[0] == {
                "key": "d2",
                "status": "changed",
                "ended": {"values": ["last_seen", "note"], "relations": {"LOCATED_IN": ["r1"]}},
            }
            assert receipts[1] == {"key": "d5", "status": "created"}
            earlier = {**FULL, "t": "2026-01-01T12:00:00Z", "values": {"status": "ok"}, "relations": {}}
            inserted = _result(await client.call_tool("remember", {"kind": "Device", "rows": [earlier]}))
            assert inserted == [
                {
                    "key": "d2",
                    "status": "inserted",
                    "ended": {"values": ["last_seen", "note"], "relations": {"LOCATED_IN": ["r1"]}},
                }
            ]
            again = _result(await client.call_tool("remember", {"kind": "Device", "rows": [partial]}))
            assert again == [{"key": "d2", "status": "unchanged"}]

    anyio.run(run)


def test_the_row_schema_spells_out_the_tenants_kinds(lighthouse):
    _tenant, key = lighthouse.tenant("w")

    async def run() -> None:
        async with connected(lighthouse, key) as client:
            listed = {tool.name: tool for tool in (await client.list_tools()).tools}
            for name in ("remember", "update_rows"):
                schema = listed[name].input_schema
                assert schema["properties"]["kind"]["enum"] == ["Device", "Note", "Room"]
                row = schema["properties"]["rows"]["items"]
                assert row["required"] == ["key", "t"] and row["additionalProperties"] is False
                assert "2026-01-31T12:00:00Z" in row["properties"]["t"]["description"]
                assert row["properties"]["values"]["properties"]["last_seen"]["format"] == "date-time"
                located = row["properties"]["relations"]["properties"]["LOCATED_IN"]
                assert "Room" in located["description"] and located["anyOf"]
                assert "Device: key is its serial" in schema["properties"]["rows"]["description"]

    anyio.run(run)
