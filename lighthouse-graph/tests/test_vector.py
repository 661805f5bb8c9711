"""embed(), nearest(), embed_entries(), nearest_entries(): recall by meaning with a model the test writes."""

from __future__ import annotations

import inspect
import math

import pytest
from falkordb import FalkorDB
from hostile import HostileFloat, HostileList, HostileNumber, hostile_objects
from lighthouse import Kind, Refused, TooSlow, WrongType, ensure_schema, remember
from lighthouse.episodes import open_episode, record
from lighthouse.recall.entry_vectors import embed_entries, mark_name
from lighthouse.recall.vector import EmbedderError, embed, nearest, vectors_of
from meaning import BAD_ANSWERS, DIMS, MANUAL, PLAIN, Answer, Counting, T, bag


@pytest.fixture
def world(graph):
    ensure_schema(graph, [MANUAL, PLAIN], entry_dimensions=DIMS)
    return graph


def put(graph, key, title=None, body=None, t=T[0], **more) -> None:
    given = {name: item for name, item in (("title", title), ("body", body)) if item is not None}
    receipts = remember(graph, MANUAL, by="writer", rows=[{"key": key, "t": t, "values": {**given, **more}}])
    assert receipts[0]["status"] in ("created", "changed"), receipts


def stored(graph, key) -> tuple:
    """The labels of an entity, and the model and vector of its vector node, as the graph holds them
    (None and None without one). The entity itself holds no vector, and points at one vector node at most."""
    rows = graph.ro_query(
        "MATCH (e:Manual {key: $key}) OPTIONAL MATCH (e)-[:LH_VECTOR]->(v) "
        "RETURN labels(e), v.`lh.model`, v.`lh.vector`, labels(v), e.`lh.vector`, e.`lh.model`",
        {"key": key},
    ).result_set
    assert len(rows) == 1, "an entity points at one vector node at most"
    labels, model, vector, vector_labels, on_entity, model_on_entity = rows[0]
    assert on_entity is None and model_on_entity is None
    assert vector_labels in (None, ["ManualVector"])
    return labels, model, vector


def keys(found: list[dict]) -> list:
    return [item["key"] for item in found]


def manuals(graph) -> None:
    put(graph, "pump", "Pump", "the seal of the pump leaks water")
    put(graph, "fan", "Fan", "the fan blade is bent and noisy")
    put(graph, "belt", "Belt", "the conveyor belt slips when cold")


# --- embed() and nearest() -----------------------------------------------------------------------


def test_the_signatures_are_the_published_ones():
    def named(function, count):
        listed = list(inspect.signature(function).parameters.values())
        assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in listed[count:])
        return [(p.name, p.default) for p in listed[:count]]

    empty = inspect.Parameter.empty
    assert named(embed, 5) == [
        ("graph", empty),
        ("kind", empty),
        ("embedder", empty),
        ("model", empty),
        ("limit", 100),
    ]
    assert named(nearest, 6) == [
        ("graph", empty),
        ("kind", empty),
        ("question", empty),
        ("embedder", empty),
        ("model", empty),
        ("limit", 10),
    ]


def test_embed_gives_vectors_and_nearest_finds_by_meaning(world):
    manuals(world)
    assert embed(world, MANUAL, bag, "bag") == {"embedded": 3, "waiting": 0}
    found = nearest(world, MANUAL, "my pump seal leaks", bag, "bag")
    assert keys(found)[0] == "pump" and set(found[0]) == {"key", "score", "values"}
    shown = found[0]["values"]
    assert shown["title"] == "Pump" and shown["body"] == "the seal of the pump leaks water"
    assert not {"words", "key", "code", "entry", "valid_to"} & set(shown)
    assert not [name for name in shown if name.startswith("lh.")]
    assert {"valid_from", "by", "recorded_at"} <= set(shown)
    assert nearest(world, MANUAL, "my pump seal leaks", bag, "bag", 10) == found  # by position too
    scores = [item["score"] for item in found]
    assert scores == sorted(scores, reverse=True) and 0 < scores[0] <= 1.0 + 1e-6
    labels, model, vector = stored(world, "pump")
    assert labels == ["Manual", "Entity"] and model == "bag"
    assert math.isclose(math.fsum(x * x for x in vector), 1.0, rel_tol=1e-5)  # stored at unit length


