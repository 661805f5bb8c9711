"""The embedding worker's round and status against a real FalkorDB and a real embeddings endpoint on
loopback (fake_embeddings.py), and the HTTP embedder's refusals of every bad answer."""

from __future__ import annotations

import time
from datetime import UTC, datetime

import lighthouse
import pytest
from fake_embeddings import FakeEmbeddings, vector
from lighthouse import (
    Kind,
    embedding_progress,
    ensure_schema,
    keep_embedding_progress,
    nearest,
    nearest_entries,
    note,
    remember,
    said_waiting,
    say,
    search_entries,
)
from lighthouse_server.embedded import free_port
from lighthouse_server.embedders import EmbeddingsFailed, http_embedder
from lighthouse_server.parts import Parts
from lighthouse_server.settings import Settings
from lighthouse_server.worker.embedding import REST_FIRST, embed_pending, embedding_status

MEMO = Kind("Memo", key="id", text=("body",), dimensions=16)
ROOM = Kind("Room", key="code")  # no text, no dimensions: nothing to embed
WIDE = Kind("Wide", key="id", text=("body",), dimensions=8)
MODEL = "fake-bow-16"


@pytest.fixture
def fake():
    server = FakeEmbeddings().start()
    yield server
    server.stop()


def _parts(db, fake=None, **chosen) -> Parts:
    """The parts a service of these settings runs with: its configured embedder is .embedder."""
    if fake is not None:
        chosen = {"embedder": "http", "embeddings_url": fake.url, "embeddings_model": MODEL} | chosen
    return Parts.built(db, Settings(**chosen))


def _world(graph, memos=("the cat sleeps", "the car is red"), said=("my car is parked outside",)):
    ensure_schema(graph, [MEMO, ROOM])
    rows = [
        {"key": f"m{place}", "t": "2026-01-01T00:00:00Z", "values": {"body": body}}
        for place, body in enumerate(memos)
    ]
    assert {receipt["status"] for receipt in remember(graph, MEMO, rows, by="feed")} == {"created"}
    remember(graph, ROOM, [{"key": "r1", "t": "2026-01-01T00:00:00Z", "values": {"floor": 1}}], by="feed")
    for text in said:
        assert note(graph, text, by="ann")["status"] == "recorded"


def _until_done(graph, kinds, parts, limit=100) -> list[dict]:
    rounds = []
    for _ in range(20):
        rounds.append(embed_pending(graph, kinds, parts.embedder, limit=limit))
        if embedding_status(graph, kinds, parts.embedder)["waiting"] == 0:
            return rounds
    raise AssertionError(f"still waiting after 20 rounds: {rounds[-1]}")


def test_without_an_embedder_nothing_is_asked_or_written_and_the_status_says_not_configured(db, graph, fake):
    _world(graph)
    parts = _parts(db)
    before = graph.ro_query("MATCH (n) RETURN count(n)").result_set[0][0]
    done = embed_pending(graph, {"Memo": MEMO, "Room": ROOM}, parts.embedder)
    assert done["state"] == "not configured" and done["embedded"] == 0 and done["errors"] == []
    assert graph.ro_query("MATCH (n) RETURN count(n)").result_set[0][0] == before
    status = embedding_status(graph, [MEMO, ROOM], parts.embedder)
    assert status == {
        "state": "not configured",
        "waiting": 3,  # two memos and one note
        "embedded": 0,
        "model": None,
        "last_error": None,
        "last_error_at": None,
        "last_embedded_at": None,
    }
    assert fake.asked == []
    assert search_entries(graph, "parked")[0]["entry"]["text"] == "my car is parked outside"  # words at once


def test_a_round_gives_kinds_and_notes_their_vectors_and_meaning_finds_them(db, graph, fake):
    _world(graph)
    parts = _parts(db, fake, embeddings_key="sekret")
    assert search_entries(graph, "automobile", match="any") == []  # no shared word
    done = embed_pending(graph, [MEMO, ROOM], parts.embedder)
    assert done["state"] == "ok" and done["errors"] == [] and done["model"] == MODEL
    assert done["kinds"] == {"Memo": {"embedded": 2, "waiting": 0}}
    assert done["entries"] == {"embedded": 1, "waiting": 0} and done["embedded"] == 3
    embedder, model, dimensions = parts.embedder.load()
    assert (model, dimensions) == (MODEL, 16)
    found = nearest_entries(graph, "automobile", embedder, model, types=["note"])
    assert found[0]["entry"]["text"] == "my car is parked outside"
    assert nearest(graph, MEMO, "a kitten", embedder, model)[0]["key"] == "m0"
    status = embedding_status(graph, [MEMO, ROOM], parts.embedder)
    assert status["state"] == "ok" and status["waiting"] == 0 and status["embedded"] == 3
    assert status["model"] == MODEL and status["last_error"] is None
    assert (datetime.now(UTC) - status["last_embedded_at"]).total_seconds() < 60
    assert {request["authorization"] for request in fake.asked} == {"Bearer sekret"}
    assert {request["model"] for request in fake.asked} == {MODEL}
    assert {request["path"] for request in fake.asked} == {"/v1/embeddings"}
    asked = len(fake.asked)
    again = embed_pending(graph, [MEMO, ROOM], parts.embedder)  # nothing waits: nothing is asked
    assert again["embedded"] == 0 and again["state"] == "ok" and len(fake.asked) == asked
    assert embedding_status(graph, [MEMO, ROOM], parts.embedder)["embedded"] == 3


