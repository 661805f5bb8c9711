"""fuse(): reciprocal rank fusion by places, ties, diversity over meaning vectors, and the reranker hook."""

from __future__ import annotations

import math

import pytest
from lighthouse import Kind, Refused, ensure_schema, remember
from lighthouse.recall.rank import RerankerError, fuse
from lighthouse.recall.text import search
from lighthouse.recall.vector import embed, nearest


def rrf(*places: int, k: int = 60) -> float:
    return math.fsum(1 / (k + place) for place in places)


def keys(results: list[dict]) -> list:
    return [result.get("key", result.get("id")) for result in results]


def test_places_only_count_and_each_result_says_where_it_was():
    words = [{"key": "a", "score": 900.0}, {"key": "b", "score": 3.0}, {"key": "c", "score": 2.0}]
    meaning = [{"key": "c", "score": 0.99}, {"key": "a", "score": 0.2}]
    found = fuse({"words": words, "meaning": meaning})
    assert keys(found) == ["a", "c", "b"]
    assert found[0] == {"key": "a", "score": rrf(1, 2), "places": {"words": 1, "meaning": 2}}
    assert found[1]["places"] == {"words": 3, "meaning": 1} and found[1]["score"] == rrf(3, 1)
    assert found[2]["places"] == {"words": 2} and found[2]["score"] == rrf(2)


def test_k_changes_the_weight_of_the_first_places():
    rankings = {"one": ["a", "b", "c"], "two": ["c", "x", "y"], "three": ["c", "z", "w"]}
    assert keys(fuse(rankings, k=60))[0] == "c"
    assert fuse(rankings, k=0)[0]["score"] == pytest.approx(1 + 1 + 1 / 3)
    assert fuse({"one": ["a", "b"]}, k=0)[1]["score"] == 0.5


def test_equal_scores_go_to_the_better_best_place_then_to_the_ranking_named_first():
    assert keys(fuse({"x": ["a", "b"], "y": ["b", "a"]})) == ["a", "b"]
    assert keys(fuse({"y": ["b", "a"], "x": ["a", "b"]})) == ["b", "a"]
    assert keys(fuse({"x": ["a"], "y": ["b"]})) == ["a", "b"]
    assert keys(fuse({"y": ["b"], "x": ["a"]})) == ["b", "a"]
    # k=0: a at place 2 twice scores 1/2 + 1/2, as b and c at place 1 once; the best place wins.
    found = fuse({"x": ["b", "a"], "y": ["c", "a"]}, k=0)
    assert [result["score"] for result in found] == [1.0, 1.0, 1.0]
    assert keys(found) == ["b", "c", "a"]


def test_equal_places_give_equal_scores_in_any_order():
    rankings = {name: [f"{name}-{place}" for place in range(7)] for name in "pqrstu"}
    rankings["p"][3] = rankings["q"][5] = rankings["r"][1] = "one"
    rankings["s"][1] = rankings["t"][3] = rankings["u"][5] = "two"
    found = {result["key"]: result["score"] for result in fuse(rankings, limit=100)}
    assert found["one"] == found["two"]


def test_items_are_named_by_key_by_id_or_as_keys():
    entries = [{"id": "ep/2", "type": "observation"}, {"id": "ep/1"}]
    entities = [{"key": "ep/2", "note": "an entity whose key looks like an entry id"}, 7, "7"]
    found = fuse({"entries": entries, "entities": entities})
    assert [(("id" in result), result.get("id", result.get("key"))) for result in found] == [
        (True, "ep/2"),
        (False, "ep/2"),
        (True, "ep/1"),
        (False, 7),
        (False, "7"),
    ]
    assert found[0] == {"id": "ep/2", "type": "observation", "score": rrf(1), "places": {"entries": 1}}


def test_a_repeat_within_one_ranking_counts_at_its_best_place_only():
    found = fuse({"words": ["a", "b", "a", "a"]})
    assert found[0] == {"key": "a", "score": rrf(1), "places": {"words": 1}}
    assert len(found) == 2


def test_fields_come_from_the_ranking_named_first_and_the_fused_score_wins():
    words = [{"key": "a", "score": 4.0, "note": "from words", "title": "t"}]
    meaning = [{"key": "a", "score": 0.5, "note": "from meaning", "vector": [1.0, 0.0]}]
    found = fuse({"words": words, "meaning": meaning})[0]
    assert found["note"] == "from words" and found["title"] == "t" and found["vector"] == [1.0, 0.0]
    assert found["score"] == rrf(1, 1)
    assert words[0]["score"] == 4.0  # the caller's results are not changed


