"""fuse(): reciprocal rank fusion by places, ties, diversity over meaning vectors, and the reranker hook."""

from __future__ import annotations

import inspect
import math

import pytest
from hostile import HostileList, HostileMap, HostileText, hostile_objects
from lighthouse import Kind, Refused, WrongType, ensure_schema, remember
from lighthouse.recall.rank import RerankerError, fuse
from lighthouse.recall.text import search
from lighthouse.recall.vector import embed, nearest


def rrf(*places: int, k: int = 60) -> float:
    return math.fsum(1 / (k + place) for place in places)


def keys(results: list[dict]) -> list:
    return [result["key"] for result in results]


def ranked(*listed) -> list[dict]:
    """A ranking of bare keys, as the ways of recall give them: dicts with their key."""
    return [{"key": key} for key in listed]


def test_the_signature_is_the_published_one():
    listed = list(inspect.signature(fuse).parameters.values())
    assert [(p.name, p.default) for p in listed[:2]] == [("rankings", inspect.Parameter.empty), ("limit", 10)]
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in listed[2:])


def test_places_only_count_and_each_result_says_where_it_was():
    words = [{"key": "a", "score": 900.0}, {"key": "b", "score": 3.0}, {"key": "c", "score": 2.0}]
    meaning = [{"key": "c", "score": 0.99}, {"key": "a", "score": 0.2}]
    found = fuse({"words": words, "meaning": meaning})
    assert keys(found) == ["a", "c", "b"]
    assert found[0] == {"key": "a", "score": rrf(1, 2), "places": {"words": 1, "meaning": 2}}
    assert found[1] == {"key": "c", "score": rrf(3, 1), "places": {"words": 3, "meaning": 1}}
    assert found[2] == {"key": "b", "score": rrf(2), "places": {"words": 2}}
    assert fuse({"words": words, "meaning": meaning}, 2) == found[:2]  # limit by position


def test_a_result_is_key_score_and_places_only():
    words = [{"key": "a", "score": 4.0, "note": "from words", "values": {"x": 1}}]
    meaning = [{"key": "a", "score": 0.5, "vector": [1.0, 0.0]}]
    (found,) = fuse({"words": words, "meaning": meaning})
    assert found == {"key": "a", "score": rrf(1, 1), "places": {"words": 1, "meaning": 1}}
    assert words[0]["score"] == 4.0  # the caller's results are not changed


def test_k_changes_the_weight_of_the_first_places():
    rankings = {"one": ranked("a", "b", "c"), "two": ranked("c", "x", "y"), "three": ranked("c", "z", "w")}
    assert keys(fuse(rankings, k=60))[0] == "c"
    assert fuse(rankings, k=0)[0]["score"] == pytest.approx(1 + 1 + 1 / 3)
    assert fuse({"one": ranked("a", "b")}, k=0)[1]["score"] == 0.5


def test_equal_scores_put_whole_number_keys_first_then_names_each_ascending():
    assert keys(fuse({"x": ranked("b", "a"), "y": ranked("a", "b")})) == ["a", "b"]
    assert keys(fuse({"y": ranked("b"), "x": ranked("a")})) == ["a", "b"]
    assert keys(fuse({"x": ranked("b", 10, "a", 2), "y": ranked("a", 2, "b", 10)})) == ["a", "b", 2, 10]
    assert keys(fuse({"x": ranked("b", 2), "y": ranked(10, "a")})) == [10, "b", 2, "a"]
    tied = {"x": ranked("z"), "y": ranked(30), "w": ranked("a"), "v": ranked(4)}
    assert keys(fuse(tied)) == [4, 30, "a", "z"]
    # k=0: a at place 2 twice scores 1/2 + 1/2, as b and c at place 1 once: equal, so by key.
    found = fuse({"x": ranked("c", "a"), "y": ranked("b", "a")}, k=0)
    assert [result["score"] for result in found] == [1.0, 1.0, 1.0]
    assert keys(found) == ["a", "b", "c"]