def test_a_round_is_bounded_and_the_next_goes_on(db, graph, fake):
    _world(graph, memos=[f"memo number {n}" for n in range(5)], said=[f"note number {n}" for n in range(5)])
    parts = _parts(db, fake)
    first = embed_pending(graph, [MEMO], parts.embedder, limit=2)
    assert first["kinds"]["Memo"] == {"embedded": 2, "waiting": 3}
    assert first["entries"] == {"embedded": 2, "waiting": 3}
    assert embedding_status(graph, [MEMO], parts.embedder)["waiting"] == 6
    rounds = _until_done(graph, [MEMO], parts, limit=2)
    assert len(rounds) == 2 and embedding_status(graph, [MEMO], parts.embedder)["embedded"] == 10
    assert max(len(request["input"]) for request in fake.asked) <= 2


@pytest.mark.parametrize(
    ("mode", "said"),
    [
        ("status:500", "answered 500"),
        ("status:401", "answered 401"),
        ("not-json", "not JSON"),
        ("too-few", "no list of"),
        ("dimensions:8", "of 8 numbers; its first had 16"),
    ],
)
def test_a_bad_answer_is_a_failing_status_kept_in_the_graph_and_stores_nothing(db, graph, fake, mode, said):
    _world(graph)
    parts = _parts(db, fake)
    parts.embedder.load()  # dimensions learned from a good first answer
    fake.mode = mode
    done = embed_pending(graph, [MEMO], parts.embedder)
    assert done["state"] == "failing" and said in done["errors"][0] and done["embedded"] == 0
    status = embedding_status(graph, [MEMO], parts.embedder)
    assert status["state"] == "failing" and said in status["last_error"] and status["waiting"] == 3
    assert (datetime.now(UTC) - status["last_error_at"]).total_seconds() < 60
    elsewhere = embedding_status(graph, [MEMO], _parts(db, fake).embedder)  # another process reads the same
    assert elsewhere["state"] == "failing" and elsewhere["last_error"] == status["last_error"]
    assert graph.ro_query("MATCH (n:Memo)-[:LH_VECTOR]->(v) RETURN count(v)").result_set == [[0]]
    fake.mode = "ok"
    asked = len(fake.asked)
    resting = embed_pending(graph, [MEMO], parts.embedder)  # the embedder rests after a failure: not asked
    assert resting["state"] == "failing" and 0 < resting["resting_s"] <= REST_FIRST
    assert len(fake.asked) == asked and resting["errors"] == done["errors"]
    time.sleep(REST_FIRST)
    assert embed_pending(graph, [MEMO], parts.embedder)["state"] == "ok"
    healed = embedding_status(graph, [MEMO], parts.embedder)
    assert healed["state"] == "ok" and healed["waiting"] == 0 and healed["embedded"] == 3
    assert healed["last_error"] == status["last_error"]  # the last error and its time stay readable


def test_an_endpoint_that_fails_is_asked_again_after_a_rest_that_doubles(db, graph, fake):
    _world(graph)
    fake.mode = "status:503"
    parts = _parts(db, fake)
    done = embed_pending(graph, [MEMO], parts.embedder)
    assert done["state"] == "failing" and "cannot be used" in done["errors"][0] and "503" in done["errors"][0]
    assert embedding_status(graph, [MEMO], parts.embedder)["state"] == "failing" and len(fake.asked) == 1
    assert embed_pending(graph, [MEMO], parts.embedder)["resting_s"] > 0 and len(fake.asked) == 1
    time.sleep(REST_FIRST)
    assert "503" in embed_pending(graph, [MEMO], parts.embedder)["errors"][0] and len(fake.asked) == 2
    assert embed_pending(graph, [MEMO], parts.embedder)["resting_s"] > REST_FIRST  # the second rest is longer
    fake.mode = "ok"
    time.sleep(2 * REST_FIRST)
    assert embed_pending(graph, [MEMO], parts.embedder)["embedded"] == 3  # the failed load was not kept
    assert embedding_status(graph, [MEMO], parts.embedder)["state"] == "ok"
    fake.mode = "status:500"
    remember(graph, MEMO, [{"key": "m9", "t": "2026-01-01T00:00:00Z", "values": {"body": "new"}}], by="feed")
    assert embed_pending(graph, [MEMO], parts.embedder)["state"] == "failing"
    assert (
        0 < embed_pending(graph, [MEMO], parts.embedder)["resting_s"] <= REST_FIRST
    )  # a success ended the doubling