def test_nearest_limit_ties_and_vectors(world):
    for key in ("b", "a", "c"):
        put(world, key, "same words here")
    put(world, "d", "other things entirely")
    embed(world, MANUAL, bag, "bag")
    found = nearest(world, MANUAL, "same words here", bag, "bag", limit=3, vectors=True)
    assert keys(found) == ["a", "b", "c"]  # equal scores in key order
    assert all(len(item["vector"]) == DIMS for item in found)
    assert math.isclose(math.fsum(x * x for x in found[0]["vector"]), 1.0, rel_tol=1e-5)
    assert "vector" not in nearest(world, MANUAL, "same", bag, "bag")[0]
    assert len(nearest(world, MANUAL, "same", bag, "bag", limit=1)) == 1


def test_embed_reads_only_the_entities_that_wait(world):
    for number in range(30):
        put(world, f"m{number}", f"manual {number}", "how to fix a pump")
    counting = Counting()
    assert embed(world, MANUAL, counting, "bag") == {"embedded": 30, "waiting": 0}
    assert counting.texts == 30
    for number in range(30, 40):
        put(world, f"m{number}", f"manual {number}", "how to fix a fan")
    again = Counting()
    assert embed(world, MANUAL, again, "bag") == {"embedded": 10, "waiting": 0}
    assert len(again.asked) == 1 and sorted(again.asked[0]) == sorted(
        f"manual {number}\nhow to fix a fan" for number in range(30, 40)
    )
    idle = Counting()
    assert embed(world, MANUAL, idle, "bag") == {"embedded": 0, "waiting": 0}
    assert idle.asked == []  # nothing waits: the model is not asked


def test_embed_takes_at_most_limit(world):
    for number in range(25):
        put(world, number + 1, f"manual {number}")  # no key 0: values.written_key()
    assert embed(world, MANUAL, bag, "bag", limit=10) == {"embedded": 10, "waiting": 15}
    assert embed(world, MANUAL, bag, "bag", limit=10) == {"embedded": 10, "waiting": 5}
    assert embed(world, MANUAL, bag, "bag", limit=10) == {"embedded": 5, "waiting": 0}
    assert len(nearest(world, MANUAL, "manual 7", bag, "bag", limit=30)) == 25  # whole-number keys too


def test_a_vector_never_answers_for_text_that_is_gone(world):
    manuals(world)
    embed(world, MANUAL, bag, "bag")
    put(world, "pump", "Pump", "the impeller is worn", t=T[1])
    labels, model, vector = stored(world, "pump")
    assert "ManualToEmbed" in labels and model is None and vector is None
    assert "pump" not in keys(nearest(world, MANUAL, "seal of the pump leaks water", bag, "bag"))
    assert "pump" not in keys(nearest(world, MANUAL, "impeller worn", bag, "bag"))
    assert embed(world, MANUAL, bag, "bag") == {"embedded": 1, "waiting": 0}
    assert keys(nearest(world, MANUAL, "impeller worn", bag, "bag"))[0] == "pump"


def test_a_change_of_a_value_that_is_not_text_keeps_the_vector(world):
    put(world, "pump", "Pump", "the seal leaks", status="ok")
    embed(world, MANUAL, bag, "bag")
    before = stored(world, "pump")
    put(world, "pump", "Pump", "the seal leaks", status="broken", t=T[1])
    after = stored(world, "pump")
    assert after == before and "ManualToEmbed" not in after[0]
    found = nearest(world, MANUAL, "seal leaks", bag, "bag")
    assert found[0]["key"] == "pump" and found[0]["values"]["status"] == "broken"
    idle = Counting()
    assert embed(world, MANUAL, idle, "bag") == {"embedded": 0, "waiting": 0} and idle.asked == []


