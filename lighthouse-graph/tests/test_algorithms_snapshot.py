"""The four questions at one time: over the relations that held then, read in one query, against plain
implementations and, where every relation holds, against FalkorDB's own algorithms."""

from __future__ import annotations

import plain
import pytest
from devices import DEVICE, KINDS, PERSON, ROOM
from lighthouse import Refused, WrongType, ensure_schema, open_episode, remember
from lighthouse.algorithms.components import name_key
from lighthouse.algorithms.connection import connection
from lighthouse.algorithms.groups import groups
from lighthouse.algorithms.ranking import between, important
from test_algorithms import D1_WAS_IN_R1, Counting, as_sets, put, scores, the_seed

T1, T2, T3 = "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z"
NOON = "2026-01-01T12:00:00Z"
ALL = ["Person", "Device", "Room", "Team"]


@pytest.fixture
def world(graph):
    ensure_schema(graph, KINDS)
    return graph


@pytest.mark.parametrize("seed", range(3))
def test_each_answer_at_a_time_is_that_of_a_plain_implementation(world, seed):
    history = plain.random_history(seed)
    history.send(world, remember)
    for day, at in enumerate(plain.TIMES):
        nodes, edges = history.nodes(ALL, at=day), history.edges(at=day)
        links = [(a, b) for a, b, _ in edges]
        assert as_sets(groups(world, [PERSON, DEVICE], at_least=1, limit=1000, at=at)) == plain.groups(
            nodes, links
        )
        expected = plain.pagerank(nodes, links)
        found = scores(important(world, [PERSON, DEVICE], at=at, limit=1000))
        assert set(found) == nodes
        assert all(abs(found[name] - expected[name]) < 1e-6 for name in nodes)
        persons = history.nodes(["Person"], at=day, relations={"KNOWS"})
        knows = [(a, b) for a, b, kind in edges if kind == "KNOWS"]
        expected = plain.betweenness(persons, knows)
        found = scores(between(world, [PERSON], at=at, limit=1000))
        assert set(found) == persons
        assert all(abs(found[name] - expected[name]) < 1e-9 for name in persons)
        ordered = sorted(persons, key=name_key)
        for a, b in zip(ordered[:4], ordered[-4:], strict=True):
            chain = connection(world, (PERSON, a[1]), (PERSON, b[1]), max_hops=10, at=at)
            length = plain.chain_length(a, b, knows)
            if length is not None and length > 6:  # past max_hops: no chain
                assert connection(world, (PERSON, a[1]), (PERSON, b[1]), at=at) is None
            assert (None if chain is None else len(chain)) == length
            for step in chain or []:
                edge = (step["from"], step["to"]) if step["forward"] else (step["to"], step["from"])
                assert (*edge, "KNOWS") in edges


def test_one_relation_at_a_time(world):
    history = plain.random_history(5)
    history.send(world, remember)
    day = 2
    located = [(a, b) for a, b, kind in history.edges(at=day) if kind == "LOCATED_IN"]
    nodes = history.nodes(["Device", "Room"], at=day, relations={"LOCATED_IN"})
    expected = plain.pagerank(nodes, located)
    found = scores(important(world, [DEVICE], "LOCATED_IN", at=plain.TIMES[day], limit=1000))
    assert set(found) == nodes
    assert all(abs(found[name] - expected[name]) < 1e-6 for name in nodes)
    assert as_sets(
        groups(world, [DEVICE], ["LOCATED_IN"], at_least=1, limit=1000, at=plain.TIMES[day])
    ) == plain.groups(nodes, located)


@pytest.mark.parametrize("seed", range(2))
def test_where_every_relation_holds_the_answers_are_falkordbs(world, seed):
    history = plain.random_history(seed)
    history.rows = {name: listed[:1] for name, listed in history.rows.items()}  # one row each: nothing ends
    history.send(world, remember)
    at = "2026-02-01T00:00:00Z"
    result = world.ro_query(
        "CALL algo.WCC({nodeLabels: $labels, relationshipTypes: ['KNOWS', 'LOCATED_IN', 'USED_BY']}) "
        "YIELD node, componentId RETURN componentId, collect([[l IN labels(node) WHERE l IN $labels][0], node.key])",
        {"labels": ALL},
    ).result_set
    theirs = {frozenset(tuple(member) for member in members) for _, members in result}
    assert as_sets(groups(world, [PERSON, DEVICE], at_least=1, limit=1000, at=at)) == theirs
    assert groups(world, [PERSON, DEVICE], at_least=1, limit=1000, at=at) == groups(
        world, [PERSON, DEVICE], at_least=1, limit=1000
    )
    for relation, kinds, labels in (
        ("KNOWS", [PERSON], ["Person"]),
        ("LOCATED_IN", [DEVICE], ["Device", "Room"]),
    ):
        # Over the whole graph, then kept to the entities: exact there, since every other node is alone.
        rows = world.ro_query(
            f"CALL algo.pageRank(NULL, '{relation}') YIELD node, score "
            "WITH node, score WHERE any(l IN labels(node) WHERE l IN $labels) "
            "RETURN [l IN labels(node) WHERE l IN $labels][0], node.key, score",
            {"labels": labels},
        ).result_set
        total = sum(score for _, _, score in rows)
        theirs = {(label, key): score / total for label, key, score in rows}
        ours = scores(important(world, kinds, relation, at=at, limit=1000))
        assert set(ours) == set(theirs)
        assert all(abs(ours[name] - theirs[name]) < 0.0005 for name in theirs)


