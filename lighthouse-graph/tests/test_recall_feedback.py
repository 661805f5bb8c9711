"""recall()'s steps past one ranking by meaning: the question's vector moved toward the notes it finds
first (pseudo relevance feedback), and the anchor of a relative time chosen by what its window holds."""

from __future__ import annotations

import math

import pytest
from lighthouse import ensure_schema, notes, recall
from lighthouse.recall.entry_vectors import embed_entries, nearest_entries
from lighthouse.recall.feedback import moved, nearest_with_feedback
from meaning import DIMS, MANUAL, bag


@pytest.fixture
def world(graph):
    ensure_schema(graph, [MANUAL], entry_dimensions=DIMS)
    return graph


def test_moved_is_a_unit_vector_between_the_question_and_the_mean_of_what_it_found():
    assert moved([3.0, 0.0], []) == [1.0, 0.0]
    toward = moved([1.0, 0.0], [[0.0, 2.0], [0.0, 1.0]], share=1.0)
    assert math.isclose(toward[0], toward[1]) and math.isclose(math.hypot(*toward), 1.0)
    assert moved([1.0, 0.0], [[0.0, 1.0]], share=0.5)[0] > moved([1.0, 0.0], [[0.0, 1.0]], share=1.0)[0]
    assert moved([0.0, 0.0], [[0.0, 0.0]]) == [0.0, 0.0]  # nothing to make unit: left as it is


def test_feedback_finds_a_note_in_the_words_of_the_first_found_and_none_of_the_question(world):
    first, second, other = notes(
        world,
        [
            {"text": "passport renewal form"},
            {"text": "renewal form consulate stamp"},  # no word of the question
            {"text": "garden roses pruned"},
        ],
        by="me",
    )
    embed_entries(world, bag, "bag")
    [vector] = bag(["passport"])
    plain = {one["id"]: one["score"] for one in nearest_entries(world, "passport", bag, "bag", limit=3)}
    assert math.isclose(plain[second["id"]], plain[other["id"]], abs_tol=0.01)  # the question alone: alike
    found = nearest_with_feedback(world, "passport", vector, "bag", 3, ["note"])
    assert [one["id"] for one in found] == [first["id"], second["id"], other["id"]]
    scores = {one["id"]: one["score"] for one in found}
    assert scores[second["id"]] > scores[other["id"]] + 0.05
    assert nearest_with_feedback(world, " ", vector, "bag", 3, ["note"]) == []  # nothing asked


def test_the_anchor_is_the_one_whose_window_holds_what_is_asked_and_comes_second(world):
    plans, trip, plants, camera = notes(
        world,
        [
            # the nearest to "my holiday to Lisbon" by meaning, but nothing was bought two weeks after it
            {"text": "holiday Lisbon plans", "at": "2026-03-01T10:00:00Z"},
            {"text": "holiday Lisbon flight today", "at": "2026-06-01T10:00:00Z"},
            {"text": "watered plants", "at": "2026-03-15T10:00:00Z"},
            {"text": "buy camera", "at": "2026-06-15T10:00:00Z"},
        ],
        by="me",
    )
    embed_entries(world, bag, "bag")
    asked = "what did I buy two weeks after my holiday to Lisbon?"
    nearest = nearest_entries(world, "my holiday to Lisbon", bag, "bag", limit=2)
    assert [one["id"] for one in nearest] == [plans["id"], trip["id"]]
    found = recall(world, [], asked, when="2026-07-01T00:00:00Z", embedder=bag, model="bag")["notes"]
    assert [one["id"] for one in found[:2]] == [camera["id"], trip["id"]]
    assert plants["id"] not in [one["id"] for one in found[:2]]
