"""Rows that came late: what is stored around each one's time, read for a batch in one query."""

from __future__ import annotations

from functools import lru_cache

from .. import clock
from ..graphs import read
from ..kinds import INTERNAL, OWNED_NAMES, Kind
from .plans import Around, Edge, StateView, relations_from
from .rows import Row, typed


@lru_cache(maxsize=256)
def not_values(kind: Kind) -> frozenset:
    """The names an entity node or a State holds that are not values (besides those of the internal prefix)."""
    return OWNED_NAMES | {kind.key}


def stored_values(kind: Kind, props: dict) -> dict:
    """The values of a node's properties: without the library's own names, times in the one format."""
    skipped = not_values(kind)  # and every name is_owned() says is the library's: the internal prefix
    found = {
        name: item for name, item in props.items() if name not in skipped and not name.startswith(INTERNAL)
    }
    for name in kind.times:
        if name in found:
            found[name] = clock.stamp_of(clock.from_store(found[name]))
    return found


EDGE_READ = "[type(r), x.key, id(r), r.valid_from, r.valid_to, id(x)]"  # what edges_from() reads of r to x


def edges_from(listed: list) -> list[Edge]:
    """Edges from EDGE_READ lists (all null where no edge was found)."""
    return [
        Edge(rid, relation, target, clock.from_store(start), clock.from_store(end), node)
        for relation, target, rid, start, end, node in listed
        if rid is not None
    ]


def holding(edges: list[Edge], moment) -> dict:
    """The edges that hold at a moment, by (relation, typed target): a target is a key, never a list, so
    typed() is written out (a late row makes some twenty of these)."""
    return {
        (edge.relation, (type(edge.target).__name__, edge.target)): edge
        for edge in edges
        if edge.valid_from <= moment and (edge.valid_to is None or edge.valid_to > moment)
    }


def state_view(kind: Kind, sid, stored: list, edges: list[Edge]) -> StateView | None:
    """A State from [valid_from, valid_to, seen_last, fp, its properties or null]: the values and the
    relations, which its content is compared by, only for a State kept without a fingerprint."""
    if sid is None:
        return None
    start, end, seen_last, fp, props = stored
    view = StateView(
        sid, clock.from_store(start), clock.from_store(end), clock.from_store(seen_last), None, None, fp
    )
    if fp is None:
        view.values = stored_values(kind, props or {})
        view.relations = relations_from(holding(edges, view.valid_from), kind)
    return view


def relation_types(kind: Kind) -> str:
    """The kind's relation types as a pattern says them (":A|B"), so only those edges are traversed."""
    if not kind.relations:
        return ":NO_RELATION"  # a type no edge has: a kind without relations reads none
    return ":" + "|".join(f"`{relation}`" for relation in kind.relations)


@lru_cache(maxsize=256)
def _around_query(kind: Kind) -> str:
    # States without their label, so that no plan starts from the index on State.valid_from.
    return (
        "UNWIND $rows AS row "
        f"MATCH (e:`{kind.label}` {{key: row.key}}) "
        "WITH e, row, localdatetime(row.t) AS t "
        "OPTIONAL MATCH (e)-[:HAS_STATE]->(s) WHERE s.valid_from <= t AND (s.valid_to IS NULL OR s.valid_to > t) "
        "WITH e, row, t, s "
        "OPTIONAL MATCH (e)-[:HAS_STATE]->(later) WHERE later.valid_from > t "
        "WITH e, row, t, s, min(later.valid_from) AS nf "
        "OPTIONAL MATCH (e)-[:HAS_STATE]->(n) WHERE n.valid_from = nf "
        "WITH e, row, t, s, n "
        f"OPTIONAL MATCH (e)-[r{relation_types(kind)}]->(x) WHERE r.valid_from <= coalesce(n.valid_from, t) "
        "  AND (r.valid_to IS NULL OR r.valid_to > coalesce(s.valid_from, t)) "
        # Grouped by the nodes, not by their properties: a map is a slow key to group by.
        f"WITH row.i AS i, s, n, collect({EDGE_READ}) AS edges "
        # A State's properties only when it has no fingerprint to be compared by: the two maps a row were
        # half of what the client parsed of this read.
        "RETURN i, id(s), [s.valid_from, s.valid_to, s.seen_last, s.fp, "
        "  CASE WHEN s.fp IS NULL THEN properties(s) END], id(n), "
        "  [n.valid_from, n.valid_to, n.seen_last, n.fp, CASE WHEN n.fp IS NULL THEN properties(n) END], edges"
    )


def read_around(graph, kind: Kind, rows: list[Row], current: dict) -> dict[int, Around]:
    """For each late row: the State its time falls in, the State after it, and the edges of both."""
    if not rows:
        return {}
    result = read(
        graph,
        _around_query(kind),
        {
            "rows": [{"i": row.index, "key": row.key, "t": clock.stamp_of(row.t)} for row in rows],
        },
    )
    found = {}
    by_index = {row.index: row for row in rows}
    for index, sid, held, nid, after, listed in result:
        row = by_index[index]
        edges = edges_from(listed)
        now = current[typed(row.key)]
        # The revision of the first read: a writer that came between the two reads makes the plan wait.
        around = Around(rev=now.rev, props=now.props, current=now.current)
        around.prev = state_view(kind, sid, held, edges)
        around.next = state_view(kind, nid, after, edges)
        around.edges_prev = holding(edges, row.t) if around.prev else {}
        around.edges_next = holding(edges, around.next.valid_from) if around.next else {}
        found[index] = around
    return found
