"""The algorithms over the whole fleet: groups(), important() and connection(), first and asked again.

groups() and important() keep their answer until the graph grows: the second identical call is the
kept answer. connection() keeps nothing; its second call shows the same search again. All are shown
as info, with no target. Each answer is checked against the same computation done here in plain
Python over the fleet's relations (every relation ever true, as the calls without a time read).
"""

from __future__ import annotations

from collections import deque

from fleet import DEVICE, Fleet
from lighthouse import connection, groups, important
from lighthouse.wire import read_rows
from registry import Context, Measured, expect, timed_calls, workload

PAIRS = 10  # connection() calls, each between two random devices
# First calls of groups() and important(), and reads of their floor: each on a database client of its own,
# which keeps no answer yet. One call of 0.1 s timed alone moved by half from run to run.
FIRST_CALLS = 5
MAX_HOPS = 10  # the most connection() follows: chains of the fleet reach 10 steps
LIMIT = 10
SHOWN = 100  # the members each group of groups() lists, by default
DAMPING = 0.85
SCORE_SLACK = 1e-6

Name = tuple[str, str]


def _edges(fleet: Fleet) -> set[tuple[Name, str, Name]]:
    """Every relation ever true: (device, relation, target)."""
    labels = {relation: DEVICE.target(relation).label for relation in DEVICE.relations}
    return {
        ((DEVICE.label, key), relation, (labels[relation], target))
        for key in fleet.written
        for relation, target in fleet.ever(key)
    }


def _names(fleet: Fleet, edges: set) -> list[Name]:
    found = {(DEVICE.label, key) for key in fleet.written}
    found |= {end for _start, _relation, end in edges}
    return sorted(found)


# The edges groups() and important() read, as one query sends them at the least: node ids, no key.
_EDGES = (
    "MATCH (x:Device)-[r:LOCATED_IN|USED_BY]->(y) WITH collect(id(x)) AS starts, collect(id(y)) AS ends "
    "RETURN starts, ends"
)


@workload(
    "edges_read",
    "calls",
    needs=("create",),
    about="the query that reads the edges groups() and important() follow, as two arrays of node ids, five times",
)
def edges_read(ctx: Context) -> Measured:
    """The floor of groups() and important(): reads of every relation of the devices, ever true, each
    decoded as the library decodes its reads (lighthouse.wire), on a client of its own."""
    answers, seconds = timed_calls(lambda graph: read_rows(graph, _EDGES), _fresh_graphs(ctx))
    wanted = len(_edges(ctx.fleet))
    for answer in answers:
        expect(len(answer[0][0]) >= wanted, f"edges_read: {len(answer[0][0])} edges, fewer than {wanted}")
    return Measured(len(answers), seconds, len(answers))


def _fresh_graphs(ctx: Context) -> list:
    """The run's graph through FIRST_CALLS new database clients: none has kept an answer."""
    return [ctx.graph_of(ctx.connect(), ctx.graph.name) for _ in range(FIRST_CALLS)]


def _groups(graph) -> list[dict]:
    return groups(graph, [DEVICE], limit=LIMIT)


def _important(graph) -> list[dict]:
    return important(graph, [DEVICE], limit=LIMIT)


def _asked_again(ctx: Context, name: str, call) -> Measured:
    """The same call on the same graph again: its answer must be the first call's (kept in ctx.shared)."""
    [answer], seconds = timed_calls(call, [ctx.graph])
    expect(answer == ctx.shared[name], f"{name}_kept: the second answer differs from the first")
    return Measured(1, seconds, 1)


def _components(names: list[Name], edges: set) -> list[list[Name]]:
    """Union-find: every group with its members sorted, largest first, ties by first member."""
    parent = {name: name for name in names}

    def root(name: Name) -> Name:
        while parent[name] != name:
            parent[name] = parent[parent[name]]
            name = parent[name]
        return name

    for start, _relation, end in edges:
        one, other = root(start), root(end)
        if one != other:
            parent[max(one, other)] = min(one, other)
    members: dict[Name, list[Name]] = {}
    for name in names:
        members.setdefault(root(name), []).append(name)
    return sorted((sorted(group) for group in members.values()), key=lambda group: (-len(group), group[0]))


