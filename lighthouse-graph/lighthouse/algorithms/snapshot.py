"""The nodes and edges a question reads, in one query, as numbered nodes and edges between their numbers.

Without at, a snapshot holds every relation that was ever true and every node of the labels asked
about. With at, it holds the relations that held then and the entities that existed then: an entity
exists from its first State, and one that only relations point at exists while one of them holds;
records have no time and take no part. The query sends each label's nodes as their node ids (one JSON
text) and their keys (a list), and each relation type's edges as two JSON texts of node ids: a few rows,
whatever the size, and no key sent twice. One snapshot reads at most 1,000,000 relations and entities.
"""

from __future__ import annotations

import json
from functools import lru_cache
from itertools import repeat
from operator import itemgetter

from ..graphs import read
from ..values import Refused
from .components import Name, name_key
from .scope import MAX_READ, STOP_AFTER, Scope, held_at, in_time

_FIRST = itemgetter(0)
_SECOND = itemgetter(1)


class Snapshot:
    """Nodes numbered in name order, and the edges between them as (from, to, relation type).

    standing: the nodes that exist by themselves (at a time: from their first State), not only as the
    end of a relation. A snapshot read whole (snapshot_of()) makes its typed edges only when asked: groups()
    and important() read only links(), and 12,600 triples made for nothing cost a millisecond and more.
    """

    def __init__(
        self,
        names: list[Name],
        edges: list[tuple[int, int, str]] | None,
        standing: set[int] | None = None,
        pairs: list[tuple[int, int]] | None = None,
        kinds: list[str] | None = None,
    ):
        self.names = names
        self.standing = set() if standing is None else standing
        self._edges = edges
        self._pairs = pairs  # the edges without their types, when made with them
        self._kinds = kinds  # with pairs and no edges: the type of each pair, in the same order

    @property
    def edges(self) -> list[tuple[int, int, str]]:
        if self._edges is None:
            self._edges = [
                (start, end, kind) for (start, end), kind in zip(self._pairs, self._kinds, strict=True)
            ]
        return self._edges

    def links(self) -> list[tuple[int, int]]:
        if self._pairs is None:
            self._pairs = [(start, end) for start, end, _ in self._edges]
        return self._pairs


# An entity existed at a time when its first State had begun: the current State's start answers for
# most, the others look through their States.
_EXISTED = (
    "CASE WHEN n.valid_from <= localdatetime($at) THEN true "
    "ELSE size([(n)-[:HAS_STATE]->(st:State) WHERE st.valid_from <= localdatetime($at) | 1]) > 0 END"
)


def joined_ids(ids: str) -> str:
    """Cypher: a list of node ids as one JSON text, which json.loads() reads at once. Sent as a list,
    each number is a list of its own in the reply ([kind, value]), which the client parses one by one;
    joined by string.join() of each toString(), the text took three times as long inside FalkorDB.
    (toJSON() writes texts without escaping their quotes: it is used for numbers only.)"""
    return f"toJSON({ids})"


@lru_cache(maxsize=256)
def _snapshot_query(chosen: Scope, at_a_time: bool) -> str:
    parts = []
    for label in chosen.labels:
        key = "n.id" if label in chosen.records else "n.key"
        if at_a_time:
            # Whether each existed is found per node before the lists are made: a pattern inside a list
            # comprehension does not see the comprehension's variable in FalkorDB 4.22, and matched any node.
            made = f"WITH n, {_EXISTED} AS existed WITH collect(id(n)) AS ids, collect({key}) AS keys, "
            made += f"{joined_ids('collect(CASE WHEN existed THEN id(n) END)')} AS existing "
        else:  # every node stands: its ids are not sent twice
            made = f"WITH collect(id(n)) AS ids, collect({key}) AS keys, '' AS existing "
        parts.append(
            f"MATCH (n:`{label}`) WITH n LIMIT $cap {made}"
            f"RETURN 0 AS part, '{label}' AS name, {joined_ids('ids')} AS ones, keys AS others, "
            "existing AS existed"
        )
    for start, kind, end in chosen.ends:
        # Both ends labelled: FalkorDB reads the edges from its matrices, without testing each end.
        held = f"WHERE {held_at('r')} " if at_a_time else ""
        parts.append(
            f"MATCH (x:`{start}`)-[r:`{kind}`]->(y:`{end}`) {held}WITH x, y LIMIT $cap "
            f"WITH collect(id(x)) AS starts, collect(id(y)) AS ends "
            f"RETURN 1 AS part, '{kind}' AS name, {joined_ids('starts')} AS ones, "
            f"{joined_ids('ends')} AS others, '' AS existed"
        )
    return " UNION ALL ".join(parts)


def numbers(joined: str) -> list[int]:
    """The node ids of a text that joined_ids() made."""
    return json.loads(joined)


def snapshot_of(graph, chosen: Scope, at: str | None, most: int = MAX_READ) -> Snapshot:
    """The nodes and edges a question reads, at a time (the text of a checked time) or as a whole.

    One query; more than `most` entities (that existed then) and relations together is refused.
    """
    params: dict = {"cap": most + 1}
    if at is not None:
        params["at"] = at
    names: list[Name] = []
    ids: list[int] = []
    existing: set[int] = set()
    stored: list[tuple[list[int], list[int], str]] = []
    blocks = []
    with in_time():
        rows = read(graph, _snapshot_query(chosen, at is not None), params, timeout=STOP_AFTER)
    for part, name, ones, others, existed in rows:
        if part == 1:
            stored.append((numbers(ones), numbers(others), name))
            continue
        nodes = numbers(ones)
        blocks.append((name, nodes, others))
        existing.update(numbers(existed) if at is not None else nodes)
    if len(existing) + sum(len(starts) for starts, _, _ in stored) > most:
        raise Refused(
            f"the question reads more than {most:,} entities and relations: ask about fewer kinds or relations"
        )
    # Name order, a label at a time: keys of one type sort as they are (in C), mixed ones by name_key.
    # What runs once per node or edge here runs in C (map, zip, sorted): 28,000 ids in the fleet of 3,000.
    for name, nodes, keys in sorted(blocks, key=lambda block: block[0]):
        if len(set(map(type, keys))) <= 1:
            pairs = sorted(zip(keys, nodes, strict=True))
        else:
            pairs = sorted(zip(keys, nodes, strict=True), key=lambda pair: name_key((name, pair[0])))
        names.extend(zip(repeat(name), map(_FIRST, pairs)))
        ids.extend(map(_SECOND, pairs))
    place = dict(zip(ids, range(len(ids)), strict=True))
    starts, ends, kinds = [], [], []
    for ones, others, kind in stored:
        starts.extend(map(place.__getitem__, ones))
        ends.extend(map(place.__getitem__, others))
        kinds.extend(repeat(kind, len(ones)))
    if at is None:  # every node read stands
        return Snapshot(names, None, set(range(len(ids))), list(zip(starts, ends, strict=True)), kinds)
    standing = set(map(place.__getitem__, existing))
    edges = list(zip(starts, ends, kinds, strict=True))
    if len(standing) == len(ids):
        return Snapshot(names, edges, standing, list(zip(starts, ends, strict=True)))
    # At a time, a node that neither existed by itself nor is an end of a relation that held is left out.
    kept = set(standing)
    for start, end, _ in edges:
        kept.add(start)
        kept.add(end)
    order = sorted(kept)
    renumber = {node: number for number, node in enumerate(order)}
    return Snapshot(
        [names[node] for node in order],
        [(renumber[start], renumber[end], kind) for start, end, kind in edges],
        {renumber[node] for node in standing},
    )
