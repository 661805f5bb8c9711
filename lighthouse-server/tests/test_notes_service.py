"""Notes through the real `lighthouse serve`: over HTTP, MCP and the command line, across a kill -9, with
hostile input, and found by words at once and by meaning once the embedding worker's round ran against
a real embeddings endpoint on loopback (fake_embeddings.py)."""

from __future__ import annotations

import contextlib
import json
import signal
import time
import uuid

import anyio
import httpx2
import pytest
from fake_embeddings import FakeEmbeddings
from lighthouse import nearest, tenant
from lighthouse_server.declarations import built, checked
from lighthouse_server.embedders import Configured
from lighthouse_server.settings import Settings
from lighthouse_server.worker.embedding import embed_pending
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from service_process import Lighthouse

MODEL = "fake-bow-16"


@pytest.fixture(scope="module")
def fake():
    server = FakeEmbeddings().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def noted(tmp_path_factory, fake):
    """A serve with the HTTP embedder at the fake endpoint and no model for extraction, listing every
    MCP tool (notes and search_notes are outside the compact set)."""
    running = Lighthouse(
        tmp_path_factory.mktemp("notes") / "data",
        embedder="http",
        embeddings_url=fake.url,
        embeddings_model=MODEL,
        mcp_tools="all",
    ).start()
    yield running
    running.stop()


def _entries(lighthouse, name: str) -> int:
    graph = lighthouse.db().select_graph(f"tenant:{name}")
    return graph.ro_query("MATCH (n:Entry) RETURN count(n)").result_set[0][0]


def _refused(answer, code: str = "invalid_argument") -> str:
    assert answer.status_code in (400, 413), answer.text
    error = answer.json()["error"]
    assert error["code"] == code, error
    return error["message"]


def _episode_notes(lighthouse, key: str, episode: str) -> list[dict]:
    return lighthouse.result("episode", {"episode_id": episode}, key)["entries"]


def test_a_note_returns_its_entry_id_and_survives_a_kill_9(serves, tmp_path):
    running = Lighthouse(tmp_path / "data", fsync="always")  # what everysec may lose: embedded.start()
    serves.append(running.start())
    name, _ = running.tenant()
    key = running.key(name, agent="scout")
    said = {"text": "The pump in room r1 leaks since this morning.", "at": "2026-03-06T08:00:00Z"}
    receipt = running.result("note", said, key)
    assert receipt["status"] == "recorded" and receipt["seq"] == 1
    episode, seq = receipt["id"].rsplit("/", 1)
    assert episode.startswith("notes:agent:") and seq == "1"
    assert running.stop(signal.SIGKILL) == -signal.SIGKILL
    running.start()
    [entry] = _episode_notes(running, key, episode)
    assert entry["id"] == receipt["id"] and entry["type"] == "note" and entry["by"] == "scout"
    assert entry["text"] == said["text"] and entry["source"] == "agent"
    assert entry["at"].startswith("2026-03-06T08:00:00")  # when it was said, not when it arrived
    found = running.result("search_entries", {"question": "pump leaks"}, key)
    assert [hit["id"] for hit in found] == [receipt["id"]]
    notes = running.result("search_notes", {"question": "pump leaks"}, key)
    assert notes["meaning"] == "not configured" and [hit["id"] for hit in notes["notes"]] == [receipt["id"]]


def test_a_batch_of_notes_gives_one_receipt_each_in_order(noted):
    name, key = noted.tenant()
    items = [
        {"text": "Room r2 is cold."},
        {"text": "Fan of d1 replaced.", "source": "chat", "at": "2026-02-01T10:00:00Z"},
        {"text": "Ops review on Friday.", "episode": "weekly-ops"},
    ]
    receipts = noted.result("notes", {"items": items}, key)
    assert [receipt["status"] for receipt in receipts] == ["recorded"] * 3
    assert receipts[0]["id"].startswith("notes:agent:") and receipts[1]["id"].startswith("notes:chat:")
    assert receipts[2]["id"] == "weekly-ops/1"
    [fan] = _episode_notes(noted, key, receipts[1]["id"].rsplit("/", 1)[0])
    assert fan["text"] == "Fan of d1 replaced." and fan["source"] == "chat" and fan["by"] == "planner"
    assert fan["at"].startswith("2026-02-01T10:00:00")
    assert _entries(noted, name) == 3
    many = noted.result("notes", {"items": [{"text": f"reading {n}"} for n in range(1_000)]}, key)
    assert len(many) == 1_000 and {receipt["status"] for receipt in many} == {"recorded"}
    assert len({receipt["id"] for receipt in many}) == 1_000 and _entries(noted, name) == 1_003


