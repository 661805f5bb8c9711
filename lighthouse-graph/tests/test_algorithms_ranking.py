"""important() and between() now: PageRank and Brandes computed here, against plain implementations,
where FalkorDB's own are wrong."""

from __future__ import annotations

import random

import plain
import pytest
from devices import DEVICE, KINDS, PERSON
from lighthouse import Refused, ensure_schema, remember
from lighthouse.algorithms.components import name_key
from lighthouse.algorithms.ranking import between, important, ranked
from test_algorithms import ALL, T1, put, scores, the_seed


@pytest.fixture
def world(graph):
    ensure_schema(graph, KINDS)
    return graph


@pytest.mark.parametrize("seed", range(4))
def test_important_is_pagerank_by_falkordbs_rules(world, seed):
    history = plain.random_history(seed)
    history.send(world, remember)
    expected = plain.pagerank(history.nodes(ALL), [(a, b) for a, b, _ in history.edges()])
    found = scores(important(world, [PERSON, DEVICE], limit=1000))
    assert set(found) == set(expected)
    assert all(abs(found[name] - expected[name]) < 0.0005 for name in expected)
    assert all(abs(found[name] - expected[name]) < 1e-6 for name in expected)  # far closer in fact
    assert abs(sum(found.values()) - 1) < 1e-9
    located = {n for n in history.nodes(ALL) if n[0] in ("Device", "Room")}
    one = plain.pagerank(located, [(a, b) for a, b, kind in history.edges() if kind == "LOCATED_IN"])
    best = important(world, [DEVICE], "LOCATED_IN", limit=3)
    assert len(best) == 3
    assert [entry["entity"] for entry in best] == sorted(one, key=lambda n: (-round(one[n], 9), name_key(n)))[
        :3
    ]


@pytest.mark.parametrize("seed", range(4))
def test_between_is_the_count_of_shortest_paths(world, seed):
    history = plain.random_history(seed)
    history.send(world, remember)
    persons = history.nodes(["Person"], relations={"KNOWS"})
    expected = plain.betweenness(persons, [(a, b) for a, b, kind in history.edges() if kind == "KNOWS"])
    found = scores(between(world, [PERSON], limit=1000))
    assert set(found) == persons
    assert all(abs(found[name] - expected[name]) < 1e-9 for name in expected)
    assert any(value > 0 for value in found.values())
    # Devices only point at rooms and teams: nothing lies between.
    assert all(entry["score"] == 0 for entry in between(world, [DEVICE], limit=1000))


def test_falkordbs_pagerank_restricted_to_a_label_is_wrong_here_and_ours_is_not(world):
    history = plain.random_history(3)
    history.send(world, remember)
    theirs = dict(
        world.ro_query(
            "CALL algo.pageRank('Person', 'KNOWS') YIELD node, score RETURN node.key, score"
        ).result_set
    )
    assert abs(sum(theirs.values()) - 1) > 0.01  # States lie between the persons' node ids
    persons = history.nodes(["Person"], relations={"KNOWS"})
    expected = plain.pagerank(persons, [(a, b) for a, b, kind in history.edges() if kind == "KNOWS"])
    ours = scores(important(world, [PERSON], limit=1000))
    assert all(abs(ours[name] - expected[name]) < 1e-6 for name in expected)


def test_falkordbs_betweenness_is_wrong_and_ours_is_not(world):
    history = plain.random_history(0)
    history.send(world, remember)
    persons = history.nodes(["Person"], relations={"KNOWS"})
    expected = plain.betweenness(persons, [(a, b) for a, b, kind in history.edges() if kind == "KNOWS"])
    theirs = world.ro_query(
        "CALL algo.betweenness({nodeLabels: ['Person'], relationshipTypes: ['KNOWS']}) YIELD node, score "
        "RETURN node.key, score"
    ).result_set
    wrong = [key for key, score in theirs if abs(score - expected[("Person", key)]) > 1e-9]
    assert len(wrong) > 3
    ours = scores(between(world, [PERSON], limit=1000))
    assert all(abs(ours[name] - expected[name]) < 1e-9 for name in expected)


def test_a_chain_of_four_gives_each_inner_entity_two(world):
    for here, there in (("a", "b"), ("b", "c"), ("c", "d")):
        put(world, PERSON, here, T1, KNOWS=[there])
    put(world, PERSON, "e", T1)  # linked to nothing: scores 0, not 1
    expected = {("Person", k): v for k, v in {"a": 0.0, "b": 2.0, "c": 2.0, "d": 0.0, "e": 0.0}.items()}
    assert scores(between(world, [PERSON])) == expected


# --- answers kept until the graph grows ---------------------------------------------------------------------


def test_a_sample_is_drawn_the_same_way_each_time(world):
    for i in range(40):
        put(world, PERSON, f"p{i:02d}", T1, KNOWS=[f"p{(i + 1) % 40:02d}", f"p{(i * 7) % 40:02d}"])
    exact = between(world, [PERSON], limit=40)
    sampled = between(world, [PERSON], sample=8, limit=40)
    assert between(world, [PERSON], sample=8, limit=40) == sampled
    assert scores(sampled) != scores(exact)
    assert scores(between(world, [PERSON], sample=40, limit=40)) == pytest.approx(scores(exact))


def test_more_than_the_read_allows_is_refused(world):
    the_seed(world)  # 5 entities and 4 relations
    assert len(important(world, [DEVICE], most=9)) == 5
    with pytest.raises(Refused, match="more than 8"):
        important(world, [DEVICE], limit=2, most=8)
    with pytest.raises(Refused, match="more than 8"):
        between(world, [DEVICE], limit=2, most=8)


@pytest.mark.parametrize("seed", range(40))
def test_the_best_are_those_of_every_score_rounded_whatever_ties_lie_near_the_limit(seed):
    # Scores a hair apart (below and above what rounds to 9 places as the same) around the limit.
    chance = random.Random(seed)
    near = [0.1, 0.1 + 1e-10, 0.1 - 4e-10, 0.1 + 6e-10, 0.1 - 1.4e-9, 0.2, 0.3 + 4.9e-10]
    found = [chance.choice([*near, chance.random()]) for _ in range(chance.randrange(1, 80))]
    names = [("Device", f"d{number:03d}") for number in range(len(found))]
    for limit in (1, 2, 5, 10, 100):
        every = sorted(range(len(found)), key=lambda node: (-round(found[node], 9), node))[:limit]
        expected = [{"entity": names[node], "score": found[node]} for node in every]
        assert ranked(names, found, limit) == expected
    assert ranked([], [], 10) == []