def test_an_unreachable_endpoint_or_missing_settings_say_so(db, graph):
    _world(graph)
    closed = f"http://127.0.0.1:{free_port()}/v1"
    for parts, said in (
        (_parts(db, embedder="http", embeddings_url=closed, embeddings_model=MODEL), "cannot be reached"),
        (_parts(db, embedder="http", embeddings_model=MODEL), "needs embeddings_url"),
        (_parts(db, embedder="http", embeddings_url=closed), "needs embeddings_model"),
    ):
        done = embed_pending(graph, [MEMO], parts.embedder)
        assert done["state"] == "failing" and said in done["errors"][0]
        assert said in embedding_status(graph, [MEMO], parts.embedder)["last_error"]


def test_a_kind_of_other_dimensions_is_refused_alone(db, graph, fake):
    _world(graph)
    ensure_schema(graph, [MEMO, ROOM, WIDE])
    remember(graph, WIDE, [{"key": "w1", "t": "2026-01-01T00:00:00Z", "values": {"body": "wide"}}], by="feed")
    parts = _parts(db, fake)
    done = embed_pending(graph, [MEMO, ROOM, WIDE], parts.embedder)
    assert done["state"] == "failing" and done["errors"] == [
        f"kind 'Wide' has 8 dimensions; {MODEL} gives 16"
    ]
    assert done["kinds"] == {"Memo": {"embedded": 2, "waiting": 0}} and done["entries"]["embedded"] == 1
    status = embedding_status(graph, [MEMO, ROOM, WIDE], parts.embedder)
    assert status["state"] == "failing" and status["waiting"] == 1 and status["embedded"] == 3
    assert "'Wide' has 8 dimensions" in status["last_error"]


def test_entries_with_a_vector_index_of_other_dimensions_are_refused(db, graph, fake):
    _world(graph)
    ensure_schema(graph, [MEMO, ROOM], entry_dimensions=8)
    done = embed_pending(graph, [MEMO], _parts(db, fake).embedder)
    assert done["errors"] == ["entries have a vector index of 8 dimensions; the embedder gives 16"]
    assert done["kinds"]["Memo"]["embedded"] == 2 and done["entries"] is None


def test_the_service_embedder_is_the_http_one_learned_once(db, fake):
    parts = _parts(db, fake)
    embedder, model, dimensions = parts.embedder.load()
    assert (model, dimensions) == (MODEL, 16) and fake.texts() == ["dimensions"]
    assert parts.embedder.load()[0] is embedder and len(fake.asked) == 1
    assert embedder([]) == [] and len(fake.asked) == 1
    texts = [f"text {n}" for n in range(150)]
    vectors = embedder(texts)
    assert len(vectors) == 150 and [len(request["input"]) for request in fake.asked[1:]] == [64, 64, 22]
    assert vectors[7] == vector("text 7")
    with pytest.raises(TypeError):
        embedder("one text")


def test_an_endpoint_slower_than_the_time_limit_fails_in_time(fake):
    fake.delay = 1.0
    started = time.monotonic()
    with pytest.raises(EmbeddingsFailed, match="did not answer within 0.3 s"):
        http_embedder(fake.url, MODEL, timeout=0.3)
    assert time.monotonic() - started < 1.0


def test_the_local_embedder_still_serves_its_kinds_and_notes(db, graph):
    wide = Kind("Page", key="id", text=("body",), dimensions=384)
    ensure_schema(graph, [wide])
    remember(
        graph, wide, [{"key": "p1", "t": "2026-01-01T00:00:00Z", "values": {"body": "a red car"}}], by="f"
    )
    note(graph, "the kitten purrs on the sofa", by="ann")
    parts = _parts(db, embedder="local")
    done = embed_pending(graph, [wide], parts.embedder)
    assert done["state"] == "ok" and done["embedded"] == 2, done
    embedder, model, _ = parts.embedder.load()
    assert (
        nearest_entries(graph, "a cat", embedder, model)[0]["entry"]["text"] == "the kitten purrs on the sofa"
    )
    assert embedding_status(graph, [wide], parts.embedder)["model"] == model


def _contents(graph) -> list:
    nodes = graph.ro_query("MATCH (n) RETURN labels(n), properties(n) ORDER BY id(n)").result_set
    edges = graph.ro_query("MATCH ()-[r]->() RETURN type(r), properties(r) ORDER BY id(r)").result_set
    indexes = graph.ro_query("CALL db.indexes() YIELD label, properties RETURN label, properties").result_set
    return [nodes, edges, sorted(map(repr, indexes))]