def test_equal_places_give_equal_scores_in_any_order():
    rankings = {name: ranked(*(f"{name}-{place}" for place in range(7))) for name in "pqrstu"}
    rankings["p"][3] = rankings["q"][5] = rankings["r"][1] = {"key": "one"}
    rankings["s"][1] = rankings["t"][3] = rankings["u"][5] = {"key": "two"}
    found = {result["key"]: result["score"] for result in fuse(rankings, limit=100)}
    assert found["one"] == found["two"]


def test_a_whole_number_and_its_text_are_two_keys():
    found = fuse({"entities": [{"key": 7}, {"key": "7"}], "more": [{"key": "7"}]})
    assert [(result["key"], result["places"]) for result in found] == [
        ("7", {"entities": 2, "more": 1}),
        (7, {"entities": 1}),
    ]


def test_a_repeat_within_one_ranking_counts_at_its_best_place_only():
    found = fuse({"words": ranked("a", "b", "a", "a")})
    assert found[0] == {"key": "a", "score": rrf(1), "places": {"words": 1}}
    assert len(found) == 2


def test_a_repeat_takes_no_place_from_the_keys_after_it():
    # API section 3: "A key listed twice counts once, at its best place": c comes third, not fourth.
    found = fuse({"one": ranked("a", "b", "a", "c")})
    assert [(one["key"], one["places"]) for one in found] == [
        ("a", {"one": 1}),
        ("b", {"one": 2}),
        ("c", {"one": 3}),
    ]
    assert found[2]["score"] == rrf(3)


def test_limit_and_empty_rankings():
    assert len(fuse({"words": ranked(*(str(n) for n in range(50)))})) == 10
    assert len(fuse({"words": ranked(*(str(n) for n in range(50)))}, limit=30)) == 30
    assert fuse({}) == [] and fuse({"words": [], "meaning": ()}) == []


@pytest.mark.parametrize(
    "rankings",
    [
        None,
        [["a"]],
        HostileMap({"words": [{"key": "a"}]}),
        {"": [{"key": "a"}]},
        {7: [{"key": "a"}]},
        {"words": ["a"]},  # a bare key is not a ranked item
        {"words": [{"id": "ep/1"}]},  # an entry is fused under its key: {"key": its id}
        {"words": [{"note": "no key"}]},
        {"words": [None]},
        {"words": [{"key": None}]},
        {"words": [{"key": True}]},
        {"words": [{"key": 1.5}]},
        {"words": [{"key": ["a"]}]},
        {"words": [{"key": ""}]},
        {"words": [{"key": 2**63}]},
        {"words": [HostileMap({"key": "a"})]},
        {"words": [{"key": HostileText("a")}]},
        {f"r{n}": [] for n in range(101)},
        {"words": [{"key": "a"}] * 10_001},
    ],
)
def test_fuse_refuses_rankings_it_cannot_read(rankings):
    with pytest.raises(Refused):
        fuse(rankings)


@pytest.mark.parametrize("ranking", ["abc", {"key": "a"}, None, 7, HostileList([{"key": "a"}]), iter([])])
def test_a_ranking_that_is_not_a_list_is_the_wrong_type(ranking):
    with pytest.raises(WrongType, match="must be a list"):
        fuse({"words": ranking})


def test_hostile_objects_anywhere_raise_only_the_library_s_errors():
    for hostile in hostile_objects():
        with pytest.raises(Refused):
            fuse(hostile)
        try:
            named = {hostile: []}
        except (TypeError, RuntimeError):  # a dict cannot even be made with a name that does not hash
            named = None
        if named is not None:
            with pytest.raises(Refused):
                fuse(named)
        with pytest.raises((Refused, WrongType)):
            fuse({"words": hostile})
        with pytest.raises(Refused):
            fuse({"words": [hostile]})
        with pytest.raises(Refused):
            fuse({"words": [{"key": hostile}]})
        with pytest.raises(Refused):
            fuse({"words": ranked("a")}, hostile)
        with pytest.raises(Refused):
            fuse({"words": ranked("a")}, k=hostile)
        with pytest.raises(Refused):
            fuse({"words": ranked("a")}, diversity=hostile)
        with pytest.raises(Refused):
            fuse({"words": ranked("a")}, diversity=0.5, vectors=hostile)
        with pytest.raises(Refused):
            fuse({"words": ranked("a")}, diversity=0.5, vectors={"a": hostile})
        with pytest.raises(Refused):
            fuse({"words": ranked("a", "b")}, diversity=0.5, vectors={"a": [hostile, 1.0]})
    assert (
        fuse({"words": [{"key": "a", "other": hostile_objects()}]})[0]["key"] == "a"
    )  # other fields: unread


