"""PageRank by FalkorDB's rules and Brandes' count of shortest paths, in plain Python over numbered nodes.

FalkorDB's algo.pageRank restricted to a label gives wrong scores when nodes of other labels lie between
its node ids (every entity here has States between), and algo.betweenness counts a chain a->b->c->d wrong
and scores unlinked nodes; so both are computed here from what one query read.
"""

from __future__ import annotations

import operator
import random
from collections.abc import Iterable
from itertools import compress

DAMPING = 0.85
TOLERANCE = 1e-8  # total change of the scores at which the iteration stops: far below 0.0005
MAX_ITERATIONS = 1_000


def pagerank(size: int, edges: Iterable[tuple[int, int]]) -> list[float]:
    """The PageRank of nodes 0..size-1, summing to 1, by FalkorDB's rules.

    As FalkorDB does: two edges between the same nodes count once, an edge to itself counts, the damping
    is 0.85, and the rank of a node with no edge out is spread over every node.
    A node that no edge leads into has the base rank in every round, so the rounds run over the others
    only, and what the first give is one sum per node they point at: on 10,000 devices that point at
    240 rooms and teams, a round is 240 sums, not 30,000.
    """
    if size == 0:
        return []
    links = set(edges)
    # One pass for the degrees and one for the sums, a plain loop each: Counter over the pairs hashed a
    # tuple per edge, and took three times as long (12,000 edges of the fleet of 3,000 devices).
    out, into = [0] * size, [0] * size
    for start, end in links:
        out[start] += 1
        into[end] += 1
    reached = list(compress(range(size), into))
    place = dict(zip(reached, range(len(reached)), strict=True))
    # Per reached node: what the unreached nodes that point at it give (base times their shares, the
    # shares summed here once), and the edges from reached nodes, as (start's place, share) pairs.
    share = [DAMPING / count if count else 0.0 for count in out]
    pushed = [0.0] * size
    from_reached: dict[int, list[tuple[int, float]]] = {}
    for start, end in links:
        if into[start]:
            from_reached.setdefault(place[end], []).append((place[start], share[start]))
        else:
            pushed[end] += share[start]
    from_unreached = list(map(pushed.__getitem__, reached))
    inner = sorted(from_reached.items())
    unreached_count = size - len(reached)
    dangling_unreached = sum(map(operator.not_, map(operator.or_, out, into)))  # no edge in or out
    dangling_reached = [number for number, node in enumerate(reached) if not out[node]]
    base = 1.0 / size
    rank = [1.0 / size] * len(reached)
    for _ in range(MAX_ITERATIONS):
        dangling = dangling_unreached * base + sum(map(rank.__getitem__, dangling_reached))
        fresh_base = (1.0 - DAMPING + DAMPING * dangling) / size
        # The unreached nodes held `base` in the round before (1/size at first), and give from it.
        fresh = [fresh_base + base * pushed for pushed in from_unreached]
        for number, around in inner:
            fresh[number] += sum(rank[start] * part for start, part in around)
        change = unreached_count * abs(fresh_base - base) + sum(map(abs, map(operator.sub, fresh, rank)))
        total = fresh_base * unreached_count + sum(fresh)
        base = fresh_base / total
        rank = [score / total for score in fresh]
        if change < TOLERANCE:
            break
    found = [base] * size
    for number, node in enumerate(reached):
        found[node] = rank[number]
    return found


def sources(
    size: int, relations: int, budget: int, sample: int | None, seed: int = 1, least: int = 32
) -> list[int]:
    """The nodes Brandes' count starts from: every node when the budget of relations followed allows it.

    Else at least `least` nodes, as many as budget / relations, drawn with the seed from the nodes in their
    order, so the same graph and seed give the same sample. sample: exactly that many (at most every node).
    """
    if sample is not None:
        count = min(sample, size)
    elif size * max(relations, 1) <= budget:
        count = size
    else:
        count = min(size, max(least, budget // max(relations, 1)))
    if count >= size:
        return list(range(size))
    return sorted(random.Random(seed).sample(range(size), count))


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
