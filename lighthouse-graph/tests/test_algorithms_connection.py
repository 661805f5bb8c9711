"""connection(): the shortest chain of relations either way, a step a query from the end with fewer
relations to follow, against BFS on random graphs."""

from __future__ import annotations

from datetime import UTC, datetime

import lighthouse.algorithms.connection as connection_module
import plain
import pytest
from devices import DEVICE, KINDS, PERSON, ROOM, TEAM
from lighthouse import Refused, ensure_schema, remember
from lighthouse.algorithms.components import name_key
from lighthouse.algorithms.connection import connection
from test_algorithms import D1_WAS_IN_R1, T1, T2, T3, Counting, put, the_seed


@pytest.fixture
def world(graph):
    ensure_schema(graph, KINDS)
    return graph


def test_a_step_tells_of_the_relation_that_holds_now_else_the_one_that_ended_last(world):
    put(world, DEVICE, "d1", T1, LOCATED_IN="r1")
    put(world, DEVICE, "d1", T2, LOCATED_IN="r2")
    put(world, DEVICE, "d1", T3, LOCATED_IN="r1")  # a second edge to r1, open
    step = connection(world, (DEVICE, "d1"), (ROOM, "r1"))[0]
    assert (step["current"], step["since"], step["until"]) == (True, datetime(2026, 1, 3, tzinfo=UTC), None)
    put(world, DEVICE, "d1", "2026-01-04T00:00:00Z", LOCATED_IN="r2")  # both edges to r1 closed now
    step = connection(world, (DEVICE, "d1"), (ROOM, "r1"))[0]
    assert (step["current"], step["until"]) == (False, datetime(2026, 1, 4, tzinfo=UTC))


def test_a_chain_goes_against_the_direction_of_relations_and_through_added_kinds(world):
    the_seed(world)
    put(world, DEVICE, "d2", T1, USED_BY=["red"])
    with pytest.raises(Refused, match="no relation"):  # rooms alone declare none: name a kind that does
        connection(world, (ROOM, "r1"), (ROOM, "r2"))
    found = connection(world, (ROOM, "r1"), (TEAM, "red"), kinds=[DEVICE])
    assert [(s["from"], s["to"], s["forward"]) for s in found] == [
        (("Room", "r1"), ("Device", "d1"), False),
        (("Device", "d1"), ("Team", "red"), True),
    ]
    assert connection(world, (DEVICE, "d1"), (DEVICE, "d1")) == []
    assert connection(world, (DEVICE, "d1"), (DEVICE, "nobody")) is None
    assert connection(world, (DEVICE, "d1"), (DEVICE, "d2"), relations=["LOCATED_IN"]) is None
    assert len(connection(world, (DEVICE, "d1"), (DEVICE, "d2"))) == 2


@pytest.mark.parametrize("whole_after", [5_000, 0])
@pytest.mark.parametrize("seed", range(3))
def test_connection_is_a_shortest_chain_of_real_relations(world, seed, whole_after, monkeypatch):
    """Step by step, and (whole_after 0) with every relation read in one query from the first step."""
    monkeypatch.setattr(connection_module, "WHOLE_AFTER", whole_after)
    monkeypatch.setattr(connection_module, "WHOLE_AFTER_IN_SMALL", whole_after)
    history = plain.random_history(seed)
    history.send(world, remember)
    ever = history.edges(relations={"KNOWS"})
    now = history.edges(at=len(plain.TIMES) - 1, relations={"KNOWS"})
    persons = sorted(history.nodes(["Person"]), key=name_key)
    pairs = [(a, b) for a in persons[:5] for b in persons[-5:]]
    for a, b in pairs:
        length = plain.chain_length(a, b, [(x, y) for x, y, _ in ever])
        chain = connection(world, (PERSON, a[1]), (PERSON, b[1]), max_hops=10)
        if length is None:
            assert chain is None
            continue
        assert len(chain) == length
        at = a
        for step in chain:
            assert step["from"] == at
            edge = (step["from"], step["to"]) if step["forward"] else (step["to"], step["from"])
            assert (*edge, step["relation"]) in ever
            holds = {(x, y) for x, y, _ in now}
            assert step["current"] == bool({(step["from"], step["to"]), (step["to"], step["from"])} & holds)
            at = step["to"]
        assert at == b


