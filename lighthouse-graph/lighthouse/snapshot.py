"""The graph at one time, read in one query, and groups(), important() and between() computed over it.

With at, a snapshot holds the relations that held then and the entities that existed then: an entity
exists from its first State, and one that only relations point at exists while one of them holds.
Records have no time and take no part. Without at, it holds every relation that was ever true, which is
what important() and between() read now too. Answers at a time are not kept: a row that came late can
change what held then without a node or an edge more. connection() at a time searches step by step
instead (algorithms/connection.py). One snapshot reads at most 1,000,000 relations and entities.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from .algorithms.centrality import betweenness, pagerank, sources
from .algorithms.components import Name, components, name_key, shaped
from .algorithms.scope import MAX_READ, Scope, held_at
from .graphs import read as read_rows
from .values import Refused

BETWEEN_STEPS_AT = 2_000_000  # relations followed by between() at a time, from 32 entities at least
MAX_SAMPLED_STEPS = 100_000_000  # relations a sample the caller chose may follow


@dataclass
class Snapshot:
    """Nodes numbered in name order, and the edges between them as (from, to, relation type).

    standing: the nodes that exist by themselves (at a time: from their first State), not only as the
    end of a relation.
    """

    names: list[Name]
    edges: list[tuple[int, int, str]]
    standing: set[int] = field(default_factory=set)

    def links(self) -> list[tuple[int, int]]:
        return [(start, end) for start, end, _ in self.edges]


# An entity existed at a time when its first State had begun: the current State's start answers for
# most, the others look through their States.
_EXISTED = (
    "WITH n, CASE WHEN n.valid_from <= localdatetime($at) THEN true "
    "ELSE size([(n)-[:HAS_STATE]->(st:State) WHERE st.valid_from <= localdatetime($at) | 1]) > 0 END AS existed "
    "WHERE existed "
)


@lru_cache(maxsize=256)
def _snapshot_query(scope: Scope, timed: bool) -> str:
    parts = []
    for label in scope.labels:
        key = "n.id" if label in scope.records else "n.key"
        parts.append(
            f"MATCH (n:`{label}`) {_EXISTED if timed else ''}"
            f"RETURN 0 AS part, id(n) AS one, '{label}' AS one_label, {key} AS one_key, "
            "null AS other, null AS other_label, null AS other_key, null AS relation LIMIT $cap"
        )
    for label in scope.labels:
        key = "x.id" if label in scope.records else "x.key"
        # WITH before the test of y's labels: else FalkorDB may start from every node and walk back.
        parts.append(
            f"MATCH (x:`{label}`)-[r:{scope.type_pattern()}]->(y) WITH x, r, y "
            f"WHERE {scope.label_test('y')}{' AND ' + held_at('r') if timed else ''} "
            f"RETURN 1 AS part, id(x) AS one, '{label}' AS one_label, {key} AS one_key, "
            f"id(y) AS other, {scope.label_of('y')} AS other_label, {scope.key_of('y')} AS other_key, "
            "type(r) AS relation LIMIT $cap"
        )
    return " UNION ALL ".join(parts)


def read(graph, scope: Scope, at: str | None, most: int = MAX_READ) -> Snapshot:
    """The nodes and edges a question reads, at a time (the text of clock.now()) or as a whole.

    One query; more than `most` entities and relations together is refused.
    """
    if at is not None:
        scope = scope.at_one_time()
        if not scope.types:
            raise Refused("records have no time: at a time, name a relation of the kinds")
    params = {"cap": most + 1, "labels": list(scope.labels)}
    if at is not None:
        params["at"] = at
    rows = read_rows(graph, _snapshot_query(scope, at is not None), params)
    if len(rows) > most:
        raise Refused(
            f"the question reads more than {most:,} entities and relations: ask about fewer kinds or relations"
        )
    found: dict[int, Name] = {}
    stored, standing = [], set()
    for part, one, one_label, one_key, other, other_label, other_key, relation in rows:
        found[one] = (one_label, one_key)
        if part == 1:
            found[other] = (other_label, other_key)
            stored.append((one, other, relation))
        else:
            standing.add(one)
    ids = sorted(found, key=lambda node: name_key(found[node]))
    place = {node: number for number, node in enumerate(ids)}
    return Snapshot(
        [found[node] for node in ids],
        [(place[a], place[b], kind) for a, b, kind in stored],
        {place[node] for node in standing},
    )


def grouped(snapshot: Snapshot, limit: int) -> list[dict]:
    """The weakly connected groups of a snapshot, as groups() gives them."""
    found = components(len(snapshot.names), snapshot.links())
    return shaped(((len(group), [snapshot.names[node] for node in group]) for group in found), limit)


def ranked(names: list[Name], scores: list[float], limit: int) -> list[dict]:
    """[{"entity", "score"}], highest first; equal scores in name order (names are in that order)."""
    # Rounded for the order only: equal scores may differ in their last bits after the iteration.
    order = sorted(range(len(names)), key=lambda node: (-round(scores[node], 9), node))
    return [{"entity": names[node], "score": scores[node]} for node in order[:limit]]


def important_in(snapshot: Snapshot, limit: int) -> list[dict]:
    return ranked(snapshot.names, pagerank(len(snapshot.names), snapshot.links()), limit)


def between_in(snapshot: Snapshot, steps: int, sample: int | None, limit: int) -> list[dict]:
    size = len(snapshot.names)
    links = set(snapshot.links())
    if sample is not None and min(sample, size) * len(links) > MAX_SAMPLED_STEPS:
        raise Refused(
            f"a sample of {sample:,} would follow more than {MAX_SAMPLED_STEPS:,} relations: take fewer"
        )
    starts = sources(size, len(links), steps, sample)
    return ranked(snapshot.names, betweenness(size, links, starts), limit)


def groups_at(graph, scope: Scope, at: str, limit: int, most: int = MAX_READ) -> list[dict]:
    """groups() at a time: union-find over the relations that held then."""
    return grouped(read(graph, scope, at, most), limit)


def important_at(graph, scope: Scope, at: str, limit: int, most: int = MAX_READ) -> list[dict]:
    """important() at a time: PageRank by FalkorDB's rules over the relations that held then."""
    return important_in(read(graph, scope, at, most), limit)


def between_at(
    graph, scope: Scope, at: str, sample: int | None, limit: int, most: int = MAX_READ
) -> list[dict]:
    """between() at a time: Brandes' count over the relations that held then, 2,000,000 steps at most."""
    return between_in(read(graph, scope, at, most), BETWEEN_STEPS_AT, sample, limit)
