"""embed_entries(), nearest_entries(): entries found by meaning, with the model test_vector.py writes."""

from __future__ import annotations

import inspect
from datetime import datetime

import pytest
from hostile import HostileList, hostile_objects
from lighthouse import Refused, WrongType, ensure_schema, search_entries
from lighthouse.episodes import open_episode, record
from lighthouse.recall.entry_vectors import embed_entries, entry_dimensions, mark_name, nearest_entries
from lighthouse.recall.vector import EmbedderError
from meaning import BAD_ANSWERS, DIMS, MANUAL, PLAIN, Answer, Counting, bag


@pytest.fixture
def world(graph):
    ensure_schema(graph, [MANUAL, PLAIN], entry_dimensions=DIMS)
    return graph


def entries(graph, texts: list[str], episode: str = "ep") -> list[str]:
    assert open_episode(graph, episode, by="watcher")["status"] in ("opened", "unchanged")
    found = []
    for text in texts:
        receipt = record(graph, episode, "observation", by="watcher", values={"note": text, "level": 3})
        assert receipt["status"] == "recorded", receipt
        found.append(receipt["id"])
    return found


def test_the_signatures_are_the_published_ones():
    empty = inspect.Parameter.empty
    for function, published in (
        (embed_entries, [("graph", empty), ("embedder", empty), ("model", empty), ("limit", 100)]),
        (
            nearest_entries,
            [("graph", empty), ("question", empty), ("embedder", empty), ("model", empty), ("limit", 10)],
        ),
    ):
        listed = list(inspect.signature(function).parameters.values())
        assert [(p.name, p.default) for p in listed[: len(published)]] == published
        assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in listed[len(published) :])


def test_entries_get_vectors_and_are_found_by_meaning(world):
    ids = entries(world, ["the pump seal leaks", "the fan is noisy", "the belt slips"])
    record(world, "ep", "forecast", by="forecaster", values={"summary": "pump fails soon", "hours": 6})
    assert entry_dimensions(world) == DIMS
    assert embed_entries(world, bag, "bag") == {"embedded": 4, "waiting": 0}
    found = nearest_entries(world, "pump seal", bag, "bag")
    assert found[0]["id"] == ids[0] and set(found[0]) == {"id", "score", "entry"}
    entry = found[0]["entry"]
    assert {name: entry[name] for name in ("id", "seq", "serial", "type", "by", "note", "level")} == {
        "id": ids[0],
        "seq": 1,
        "serial": 1,
        "type": "observation",
        "by": "watcher",
        "note": "the pump seal leaks",
        "level": 3,
    }
    assert isinstance(entry["at"], datetime) and isinstance(entry["recorded_at"], datetime)
    assert not {"words", "cites", "content", "episode"} & set(entry)
    assert not [name for name in entry if name.startswith("lh.")]
    (same,) = [item for item in search_entries(world, "pump seal leaks") if item["id"] == ids[0]]
    assert same["entry"] == entry  # as search_entries() gives it
    only = nearest_entries(world, "pump", bag, "bag", types=["forecast"])
    assert [item["entry"]["type"] for item in only] == ["forecast"]
    assert nearest_entries(world, "pump", bag, "other") == []
    assert all(
        len(item["vector"]) == DIMS for item in nearest_entries(world, "pump", bag, "bag", vectors=True)
    )


def test_entry_text_is_its_text_values_in_the_order_of_their_names(world):
    open_episode(world, "ep", by="w")
    record(world, "ep", "note", by="w", values={"zeta": "last", "alpha": "first", "count": 2})
    record(world, "ep", "note", by="w", values={"count": 2})  # no text: no vector, the mark passes it
    counting = Counting()
    assert embed_entries(world, counting, "bag") == {"embedded": 1, "waiting": 0}
    assert counting.asked == [["first\nlast"]]