def test_hostile_notes_are_refused_clearly_and_write_nothing_else(noted):
    name, key = noted.tenant()
    _refused(noted.post("note", {"text": 12}, key))
    _refused(noted.post("note", {"source": "agent"}, key))
    assert "agent of the key" in _refused(noted.post("note", {"text": "x", "by": "mallory"}, key))
    assert "agent of the key" in _refused(noted.post("notes", {"items": [], "by": "mallory"}, key))
    _refused(noted.post("notes", {"items": "Room r2 is cold."}, key))
    too_many = [{"text": f"n{n}"} for n in range(1_001)]
    assert "1,000" in _refused(noted.post("notes", {"items": too_many}, key))
    huge = [{"text": "x" * 100_000} for _ in range(100)]  # 10 MB: past the body limit
    _refused(noted.post("notes", {"items": huge}, key), "body_too_large")
    _refused(noted.post("search_notes", {"question": 5}, key))
    _refused(noted.post("search_notes", {"question": "pump", "limit": 0}, key))
    _refused(noted.post("search_notes", {"question": "pump", "types": ["note"]}, key))
    assert _entries(noted, name) == 0 and noted.result("failures", {}, key) == []
    past = noted.result("note", {"text": "s" * 100_001}, key)
    assert past["status"] == "invalid" and past["id"] is None and "100000 characters" in past["reason"]
    mixed = noted.result(
        "notes",
        {
            "items": [
                {"text": "fine"},
                {"text": 7},
                {"text": "   "},
                {"txt": "typo"},
                {"text": "when?", "at": "yesterday-ish"},
                "just text",
            ]
        },
        key,
    )
    assert [receipt["status"] for receipt in mixed] == ["recorded"] + ["invalid"] * 5
    assert all(receipt["reason"] and receipt["id"] is None for receipt in mixed[1:])
    assert _entries(noted, name) == 1  # only the good one
    assert len(noted.result("failures", {}, key)) == 6  # each refusal kept, with its reason
    script = "<script>alert('x')</script> & \"quotes\""
    answer = noted.post("note", {"text": script, "source": "<b>web</b>"}, key)
    assert answer.headers["content-type"].startswith("application/json")
    stored = _episode_notes(noted, key, answer.json()["result"]["id"].rsplit("/", 1)[0])
    assert stored[0]["text"] == script and stored[0]["source"] == "<b>web</b>"  # kept as data, byte for byte


MEMO = {"label": "Memo", "key": "id", "text": ["body"], "dimensions": 16}


def _a_memo(running) -> tuple[str, str]:
    """A tenant of its own (its name, a key) that declares Memo and holds the memo m1, "the kitten sleeps"."""
    name = f"e{uuid.uuid4().hex[:10]}"
    key = running.key(name)
    running.result("declare_kinds", {"kinds": [MEMO]}, key)
    row = {"key": "m1", "t": "2026-01-01T00:00:00Z", "values": {"body": "the kitten sleeps"}}
    running.result("remember", {"kind": "Memo", "rows": [row]}, key)
    return name, key


def test_a_note_is_found_by_words_at_once_and_by_meaning_once_embedded(noted, fake):
    name, key = _a_memo(noted)
    receipt = noted.result("note", {"text": "my car is parked outside the depot"}, key)
    assert [hit["id"] for hit in noted.result("search_entries", {"question": "parked"}, key)] == [
        receipt["id"]
    ]
    words = noted.result("search_notes", {"question": "parked"}, key)
    assert [hit["id"] for hit in words["notes"]] == [receipt["id"]] and "words" in words["notes"][0]["places"]
    db = noted.db()
    # What the worker of any process runs with: the same settings, on the same database.
    configured = Configured(Settings(embedder="http", embeddings_url=fake.url, embeddings_model=MODEL))
    graph, kinds = tenant(db, name), built({"Memo": checked(MEMO)})
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        done = embed_pending(graph, kinds, configured)
        assert done["state"] == "ok" and done["errors"] == [], done
        meaning = noted.result("search_notes", {"question": "automobile"}, key)
        if meaning["notes"]:
            break
        time.sleep(0.2)
    assert meaning["meaning"] == "used"
    assert [hit["id"] for hit in meaning["notes"]] == [receipt["id"]]
    assert meaning["notes"][0]["places"] == {"meaning": 1}  # no word of the question is in the note
    assert meaning["notes"][0]["entry"]["text"] == "my car is parked outside the depot"
    embedder, model, _ = configured.load()
    assert nearest(graph, kinds["Memo"], "feline", embedder, model)[0]["key"] == "m1"  # the kind's too


def test_search_notes_says_when_meaning_waits_for_the_embedding_worker(lighthouse):
    name, key = lighthouse.tenant()  # the bundled embedder is set; its worker may not have run yet
    lighthouse.result("note", {"text": "the boiler hums"}, key)
    found = lighthouse.result("search_notes", {"question": "boiler"}, key)
    assert [hit["entry"]["text"] for hit in found["notes"]] == ["the boiler hums"]
    assert found["meaning"] in ("used", "not embedded yet")