def test_a_text_changed_while_the_model_worked_gets_no_vector_from_that_call(world, db):
    manuals(world)
    kwargs = db.connection.connection_pool.connection_kwargs
    other = FalkorDB(host=kwargs["host"], port=kwargs["port"], password=kwargs.get("password"))
    elsewhere = other.select_graph(world.name)

    def meanwhile(texts):
        receipts = remember(
            elsewhere,
            MANUAL,
            by="other",
            rows=[{"key": "fan", "t": T[1], "values": {"title": "Fan", "body": "the fan motor hums"}}],
        )
        assert receipts[0]["status"] == "changed"

    assert embed(world, MANUAL, Counting(then=meanwhile), "bag") == {"embedded": 2, "waiting": 1}
    labels, model, vector = stored(world, "fan")
    assert "ManualToEmbed" in labels and model is None and vector is None
    assert "fan" not in keys(nearest(world, MANUAL, "fan blade bent noisy", bag, "bag"))
    counting = Counting()
    assert embed(world, MANUAL, counting, "bag") == {"embedded": 1, "waiting": 0}
    assert counting.asked == [["Fan\nthe fan motor hums"]]
    assert keys(nearest(world, MANUAL, "fan motor hums", bag, "bag"))[0] == "fan"


HOSTILE_ANSWERS = {
    "a hostile list": lambda texts: HostileList(bag(texts)),
    "hostile vectors": lambda texts: [HostileList(vector) for vector in bag(texts)],
    "a hostile float": lambda texts: [[HostileFloat(1.0), *vector[1:]] for vector in bag(texts)],
    "a hostile whole number": lambda texts: [[HostileNumber(1), *vector[1:]] for vector in bag(texts)],
    **{
        f"hostile {type(hostile).__name__}": lambda texts, hostile=hostile: [
            [hostile, *vector[1:]] for vector in bag(texts)
        ]
        for hostile in hostile_objects()
    },
    **{
        f"{type(hostile).__name__} as the answer": lambda texts, hostile=hostile: hostile
        for hostile in hostile_objects()
    },
}


@pytest.mark.parametrize("name", [*BAD_ANSWERS, *HOSTILE_ANSWERS])
def test_a_bad_answer_raises_and_stores_nothing(world, name):
    manuals(world)
    answer = BAD_ANSWERS.get(name) or HOSTILE_ANSWERS[name]
    with pytest.raises(EmbedderError, match="embedder") as raised:
        embed(world, MANUAL, Answer(answer), "bag")
    assert isinstance(raised.value, Refused) and isinstance(raised.value, ValueError)
    for key in ("pump", "fan", "belt"):
        labels, model, vector = stored(world, key)
        assert "ManualToEmbed" in labels and model is None and vector is None
    assert embed(world, MANUAL, bag, "bag") == {"embedded": 3, "waiting": 0}  # the next good answer


@pytest.mark.parametrize("name", ["nan", "zeros", "too short", "a string", "a generator", *HOSTILE_ANSWERS])
def test_a_bad_answer_to_a_question_raises(world, name):
    manuals(world)
    embed(world, MANUAL, bag, "bag")
    with pytest.raises(EmbedderError, match="embedder"):
        nearest(world, MANUAL, "pump", Answer(BAD_ANSWERS.get(name) or HOSTILE_ANSWERS[name]), "bag")


def test_what_the_embedder_raises_passes_unchanged(world):
    manuals(world)

    class Broken(Exception):
        pass

    def broken(texts):
        raise Broken("the model fell over")

    with pytest.raises(Broken, match="fell over"):
        embed(world, MANUAL, broken, "bag")
    assert all(stored(world, key)[1:] == (None, None) for key in ("pump", "fan", "belt"))
    embed(world, MANUAL, bag, "bag")
    with pytest.raises(Broken):
        nearest(world, MANUAL, "pump", broken, "bag")


def test_whole_numbers_in_vectors_are_taken_as_floats(world):
    manuals(world)
    whole = lambda texts: [[round(x * 100) for x in vector] for vector in bag(texts)]  # noqa: E731
    assert embed(world, MANUAL, whole, "whole") == {"embedded": 3, "waiting": 0}
    assert keys(nearest(world, MANUAL, "pump seal", whole, "whole"))[0] == "pump"
    assert vectors_of([(3, 4)], 1, 2) == [[0.6, 0.8]]