def test_limit_and_empty_rankings():
    assert len(fuse({"words": [str(n) for n in range(50)]})) == 10
    assert len(fuse({"words": [str(n) for n in range(50)]}, limit=30)) == 30
    assert fuse({}) == [] and fuse({"words": [], "meaning": []}) == []


@pytest.mark.parametrize(
    "rankings",
    [
        None,
        [["a"]],
        {"words": "abc"},
        {"words": {"a": 1}},
        {"": ["a"]},
        {7: ["a"]},
        {"words": [{"note": "no key"}]},
        {"words": [None]},
        {"words": [1.5]},
        {"words": [True]},
        {"words": [["a"]]},
        {"words": [{"key": None}]},
        {"words": [{"key": ["a"]}]},
        {f"r{n}": ["a"] for n in range(21)},
        {"words": ["a"] * 1_001},
    ],
)
def test_fuse_refuses_rankings_it_cannot_read(rankings):
    with pytest.raises(Refused):
        fuse(rankings)


def test_fuse_refuses_limits_and_k_out_of_range():
    for limit in (0, 1_001, True, 2.0, None):
        with pytest.raises(Refused):
            fuse({"words": ["a"]}, limit=limit)
    for k in (-1, 10_001, False, 60.0):
        with pytest.raises(Refused):
            fuse({"words": ["a"]}, k=k)
    assert fuse({"words": ["a"]}, limit=1_000, k=10_000)[0]["score"] == 1 / 10_001


# --- diversity ------------------------------------------------------------------------------------

SAME = [1.0, 0.0, 0.0]
ALIKE = [0.99, 0.1, 0.0]
OTHER = [0.0, 1.0, 0.0]
THIRD = [0.0, 0.0, 1.0]


def test_diversity_picks_what_is_relevant_and_unlike_the_picks_before():
    ranked = {"meaning": ["a", "a2", "b", "c"]}
    vectors = {"a": SAME, "a2": ALIKE, "b": OTHER, "c": THIRD}
    assert keys(fuse(ranked, diversity=1.0, vectors=vectors)) == ["a", "a2", "b", "c"]
    assert keys(fuse(ranked, diversity=0.5, vectors=vectors)) == ["a", "b", "c", "a2"]
    assert keys(fuse(ranked, diversity=0.5, vectors=vectors, limit=2)) == ["a", "b"]
    # Each pick is compared with every pick before it: a2 is like a, even when b was picked last.
    vectors["c"] = [0.0, 0.3, 1.0]
    assert keys(fuse(ranked, diversity=0.5, vectors=vectors)) == ["a", "b", "c", "a2"]
    kept = fuse(ranked, diversity=0.5, vectors=vectors)
    assert kept[1]["score"] == rrf(3) and kept[1]["places"] == {"meaning": 3}  # the fused score stays


def test_diversity_reads_vectors_the_results_carry():
    ranked = {
        "meaning": [
            {"key": "a", "vector": SAME},
            {"key": "a2", "vector": [x * 1e6 for x in ALIKE]},  # any length: only the direction counts
            {"key": "b", "vector": OTHER},
        ]
    }
    assert keys(fuse(ranked, diversity=0.3)) == ["a", "b", "a2"]
    assert keys(fuse(ranked, diversity=0.3, vectors={"a2": OTHER, "b": SAME})) == ["a", "a2", "b"]


def test_an_item_without_a_vector_is_like_nothing():
    ranked = {"meaning": ["a", "a2", "nothing"]}
    assert keys(fuse(ranked, diversity=0.5, vectors={"a": SAME, "a2": SAME})) == ["a", "nothing", "a2"]
    assert keys(fuse(ranked, diversity=0.5)) == ["a", "a2", "nothing"]  # no vectors: the fused order


def test_diversity_chooses_from_the_best_ten_times_limit():
    ranked = {"meaning": [f"k{n}" for n in range(40)]}
    vectors = {f"k{n}": SAME for n in range(39)} | {"k39": OTHER}
    assert "k39" not in keys(fuse(ranked, diversity=0.0, vectors=vectors, limit=2))  # k39 is place 40
    assert keys(fuse(ranked, diversity=0.0, vectors=vectors, limit=4))[1] == "k39"


@pytest.mark.parametrize(
    "weight, vectors, limit",
    [
        (-0.1, {}, 10),
        (1.1, {}, 10),
        (True, {}, 10),
        ("0.5", {}, 10),
        (math.nan, {}, 10),
        (0.5, [SAME], 10),
        (0.5, {"a": [0.0, 0.0, 0.0]}, 10),
        (0.5, {"a": [math.nan, 1.0, 0.0]}, 10),
        (0.5, {"a": [math.inf, 1.0, 0.0]}, 10),
        (0.5, {"a": ["1", "0", "0"]}, 10),
        (0.5, {"a": []}, 10),
        (0.5, {"a": "vector"}, 10),
        (0.5, {"a": SAME, "b": [1.0, 0.0]}, 10),
        (0.5, {}, 101),
    ],
)
def test_diversity_refuses_weights_and_vectors_it_cannot_use(weight, vectors, limit):
    with pytest.raises(Refused):
        fuse({"meaning": ["a", "b"]}, diversity=weight, vectors=vectors, limit=limit)


