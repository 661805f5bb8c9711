"""recall()'s notes: a long note found by any of its parts, the newest of notes that say the same first,
a time the question names read against when each note was said, and the episodes with their neighbours."""

from __future__ import annotations

import pytest
from lighthouse import ensure_schema, note, notes, recall, search_entries
from lighthouse.recall.entry_vectors import (
    CHUNK_WORDS,
    OVERLAP_WORDS,
    embed_entries,
    nearest_entries,
    parts_of,
)
from lighthouse.values import words
from meaning import DIMS, MANUAL, bag

FILLER = [
    "weather",
    "lunch",
    "traffic",
    "football",
    "garden",
    "movie",
    "coffee",
    "holiday",
    "cousin",
    "laptop",
]


TOPICS = {"passport": 1, "travel": 1, "document": 1, "number": 2, "digits": 2}
TOPICS |= {"office": 5, "queue": 6, "key": 7, "mat": 8}


def reads_200(texts: list[str]) -> list[list[float]]:
    """A model of a few topics (travel document, number...) that reads the first 200 words of a text, as a
    small model stops at its 256th word piece; every other word weighs little."""
    found = []
    for text in texts:
        vector = [0.0] * DIMS
        vector[0] = 0.01
        for word in words(" ".join(text.split()[:200])).split():
            vector[TOPICS.get(word, 0)] += 1.0 if word in TOPICS else 0.0001
        found.append(vector)
    return found


def session(words: int, fact: str, at_word: int) -> str:
    """A long talk of unrelated words with one fact in it, starting at word `at_word`."""
    said = [FILLER[place % len(FILLER)] for place in range(words)]
    said[at_word : at_word + len(fact.split())] = fact.split()
    return " ".join(said)


@pytest.fixture
def world(graph):
    ensure_schema(graph, [MANUAL], entry_dimensions=DIMS)
    return graph


def test_a_long_text_is_cut_in_overlapping_parts():
    assert parts_of("a short note") == ["a short note"]
    words = [f"w{n}" for n in range(1_000)]
    parts = parts_of(" ".join(words))
    assert all(len(part.split()) <= CHUNK_WORDS for part in parts)
    assert parts[0].split()[-OVERLAP_WORDS:] == parts[1].split()[:OVERLAP_WORDS]
    assert parts[-1].split()[-1] == "w999"  # nothing at the end is left out
    assert set(" ".join(parts).split()) == set(words)


def test_the_answer_in_the_3000th_word_of_a_session_is_found(world):
    long_id = note(world, session(4_000, "my passport number ends in seven seven four", 3_000), by="me")["id"]
    short_id = note(world, "a note about a passport office queue", by="me")["id"]
    assert embed_entries(world, reads_200, "reads-200")["waiting"] == 0
    found = nearest_entries(world, "passport number seven seven four", reads_200, "reads-200", limit=2)
    assert [one["id"] for one in found] == [long_id, short_id]
    # Its best part, not the mean of its whole: the score of the part that holds the fact.
    part = next(
        part
        for part in parts_of(session(4_000, "my passport number ends in seven seven four", 3_000))
        if "passport" in part
    )
    expected = sum(
        a * b for a, b in zip(*_units(reads_200([part, "passport number seven seven four"])), strict=True)
    )
    assert found[0]["score"] == pytest.approx(expected, abs=1e-3)
    # recall() by meaning alone (no word of the question is in the note) finds it too.
    answer = recall(
        world,
        [],
        "what are the last digits of the travel document",
        embedder=reads_200,
        model="reads-200",
    )
    assert answer["notes"][0]["id"] == long_id and answer["notes"][0]["places"] == {"meaning": 1}


def _units(vectors):
    return [[x / sum(y * y for y in vector) ** 0.5 for x in vector] for vector in vectors]


def test_a_long_note_has_parts_and_a_new_model_replaces_them(world):
    note(world, session(1_000, "the key is under the mat", 500), by="me")
    embed_entries(world, bag, "bag")
    count = "MATCH (:Entry)-[:LH_VECTOR]->(p:EntryVector) RETURN count(p), collect(DISTINCT p.`lh.model`)"
    assert world.query(count).result_set == [[len(parts_of(session(1_000, "x", 0))) - 1, ["bag"]]]
    embed_entries(world, reads_200, "reads-200")
    assert world.query(count).result_set[0][1] == ["reads-200"]


def test_the_newer_of_two_conflicting_statements_ranks_first(world):
    old, new = notes(
        world,
        [
            # Said first, and with more of the question's words: by words alone it ranks first.
            {
                "text": "where my sister lives: my sister lives in Berlin, she lives near the park",
                "at": "2026-01-10T00:00:00Z",
            },
            {"text": "my sister lives in Munich now", "at": "2026-03-01T00:00:00Z"},
        ],
        by="me",
    )
    assert [hit["id"] for hit in search_entries(world, "where does my sister live", match="any")][0] == old[
        "id"
    ]
    assert [one["id"] for one in recall(world, [], "where does my sister live")["notes"]] == [
        new["id"],
        old["id"],
    ]
    embed_entries(world, bag, "bag")
    found = recall(world, [], "where does my sister live", embedder=bag, model="bag")["notes"]
    assert [one["id"] for one in found] == [new["id"], old["id"]]