def test_values_named_model_and_embedding_are_values_like_any_other(world):
    put(world, "pump", "Pump", "the seal leaks", model="P-7", embedding="none")
    assert embed(world, MANUAL, bag, "bag") == {"embedded": 1, "waiting": 0}
    (found,) = nearest(world, MANUAL, "seal leaks", bag, "bag")
    assert found["values"]["model"] == "P-7" and found["values"]["embedding"] == "none"
    labels, model, vector = stored(world, "pump")
    assert model == "bag" and len(vector) == DIMS


def test_huge_and_tiny_numbers_are_stored_at_unit_length():
    huge = vectors_of([[1e300, 1e300, 0.0]], 1, 3)[0]
    tiny = vectors_of([(1e-300, 0, -1e-300)], 1, 3)[0]
    assert huge == pytest.approx([0.70710678, 0.70710678, 0.0])
    assert tiny == pytest.approx([0.70710678, 0.0, -0.70710678])
    assert vectors_of([], 0, 3) == []


def test_tiny_vectors_stay_comparable_in_the_index(world):
    manuals(world)
    tiny = lambda texts: [[x * 1e-30 for x in vector] for vector in bag(texts)]  # noqa: E731
    embed(world, MANUAL, tiny, "tiny")
    found = nearest(world, MANUAL, "pump seal", tiny, "tiny")
    assert keys(found)[0] == "pump" and all(math.isfinite(item["score"]) for item in found)


def test_vectors_of_another_model_are_never_compared(world):
    manuals(world)
    embed(world, MANUAL, bag, "bag")
    assert nearest(world, MANUAL, "pump seal", bag, "other") == []
    assert keys(nearest(world, MANUAL, "pump seal", bag, "bag"))[0] == "pump"


def test_a_new_model_marks_every_entity_with_text_once(world):
    manuals(world)
    put(world, "blank", status="no text")  # no text: never waits
    remember(world, MANUAL, by="w", rows=[{"key": "empty", "t": T[0], "values": {"title": ""}}])
    embed(world, MANUAL, bag, "bag")
    counting = Counting()
    assert embed(world, MANUAL, counting, "bag-2", limit=2) == {"embedded": 2, "waiting": 1}
    assert embed(world, MANUAL, counting, "bag-2", limit=2) == {"embedded": 1, "waiting": 0}
    assert counting.texts == 3  # each entity with text once
    assert embed(world, MANUAL, counting, "bag-2") == {"embedded": 0, "waiting": 0}
    assert counting.texts == 3
    assert keys(nearest(world, MANUAL, "pump seal", bag, "bag-2"))[0] == "pump"
    assert nearest(world, MANUAL, "pump seal", bag, "bag") == []  # replaced
    assert stored(world, "blank")[1:] == (None, None) and "ManualToEmbed" not in stored(world, "blank")[0]
    assert "ManualToEmbed" not in stored(world, "empty")[0]
    back = Counting()
    assert embed(world, MANUAL, back, "bag") == {"embedded": 3, "waiting": 0}  # back again: once more
    assert back.texts == 3


def test_marking_leaves_out_what_has_a_vector_of_the_model(world):
    manuals(world)
    embed(world, MANUAL, bag, "bag")
    # Another process switched the kind to another model and stopped before it marked anything.
    world.query("MATCH (st:Stamp) SET st.embed_model_Manual = 'other', st.embed_after_Manual = null")
    idle = Counting()
    assert embed(world, MANUAL, idle, "bag", limit=1) == {"embedded": 0, "waiting": 0}
    assert idle.asked == []


def test_a_vector_of_the_model_is_kept_when_the_entity_waits_again(world):
    manuals(world)
    embed(world, MANUAL, bag, "bag")
    embed(world, MANUAL, bag, "bag-2", limit=1)  # marks all three, gives one a vector of bag-2
    back = Counting()
    assert embed(world, MANUAL, back, "bag") == {"embedded": 1, "waiting": 0}
    assert back.texts == 1  # two still had their vector of bag
    assert len(nearest(world, MANUAL, "pump", bag, "bag")) == 3