def test_embed_entries_reads_what_came_since_its_mark(world):
    entries(world, [f"note {number}" for number in range(30)])
    first = Counting()
    assert embed_entries(world, first, "bag", limit=20) == {"embedded": 20, "waiting": 10}
    assert embed_entries(world, first, "bag", limit=20) == {"embedded": 10, "waiting": 0}
    assert first.texts == 30
    entries(world, [f"later {number}" for number in range(10)], episode="ep2")
    again = Counting()
    assert embed_entries(world, again, "bag") == {"embedded": 10, "waiting": 0}
    assert sorted(again.asked[0]) == sorted(f"later {number}" for number in range(10))
    asked = f"MATCH (st:Stamp) RETURN st.`{mark_name('bag')}`, st.serial"
    mark = world.ro_query(asked).result_set[0]
    assert mark == [40, 40]
    other = Counting()  # another model has a mark of its own, from the start
    assert embed_entries(world, other, "bag-2", limit=1_000) == {"embedded": 40, "waiting": 0}
    assert len(nearest_entries(world, "note 3", bag, "bag-2", limit=50)) == 40


def test_embed_entries_goes_past_entries_without_text(world):
    open_episode(world, "ep", by="w")
    for number in range(25):
        record(world, "ep", "count", by="w", values={"n": number})
    record(world, "ep", "note", by="w", values={"note": "at last"})
    counting = Counting()
    assert embed_entries(world, counting, "bag", limit=5) == {"embedded": 1, "waiting": 0}
    assert counting.asked == [["at last"]]


HOSTILE = {
    **{
        f"{type(hostile).__name__} as the answer": lambda texts, h=hostile: h for hostile in hostile_objects()
    },
    **{
        f"{type(hostile).__name__} in a vector": lambda texts, h=hostile: [[h, *v[1:]] for v in bag(texts)]
        for hostile in hostile_objects()
    },
    "hostile vectors": lambda texts: [HostileList(vector) for vector in bag(texts)],
}


@pytest.mark.parametrize("name", ["too few", "nan", "zeros", "a dict", "a generator", *HOSTILE])
def test_a_bad_answer_for_entries_stores_nothing_and_keeps_the_mark(world, name):
    entries(world, ["one", "two"])
    with pytest.raises(EmbedderError, match="embedder"):
        embed_entries(world, Answer(BAD_ANSWERS.get(name) or HOSTILE[name]), "bag")
    assert world.ro_query(f"MATCH (st:Stamp) RETURN st.`{mark_name('bag')}`").result_set == [[None]]
    stored = world.ro_query("MATCH (n:Entry) WHERE n.`lh.vector` IS NOT NULL RETURN count(n)").result_set
    assert stored == [[0]]
    assert embed_entries(world, bag, "bag") == {"embedded": 2, "waiting": 0}


def test_two_calls_at_once_store_each_entry_once(world):
    entries(world, ["one", "two", "three"])

    def meanwhile(texts):
        if len(texts) == 3 and not meanwhile.done:
            meanwhile.done = True
            assert embed_entries(world, bag, "bag") == {"embedded": 3, "waiting": 0}

    meanwhile.done = False
    assert embed_entries(world, Counting(then=meanwhile), "bag") == {"embedded": 0, "waiting": 0}


def test_entries_need_their_index(graph):
    ensure_schema(graph, [MANUAL])
    entries(graph, ["one"])
    with pytest.raises(Refused, match="entry_dimensions"):
        embed_entries(graph, bag, "bag")
    with pytest.raises(Refused, match="entry_dimensions"):
        nearest_entries(graph, "one", bag, "bag")


def test_entry_calls_refuse_what_they_cannot_use(world, db):
    for limit in (0, 1_001, None):
        with pytest.raises(Refused, match="limit"):
            embed_entries(world, bag, "bag", limit=limit)
    with pytest.raises(WrongType):
        embed_entries(world, None, "bag")
    with pytest.raises(WrongType):
        nearest_entries(world, None, bag, "bag")
    for types in ([], "note", [7], ["x"] * 201):
        with pytest.raises(Refused):
            nearest_entries(world, "x", bag, "bag", types=types)
    for hostile in hostile_objects():
        with pytest.raises(Refused):
            embed_entries(world, bag, hostile)
        with pytest.raises(Refused):
            embed_entries(world, bag, "bag", hostile)
        with pytest.raises(WrongType):
            nearest_entries(world, hostile, bag, "bag")
        with pytest.raises(Refused):
            nearest_entries(world, "x", bag, "bag", hostile)
        with pytest.raises(Refused):
            nearest_entries(world, "x", bag, "bag", types=hostile)
    with pytest.raises(Refused, match="Stamp"):
        embed_entries(db.select_graph("never_made_entries"), bag, "bag")
    assert nearest_entries(db.select_graph("never_made_entries"), "x", bag, "bag") == []
