"""recall through the real `lighthouse serve`: over HTTP and MCP the same ranking as the library gives on
the tenant's graph with the same embedder (notes by words and meaning, a long note by its best part,
the newest of conflicting statements first, a time the question names, the episodes)."""

from __future__ import annotations

import json

import anyio
import pytest
from lighthouse import recall, tenant
from lighthouse_server.declarations import built, checked
from lighthouse_server.encoding import jsonable
from lighthouse_server.operations import TABLE
from test_mcp import connected

KINDS = TABLE["declare_kinds"].example["kinds"]
FILLER = ["weather", "lunch", "traffic", "football", "garden", "movie", "coffee", "holiday", "cousin"]


def _long_talk() -> str:
    said = [FILLER[place % len(FILLER)] for place in range(3_500)]
    answer = "the spare key of the boathouse hangs behind the fuse box"
    said[3_000 : 3_000 + len(answer.split())] = answer.split(" ")
    return " ".join(said)


NOTES = [
    {
        "text": "my sister lives in Berlin, near the old park",
        "at": "2026-01-10T09:00:00Z",
        "episode": "talk-1",
    },
    {"text": "the weather was grey all week", "at": "2026-01-10T09:05:00Z", "episode": "talk-1"},
    {"text": "my sister lives in Munich now", "at": "2026-03-02T09:00:00Z", "episode": "talk-2"},
    {"text": "dinner with Sam at the harbour", "at": "2026-03-10T19:00:00Z", "episode": "talk-3"},
    {"text": _long_talk(), "at": "2026-03-20T10:00:00Z", "episode": "talk-4"},
]
QUESTIONS = [
    {"question": "where does my sister live these days?", "when": "2026-04-05T00:00:00Z", "limit": 2},
    {"question": "where did I eat with Sam last month?", "when": "2026-04-05T00:00:00Z"},
    {"question": "where can I find the key to the boat shed?", "limit": 3},
]


def _library(lighthouse, tenant_id: str, asked: dict) -> dict:
    from lighthouse_server.embedders import local_embedder

    embedder, model, _ = local_embedder()
    kinds = list(built({one["label"]: checked(one) for one in KINDS}).values())
    arguments = {name: value for name, value in asked.items() if name != "question"}
    answer = recall(
        tenant(lighthouse.db(), tenant_id),
        kinds,
        asked["question"],
        embedder=embedder,
        model=model,
        **arguments,
    )
    return json.loads(json.dumps(jsonable({**answer, "meaning": "used"})))


def test_recall_over_http_and_mcp_ranks_as_the_library_does(lighthouse):
    tenant_id, key = lighthouse.tenant()
    assert all(
        receipt["status"] == "recorded" for receipt in lighthouse.result("notes", {"items": NOTES}, key)
    )
    assert lighthouse.settled(key)["embedding"]["waiting"] == 0
    over_http = [lighthouse.result("recall", asked, key) for asked in QUESTIONS]

    async def run() -> list[dict]:
        async with connected(lighthouse, key) as client:
            return [(await client.call_tool("recall", asked)).structured_content for asked in QUESTIONS]

    over_mcp = anyio.run(run)
    for asked, http, mcp in zip(QUESTIONS, over_http, over_mcp, strict=True):
        direct = _library(lighthouse, tenant_id, asked)
        assert http == direct, asked
        assert (mcp.get("result", mcp)) == direct, asked
    sister, dinner, key_found = over_http
    texts = [[note["text"] for note in answer["notes"]] for answer in over_http]
    assert texts[0] == ["my sister lives in Munich now", "my sister lives in Berlin, near the old park"]
    assert texts[1][0] == "dinner with Sam at the harbour" and "time" in dinner["notes"][0]["places"]
    assert key_found["notes"][0]["episode"] == "talk-4"  # the answer is at its 3,000th word
    assert sister["episodes"][0]["id"] == "talk-2"
    berlin = next(episode for episode in sister["episodes"] if episode["id"] == "talk-1")
    assert [note["text"] for note in berlin["beside"]] == ["the weather was grey all week"]


@pytest.mark.parametrize("limit", [0, 1_001])
def test_recall_refuses_a_limit_out_of_range(lighthouse, limit):
    _tenant_id, key = lighthouse.tenant()
    refused = lighthouse.post("recall", {"question": "sister", "limit": limit}, key)
    assert refused.status_code == 400 and "limit" in refused.json()["error"]["message"]