def test_marking_goes_over_many_spans(world, monkeypatch):
    from lighthouse.recall import vector

    monkeypatch.setattr(vector, "MARK_SPAN", 7)  # a span of 7 node ids, so marking takes many queries
    for number in range(40):
        put(world, number + 1, f"manual {number}")  # no key 0: values.written_key()
    embed(world, MANUAL, bag, "bag", limit=1_000)
    counting = Counting()
    assert embed(world, MANUAL, counting, "bag-2", limit=1_000) == {"embedded": 40, "waiting": 0}
    assert counting.texts == 40


def test_a_model_that_took_over_meanwhile_wins(world):
    manuals(world)

    def switch(texts):
        embed(world, MANUAL, bag, "newer", limit=1)

    assert embed(world, MANUAL, Counting(then=switch), "older") == {"embedded": 0, "waiting": 2}
    assert nearest(world, MANUAL, "pump", bag, "older") == []
    assert embed(world, MANUAL, bag, "newer") == {"embedded": 2, "waiting": 0}
    assert len(nearest(world, MANUAL, "pump", bag, "newer")) == 3


def test_nearest_looks_past_vectors_of_another_model(world):
    for number in range(40):
        put(world, number + 1, "pump seal leaks", f"copy {number}")
    put(world, "far", "fan blade")
    embed(world, MANUAL, bag, "bag")
    # As in the middle of a change of model: 40 vectors of the old model nearer than the one of the new.
    world.query("MATCH (e:Manual)-[:LH_VECTOR]->(v) WHERE e.key <> 'far' SET v.`lh.model` = 'old'")
    found = nearest(world, MANUAL, "pump seal leaks", bag, "bag", limit=3)
    assert keys(found) == ["far"]


def test_nearest_stops_when_its_time_is_up(world):
    # 3,000 vectors of another model: each look for more neighbours finds none of this one.
    world.query(
        "UNWIND range(1, 3000) AS i CREATE (e:Manual:Entity {key: i})-[:LH_VECTOR]->(:ManualVector "
        "{`lh.model`: 'old', `lh.vector`: vecf32([x IN range(1, $dims) | toFloat((i * x) % 17 + 1)])})",
        {"dims": DIMS},
    )
    with pytest.raises(TooSlow):
        nearest(world, MANUAL, "pump", bag, "bag", timeout=1)
    assert nearest(world, MANUAL, "pump", bag, "bag") == []  # within 5 seconds: none of this model


def test_a_large_answer_is_written_in_several_queries(world, monkeypatch):
    from lighthouse.recall import vector

    monkeypatch.setattr(vector, "MAX_CARRIED", 1)  # one row a query
    for number in range(5):
        put(world, number + 1, f"manual {number}")  # no key 0: values.written_key()
    assert embed(world, MANUAL, bag, "bag") == {"embedded": 5, "waiting": 0}
    assert len(nearest(world, MANUAL, "manual", bag, "bag")) == 5
    open_episode(world, "ep", by="w")
    for number in range(6):
        record(world, "ep", "note", by="w", values={"note": f"note {number}"} if number != 4 else {"n": 4})
    record(world, "ep", "count", by="w", values={"n": 7})
    assert embed_entries(world, bag, "bag") == {"embedded": 5, "waiting": 0}
    assert world.ro_query(f"MATCH (st:Stamp) RETURN st.`{mark_name('bag')}`").result_set == [[7]]


def test_an_entity_left_with_no_text_only_loses_its_label(world):
    put(world, "pump", "Pump")
    world.query("MATCH (e:Manual {key: 'pump'}) REMOVE e.title")  # by hand: the write rule never does this
    assert embed(world, MANUAL, Counting(), "bag") == {"embedded": 0, "waiting": 0}
    assert "ManualToEmbed" not in stored(world, "pump")[0]