def test_vectors_without_diversity_are_refused():
    with pytest.raises(Refused, match="diversity"):
        fuse({"meaning": ["a"]}, vectors={"a": SAME})


# --- the reranker ---------------------------------------------------------------------------------


def test_the_reranker_gives_the_order_and_the_content_stays_ours():
    ranked = {"words": ["a", "b", "c"]}
    seen = []

    def reverse(results):
        seen.append([dict(result) for result in results])
        for result in results:
            result["score"] = 99.0  # whatever it does to what it was given
            result["places"]["words"] = 0
        return list(reversed(results))

    found = fuse(ranked, rerank=reverse)
    assert keys(found) == ["c", "b", "a"]
    assert found[0]["score"] == rrf(3) and found[0]["places"] == {"words": 3}
    assert keys(seen[0]) == ["a", "b", "c"]


def test_the_reranker_sees_the_results_after_the_limit_and_diversity():
    seen = []

    def same(results):
        seen.append(keys(results))
        return results

    fuse({"meaning": ["a", "a2", "b"]}, limit=2, diversity=0.5, vectors={"a": SAME, "a2": SAME}, rerank=same)
    assert seen == [["a", "b"]]


@pytest.mark.parametrize(
    "answer",
    [
        lambda results: None,
        lambda results: "abc",
        lambda results: {result["key"]: result for result in results},
        lambda results: results[:-1],  # one left out
        lambda results: [*results, {"key": "invented"}],
        lambda results: [*results[:-1], {"key": "invented"}],  # one swapped for another
        lambda results: [results[0], results[0], results[1]],  # one twice, one left out
        lambda results: [results[0], *results],  # one twice
        lambda results: [*results[:-1], {"note": "no key"}],
        lambda results: [*results[:-1], 3.5],
        lambda results: [{"id": result["key"]} for result in results],  # entries, not these entities
    ],
)
def test_the_reranker_must_answer_the_same_results(answer):
    with pytest.raises(RerankerError):
        fuse({"words": ["a", "b", "c"]}, rerank=answer)


def test_a_reranker_may_answer_with_bare_keys_or_copies():
    assert keys(fuse({"words": ["a", "b"]}, rerank=lambda results: ["b", "a"])) == ["b", "a"]
    found = fuse({"words": ["a", "b"]}, rerank=lambda results: [{"key": "b"}, {"key": "a", "x": 1}])
    assert found[1] == {"key": "a", "score": rrf(1), "places": {"words": 1}}


def test_a_reranker_that_raises_stops_fuse_and_one_that_is_not_a_function_is_refused():
    def broken(results):
        raise RuntimeError("the reranker fell over")

    with pytest.raises(RuntimeError, match="fell over"):
        fuse({"words": ["a"]}, rerank=broken)
    with pytest.raises(Refused):
        fuse({"words": ["a"]}, rerank="not a function")


# --- with the ways of recall ----------------------------------------------------------------------

MANUAL = Kind("Manual", key="code", text=("title", "body"), dimensions=8)


def letters(texts):
    """A model the test writes: counts of the letters a to h."""
    return [[text.lower().count(letter) + 0.01 for letter in "abcdefgh"] for text in texts]


def test_fuse_merges_search_and_nearest(graph):
    ensure_schema(graph, [MANUAL])
    rows = [
        {"key": "pump", "t": "2026-01-01T00:00:00Z", "values": {"title": "Pump", "body": "seal leaks"}},
        {"key": "fan", "t": "2026-01-01T00:00:00Z", "values": {"title": "Fan", "body": "blade bent"}},
    ]
    remember(graph, MANUAL, by="w", rows=rows)
    embed(graph, MANUAL, letters, "letters")
    by_words = search(graph, MANUAL, "seal", match="any")
    by_meaning = nearest(graph, MANUAL, "seal", letters, "letters", vectors=True)
    found = fuse({"words": by_words, "meaning": by_meaning}, diversity=0.7)
    assert found[0]["key"] == "pump" and found[0]["places"]["words"] == 1
    assert set(found[0]["places"]) == {"words", "meaning"} and found[0]["body"] == "seal leaks"
    assert {result["key"] for result in found} == {"pump", "fan"}
