"""The README's two MCP configuration entries, used as written by the official SDK client from a
directory outside the repository: stdio (the host starts `uv run --project ... lighthouse mcp`) and
streamable HTTP (to the session's serve)."""

from __future__ import annotations

import json
import os
import re
import uuid
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from service_process import Lighthouse

REPOSITORY = Path(__file__).resolve().parents[2]
ENTRIES = [
    json.loads(block)["mcpServers"]["lighthouse"]
    for block in re.findall(r"```json\n(.*?)```", (REPOSITORY / "README.md").read_text(), re.S)
    if "mcpServers" in block
]


def _filled(entry: dict, **values: str) -> dict:
    """The entry with the README's placeholders replaced, and nothing else changed."""
    text = json.dumps(entry)
    for placeholder, value in values.items():
        assert placeholder in text, placeholder
        text = text.replace(placeholder, value)
    return json.loads(text)


async def _a_note_through(client: Client) -> dict:
    listed = {tool.name for tool in (await client.list_tools()).tools}
    assert {"note", "recall"} <= listed
    answer = await client.call_tool("note", {"text": "the pump in room 2 hums"})
    assert not answer.is_error, answer.content
    return json.loads(answer.content[0].text)["result"]  # a tool answers {"result": ...}


def test_the_readme_has_a_stdio_and_an_http_entry():
    assert [("command" in entry, "url" in entry) for entry in ENTRIES] == [(True, False), (False, True)]


@pytest.fixture
def own_serve(tmp_path):
    """A serve of this test's own: the stdio process the entry starts works on its data directory, and
    the session's serve (and its workers) stay out of it."""
    running = Lighthouse(tmp_path / "data").start()
    yield running
    running.stop()


def test_the_stdio_entry_works_from_another_directory(own_serve, tmp_path, monkeypatch):
    lighthouse = own_serve
    key = lighthouse.key(f"c{uuid.uuid4().hex[:10]}")
    entry = _filled(
        ENTRIES[0],
        **{"/path/to/lighthouse": str(REPOSITORY), "/path/to/data": str(lighthouse.data), "lh_...": key},
    )
    # The host's PATH has uv on it (as the README asks); the SDK passes the host's PATH and HOME on.
    uv = os.environ.get("UV")
    if uv:
        monkeypatch.setenv("PATH", f"{Path(uv).parent}{os.pathsep}{os.environ['PATH']}")
    elsewhere = tmp_path / "agent-host"
    elsewhere.mkdir()
    parameters = StdioServerParameters(
        command=entry["command"], args=entry["args"], env=entry["env"], cwd=str(elsewhere)
    )

    async def run() -> dict:
        async with Client(parameters) as client:
            return await _a_note_through(client)

    said = anyio.run(run)
    assert said["status"] == "recorded" and said["id"]
    found = lighthouse.result("search_notes", {"question": "pump hums"}, key)["notes"]
    assert [note["id"] for note in found] == [said["id"]]  # kept where the serve reads


def test_the_http_entry_works(lighthouse):
    key = lighthouse.key(f"h{uuid.uuid4().hex[:10]}")
    entry = _filled(ENTRIES[1], **{"http://127.0.0.1:8765": lighthouse.url, "lh_...": key})
    assert entry["type"] == "http"

    async def run() -> dict:
        async with (
            httpx2.AsyncClient(headers=entry["headers"]) as http,
            Client(streamable_http_client(entry["url"], http_client=http)) as client,
        ):
            return await _a_note_through(client)

    assert anyio.run(run)["status"] == "recorded"