def test_an_entity_exists_from_its_first_state_and_a_target_while_a_relation_to_it_holds(world):
    put(world, DEVICE, "d1", T2, LOCATED_IN="r1")
    put(world, DEVICE, "d1", T3, LOCATED_IN="r2")
    put(world, DEVICE, "d2", T3)
    put(world, DEVICE, "d2", T1)  # late: its first State is earlier than its current one
    assert as_sets(groups(world, [DEVICE], at_least=1, at=NOON)) == {frozenset({("Device", "d2")})}
    assert as_sets(groups(world, [DEVICE], at_least=1, at="2026-01-02T12:00:00Z")) == {
        frozenset({("Device", "d1"), ("Room", "r1")}),
        frozenset({("Device", "d2")}),
    }
    assert as_sets(groups(world, [DEVICE], at_least=1, at=T3)) == {
        frozenset({("Device", "d1"), ("Room", "r2")}),  # r1 is gone: nothing points at it any more
        frozenset({("Device", "d2")}),
    }
    assert groups(world, [DEVICE], at_least=1, at="2025-12-01T00:00:00Z") == []
    assert connection(world, (DEVICE, "d1"), (ROOM, "r1"), at=NOON) is None
    assert connection(world, (DEVICE, "d1"), (DEVICE, "d1"), at=NOON) is None  # it did not exist yet
    assert connection(world, (DEVICE, "d2"), (DEVICE, "d2"), at=NOON) == []


def test_a_step_at_a_time_tells_of_a_relation_that_held_then(world):
    the_seed(world)
    assert connection(world, (DEVICE, "d1"), (ROOM, "r1"), at=NOON) == [D1_WAS_IN_R1]
    assert connection(world, (DEVICE, "d1"), (ROOM, "r2"), at=NOON) is None
    assert connection(world, (DEVICE, "d1"), (ROOM, "r2"), at=T3)[0]["current"] is True
    assert groups(world, [DEVICE], ["LOCATED_IN"], at=NOON)[0]["members"] == [
        ("Device", "d1"),
        ("Room", "r1"),
    ]


def test_records_take_no_part_at_a_time(world):
    put(world, DEVICE, "d1", T1, LOCATED_IN="r1")
    put(world, DEVICE, "d2", T1, LOCATED_IN="r2")
    open_episode(world, "e1", by="watcher", about=[(DEVICE, "d1"), (DEVICE, "d2")])
    assert len(groups(world, [DEVICE], records=["Episode"])) == 1
    assert len(groups(world, [DEVICE], at=T2)) == 2
    for asked in (
        lambda: groups(world, [DEVICE], ["ABOUT"], records=["Episode"], at=T2),
        lambda: groups(world, [DEVICE], records=["Episode"], at=T2),
        lambda: groups(world, [DEVICE], ["LOCATED_IN", "ABOUT"], at=T2),
    ):
        with pytest.raises(Refused, match="records have no time"):
            asked()


def test_an_answer_at_a_time_is_one_query_and_is_not_kept(world):
    put(world, DEVICE, "d1", T1, LOCATED_IN="r1", USED_BY=["red"])
    counting = Counting(world)
    for ask in (
        lambda: groups(counting, [DEVICE], at=T2),
        lambda: important(counting, [DEVICE], at=T2),
        lambda: between(counting, [DEVICE], at=T2),
    ):
        counting.sent.clear()
        first = ask()
        assert ask() == first
        assert len(counting.sent) == 2 and "db.meta.stats" not in counting.sent[0]


def test_more_than_the_read_allows_is_refused_at_a_time(world):
    # One entity with a State and three relations: the rooms and teams come with the relations.
    put(world, DEVICE, "d1", T1, LOCATED_IN="r1", USED_BY=["red", "blue"])
    assert len(groups(world, [DEVICE], at_least=1, at=T2, most=4)[0]["members"]) == 4
    for ask in (groups, important, between):
        with pytest.raises(Refused, match="more than 3"):
            ask(world, [DEVICE], at=T2, most=3)
    # Only what held then counts: an hour before, nothing existed to read.
    assert groups(world, [DEVICE], at_least=1, at="2025-12-31T23:00:00Z", most=1) == []


def test_a_time_that_cannot_be_used_is_refused(world):
    put(world, DEVICE, "d1", T1, LOCATED_IN="r1")
    for at in ("noon", "", 1.5, "1900-01-01T00:00:00Z", ["2026-01-01"]):
        with pytest.raises((Refused, WrongType)):
            groups(world, [DEVICE], at=at)
        with pytest.raises((Refused, WrongType)):
            connection(world, (DEVICE, "d1"), (ROOM, "r1"), at=at)
