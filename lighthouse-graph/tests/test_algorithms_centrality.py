"""PageRank by FalkorDB's rules and Brandes' betweenness, on numbered nodes, against plain implementations."""

from __future__ import annotations

import random

import plain
import pytest
from lighthouse.algorithms import centrality


def random_graph(seed: int, size: int = 40, edges: int = 90) -> list[tuple[int, int]]:
    """Random directed edges, with repeated edges and edges to themselves among them."""
    chance = random.Random(seed)
    found = [(chance.randrange(size), chance.randrange(size)) for _ in range(edges)]
    return found + found[:5] + [(3, 3), (7, 7)]


@pytest.mark.parametrize("seed", range(6))
def test_pagerank_is_the_exact_value(seed):
    edges = random_graph(seed)
    expected = plain.pagerank(range(40), edges)
    found = centrality.pagerank(40, edges)
    assert max(abs(found[node] - expected[node]) for node in range(40)) < 1e-7
    assert abs(sum(found) - 1) < 1e-12


def test_pagerank_of_nothing_and_of_nodes_without_edges():
    assert centrality.pagerank(0, []) == []
    assert centrality.pagerank(4, []) == [0.25] * 4
    one_way = centrality.pagerank(2, [(0, 1)])
    assert one_way[1] > one_way[0] and abs(sum(one_way) - 1) < 1e-12


@pytest.mark.parametrize("seed", range(6))
def test_betweenness_from_every_node_is_the_exact_count(seed):
    edges = random_graph(seed)
    expected = plain.betweenness(range(40), edges)
    found = centrality.betweenness(40, edges, list(range(40)))
    assert max(abs(found[node] - expected[node]) for node in range(40)) < 1e-9
    assert any(found)


def test_a_sample_is_scaled_to_the_whole():
    ring = [(node, (node + 1) % 30) for node in range(30)]  # every node between the same number of pairs
    exact = centrality.betweenness(30, ring, list(range(30)))
    assert exact == [29 * 28 / 2] * 30
    starts = centrality.sources(30, 30, 10**9, 6)
    sampled = centrality.betweenness(30, ring, starts)
    assert sampled != exact
    assert sum(sampled) == pytest.approx(sum(exact))  # each start counts a sixth of the pairs, times five


def test_the_sources_of_between_follow_the_budget():
    assert centrality.sources(10, 5, 10_000_000, None) == list(range(10))
    fewest = centrality.sources(1_000, 1_000, 10_000, None)
    assert len(fewest) == 32 and fewest == sorted(fewest)
    assert fewest == centrality.sources(1_000, 1_000, 10_000, None)  # the same graph, the same sample
    assert len(centrality.sources(1_000, 1_000, 100_000, None)) == 100
    assert len(centrality.sources(1_000, 1_000, 100_000, 7)) == 7
    assert centrality.sources(5, 1_000, 10, 7) == list(range(5))
