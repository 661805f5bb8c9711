"""FalkorDB's own algorithms over the fleet, timed as a reference for groups() and important().

The library computes both in Python from one read of the relations, because FalkorDB 4.22.1's PageRank
is wrong where other nodes lie between (tests/test_algorithms_ranking.py). These workloads time what a
call of the built-ins costs on the same graph, each on a database client of its own like the first calls
of groups() and important(): algo.WCC's groups with their sizes and first members, and algo.pageRank's
ten best. Both are shown against `edges_read`, the read the library cannot do without: a built-in that
takes less than that read is out of reach of any answer computed outside FalkorDB.
"""

from __future__ import annotations

from graph_work import LIMIT, SHOWN, _fresh_graphs
from lighthouse.wire import read_rows
from registry import Context, Measured, expect, timed_calls, workload

_LABELS = "['Device', 'Room', 'Team']"
_TYPES = "['LOCATED_IN', 'USED_BY']"
# The groups of the devices, rooms and teams, largest first, each with its first members: what groups()
# answers, without the order of names (the built-in knows none).
_WCC = (
    f"CALL algo.WCC({{nodeLabels: {_LABELS}, relationshipTypes: {_TYPES}}}) YIELD node, componentId "
    "WITH componentId, count(*) AS size, collect(node.key) AS members "
    f"RETURN size, members[..{SHOWN}] ORDER BY size DESC LIMIT {LIMIT}"
)
# PageRank over the relations of both types (the procedure takes one type or all: all, then kept to the
# three labels), the ten best.
_PAGERANK = (
    "CALL algo.pageRank(NULL, NULL) YIELD node, score "
    "WITH node, score WHERE node:Device OR node:Room OR node:Team "
    f"RETURN node.key, score ORDER BY score DESC LIMIT {LIMIT}"
)


def _called(ctx: Context, query: str) -> tuple[list, float]:
    """The built-in's query, once through each of the first calls' fresh clients: answers and seconds."""
    return timed_calls(lambda graph: read_rows(graph, query), _fresh_graphs(ctx))


@workload(
    "groups_builtin",
    "calls",
    needs=("groups",),
    floor="edges_read",
    about="reference: FalkorDB's algo.WCC over the same labels and types, sizes and first members, five calls",
)
def groups_builtin(ctx: Context) -> Measured:
    """algo.WCC's groups: their sizes must be those groups() gave."""
    answers, seconds = _called(ctx, _WCC)
    sizes = [group["size"] for group in ctx.shared["groups"]]
    for answer in answers:
        found = [size for size, _members in answer if size >= 2]
        expect(found == sizes, f"groups_builtin: sizes {found}, groups() gave {sizes}")
    return Measured(len(answers), seconds, len(answers))


@workload(
    "important_builtin",
    "calls",
    needs=("important",),
    floor="edges_read",
    about="reference: FalkorDB's algo.pageRank over the whole graph, the 10 best devices, rooms or teams",
)
def important_builtin(ctx: Context) -> Measured:
    """algo.pageRank's ten best: ten rows each (its scores are not the library's: not checked)."""
    answers, seconds = _called(ctx, _PAGERANK)
    for answer in answers:
        expect(len(answer) == LIMIT, f"important_builtin: {len(answer)} rows, not {LIMIT}")
    return Measured(len(answers), seconds, len(answers))