def test_fuse_refuses_limits_and_k_out_of_range():
    for limit in (0, 1_001, True, 2.0, None):
        with pytest.raises(Refused, match="limit must be a whole number from 1 to 1000"):
            fuse({"words": ranked("a")}, limit=limit)
    for k in (-1, 10_001, False, 60.0):
        with pytest.raises(Refused):
            fuse({"words": ranked("a")}, k=k)
    assert fuse({"words": ranked("a")}, limit=1_000, k=10_000)[0]["score"] == 1 / 10_001


# --- diversity ------------------------------------------------------------------------------------

SAME = [1.0, 0.0, 0.0]
ALIKE = [0.99, 0.1, 0.0]
OTHER = [0.0, 1.0, 0.0]
THIRD = [0.0, 0.0, 1.0]


def test_diversity_picks_what_is_relevant_and_unlike_the_picks_before():
    rankings = {"meaning": ranked("a", "a2", "b", "c")}
    vectors = {"a": SAME, "a2": ALIKE, "b": OTHER, "c": THIRD}
    assert keys(fuse(rankings, diversity=1.0, vectors=vectors)) == ["a", "a2", "b", "c"]
    assert keys(fuse(rankings, diversity=0.5, vectors=vectors)) == ["a", "b", "c", "a2"]
    assert keys(fuse(rankings, diversity=0.5, vectors=vectors, limit=2)) == ["a", "b"]
    # Each pick is compared with every pick before it: a2 is like a, even when b was picked last.
    vectors["c"] = [0.0, 0.3, 1.0]
    assert keys(fuse(rankings, diversity=0.5, vectors=vectors)) == ["a", "b", "c", "a2"]
    kept = fuse(rankings, diversity=0.5, vectors=vectors)
    assert kept[1] == {"key": "b", "score": rrf(3), "places": {"meaning": 3}}  # the fused score stays


def test_diversity_reads_vectors_the_results_carry_and_shows_none():
    rankings = {
        "meaning": [
            {"key": "a", "vector": SAME},
            {"key": "a2", "vector": [x * 1e6 for x in ALIKE]},  # any length: only the direction counts
            {"key": "b", "vector": OTHER},
        ]
    }
    found = fuse(rankings, diversity=0.3)
    assert keys(found) == ["a", "b", "a2"] and all(
        set(result) == {"key", "score", "places"} for result in found
    )
    assert keys(fuse(rankings, diversity=0.3, vectors={"a2": OTHER, "b": SAME})) == ["a", "a2", "b"]


def test_an_item_without_a_vector_is_like_nothing():
    rankings = {"meaning": ranked("a", "a2", "nothing")}
    assert keys(fuse(rankings, diversity=0.5, vectors={"a": SAME, "a2": SAME})) == ["a", "nothing", "a2"]
    assert keys(fuse(rankings, diversity=0.5)) == ["a", "a2", "nothing"]  # no vectors: the fused order


def test_diversity_chooses_from_the_best_ten_times_limit():
    rankings = {"meaning": ranked(*(f"k{n}" for n in range(40)))}
    vectors = {f"k{n}": SAME for n in range(39)} | {"k39": OTHER}
    assert "k39" not in keys(fuse(rankings, diversity=0.0, vectors=vectors, limit=2))  # k39 is place 40
    assert keys(fuse(rankings, diversity=0.0, vectors=vectors, limit=4))[1] == "k39"


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
        (0.5, {"a": [10**400, 0, 0]}, 10),
        (0.5, {"a": []}, 10),
        (0.5, {"a": "vector"}, 10),
        (0.5, {"a": SAME, "b": [1.0, 0.0]}, 10),
        (0.5, {}, 101),
    ],
)
def test_diversity_refuses_weights_and_vectors_it_cannot_use(weight, vectors, limit):
    with pytest.raises(Refused):
        fuse({"meaning": ranked("a", "b")}, diversity=weight, vectors=vectors, limit=limit)