def test_the_said_time_decides_not_the_order_of_arrival(world):
    new, old = notes(
        world,
        [
            {
                "text": "my sister lives in Munich now, she moved there in February with two cats and a piano",
                "at": "2026-03-01T00:00:00Z",
            },
            {
                "text": "my sister lives in Berlin; my sister lives near the park",
                "at": "2026-01-10T00:00:00Z",
            },
        ],
        by="me",
    )
    assert [hit["id"] for hit in search_entries(world, "sister lives", match="any")][0] == old["id"]
    assert [one["id"] for one in recall(world, [], "my sister lives")["notes"]] == [new["id"], old["id"]]


def test_notes_that_say_different_things_keep_their_order(world):
    first, second = notes(
        world,
        [
            {"text": "the pump in hall two leaks oil", "at": "2026-01-10T00:00:00Z"},
            {"text": "lunch was late, the pump tour moved", "at": "2026-03-01T00:00:00Z"},
        ],
        by="me",
    )
    found = recall(world, [], "pump leaks oil")["notes"]
    assert [one["id"] for one in found] == [first["id"], second["id"]]


def test_a_relative_time_is_read_against_the_said_time(world):
    march, may = notes(
        world,
        [
            {"text": "dinner with Sam at the harbour", "at": "2026-03-10T19:00:00Z"},
            {"text": "dinner with Sam at the station", "at": "2026-05-02T19:00:00Z"},
        ],
        by="me",
    )
    asked = "where did I have dinner with Sam last month?"
    assert [one["id"] for one in recall(world, [], asked, when="2026-04-05T12:00:00Z")["notes"]][0] == march[
        "id"
    ]
    assert [one["id"] for one in recall(world, [], asked, when="2026-06-01T12:00:00Z")["notes"]][0] == may[
        "id"
    ]
    found = recall(world, [], asked, when="2026-04-05T12:00:00Z")["notes"][0]
    assert "time" in found["places"]


def test_a_time_relative_to_something_said(world):
    trip, camera, shoes = notes(
        world,
        [
            {"text": "booked the trip to Lisbon", "at": "2026-06-20T10:00:00Z"},
            {"text": "bought a new camera", "at": "2026-06-06T10:00:00Z"},
            {"text": "bought running shoes", "at": "2026-05-01T10:00:00Z"},
        ],
        by="me",
    )
    found = recall(
        world, [], "what did I buy two weeks before the trip to Lisbon?", when="2026-07-01T00:00:00Z"
    )
    assert found["notes"][0]["id"] == camera["id"]
    # The trip is found by its words, after what was said in the window; the shoes, said a month before
    # and sharing no word of the question, are not found at all.
    assert [one["id"] for one in found["notes"]] == [camera["id"], trip["id"]]
    assert shoes["id"] not in {one["id"] for one in found["notes"]}


def test_an_episode_brings_the_notes_said_beside_the_one_found(world):
    said = notes(
        world,
        [
            {"text": text, "episode": "talk-1"}
            for text in ("hello there", "my sister loves gardening", "thanks, bye")
        ],
        by="me",
    )
    notes(world, [{"text": "the weather is fine", "episode": "talk-2"}], by="me")
    answer = recall(world, [], "gardening")
    assert [one["id"] for one in answer["notes"]] == [said[1]["id"]]
    assert answer["notes"][0]["episode"] == "talk-1"
    [episode] = answer["episodes"]
    assert episode["id"] == "talk-1" and episode["found"] == [said[1]["id"]]
    assert [one["text"] for one in episode["beside"]] == ["hello there", "thanks, bye"]


def test_a_question_of_common_words_still_finds_notes(world):
    said = note(world, "what did I say", by="me")
    assert [one["id"] for one in recall(world, [], "what did I say")["notes"]] == [said["id"]]


def test_an_exact_token_counts_more_than_meaning():
    from lighthouse.recall.notes_found import NAMING, WEIGHTS, weights_for

    assert weights_for("what did I say about n3590") is NAMING
    assert weights_for("what does fault E47 mean") is NAMING
    assert weights_for("when do we fly to Lisbon") is NAMING
    assert weights_for("What does my sibling do for a living?") is WEIGHTS
    assert weights_for("Where am I employed?") is WEIGHTS  # "I" is a function word


def test_a_note_named_by_its_code_comes_first_though_meaning_finds_others(world):
    said = notes(
        world, [{"text": f"order {number} shipped to the depot"} for number in (4471, 5582, 6693)], by="me"
    )
    embed_entries(world, bag, "bag")
    found = recall(world, [], "what happened to 5582", embedder=bag, model="bag")["notes"]
    assert found[0]["id"] == said[1]["id"]


def test_a_long_talk_is_not_taken_for_a_newer_statement(world):
    statement, talk = notes(
        world,
        [
            {"text": "my sister lives in Berlin now", "at": "2026-01-10T00:00:00Z"},
            {"text": "my sister lives in Berlin " + " ".join(FILLER * 20), "at": "2026-03-01T00:00:00Z"},
        ],
        by="me",
    )
    found = recall(world, [], "where does my sister live in Berlin")["notes"]
    assert [one["id"] for one in found] == [statement["id"], talk["id"]]
