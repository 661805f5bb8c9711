"""Plain implementations of the graph algorithms, written from their definitions, to compare with.

Nothing here is shared with the library: union-find, PageRank by FalkorDB's rules solved as a linear
system, betweenness by its definition (pairs of nodes, shortest paths counted by BFS), and the length of
the shortest chain by BFS. Also random histories of relations, kept in plain Python, with what held at
each time by the write rule (a row is the full picture of its entity from its time on).
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass, field

from devices import DEVICE, PERSON

DAMPING = 0.85


def groups(nodes, edges) -> set[frozenset]:
    """The weakly connected components, by union-find."""
    parent = {node: node for node in nodes}

    def find(node):
        while parent[node] != node:
            node = parent[node]
        return node

    for a, b in edges:
        parent[find(a)] = find(b)
    found: dict = {}
    for node in nodes:
        found.setdefault(find(node), set()).add(node)
    return {frozenset(group) for group in found.values()}


def pagerank(nodes, edges) -> dict:
    """PageRank as FalkorDB computes it, exactly: repeated edges count once, an edge to itself counts,
    damping 0.85, the rank of a node without edges out spread over all. Solved by Gaussian elimination."""
    nodes = list(nodes)
    n = len(nodes)
    index = {node: i for i, node in enumerate(nodes)}
    links = {(index[a], index[b]) for a, b in edges}
    out = [0] * n
    for a, _ in links:
        out[a] += 1
    # r = (1-d)/n + d * sum_{a->b} r_a / out_a + d/n * sum_{dangling} r_a
    matrix = [[(1.0 if i == j else 0.0) for j in range(n)] + [(1 - DAMPING) / n] for i in range(n)]
    for a, b in links:
        matrix[b][a] -= DAMPING / out[a]
    for a in range(n):
        if not out[a]:
            for i in range(n):
                matrix[i][a] -= DAMPING / n
    for column in range(n):
        pivot = max(range(column, n), key=lambda row: abs(matrix[row][column]))
        matrix[column], matrix[pivot] = matrix[pivot], matrix[column]
        for row in range(n):
            if row != column and matrix[row][column]:
                factor = matrix[row][column] / matrix[column][column]
                matrix[row] = [x - factor * y for x, y in zip(matrix[row], matrix[column], strict=True)]
    return {node: matrix[i][n] / matrix[i][i] for node, i in index.items()}


def _paths_from(source, following) -> tuple[dict, dict]:
    """Depth and number of shortest paths from source to every node it reaches, by BFS."""
    depth, count = {source: 0}, {source: 1}
    queue = deque([source])
    while queue:
        node = queue.popleft()
        for other in following.get(node, ()):
            if other not in depth:
                depth[other] = depth[node] + 1
                count[other] = 0
                queue.append(other)
            if depth[other] == depth[node] + 1:
                count[other] += count[node]
    return depth, count


def betweenness(nodes, edges) -> dict:
    """Directed betweenness by its definition: for each pair s != t, each v != s, t gets
    (paths s->v) * (paths v->t) / (paths s->t) when v lies on a shortest s->t path."""
    following: dict = {}
    for a, b in set(edges):
        if a != b:
            following.setdefault(a, set()).add(b)
    paths = {node: _paths_from(node, following) for node in nodes}
    score = dict.fromkeys(nodes, 0.0)
    for s in nodes:
        depth_s, count_s = paths[s]
        for t in nodes:
            if t == s or t not in depth_s:
                continue
            for v in nodes:
                if v in (s, t) or v not in depth_s:
                    continue
                depth_v, count_v = paths[v]
                if t in depth_v and depth_s[v] + depth_v[t] == depth_s[t]:
                    score[v] += count_s[v] * count_v[t] / count_s[t]
    return score


def chain_length(a, b, edges) -> int | None:
    """The number of relations in the shortest chain from a to b, either way; None when none joins them."""
    near: dict = {}
    for x, y in edges:
        near.setdefault(x, set()).add(y)
        near.setdefault(y, set()).add(x)
    depth = {a: 0}
    queue = deque([a])
    while queue:
        node = queue.popleft()
        if node == b:
            return depth[node]
        for other in near.get(node, ()):
            if other not in depth:
                depth[other] = depth[node] + 1
                queue.append(other)
    return None


# --- random histories ----------------------------------------------------------------------------------

TIMES = [f"2026-01-0{day}T00:00:00Z" for day in range(1, 6)]
KIND_OF = {"Person": PERSON, "Device": DEVICE}


@dataclass
class History:
    """Rows of persons (KNOWS) and devices (LOCATED_IN, USED_BY), sent in time order, and what they mean."""

    rows: dict = field(default_factory=dict)  # (label, key) -> [(time index, {relation: [targets]})]

    def send(self, graph, remember) -> None:
        for when, _ in enumerate(TIMES):
            for label, kind in KIND_OF.items():
                batch = [
                    {"key": key, "t": TIMES[t], "relations": relations}
                    for (kind_label, key), listed in self.rows.items()
                    if kind_label == label
                    for t, relations in listed
                    if t == when
                ]
                if batch:
                    receipts = remember(graph, kind, by="plain", rows=batch)
                    assert all(r["status"] in ("created", "changed", "unchanged") for r in receipts), receipts

    def edges(self, at: int | None = None, relations=None) -> set[tuple]:
        """(from, to, relation) that held at a time index, or that were ever true (at None)."""
        found = set()
        for (label, key), listed in self.rows.items():
            chosen = listed if at is None else [row for row in listed if row[0] <= at][-1:]
            for _, named in chosen:
                for relation, targets in named.items():
                    if relations is not None and relation not in relations:
                        continue
                    target = KIND_OF[label].target(relation).label
                    found |= {((label, key), (target, one), relation) for one in targets}
        return found

    def nodes(self, labels, at: int | None = None, relations=None) -> set[tuple]:
        """The entities of the labels: without at, every one written or pointed at; at a time, those
        written by then and those that a relation of the question held to or from then."""
        written = {name for name, listed in self.rows.items() if at is None or listed[0][0] <= at}
        ends = {name for a, b, _ in self.edges(at, relations) for name in (a, b)}
        if at is None:
            ends = {name for a, b, _ in self.edges(None) for name in (a, b)}
        return {name for name in written | ends if name[0] in labels}


def random_history(seed: int, persons: int = 14, devices: int = 10) -> History:
    """A random history over five days: each entity written on some days, each row naming a few targets.

    Keys of one label mix whole numbers and text, so orders are tested with both.
    """
    chance = random.Random(seed)
    people = [f"p{i}" if i % 3 else i + 1 for i in range(persons)]  # no key 0: values.written_key()
    rooms = [1, 2, 3, "r4", "r5"]
    teams = ["red", "blue", "green", 7]
    history = History()
    for label, keys in (("Person", people), ("Device", [f"d{i}" for i in range(devices)])):
        for key in keys:
            days = sorted(chance.sample(range(len(TIMES)), chance.randint(1, 3)))
            listed = []
            for day in days:
                if label == "Person":
                    named = {"KNOWS": chance.sample(people, chance.randint(0, 2))}
                else:
                    named = {
                        "LOCATED_IN": chance.sample(rooms, chance.randint(0, 1)),
                        "USED_BY": chance.sample(teams, chance.randint(0, 2)),
                    }
                listed.append((day, named))
            history.rows[(label, key)] = listed
    return history
