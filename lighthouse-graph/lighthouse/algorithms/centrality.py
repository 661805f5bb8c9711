"""PageRank by FalkorDB's rules and Brandes' count of shortest paths, in plain Python over numbered nodes.

FalkorDB's algo.pageRank restricted to a label gives wrong scores when nodes of other labels lie between
its node ids (every entity here has States between), and algo.betweenness counts a chain a->b->c->d wrong
and scores unlinked nodes; so both are computed here from what one query read.
"""

from __future__ import annotations

import operator
import random
from collections.abc import Iterable
from itertools import accumulate, repeat

DAMPING = 0.85
TOLERANCE = 1e-8  # total change of the scores at which the iteration stops: far below 0.0005
MAX_ITERATIONS = 1_000
SAMPLE_SEED = 20_260_101  # the same graph gives the same sample of sources


def pagerank(size: int, edges: Iterable[tuple[int, int]]) -> list[float]:
    """The PageRank of nodes 0..size-1, summing to 1, by FalkorDB's rules.

    As FalkorDB does: two edges between the same nodes count once, an edge to itself counts, the damping
    is 0.85, and the rank of a node with no edge out is spread over every node.
    """
    if size == 0:
        return []
    links = sorted(set(edges), key=lambda link: (link[1], link[0]))
    out = [0] * size
    for start, _ in links:
        out[start] += 1
    starts = [start for start, _ in links]
    # The edges into each node are one run of `links`: its sum is a difference of running sums, which
    # keeps the inner loops in C (about four times faster than summing per node).
    spans, begin = [], 0
    for place in range(1, len(links) + 1):
        if place == len(links) or links[place][1] != links[begin][1]:
            spans.append((links[begin][1], begin, place))
            begin = place
    dangling = [node for node in range(size) if not out[node]]
    share = [DAMPING / count if count else 0.0 for count in out]
    rank = [1.0 / size] * size
    for _ in range(MAX_ITERATIONS):
        pushed = list(map(operator.mul, rank, share))
        running = [0.0, *accumulate(map(pushed.__getitem__, starts))]
        base = (1.0 - DAMPING + DAMPING * sum(map(rank.__getitem__, dangling))) / size
        fresh = [base] * size
        for node, begin, end in spans:
            fresh[node] = base + running[end] - running[begin]
        change = sum(map(abs, map(operator.sub, fresh, rank)))
        total = sum(fresh)
        rank = list(map(operator.truediv, fresh, repeat(total, size)))
        if change < TOLERANCE:
            break
    return rank


def sources(size: int, relations: int, budget: int, sample: int | None, least: int = 32) -> list[int]:
    """The nodes Brandes' count starts from: every node when the budget of relations followed allows it.

    Else at least `least` nodes, as many as budget / relations, drawn with a fixed seed from the nodes in
    their order, so the same graph gives the same sample. sample: exactly that many (at most every node).
    """
    if sample is not None:
        count = min(sample, size)
    elif size * max(relations, 1) <= budget:
        count = size
    else:
        count = min(size, max(least, budget // max(relations, 1)))
    if count >= size:
        return list(range(size))
    return sorted(random.Random(SAMPLE_SEED).sample(range(size), count))


def betweenness(size: int, edges: Iterable[tuple[int, int]], starts: list[int]) -> list[float]:
    """Brandes' betweenness along the direction of the edges, from the given start nodes.

    For each pair (s, t), s a start, t another node, a node v between them gets the share of the
    shortest s->t paths through v. From a sample of starts, the sums are scaled by size / starts.
    Edges repeated between two nodes count once; an edge to itself counts for nothing.
    """
    following: list[list[int]] = [[] for _ in range(size)]
    for start, end in set(edges):
        if start != end:
            following[start].append(end)
    score = [0.0] * size
    for source in starts:
        paths = [0] * size
        paths[source] = 1
        depth = [-1] * size
        depth[source] = 0
        order = [source]
        before: dict[int, list[int]] = {}
        at = 0
        while at < len(order):
            node = order[at]
            at += 1
            further = depth[node] + 1
            for neighbour in following[node]:
                if depth[neighbour] < 0:
                    depth[neighbour] = further
                    order.append(neighbour)
                if depth[neighbour] == further:
                    paths[neighbour] += paths[node]
                    before.setdefault(neighbour, []).append(node)
        owed = dict.fromkeys(order, 0.0)
        for node in reversed(order):
            part = (1.0 + owed[node]) / paths[node]
            for earlier in before.get(node, ()):
                owed[earlier] += paths[earlier] * part
            if node != source:
                score[node] += owed[node]
    if starts and len(starts) < size:
        scale = size / len(starts)
        score = [value * scale for value in score]
    return score