def test_an_idle_round_writes_nothing(db, graph, fake):
    # A tenant whose kinds wait for nothing: the round asks no model and changes nothing in its graph.
    ensure_schema(graph, [MEMO, ROOM])
    remember(graph, ROOM, [{"key": "r1", "t": "2026-01-01T00:00:00Z"}], by="feed")
    parts = _parts(db, fake)
    before = _contents(graph)
    done = embed_pending(graph, [MEMO, ROOM], parts.embedder)
    assert done["state"] == "ok" and done["embedded"] == 0 and fake.asked[1:] == []
    assert _contents(graph) == before
    # Once there is something to embed, the round writes it; after that, idle again.
    remember(
        graph, MEMO, [{"key": "m1", "t": "2026-01-01T00:00:00Z", "values": {"body": "a cat"}}], by="feed"
    )
    assert embed_pending(graph, [MEMO, ROOM], parts.embedder)["embedded"] == 1
    settled = _contents(graph)
    assert embed_pending(graph, [MEMO, ROOM], parts.embedder)["embedded"] == 0 and _contents(graph) == settled


def test_a_new_model_with_nothing_to_embed_is_kept_and_the_next_round_is_idle(db, graph, fake):
    # The graph's vectors came from another model, all gone since: the first round asks every kind again
    # and keeps the new model; the round after it is idle (asks no kind, writes nothing).
    ensure_schema(graph, [MEMO, ROOM])
    keep_embedding_progress(graph, "an-earlier-model", 3)
    parts = _parts(db, fake)
    first = embed_pending(graph, [MEMO, ROOM], parts.embedder)
    assert first["state"] == "ok" and first["embedded"] == 0 and "Memo" in first["kinds"]
    assert embedding_progress(graph)["model"] == first["model"]
    before = _contents(graph)
    second = embed_pending(graph, [MEMO, ROOM], parts.embedder)
    assert second["kinds"] == {} and second["entries"] is None and _contents(graph) == before


def test_an_error_is_told_by_its_class_not_by_its_name():
    from lighthouse_server.embedders import EmbedderUnavailable
    from lighthouse_server.worker.embedding import said

    class EndpointDown(EmbeddingsFailed):  # one of ours under another name: its message says it all
        pass

    class EmbeddingsFailedElsewhere(Exception):
        pass

    EmbeddingsFailedElsewhere.__name__ = "EmbeddingsFailed"  # not ours, whatever its name: its type is said

    assert said(EndpointDown("the endpoint answered 502")) == "the endpoint answered 502"
    assert said(EmbedderUnavailable("numpy is missing")) == "numpy is missing"
    assert said(EmbeddingsFailedElsewhere("boom")) == "EmbeddingsFailed: boom"
    assert said(ValueError("")) == "ValueError: no message"


def test_a_graph_refused_alone_leaves_the_embedder_working_for_the_others(db, graph, fake):
    # A tenant that kept a note before any schema (no kinds declared): its round is refused by the
    # library, and the next tenant's round still asks the embedder, with no rest in between.
    parts = _parts(db, fake)
    bare = db.select_graph(f"{graph.name}-bare")
    try:
        assert note(bare, "written before any schema", by="ann")["status"] == "recorded"
        refused = embed_pending(bare, [], parts.embedder)
        assert refused["state"] == "failing" and "resting_s" not in refused
        _world(graph)
        done = embed_pending(graph, [MEMO, ROOM], parts.embedder)
        assert done["state"] == "ok" and done["embedded"] == 3, done
    finally:
        bare.delete()


def test_a_round_gives_the_messages_their_vectors_and_said_finds_them_by_meaning(db, graph, fake):
    _world(graph, said=())
    say(graph, "ann", "main", "user", "my car is parked outside", by="ann")
    say(graph, "bob", "main", "user", "my car is parked outside", by="bob")
    parts = _parts(db, fake)
    assert embedding_status(graph, [MEMO], parts.embedder)["waiting"] == 4  # two memos, two messages
    done = embed_pending(graph, [MEMO], parts.embedder, limit=1)
    assert done["messages"] == {"embedded": 1, "waiting": 1}
    _until_done(graph, [MEMO], parts)
    assert said_waiting(graph, MODEL) == 0
    embedder, model, _ = parts.embedder.load()
    found = lighthouse.said(graph, "ann", "automobile", match="any", embedder=embedder, model=model)
    assert [(one["text"], one["by"]) for one in found] == [("my car is parked outside", "ann")]
    again = embed_pending(graph, [MEMO], parts.embedder)  # nothing waits: nothing is asked
    assert again["embedded"] == 0 and again["messages"] is None