def _listed(components: list[list[Name]]) -> list[dict]:
    """The best 10 groups of 2 or more as groups() gives them: each lists its first 100 members."""
    return [{"size": len(group), "members": group[:SHOWN]} for group in components if len(group) >= 2][:LIMIT]


def _plain(answer: list[dict]) -> list[dict]:
    """An answer with its names as tuples, to compare with one computed here."""
    return [
        {**group, "members": [tuple(name) for name in group["members"]]} if "members" in group else group
        for group in answer
    ]


@workload(
    "groups",
    "calls",
    needs=("create",),
    floor="edges_read",
    target=0.5,
    about="groups() of the devices, rooms and teams: five first calls (union-find over one read of ids)",
)
def groups_first(ctx: Context) -> Measured:
    """First groups() calls, each on a client of its own; the groups must be those union-find gives here."""
    answers, seconds = timed_calls(_groups, _fresh_graphs(ctx))
    expect(all(one == answers[0] for one in answers), "groups: the first calls gave other answers")
    answer = timed_calls(_groups, [ctx.graph])[0][0]  # the run's own client keeps it for groups_kept
    expect(answer == answers[0], "groups: the run's client was given another answer")
    edges = _edges(ctx.fleet)
    components = _components(_names(ctx.fleet, edges), edges)
    wanted = _listed(components)
    got = _plain(answer)
    expect(
        [group["size"] for group in got] == [group["size"] for group in wanted],
        f"groups: sizes {[group['size'] for group in got]}, not {[group['size'] for group in wanted]}",
    )
    for place, (group, expected) in enumerate(zip(got, wanted, strict=True)):
        expect(
            group["members"] == expected["members"],
            f"groups: group {place + 1} lists other members than union-find's first {SHOWN}",
        )
    ctx.shared["groups"] = answer
    return Measured(len(answers), seconds, len(answers))


@workload(
    "groups_kept",
    "calls",
    needs=("groups",),
    floor="indexed_match",
    about="groups() asked again on the same graph: the kept answer",
)
def groups_kept(ctx: Context) -> Measured:
    return _asked_again(ctx, "groups", _groups)


def _pagerank(names: list[Name], edges: set) -> dict[Name, float]:
    """PageRank by FalkorDB's rules: damping 0.85, a node with no edge out spreads its rank over all."""
    place = {name: number for number, name in enumerate(names)}
    links = {(place[start], place[end]) for start, _relation, end in edges}
    size = len(names)
    out = [0] * size
    into: list[list[int]] = [[] for _ in range(size)]
    for start, end in links:
        out[start] += 1
        into[end].append(start)
    rank = [1.0 / size] * size
    for _ in range(1_000):
        spread = (1 - DAMPING + DAMPING * sum(rank[node] for node in range(size) if not out[node])) / size
        fresh = [
            spread + DAMPING * sum(rank[other] / out[other] for other in into[node]) for node in range(size)
        ]
        change = sum(abs(a - b) for a, b in zip(fresh, rank, strict=True))
        total = sum(fresh)
        rank = [score / total for score in fresh]
        if change < 1e-12:
            break
    return {name: rank[place[name]] for name in names}


@workload(
    "important",
    "calls",
    needs=("create",),
    floor="edges_read",
    target=0.5,
    about="important() of the devices, rooms and teams (PageRank in Python over one read): five first calls",
)
def important_first(ctx: Context) -> Measured:
    """First important() calls, each on a client of its own; each score must be the PageRank computed
    here, and the best 10 the best."""
    answers, seconds = timed_calls(_important, _fresh_graphs(ctx))
    expect(all(one == answers[0] for one in answers), "important: the first calls gave other answers")
    answer = timed_calls(_important, [ctx.graph])[0][0]  # the run's own client keeps it for important_kept
    expect(answer == answers[0], "important: the run's client was given another answer")
    edges = _edges(ctx.fleet)
    scores = _pagerank(_names(ctx.fleet, edges), edges)
    best = sorted(scores.values(), reverse=True)[:LIMIT]
    expect(len(answer) == len(best), f"important: {len(answer)} results, not {len(best)}")
    for place, one in enumerate(answer):
        name = tuple(one["entity"])
        expect(name in scores, f"important: {name} is not a device, room or team of the fleet")
        expect(
            abs(one["score"] - scores[name]) <= SCORE_SLACK,
            f"important: {name} scored {one['score']}, PageRank here gives {scores[name]}",
        )
        expect(
            abs(one["score"] - best[place]) <= SCORE_SLACK,
            f"important: result {place + 1} scored {one['score']}, the {place + 1}th best is {best[place]}",
        )
    ctx.shared["important"] = answer
    return Measured(len(answers), seconds, len(answers))


