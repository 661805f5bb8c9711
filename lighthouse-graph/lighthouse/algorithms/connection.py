"""connection(): the shortest chain of relations between two entities, either way, now or at one time.

FalkorDB has no shortestPath that may go either way, so the search is here: from both ends, a step at a
time from the end with fewer relations to follow, each step one query that reads only the neighbours of
that end's frontier, found by their node ids, and how many relations each of them has.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache

from .. import clock, values
from ..graphs import read
from ..kinds import Kind
from ..values import Refused
from .components import Name, name_key
from .scope import ABOUT, MAX_READ, RECORDS, Scope, checked_kinds, checked_most, held_at, moment, scope


@dataclass
class _Edge:
    relation: str
    starts_here: bool  # the edge starts at the node the step was read from
    since: datetime | None
    until: datetime | None
    current: bool

    def rank(self) -> tuple:
        """Smaller is better: one that holds now, else the one that ended last; then a fixed order."""
        ended = -self.until.timestamp() if self.until is not None else 0.0
        began = self.since.timestamp() if self.since is not None else 0.0
        return (not self.current, ended, began, self.relation, not self.starts_here)


@dataclass
class _Side:
    """One end of the search: how far each node it reached is, and the edge it came by."""

    depth: dict[int, int]
    came: dict[int, tuple[int, _Edge]] = field(default_factory=dict)
    frontier: list[int] = field(default_factory=list)
    load: int = 0  # the relations its frontier has: what the next step from this end reads


def _degree(node: str, scope: Scope, timed: bool) -> str:
    """Cypher: how many relations the search would read from a node: what makes an end cheaper to follow."""
    edge, other = f"degree_{node}", f"beyond_{node}"
    held = f" AND {held_at(edge)}" if timed else ""
    return (
        f"size([({node})-[{edge}:{scope.type_pattern()}]-({other}) "
        f"WHERE {scope.label_test(other)}{held} | 1])"
    )


@lru_cache(maxsize=256)
def _ends_query(start: str, end: str, scope: Scope, timed: bool) -> str:
    def existed(node: str) -> str:
        if not timed:
            return f"{node} IS NOT NULL"
        # From its first State on, or while a relation that it is at one end of holds.
        return (
            f"{node} IS NOT NULL AND ({node}.valid_from <= localdatetime($at) "
            f"OR size([({node})-[:HAS_STATE]->(state_{node}:State) "
            f"WHERE state_{node}.valid_from <= localdatetime($at) | 1]) > 0 "
            f"OR size([({node})-[edge_{node}:{scope.type_pattern()}]-() WHERE {held_at(f'edge_{node}')} | 1]) > 0)"
        )

    return (
        f"OPTIONAL MATCH (a:`{start}` {{key: $a}}) OPTIONAL MATCH (b:`{end}` {{key: $b}}) "
        f"WITH a, b, {existed('a')} AS a_existed, {existed('b')} AS b_existed "
        "RETURN CASE WHEN a_existed THEN id(a) END, CASE WHEN b_existed THEN id(b) END, "
        f"CASE WHEN a_existed THEN {_degree('a', scope, timed)} END, "
        f"CASE WHEN b_existed THEN {_degree('b', scope, timed)} END"
    )


@lru_cache(maxsize=256)
def _step_query(scope: Scope, timed: bool) -> str:
    return (
        "UNWIND $ids AS i MATCH (n) WHERE id(n) = i "
        f"MATCH (n)-[r:{scope.type_pattern()}]-(m) WITH n, r, m "
        f"WHERE {scope.label_test('m')}{' AND ' + held_at('r') if timed else ''} "
        # Each neighbour's relations are counted once, not once for every edge that reaches it: a team
        # that 750 devices point at was counted 750 times in each step.
        "WITH m, collect([id(n), type(r), id(startNode(r)) = id(n), r.valid_from, r.valid_to]) AS reached "
        f"WITH m, reached, {_degree('m', scope, timed)} AS degree "
        "UNWIND reached AS edge "
        f"RETURN edge[0], id(m), edge[1], edge[2], edge[3], edge[4], {scope.label_of('m')}, {scope.key_of('m')}, "
        "degree LIMIT $cap"
    )


def _end(given: object, what: str) -> tuple[Kind, str | int]:
    if not isinstance(given, tuple | list) or len(given) != 2 or not isinstance(given[0], Kind):
        raise Refused(f"{what} is (Kind, key), not {type(given).__name__}")
    return given[0], values.key(given[1], f"the key of {what}")


def _edge(relation: str, starts_here: bool, since: object, until: object, present: datetime) -> _Edge:
    began, ended = clock.from_store(since), clock.from_store(until)
    if began is None:  # an edge of a record (ABOUT) has no time: it holds
        return _Edge(relation, starts_here, None, None, True)
    current = began <= present and (ended is None or ended > present)
    return _Edge(relation, starts_here, began, ended, current)


def _step(names: dict[int, Name], here: int, there: int, edge: _Edge, forward: bool) -> dict:
    return {
        "from": names[here],
        "relation": edge.relation,
        "to": names[there],
        "forward": forward,
        "current": edge.current,
        "since": edge.since,
        "until": edge.until,
    }


def _chain(names: dict[int, Name], sides: tuple[_Side, _Side], meeting: int) -> list[dict]:
    first, second = sides
    steps, node = [], meeting
    while node in first.came:  # back from the meeting node to the start, then turned round
        before, edge = first.came[node]
        steps.append(_step(names, before, node, edge, edge.starts_here))
        node = before
    steps.reverse()
    node = meeting
    while node in second.came:  # on from the meeting node to the end: the edges were read from the far side
        after, edge = second.came[node]
        steps.append(_step(names, node, after, edge, not edge.starts_here))
        node = after
    return steps


def connection(
    graph,
    a: tuple,
    b: tuple,
    kinds: list | None = None,
    relations: list[str] | None = None,
    at: object = None,
    *,
    most: int = MAX_READ,
) -> list[dict] | None:
    """The shortest chain of relations between two entities, following relations either way.

    a, b: (Kind, key). Each step: {"from", "relation", "to", "forward", "current", "since", "until"}:
    forward when the relation points from "from" to "to"; current when it holds now. Where several
    relations join the two things of a step, it tells of one that holds now, else of the one that ended
    last. [] when a and b are one entity; None when no chain joins them or either does not exist.

    It follows the relations of the kinds of its two ends; kinds adds kinds (one that points at both),
    relations keeps to those named, and "ABOUT" among them lets it go through episodes and lessons.
    Without at: every relation ever true. With at: the relations that held then (no records).
    Of chains of one length, the one through the first nodes in label then key order. Reads at most
    `most` relations in all, one query a step.
    """
    start, start_key = _end(a, "a")
    end, end_key = _end(b, "b")
    extra = [] if kinds is None else checked_kinds(kinds)
    named = relations if isinstance(relations, list | tuple) else [relations]
    records = list(RECORDS) if relations is not None and ABOUT in named else None
    chosen = scope([start, end, *extra], relations, records)
    most = checked_most(most)
    params: dict = {"labels": list(chosen.labels)}
    if at is not None:
        chosen = chosen.at_one_time()
        if not chosen.types:
            raise Refused("records have no time: at a time, name a relation of the kinds")
        params = {"labels": list(chosen.labels), "at": moment(at)}
    timed = at is not None
    found = read(
        graph, _ends_query(start.label, end.label, chosen, timed), {**params, "a": start_key, "b": end_key}
    )
    if not found or found[0][0] is None or found[0][1] is None:
        return None
    one, other, one_degree, other_degree = found[0]
    if one == other:
        return []
    names: dict[int, Name] = {one: (start.label, start_key), other: (end.label, end_key)}
    sides = (
        _Side({one: 0}, frontier=[one], load=one_degree),
        _Side({other: 0}, frontier=[other], load=other_degree),
    )
    present, spent = clock.present(), 0
    while sides[0].frontier and sides[1].frontier:
        side, facing = sides if sides[0].load <= sides[1].load else sides[::-1]
        result = read(
            graph, _step_query(chosen, timed), {**params, "ids": side.frontier, "cap": most - spent + 1}
        )
        spent += len(result)
        if spent > most:
            raise Refused(
                f"the search reads more than {most:,} relations: ask about fewer kinds or relations"
            )
        best: dict[tuple[int, int], _Edge] = {}
        degrees: dict[int, int] = {}
        for here, there, relation, starts_here, since, until, label, key, degree in result:
            if here == there:
                continue
            names.setdefault(there, (label, key))
            degrees[there] = degree
            edge = _edge(relation, starts_here, since, until, present)
            if (here, there) not in best or edge.rank() < best[(here, there)].rank():
                best[(here, there)] = edge
        reached: dict[int, list[int]] = {}
        for here, there in best:
            reached.setdefault(here, []).append(there)
        fresh = []
        for here in sorted(side.frontier, key=lambda node: name_key(names[node])):
            for there in sorted(reached.get(here, ()), key=lambda node: name_key(names[node])):
                if there not in side.depth:
                    side.depth[there] = side.depth[here] + 1
                    side.came[there] = (here, best[(here, there)])
                    fresh.append(there)
        side.frontier, side.load = fresh, sum(degrees[node] for node in fresh)
        meetings = [node for node in fresh if node in facing.depth]
        if meetings:
            meeting = min(
                meetings, key=lambda node: (side.depth[node] + facing.depth[node], name_key(names[node]))
            )
            return _chain(names, sides, meeting)
    return None
