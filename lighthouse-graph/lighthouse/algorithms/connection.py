"""connection(): the shortest chain of relations between two entities, either way, now or at one time.

FalkorDB has no shortestPath that may go either way, so the search is here: from both ends, a step at a
time from the end with fewer nodes to follow, each step one query that sends the neighbours of that
end's frontier as two arrays of node ids. Only the chain found is named: one last query reads the keys
of its nodes and the relations between them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache

from .. import clock, values
from ..graphs import read
from ..kinds import Kind, is_kind
from ..values import Refused
from .kept import keep_picture, kept_picture, measure
from .scope import (
    MAX_READ,
    RECORD_EDGES,
    RECORD_LABELS,
    STOP_AFTER,
    Scope,
    asked_at,
    checked_kinds,
    checked_most,
    held_at,
    in_time,
    scope,
    timed,
)
from .snapshot import joined_ids, numbers

MAX_HOPS = 10
WHOLE_AFTER = 5_000  # frontier nodes past which every relation of the question is read at once
# ... and past which it is read, then kept until the graph grows, where the graph holds at most
# SMALL_GRAPH relations of the types (db.meta.stats() counts them): one read of 40,000 is about 40 ms.
WHOLE_AFTER_IN_SMALL = 64
SMALL_GRAPH = 200_000


@dataclass
class _Edge:
    relation: str
    forward: bool  # it points from the first node of the pair to the second
    since: datetime | None
    until: datetime | None
    current: bool

    def rank(self) -> tuple:
        """Smaller is better: one that holds now, else the one that ended last; then a fixed order."""
        ended = -self.until.timestamp() if self.until is not None else 0.0
        began = self.since.timestamp() if self.since is not None else 0.0
        return (not self.current, ended, began, self.relation, not self.forward)


@dataclass
class _Side:
    """One end of the search: how far each node it reached is, and the node it came from."""

    depth: dict[int, int]
    came: dict[int, int] = field(default_factory=dict)
    frontier: list[int] = field(default_factory=list)
    level: int = 0
    load: int = 0  # about how many relations its frontier has: what the next step from this end reads


@lru_cache(maxsize=256)
def _ends_query(start: str, end: str, chosen: Scope, at_a_time: bool) -> str:
    def existed(node: str) -> str:
        if not at_a_time:
            return f"{node} IS NOT NULL"
        # From its first State on, or while a relation that it is at one end of holds.
        return (
            f"{node} IS NOT NULL AND ({node}.valid_from <= localdatetime($at) "
            f"OR size([({node})-[:HAS_STATE]->(state_{node}:State) "
            f"WHERE state_{node}.valid_from <= localdatetime($at) | 1]) > 0 "
            f"OR size([({node})-[edge_{node}:{chosen.type_pattern()}]-() WHERE {held_at(f'edge_{node}')} | 1]) > 0)"
        )

    return (
        f"OPTIONAL MATCH (a:`{start}` {{key: $a}}) OPTIONAL MATCH (b:`{end}` {{key: $b}}) "
        f"WITH a, b, {existed('a')} AS a_existed, {existed('b')} AS b_existed "
        "RETURN CASE WHEN a_existed THEN id(a) END, CASE WHEN b_existed THEN id(b) END, "
        f"CASE WHEN a_existed THEN {_degree('a', chosen)} END, CASE WHEN b_existed THEN {_degree('b', chosen)} END"
    )


def _degree(node: str, chosen: Scope) -> str:
    """Cypher: about how many relations a search from the node would read (every edge of the types,
    at any time, to any label): what tells the cheaper end to follow."""
    return f"size([({node})-[:{chosen.type_pattern()}]-() | 1])"


def _patterns(chosen: Scope) -> list[tuple[str, str, str]]:
    """(label here, the edge as Cypher, label there) for each way an edge of the question goes."""
    found = []
    for start, kind, end in chosen.ends:
        found.append((start, f"-[r:`{kind}`]->", end))
        found.append((end, f"<-[r:`{kind}`]-", start))
    return found


@lru_cache(maxsize=256)
def _step_query(chosen: Scope, at_a_time: bool) -> str:
    # Both ends labelled, one part for each way an edge goes: no test of each neighbour's labels.
    held = f"WHERE {held_at('r')} " if at_a_time else ""
    return " UNION ALL ".join(
        f"UNWIND $ids AS i MATCH (n:`{here}`) WHERE id(n) = i MATCH (n){edge}(m:`{there}`) {held}"
        "WITH i, id(m) AS there LIMIT $cap WITH collect(i) AS heres, collect(there) AS theres "
        f"RETURN {joined_ids('heres')} AS heres, {joined_ids('theres')} AS theres"
        for here, edge, there in _patterns(chosen)
    )


@lru_cache(maxsize=256)
def _whole_query(chosen: Scope, at_a_time: bool) -> str:
    held = f"WHERE {held_at('r')} " if at_a_time else ""
    return " UNION ALL ".join(
        f"MATCH (x:`{start}`)-[r:`{kind}`]->(y:`{end}`) {held}WITH x, y LIMIT $cap "
        "WITH collect(id(x)) AS starts, collect(id(y)) AS ends "
        f"RETURN {joined_ids('starts')} AS starts, {joined_ids('ends')} AS ends"
        for start, kind, end in chosen.ends
    )


def _whole(graph, chosen: Scope, params: dict, most: int) -> dict[int, list[int]]:
    """Every node's neighbours, either way, from one read of every relation the question follows."""
    around: dict[int, list[int]] = {}
    spent = 0
    for starts, ends in read(
        graph, _whole_query(chosen, "at" in params), {**params, "cap": most + 1}, timeout=STOP_AFTER
    ):
        ones, others = numbers(starts), numbers(ends)
        spent += len(ones)
        if spent > most:
            raise Refused(
                f"the search reads more than {most:,} relations: ask about fewer kinds or relations"
            )
        for one, other in zip(ones, others, strict=True):
            if one != other:
                around.setdefault(one, []).append(other)
                around.setdefault(other, []).append(one)
    for neighbours in around.values():
        neighbours.sort()  # the oldest first, once: each step takes them in this order
    return around


