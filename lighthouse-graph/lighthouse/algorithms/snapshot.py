"""The nodes and edges a question reads, in one query, as numbered nodes and edges between their numbers.

Without at, a snapshot holds every relation that was ever true and every node of the labels asked
about. With at, it holds the relations that held then and the entities that existed then: an entity
exists from its first State, and one that only relations point at exists while one of them holds;
records have no time and take no part. The query sends each label's nodes as two arrays (node ids,
keys) and each relation type's edges as two arrays of node ids: a few rows, whatever the size, and no
key sent twice. One snapshot reads at most 1,000,000 relations and entities.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from itertools import repeat

from ..graphs import read
from ..values import Refused
from .components import Name, name_key
from .scope import MAX_READ, STOP_AFTER, Scope, held_at, in_time


@dataclass
class Snapshot:
    """Nodes numbered in name order, and the edges between them as (from, to, relation type).

    standing: the nodes that exist by themselves (at a time: from their first State), not only as the
    end of a relation.
    """

    names: list[Name]
    edges: list[tuple[int, int, str]]
    standing: set[int] = field(default_factory=set)
    pairs: list[tuple[int, int]] | None = None  # the edges without their types, when made with them

    def links(self) -> list[tuple[int, int]]:
        if self.pairs is None:
            self.pairs = [(start, end) for start, end, _ in self.edges]
        return self.pairs


# An entity existed at a time when its first State had begun: the current State's start answers for
# most, the others look through their States.
_EXISTED = (
    "CASE WHEN n.valid_from <= localdatetime($at) THEN true "
    "ELSE size([(n)-[:HAS_STATE]->(st:State) WHERE st.valid_from <= localdatetime($at) | 1]) > 0 END"
)


def joined_ids(ids: str) -> str:
    """Cypher: a list of node ids as one text of numbers and commas, which the client reads at once
    (sent as a list, each number is parsed on its own: most of the time of a large read)."""
    return f"string.join([one IN {ids} | toString(one)], ',')"


@lru_cache(maxsize=256)
def _snapshot_query(chosen: Scope, at_a_time: bool) -> str:
    parts = []
    for label in chosen.labels:
        key = "n.id" if label in chosen.records else "n.key"
        # Whether each existed is found per node before the lists are made: a pattern inside a list
        # comprehension does not see the comprehension's variable in FalkorDB 4.22, and matched any node.
        existed = _EXISTED if at_a_time else "true"
        parts.append(
            f"MATCH (n:`{label}`) WITH n LIMIT $cap WITH n, {existed} AS existed "
            f"WITH collect(id(n)) AS ids, collect({key}) AS keys, "
            "collect(CASE WHEN existed THEN id(n) END) AS existing "
            f"RETURN 0 AS part, '{label}' AS name, {joined_ids('ids')} AS ones, keys AS others, "
            f"{joined_ids('existing')} AS existed"
        )
    for start, kind, end in chosen.ends:
        # Both ends labelled: FalkorDB reads the edges from its matrices, without testing each end.
        held = f"WHERE {held_at('r')} " if at_a_time else ""
        parts.append(
            f"MATCH (x:`{start}`)-[r:`{kind}`]->(y:`{end}`) {held}WITH x, y LIMIT $cap "
            f"WITH collect(id(x)) AS starts, collect(id(y)) AS ends "
            f"RETURN 1 AS part, '{kind}' AS name, {joined_ids('starts')} AS ones, {joined_ids('ends')} AS others, "
            "'' AS existed"
        )
    return " UNION ALL ".join(parts)


def _texts(joined: str) -> list[str]:
    return joined.split(",") if joined else []


def numbers(joined: str) -> list[int]:
    """The node ids of a text that joined_ids() made."""
    return list(map(int, joined.split(","))) if joined else []


def snapshot_of(graph, chosen: Scope, at: str | None, most: int = MAX_READ) -> Snapshot:
    """The nodes and edges a question reads, at a time (the text of a checked time) or as a whole.

    One query; more than `most` entities (that existed then) and relations together is refused.
    """
    params: dict = {"cap": most + 1}
    if at is not None:
        params["at"] = at
    # Node ids stay the text the query sent: they are only looked up here, never computed with.
    names: list[Name] = []
    ids: list[str] = []
    existing: set[str] = set()
    stored: list[tuple[list[str], list[str], str]] = []
    blocks = []
    with in_time():
        rows = read(graph, _snapshot_query(chosen, at is not None), params, timeout=STOP_AFTER)
    for part, name, ones, others, existed in rows:
        if part == 1:
            stored.append((_texts(ones), _texts(others), name))
            continue
        nodes = _texts(ones)
        blocks.append((name, nodes, others))
        existing.update(_texts(existed) if at is not None else nodes)
    if len(existing) + sum(len(starts) for starts, _, _ in stored) > most:
        raise Refused(
            f"the question reads more than {most:,} entities and relations: ask about fewer kinds or relations"
        )
    # Name order, a label at a time: keys of one type sort as they are (in C), mixed ones by name_key.
    for name, nodes, keys in sorted(blocks, key=lambda block: block[0]):
        if len({type(key) for key in keys}) <= 1:
            pairs = sorted(zip(keys, nodes, strict=True))
        else:
            pairs = sorted(zip(keys, nodes, strict=True), key=lambda pair: name_key((name, pair[0])))
        names.extend((name, key) for key, _ in pairs)
        ids.extend(node for _, node in pairs)
    place = {node: number for number, node in enumerate(ids)}
    starts, ends, kinds = [], [], []
    for ones, others, kind in stored:
        starts.extend(map(place.__getitem__, ones))
        ends.extend(map(place.__getitem__, others))
        kinds.extend(repeat(kind, len(ones)))
    edges = list(zip(starts, ends, kinds, strict=True))
    standing = {place[node] for node in existing}
    if at is None or len(standing) == len(ids):
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