@workload(
    "important_kept",
    "calls",
    needs=("important",),
    floor="indexed_match",
    about="important() asked again on the same graph: the kept answer",
)
def important_kept(ctx: Context) -> Measured:
    return _asked_again(ctx, "important", _important)


def _around(edges: set) -> dict[Name, set[Name]]:
    """Each name's neighbours, following the relations either way."""
    around: dict[Name, set[Name]] = {}
    for one, _relation, other in edges:
        around.setdefault(one, set()).add(other)
        around.setdefault(other, set()).add(one)
    return around


def _distance(around: dict[Name, set[Name]], start: Name, end: Name) -> int | None:
    """The fewest relations between two names (around: _around() of the edges)."""
    depth, waiting = {start: 0}, deque([start])
    while waiting:
        here = waiting.popleft()
        if here == end:
            return depth[here]
        for there in around.get(here, ()):
            if there not in depth:
                depth[there] = depth[here] + 1
                waiting.append(there)
    return None


def _chain_differs(
    chain: list[dict] | None, start: Name, end: Name, edges: set, length: int | None
) -> str | None:
    """Why a chain is not a shortest chain of relations from start to end; None when it is."""
    if chain is None or length is None:
        return None if chain is None and length is None else f"chain {chain}, shortest {length}"
    if len(chain) != length:
        return f"{len(chain)} steps, the shortest has {length}"
    at = start
    for step in chain:
        here, there = tuple(step["from"]), tuple(step["to"])
        if here != at:
            return f"a step from {here} after reaching {at}"
        edge = (here, step["relation"], there) if step["forward"] else (there, step["relation"], here)
        if edge not in edges:
            return f"a step through {edge}, which never held"
        at = there
    return None if at == end else f"the chain ends at {at}, not {end}"


def _connections(ctx: Context, name: str) -> Measured:
    """connection() of the same random pairs each time; the first answers are kept to compare."""
    pairs = ctx.shared.setdefault(
        "pairs", [tuple(ctx.rng.sample(sorted(ctx.fleet.written), 2)) for _ in range(PAIRS)]
    )
    answers, seconds = timed_calls(
        lambda pair: connection(ctx.graph, (DEVICE, pair[0]), (DEVICE, pair[1]), max_hops=MAX_HOPS), pairs
    )
    edges = _edges(ctx.fleet)
    around = _around(edges)
    for (one, other), chain in zip(pairs, answers, strict=True):
        start, end = (DEVICE.label, one), (DEVICE.label, other)
        length = _distance(around, start, end)
        why = _chain_differs(
            chain, start, end, edges, None if length is None or length > MAX_HOPS else length
        )
        expect(why is None, f"{name}({one}, {other}): {why}")
    first = ctx.shared.setdefault("connections", answers)
    expect(answers == first, f"{name}: the answers differ from the first calls'")
    return Measured(len(pairs), seconds, len(answers))


@workload(
    "connection",
    "calls",
    needs=("create",),
    floor="indexed_match",
    about="connection() between two random devices, either way (a search from both ends): first calls",
)
def connection_first(ctx: Context) -> Measured:
    """10 connection() calls; each chain must be a shortest chain of relations that held, in order."""
    return _connections(ctx, "connection")


@workload(
    "connection_again",
    "calls",
    needs=("connection",),
    floor="indexed_match",
    about="the same connection() calls again (nothing is kept: the search runs again)",
)
def connection_again(ctx: Context) -> Measured:
    """The same 10 calls; the chains must be the first calls' chains."""
    return _connections(ctx, "connection_again")