@lru_cache(maxsize=256)
def _chain_query(chosen: Scope, at_a_time: bool) -> str:
    # The relations between the nodes of each step, then the label and key of each node of the chain.
    return (
        "UNWIND $pairs AS pair MATCH (x) WHERE id(x) = pair[0] "
        f"MATCH (x)-[r:{chosen.type_pattern()}]-(y) WHERE id(y) = pair[1]"
        f"{' AND ' + held_at('r') if at_a_time else ''} "
        "RETURN 0 AS part, pair[0] AS one, pair[1] AS other, type(r) AS relation, "
        "id(startNode(r)) = pair[0] AS forward, r.valid_from AS since, r.valid_to AS until "
        "UNION ALL UNWIND $ids AS i MATCH (n) WHERE id(n) = i "
        f"RETURN 1 AS part, i AS one, null AS other, {chosen.label_of('n')} AS relation, null AS forward, "
        f"{chosen.key_of('n')} AS since, null AS until"
    )


def _end(given: object, what: str) -> tuple[Kind, str | int]:
    if type(given) not in (tuple, list) or len(given) != 2 or not is_kind(given[0]):
        raise Refused(f"{what}: not a reference: an end is (Kind, key), not {values.printable(given)}")
    try:
        return given[0], values.key(given[1], f"the key of {what}")
    except Refused as error:
        raise Refused(f"{what}: not a reference: {error}") from None


def _edge(relation: str, forward: bool, since: object, until: object, present: datetime) -> _Edge:
    began, ended = clock.from_store(since), clock.from_store(until)
    if began is None:  # an edge of a record (ABOUT) has no time: it holds
        return _Edge(relation, forward, None, None, True)
    current = began <= present and (ended is None or ended > present)
    return _Edge(relation, forward, began, ended, current)


def _path(sides: tuple[_Side, _Side], meeting: int) -> list[int]:
    first, second = sides
    nodes, node = [meeting], meeting
    while node in first.came:
        node = first.came[node]
        nodes.append(node)
    nodes.reverse()
    node = meeting
    while node in second.came:
        node = second.came[node]
        nodes.append(node)
    return nodes


def _named_chain(graph, chosen: Scope, params: dict, nodes: list[int]) -> list[dict]:
    pairs = [[one, other] for one, other in zip(nodes, nodes[1:], strict=False)]
    rows = read(
        graph,
        _chain_query(chosen, "at" in params),
        {**params, "pairs": pairs, "ids": nodes},
        timeout=STOP_AFTER,
    )
    present = clock.present()
    names, best = {}, {}
    for part, one, other, relation, forward, since, until in rows:
        if part == 1:
            names[one] = (relation, since)
            continue
        edge = _edge(relation, forward, since, until, present)
        if (one, other) not in best or edge.rank() < best[(one, other)].rank():
            best[(one, other)] = edge
    return [
        {
            "from": names[one],
            "relation": best[(one, other)].relation,
            "to": names[other],
            "forward": best[(one, other)].forward,
            "current": best[(one, other)].current,
            "since": best[(one, other)].since,
            "until": best[(one, other)].until,
        }
        for one, other in pairs
    ]


def _through_records(relations: object) -> tuple[str, ...]:
    """Records take part when a relation named is an edge of records (checked again by scope())."""
    if type(relations) in (list, tuple) and any(
        type(relation) is str and relation in RECORD_EDGES for relation in list(relations)
    ):
        return RECORD_LABELS
    return ()


