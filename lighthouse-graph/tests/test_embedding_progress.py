"""embedding_progress(), keep_embedding_progress(), keep_embedding_error(): the embedding job's count and
last error, kept in the graph and read back the same by every process."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from lighthouse import (
    Refused,
    WrongType,
    embedding_progress,
    ensure_schema,
    keep_embedding_error,
    keep_embedding_progress,
)
from lighthouse.embedding_progress import EMBEDDING
from lighthouse.graphs import read

NOTHING = {
    "model": None,
    "embedded": 0,
    "failing": False,
    "last_error": None,
    "last_error_at": None,
    "last_embedded_at": None,
}


def _nodes(graph) -> list:
    return read(graph, f"MATCH (e:{EMBEDDING}) RETURN properties(e)")


def test_a_graph_never_embedded_or_not_made_says_nothing_kept(graph, db):
    assert embedding_progress(db.select_graph("never-made-embedding")) == NOTHING
    ensure_schema(graph)
    assert embedding_progress(graph) == NOTHING and _nodes(graph) == []


def test_vectors_are_counted_per_model_and_a_new_model_starts_the_count_again(graph):
    before = datetime.now(UTC) - timedelta(seconds=1)
    keep_embedding_progress(graph, "model-a", 3)
    keep_embedding_progress(graph, "model-a", 4)
    kept = embedding_progress(graph)
    assert kept["model"] == "model-a" and kept["embedded"] == 7 and kept["failing"] is False
    assert (
        kept["last_embedded_at"] >= before.replace(microsecond=0) and kept["last_embedded_at"].tzinfo is UTC
    )
    keep_embedding_progress(graph, "model-a", 0)  # a round with nothing to give changes no count
    assert embedding_progress(graph)["embedded"] == 7
    keep_embedding_progress(graph, "model-b", 2)
    assert embedding_progress(graph)["model"] == "model-b" and embedding_progress(graph)["embedded"] == 2
    assert len(_nodes(graph)) == 1


def test_a_round_of_a_new_model_that_gave_nothing_keeps_the_new_model_with_no_vectors(graph):
    """The worker asks every kind again while the kept model is not its own: a round that worked with a
    new model and gave nothing (nothing left to embed) must record that model, or every round after it
    asks and writes again."""
    keep_embedding_progress(graph, "model-a", 3)
    keep_embedding_progress(graph, "model-b", 0)
    kept = embedding_progress(graph)
    assert kept["model"] == "model-b" and kept["embedded"] == 0
    keep_embedding_error(graph, "model-c", "the endpoint said 500")  # a failure counts nothing: no model
    assert embedding_progress(graph)["model"] == "model-b" and embedding_progress(graph)["embedded"] == 0


def test_an_error_is_kept_once_with_its_first_time_and_a_round_that_works_clears_it(graph):
    assert keep_embedding_error(graph, "model-a", "the endpoint said 500") is True
    first = embedding_progress(graph)
    assert first["failing"] is True and first["last_error"] == "the endpoint said 500"
    assert first["last_error_at"] is not None and first["model"] is None and first["embedded"] == 0
    assert keep_embedding_error(graph, "model-a", "the endpoint said 500") is False  # nothing written
    assert keep_embedding_error(graph, "model-a", "the endpoint said 500", 2) is True  # counted
    again = embedding_progress(graph)
    assert again["last_error_at"] == first["last_error_at"] and again["embedded"] == 2
    assert again["model"] == "model-a" and again["failing"] is True
    assert keep_embedding_error(graph, None, "the embedder cannot be used") is True
    assert embedding_progress(graph)["last_error"] == "the embedder cannot be used"
    keep_embedding_progress(graph, "model-a", 1)
    healed = embedding_progress(graph)
    assert healed["failing"] is False and healed["embedded"] == 3
    assert healed["last_error"] == "the embedder cannot be used"  # kept for the record


def test_an_error_is_kept_cut_and_storable(graph):
    keep_embedding_error(graph, "m", "x" * 5_000 + "\x00")
    assert embedding_progress(graph)["last_error"] == "x" * 2_000
    keep_embedding_error(graph, "m", "bad \x00 byte \ud800")
    assert embedding_progress(graph)["last_error"] == "bad \ufffd byte \ufffd"


def test_a_graph_that_kept_its_times_as_text_is_read_as_it_is(graph):
    graph.query(
        f"CREATE (:{EMBEDDING} {{name: 'embedding', model: 'm', embedded: 5, failing: true, "
        "last_error: 'old', last_error_at: '2026-11-01T10:00:00', last_embedded_at: '2026-11-01T09:00:00'})"
    )
    kept = embedding_progress(graph)
    assert kept["last_error_at"] == datetime(2026, 11, 1, 10, tzinfo=UTC)
    assert kept["last_embedded_at"] == datetime(2026, 11, 1, 9, tzinfo=UTC)
    assert kept["embedded"] == 5 and kept["failing"] is True
    keep_embedding_progress(graph, "m", 1)  # the next write keeps the node and goes on counting
    assert embedding_progress(graph)["embedded"] == 6 and len(_nodes(graph)) == 1


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda g: keep_embedding_progress(g, "", 1), Refused),
        (lambda g: keep_embedding_progress(g, None, 1), Refused),
        (lambda g: keep_embedding_progress(g, " m ", 1), Refused),
        (lambda g: keep_embedding_progress(g, "m", -1), Refused),
        (lambda g: keep_embedding_progress(g, "m", 10**9 + 1), Refused),
        (lambda g: keep_embedding_progress(g, "m", True), Refused),
        (lambda g: keep_embedding_progress(g, "m", 1.0), Refused),
        (lambda g: keep_embedding_error(g, "m", None), WrongType),
        (lambda g: keep_embedding_error(g, "m", b"bytes"), WrongType),
        (lambda g: keep_embedding_error(g, 7, "e"), Refused),
        (lambda g: keep_embedding_error(g, None, "e", 2), Refused),  # vectors counted need their model
        (lambda g: keep_embedding_error(g, "m", "e", -2), Refused),
    ],
)
def test_bad_arguments_are_refused_before_anything_is_written(graph, call, error):
    with pytest.raises(error):
        call(graph)
    assert _nodes(graph) == []


def test_the_largest_count_is_kept_whole(graph):
    keep_embedding_progress(graph, "m", 10**9)
    keep_embedding_error(graph, "m", "e", 10**9)
    assert embedding_progress(graph)["embedded"] == 2 * 10**9