def test_embed_refuses_what_it_cannot_use(world):
    with pytest.raises(Refused, match="no vectors"):
        embed(world, PLAIN, bag, "bag")
    for kind in ("Manual", None):
        with pytest.raises(Refused):
            embed(world, kind, bag, "bag")
    for model in ("", " padded ", "x" * 201, 7, None):
        with pytest.raises(Refused, match="must be text"):
            embed(world, MANUAL, bag, model)
    for limit in (0, 1_001, True, 1.5, "10"):
        with pytest.raises(Refused, match="limit must be a whole number from 1 to 1000"):
            embed(world, MANUAL, bag, "bag", limit=limit)
    for embedder in ("not a function", None, [bag]):
        with pytest.raises(WrongType):
            embed(world, MANUAL, embedder, "bag")


def test_hostile_arguments_raise_only_the_library_s_errors_and_store_nothing(world):
    manuals(world)
    for hostile in hostile_objects():
        with pytest.raises(Refused):
            embed(world, hostile, bag, "bag")
        with pytest.raises(Refused):
            embed(world, MANUAL, bag, hostile)
        with pytest.raises(Refused):
            embed(world, MANUAL, bag, "bag", hostile)
        with pytest.raises(WrongType):
            nearest(world, MANUAL, hostile, bag, "bag")
        with pytest.raises(Refused):
            nearest(world, MANUAL, "pump", bag, hostile)
        with pytest.raises(Refused):
            nearest(world, MANUAL, "pump", bag, "bag", hostile)
        with pytest.raises(WrongType):
            nearest(world, MANUAL, "pump", bag, "bag", vectors=hostile)
        with pytest.raises(Refused):
            nearest(world, MANUAL, "pump", bag, "bag", timeout=hostile)
    assert all(stored(world, key)[1:] == (None, None) for key in ("pump", "fan", "belt"))
    assert world.ro_query("MATCH (f:WriteFailure) RETURN count(f)").result_set == [[0]]


def test_embed_needs_the_schema(graph):
    remember(graph, MANUAL, by="w", rows=[{"key": "pump", "t": T[0], "values": {"title": "Pump"}}])
    with pytest.raises(Refused, match="ensure_schema"):
        embed(graph, MANUAL, bag, "bag")
    with pytest.raises(Refused, match="ensure_schema"):
        nearest(graph, MANUAL, "pump", bag, "bag")


def test_nearest_refuses_what_it_cannot_use(world):
    for question in (None, 7, b"pump", ["pump"]):
        with pytest.raises(WrongType, match="question"):
            nearest(world, MANUAL, question, bag, "bag")
    for question in ("a\x00b", "x" * 100_001):
        with pytest.raises(Refused):
            nearest(world, MANUAL, question, bag, "bag")
    for limit in (0, 1_001, False):
        with pytest.raises(Refused):
            nearest(world, MANUAL, "pump", bag, "bag", limit=limit)
    for timeout in (0, 5_001, True):
        with pytest.raises(Refused):
            nearest(world, MANUAL, "pump", bag, "bag", timeout=timeout)
    with pytest.raises(WrongType):
        nearest(world, MANUAL, "pump", bag, "bag", vectors="yes")
    with pytest.raises(Refused, match="no vectors"):
        nearest(world, PLAIN, "pump", bag, "bag")
    with pytest.raises(WrongType):
        nearest(world, MANUAL, "pump", "not a function", "bag")
    asked = Counting()
    assert nearest(world, MANUAL, "  \n ", asked, "bag") == [] and asked.asked == []


def test_nearest_on_a_graph_that_does_not_exist(db):
    assert nearest(db.select_graph("never_made_vector"), MANUAL, "pump", bag, "bag") == []


def test_a_question_reaches_the_embedder_as_it_is(world):
    manuals(world)
    embed(world, MANUAL, bag, "bag")
    asked = Counting()
    nearest(world, MANUAL, "*) RETURN 1 //", asked, "bag")
    assert asked.asked == [["*) RETURN 1 //"]]


def test_the_index_must_have_the_kind_s_dimensions(graph):
    ensure_schema(graph, [Kind("Manual", key="code", text=("title", "body"), dimensions=8)])
    put(graph, "pump", "Pump")
    with pytest.raises(Refused, match="dimensions"):
        nearest(graph, MANUAL, "pump", bag, "bag")
