"""recall()'s steps past one ranking by meaning: the question's vector moved toward the notes it finds
first (pseudo relevance feedback), and the anchor of a relative time chosen by what its window holds."""

from __future__ import annotations

import math

import pytest
from lighthouse import ensure_schema, notes, recall
from lighthouse.recall.entry_vectors import embed_entries, nearest_entries
from lighthouse.recall.feedback import SCALING, moved, nearest_with_feedback, scaled
from lighthouse.recall.notes_found import cosines
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
    first, second, other, *_garden = notes(
        world,
        [
            {"text": "passport renewal form"},
            {"text": "renewal form consulate stamp"},  # no word of the question
            {"text": "garden roses pruned"},
            {"text": "garden roses watered"},  # what the garden notes say, said again
            {"text": "garden roses bloom"},
        ],
        by="me",
    )
    embed_entries(world, bag, "bag")
    [vector] = bag(["passport"])
    plain = {one["id"]: one["score"] for one in nearest_entries(world, "passport", bag, "bag", limit=5)}
    assert math.isclose(plain[second["id"]], plain[other["id"]], abs_tol=0.01)  # the question alone: alike
    found = nearest_with_feedback(world, "passport", vector, "bag", 5, ["note"], cosines)
    assert [one["id"] for one in found[:3]] == [first["id"], second["id"], other["id"]]
    scores = {one["id"]: one["score"] for one in found}
    assert scores[second["id"]] > scores[other["id"]] + 0.05
    assert nearest_with_feedback(world, " ", vector, "bag", 3, ["note"], cosines) == []  # nothing asked


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


def test_scaled_puts_a_note_that_many_others_repeat_below_one_of_its_own():
    found = [
        {"id": "thanks-1", "score": 0.6},
        {"id": "thanks-2", "score": 0.59},
        {"id": "wife", "score": 0.55},
    ]
    cosine = {("thanks-1", "thanks-2"): 0.99, ("thanks-1", "wife"): 0.3, ("thanks-2", "wife"): 0.3}
    cosine |= {(second, first): value for (first, second), value in cosine.items()}
    ranked = scaled(found, cosine)
    assert [one["id"] for one in ranked] == ["wife", "thanks-1", "thanks-2"]
    assert math.isclose(ranked[0]["score"], 0.55 - SCALING * 0.3)
    assert scaled([], {}) == []
    assert scaled([{"id": "alone", "score": 0.4}], {}) == [{"id": "alone", "score": 0.4}]


# A hand-made model of three dimensions: acknowledgements near the question and nearer each other.
HAND_MADE = {
    "who is my wife": [1.0, 0.0, 0.0],
    "thanks, noted": [0.6, 0.8, 0.0],
    "thanks, noted!": [0.6, 0.79, 0.02],
    "noted, thanks": [0.6, 0.8, 0.01],
    "Ingrid and I married in May": [0.55, 0.0, 0.835],
}


def hand_made(texts: list[str]) -> list[list[float]]:
    return [HAND_MADE[text.splitlines()[-1]] for text in texts]  # a note's text follows its source


def test_recall_finds_the_answer_above_acknowledgements_said_again_and_again(graph):
    ensure_schema(graph, [], entry_dimensions=3)
    *_thanks, wife = notes(graph, [{"text": text} for text in list(HAND_MADE)[1:]], by="me")
    embed_entries(graph, hand_made, "hand-made")
    plain = nearest_entries(graph, "who is my wife", hand_made, "hand-made", limit=4)
    assert plain[-1]["id"] == wife["id"]  # by the cosine alone, last
    found = recall(graph, [], "who is my wife", embedder=hand_made, model="hand-made")["notes"]
    assert found[0]["id"] == wife["id"]


def test_only_the_first_places_of_the_words_ranking_count_unless_a_token_is_named(world):
    from lighthouse.recall.notes_found import WORDS_READ

    said = [f"phone {'note ' * place}of the day" for place in range(WORDS_READ + 5)]
    notes(world, [{"text": text} for text in said], by="me")
    embed_entries(world, bag, "bag")

    def deepest(question: str) -> int:
        found = recall(world, [], question, limit=50, embedder=bag, model="bag")["notes"]
        return max(one["places"].get("words", 0) for one in found)

    assert deepest("which phone do i carry") == WORDS_READ  # a common word: its first places only
    assert deepest("which phone do i carry to Lisbon") == WORDS_READ + 5  # a name: words lead, all count