@contextlib.asynccontextmanager
async def _connected(lighthouse, key: str):
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}) as http,
        Client(streamable_http_client(f"{lighthouse.url}/mcp", http_client=http)) as client,
    ):
        yield client


def test_notes_over_mcp_and_the_command_line(noted):
    name, key = noted.tenant()

    async def run() -> tuple:
        async with _connected(noted, key) as client:
            one = await client.call_tool("note", {"text": "valve v3 stuck", "source": "mcp"})
            many = await client.call_tool("notes", {"items": [{"text": "a"}, {"text": "b"}]})
            chosen = await client.call_tool("note", {"text": "x", "by": "mallory"})
            found = await client.call_tool("search_notes", {"question": "valve"})
            return one, many, chosen, found

    one, many, chosen, found = anyio.run(run)
    assert one.structured_content["result"]["status"] == "recorded"
    assert one.structured_content["result"]["id"].startswith("notes:mcp:")
    assert [receipt["status"] for receipt in many.structured_content["result"]] == ["recorded"] * 2
    assert chosen.is_error and "agent of the key" in chosen.structured_content["error"]["message"]
    assert found.structured_content["result"]["notes"][0]["id"] == one.structured_content["result"]["id"]
    done = noted.command("call", "note", json.dumps({"text": "from the shell"}), "--tenant", name)
    assert done.returncode == 0, done.stderr
    receipt = json.loads(done.stdout)
    assert receipt["status"] == "recorded"
    assert _entries(noted, name) == 4


def test_a_served_tenant_whose_entities_kept_their_vectors_has_them_moved_before_its_first_call(
    serves, tmp_path, fake, changed_schema
):
    settings = {"embedder": "http", "embeddings_url": fake.url, "embeddings_model": MODEL}
    running = Lighthouse(tmp_path / "data", **settings)
    serves.append(running.start())
    name, key = _a_memo(running)
    db = running.db()
    graph, kinds = tenant(db, name), built({"Memo": checked(MEMO)})
    done = embed_pending(graph, kinds, Configured(Settings(**settings)))
    assert done["state"] == "ok", done
    # The serve's own worker may have embedded it first (then this call found nothing waiting): either
    # way the memo has its vector, on a node of its own, within the worker's interval.
    vectors = "MATCH (:Memo)-[:LH_VECTOR]->(v:MemoVector) WHERE v.`lh.vector` IS NOT NULL RETURN count(v)"
    deadline = time.monotonic() + 30
    while graph.ro_query(vectors).result_set != [[1]] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert graph.ro_query(vectors).result_set == [[1]], done
    # The graph as a version that kept vectors on the entities left it: the vector on the entity, under
    # an index on the kind's label, and no vector node.
    graph.query(
        "MATCH (e:Memo)-[:LH_VECTOR]->(v) SET e.`lh.vector` = v.`lh.vector`, e.`lh.model` = v.`lh.model`"
    )
    graph.query("MATCH (:Memo)-[:LH_VECTOR]->(v) DELETE v")
    changed_schema(
        graph,
        "DROP VECTOR INDEX FOR (n:MemoVector) ON (n.`lh.vector`)",
        "CREATE VECTOR INDEX FOR (n:Memo) ON (n.`lh.vector`) OPTIONS {dimension: 16, similarityFunction: 'cosine'}",
    )
    running.stop()
    running.start()  # the upgraded serve: its first call of the tenant finds the old layout
    asked = len(fake.asked)
    answer = running.result("recall", {"question": "feline"}, key)
    assert answer["meaning"] == "used" and [fact["key"] for fact in answer["facts"]] == ["m1"]
    assert answer["facts"][0]["places"].get("meaning") == 1  # found by the vector it had, moved
    # nothing was embedded again: the embedder was asked the question (and perhaps its size) only
    assert {tuple(one["input"]) for one in fake.asked[asked:]} <= {("feline",), ("dimensions",)}
    graph = tenant(running.db(), name)
    moved = graph.ro_query("MATCH (e:Memo)-[:LH_VECTOR]->(v:MemoVector) RETURN e.`lh.vector`, v.`lh.model`")
    assert moved.result_set == [[None, MODEL]]
    labels = graph.ro_query(
        "CALL db.indexes() YIELD label, types WHERE 'VECTOR' IN types['lh.vector'] RETURN label"
    )
    # Not "Memo": dropped. EntryVector: the parts of long notes.
    assert sorted(row[0] for row in labels.result_set) == ["Entry", "EntryVector", "MemoVector"]