def connection(
    graph,
    start: tuple,
    end: tuple,
    kinds: list | tuple = (),
    relations: list[str] | None = None,
    max_hops: int = 6,
    at: object = None,
    *,
    most: int = MAX_READ,
) -> list[dict] | None:
    """The shortest chain of relations between two entities, following relations either way.

    start, end: (Kind, key). Each step: {"from", "relation", "to", "forward", "current", "since",
    "until"}: forward when the relation points from "from" to "to"; current when it holds now. Where
    several relations join the two things of a step, it tells of one that holds now, else of the one
    that ended last. [] when start and end are one entity; None when no chain of at most max_hops
    (1 to 10) steps joins them or either does not exist.

    It follows the relations of the kinds of its two ends; kinds adds kinds (one that points at both),
    relations keeps to those named, and an edge of records among them ("ABOUT", say) lets it go through
    records. Without at: every relation ever true. With at: the relations that held then (no records).
    Of chains of one length, the one through the oldest nodes (by node id). Reads at most `most`
    relations in all, one query a step, each stopped after 5 seconds (TooSlow, a ResponseError). A
    frontier past WHOLE_AFTER nodes (64 in a graph of at most 200,000 such relations) reads every
    relation at once instead; without at, what it read is kept until the graph grows.

    Arguments are checked before anything is read: a bad end raises Refused ("start: not a
    reference"), kinds not a list or tuple of Kind WrongType. Database errors propagate.
    """
    first, first_key = _end(start, "start")
    last, last_key = _end(end, "end")
    extra = checked_kinds(kinds, empty=True)
    chosen = scope([first, last, *extra], relations, _through_records(relations))
    max_hops = values.whole(max_hops, "max_hops", 1, MAX_HOPS)
    most = checked_most(most)
    params: dict = {"labels": list(chosen.labels)}
    if at is not None:
        params["at"] = asked_at(at)
        chosen = timed(chosen)
    with in_time():
        return _search(
            graph, chosen, params, (first.label, first_key), (last.label, last_key), max_hops, most
        )


def _search(
    graph, chosen: Scope, params: dict, start: tuple, end: tuple, max_hops: int, most: int
) -> list | None:
    """The search from both ends (start and end as (label, key)), once the arguments are checked."""
    at_a_time = "at" in params
    found = read(
        graph,
        _ends_query(start[0], end[0], chosen, at_a_time),
        {**params, "a": start[1], "b": end[1]},
        timeout=STOP_AFTER,
    )
    if not found or found[0][0] is None or found[0][1] is None:
        return None
    one, other, one_degree, other_degree = found[0]
    if one == other:
        return []
    sides = (
        _Side({one: 0}, frontier=[one], load=one_degree),
        _Side({other: 0}, frontier=[other], load=other_degree),
    )
    # Without a time, the picture of every relation is kept until the graph grows (kept.py): a search
    # that reached most of the graph once reads no relation the next time.
    found_measure = None if at_a_time else measure(graph, chosen)
    around = kept_picture(graph, ("connection", chosen), found_measure) if found_measure else None
    small = found_measure is not None and sum(count for _, count in found_measure.types) <= SMALL_GRAPH
    wide = WHOLE_AFTER_IN_SMALL if small else WHOLE_AFTER
    spent = 0
    while sides[0].frontier and sides[1].frontier and sides[0].level + sides[1].level < max_hops:
        side, facing = sides if sides[0].load <= sides[1].load else sides[::-1]
        if around is None and len(side.frontier) > wide:
            # A frontier this wide reads most of the graph a step at a time: one read of it all is less.
            around = _whole(graph, chosen, params, most)
            if found_measure is not None:
                keep_picture(graph, ("connection", chosen), found_measure, around)
        if around is None:
            result = read(
                graph,
                _step_query(chosen, at_a_time),
                {**params, "ids": side.frontier, "cap": most - spent + 1},
                timeout=STOP_AFTER,
            )
            reached: dict[int, list[int]] = {}
            for heres, theres in result:
                ones, others = numbers(heres), numbers(theres)
                spent += len(ones)
                for here, there in zip(ones, others, strict=True):
                    reached.setdefault(here, []).append(there)
            if spent > most:
                raise Refused(
                    f"the search reads more than {most:,} relations: ask about fewer kinds or relations"
                )
        else:
            reached = {here: around.get(here, []) for here in side.frontier}
        side.level += 1
        fresh = []
        for here in sorted(side.frontier):  # the oldest nodes first: the same graph, the same chain
            for there in sorted(reached.get(here, ())):
                if there not in side.depth:
                    side.depth[there] = side.level
                    side.came[there] = here
                    fresh.append(there)
        side.frontier = fresh
        # What the next step from this end reads: known once the graph is read whole, else its width.
        side.load = len(fresh) if around is None else sum(len(around.get(node, ())) for node in fresh)
        if around is not None:
            facing.load = sum(len(around.get(node, ())) for node in facing.frontier)
        meetings = [node for node in fresh if node in facing.depth]
        if meetings:
            meeting = min(meetings, key=lambda node: (facing.depth[node], node))
            return _named_chain(graph, chosen, params, _path(sides, meeting))
    return None