def test_vectors_without_diversity_are_refused():
    with pytest.raises(Refused, match="diversity"):
        fuse({"meaning": ranked("a")}, vectors={"a": SAME})


# --- the reranker ---------------------------------------------------------------------------------


def test_the_reranker_gives_the_order_and_the_content_stays_ours():
    rankings = {"words": ranked("a", "b", "c")}
    seen = []

    def reverse(results):
        seen.append([dict(result) for result in results])
        for result in results:
            result["score"] = 99.0  # whatever it does to what it was given
            result["places"]["words"] = 0
        return list(reversed(results))

    found = fuse(rankings, rerank=reverse)
    assert keys(found) == ["c", "b", "a"]
    assert found[0] == {"key": "c", "score": rrf(3), "places": {"words": 3}}
    assert keys(seen[0]) == ["a", "b", "c"]


def test_the_reranker_sees_the_results_after_the_limit_and_diversity():
    seen = []

    def same(results):
        seen.append(keys(results))
        return results

    fuse(
        {"meaning": ranked("a", "a2", "b")},
        limit=2,
        diversity=0.5,
        vectors={"a": SAME, "a2": SAME},
        rerank=same,
    )
    assert seen == [["a", "b"]]


@pytest.mark.parametrize(
    "answer",
    [
        lambda results: None,
        lambda results: "abc",
        lambda results: {result["key"]: result for result in results},
        lambda results: HostileList(results),
        lambda results: results[:-1],  # one left out
        lambda results: [*results, {"key": "invented"}],
        lambda results: [*results[:-1], {"key": "invented"}],  # one swapped for another
        lambda results: [results[0], results[0], results[1]],  # one twice, one left out
        lambda results: [results[0], *results],  # one twice
        lambda results: [*results[:-1], {"note": "no key"}],
        lambda results: [*results[:-1], 3.5],
        lambda results: [*results[:-1], HostileMap({"key": "c"})],
        lambda results: [{"id": result["key"]} for result in results],
    ],
)
def test_the_reranker_must_answer_the_same_results(answer):
    with pytest.raises(RerankerError):
        fuse({"words": ranked("a", "b", "c")}, rerank=answer)


def test_a_reranker_may_answer_with_bare_keys_or_copies():
    assert keys(fuse({"words": ranked("a", "b")}, rerank=lambda results: ["b", "a"])) == ["b", "a"]
    found = fuse({"words": ranked("a", "b")}, rerank=lambda results: [{"key": "b"}, {"key": "a", "x": 1}])
    assert found[1] == {"key": "a", "score": rrf(1), "places": {"words": 1}}


def test_a_reranker_that_raises_stops_fuse_and_one_that_is_not_a_function_is_the_wrong_type():
    def broken(results):
        raise RuntimeError("the reranker fell over")

    with pytest.raises(RuntimeError, match="fell over"):
        fuse({"words": ranked("a")}, rerank=broken)
    with pytest.raises(WrongType):
        fuse({"words": ranked("a")}, rerank="not a function")


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
    assert set(found[0]["places"]) == {"words", "meaning"}
    assert {result["key"] for result in found} == {"pump", "fan"}


def test_weights_scale_what_each_rankings_places_count_for():
    rankings = {"words": [{"key": "a"}, {"key": "b"}], "meaning": [{"key": "b"}, {"key": "a"}]}
    assert [one["key"] for one in fuse(rankings)] == ["a", "b"]  # equal: the tie goes by key
    weighed = fuse(rankings, weights={"words": 0.5})
    assert [one["key"] for one in weighed] == ["b", "a"]
    assert weighed[0]["score"] == pytest.approx(0.5 / 62 + 1 / 61)
    assert fuse(rankings, weights={"other": 3}) == fuse(
        rankings
    )  # a ranking not given counts for nothing more
    assert fuse(rankings, weights={"words": 0})[0]["key"] == "b"


@pytest.mark.parametrize(
    "weights", [[("words", 1)], {"words": -1}, {"words": 101}, {"words": "1"}, {"": 1}, {"w": True}]
)
def test_weights_that_are_not_numbers_of_rankings_are_refused(weights):
    with pytest.raises(Refused, match="weight"):
        fuse({"words": [{"key": "a"}]}, weights=weights)