def test_connection_searches_a_step_a_query_from_the_smaller_end(world):
    chain = [f"p{i}" for i in range(7)]
    for here, there in zip(chain[1:], chain[2:], strict=False):
        put(world, PERSON, here, T1, KNOWS=[there])
    put(world, PERSON, "p0", T1, KNOWS=["p1", *[f"fan{i}" for i in range(30)]])  # a crowded start
    counting = Counting(world)
    found = connection(counting, (PERSON, "p0"), (PERSON, "p6"))
    assert [step["to"][1] for step in found] == ["p1", "p2", "p3", "p4", "p5", "p6"]
    assert len(counting.computed()) == 1 + 6 + 1  # the two ends, one query for each relation, and the names
    # The crowded end waits: with a budget that its 31 neighbours would exceed, the chain is still found.
    assert len(connection(world, (PERSON, "p0"), (PERSON, "p6"), most=20)) == 6
    with pytest.raises(Refused, match="more than 5 relations"):
        connection(world, (PERSON, "p0"), (PERSON, "p6"), most=5)


# --- FalkorDB's own algorithms, checked ---------------------------------------------------------------


def test_read_whole_at_a_time_only_what_held_then_is_followed(world, monkeypatch):
    monkeypatch.setattr(connection_module, "WHOLE_AFTER", 0)
    monkeypatch.setattr(connection_module, "WHOLE_AFTER_IN_SMALL", 0)
    the_seed(world)
    noon = "2026-01-01T12:00:00Z"
    assert connection(world, (DEVICE, "d1"), (ROOM, "r1"), at=noon) == [D1_WAS_IN_R1]
    assert connection(world, (DEVICE, "d1"), (ROOM, "r2"), at=noon) is None
    assert connection(world, (DEVICE, "d1"), (ROOM, "r2"))[0]["current"] is True


def test_a_search_that_read_every_relation_keeps_them_until_the_graph_grows(world, monkeypatch):
    monkeypatch.setattr(connection_module, "WHOLE_AFTER", 0)
    monkeypatch.setattr(connection_module, "WHOLE_AFTER_IN_SMALL", 0)
    the_seed(world)
    counting = Counting(world)
    first = connection(counting, (DEVICE, "d1"), (ROOM, "r1"))
    assert any("collect(id(x))" in text for text in counting.computed())  # every relation, in one read
    counting.sent.clear()
    assert connection(counting, (DEVICE, "d1"), (ROOM, "r1")) == first
    assert len(counting.computed()) == 2  # the two ends and the names: no relation read again
    assert not any("collect(id(x))" in text for text in counting.computed())
    put(world, DEVICE, "d2", T3, LOCATED_IN="r1")  # the graph grows: the kept relations are old
    counting.sent.clear()
    chain = connection(counting, (DEVICE, "d2"), (DEVICE, "d1"))
    assert [step["to"] for step in chain] == [("Room", "r1"), ("Device", "d1")]
    assert any("collect(id(x))" in text for text in counting.computed())
    # At a time nothing is kept: each search reads again.
    counting.sent.clear()
    connection(counting, (DEVICE, "d2"), (DEVICE, "d1"), at=T3)
    connection(counting, (DEVICE, "d2"), (DEVICE, "d1"), at=T3)
    assert sum("collect(id(x))" in text for text in counting.computed()) == 2


def test_a_graph_of_many_relations_is_read_whole_only_past_a_wide_frontier(world, monkeypatch):
    monkeypatch.setattr(connection_module, "WHOLE_AFTER_IN_SMALL", 0)
    monkeypatch.setattr(connection_module, "SMALL_GRAPH", 2)  # the seed's four relations are many here
    the_seed(world)
    counting = Counting(world)
    assert connection(counting, (DEVICE, "d1"), (ROOM, "r1")) == [D1_WAS_IN_R1]
    assert not any("collect(id(x))" in text for text in counting.computed())  # step by step
