"""What is stored now of the entities of a batch's rows: one light read before the batch is decided."""

from __future__ import annotations

from functools import lru_cache

from .. import clock
from ..graphs import read
from ..kinds import INTERNAL, LINKS_FP, REVISION, Kind
from .ahead import server_at_work
from .late import EDGE_READ, edges_from, holding, not_values, relation_types
from .plans import Around, StateView, relations_from
from .rows import Row, typed

QUIET = Around()  # read_current(): the row repeats a State seen at or after its time; nothing is written
ABSENT = Around(absent=True)  # read_current(): no node of the entity (one for all: it is only read)


@lru_cache(maxsize=256)
def _current_query(kind: Kind) -> str:
    # Each row brings its fingerprint and time. A row that repeats the current State, or that is late
    # (before the current State), gets back only times and fingerprints: of the current State, and of the
    # past State its time falls in. Values and edges come back only for the rows that may change them.
    # A row whose entity does not exist gets back nothing (MATCH, not OPTIONAL): read_current() knows it
    # by its absence, so a batch of new entities costs an index lookup a row and no reply.
    # A quiet row (it repeats the State its time falls in, and that State was seen at or after its time:
    # decide() would write nothing) gets back its key alone, not a list: the client parsed 11 values a
    # row for 10,000 rows sent again in 0.15 s, a third of what the read took.
    # The entity node holds its current State's fingerprint and times, so the current State is only
    # walked to for a row that is not quiet: that halved what the quiet rows of a batch sent again cost FalkorDB.
    return (
        "UNWIND $rows AS row "
        f"MATCH (e:`{kind.label}` {{key: row[0]}}) "
        "WITH row, e, localdatetime(row[2]) AS t "
        # No label on h or s, and the relation types in the pattern: each halved what its step cost.
        "OPTIONAL MATCH (e)-[:HAS_STATE]->(h) WHERE e.valid_from > t AND h.valid_from <= t AND h.valid_to > t "
        "WITH row, e, h, t, "
        "  coalesce((e.fp = row[1] AND e.valid_from <= t AND t <= coalesce(e.seen_last, e.valid_from)) "
        "    OR (h.fp = row[1] AND t <= coalesce(h.seen_last, h.valid_from)), false) AS quiet "
        "OPTIONAL MATCH (e)-[:HAS_STATE]->(s) WHERE NOT quiet AND s.valid_to IS NULL "
        "WITH row, e, s, h, quiet, quiet OR coalesce(e.fp = row[1], false) OR coalesce(s.valid_from > t, false) "
        "  AS light, "
        # A late row in the State just before the current one, with other content: its edges come too, and
        # it needs no read around it (both States are here, compared by their fingerprints).
        "  coalesce(s.valid_from > t AND h.valid_to = s.valid_from AND h.fp <> row[1] AND e.fp IS NOT NULL, false) "
        "  AS before_current, "
        # A change that names the targets the current State has (the entity keeps their digest) needs none
        # of its edges: a change of 10,000 rows keeping theirs read in 0.35 s inside FalkorDB, not 0.69.
        # Only beside the entity's fp: without it the current State is compared by its values and edges.
        f"  coalesce(e.fp IS NOT NULL AND e.`{LINKS_FP}` = row[3], false) AS same_links "
        "WITH row, e, s, h, quiet, light, before_current, same_links, NOT light AND NOT same_links AS current_edges "
        # The first condition names no edge, so FalkorDB tests it before it walks them: alone in an OR with
        # the others, it was tested for each edge, and the read of a batch sent again took twice as long.
        f"OPTIONAL MATCH (e)-[r{relation_types(kind)}]->(x) WHERE (current_edges OR before_current) "
        "  AND ((current_edges AND r.valid_to IS NULL) OR (before_current AND r.valid_from <= s.valid_from "
        "    AND (r.valid_to IS NULL OR r.valid_to > h.valid_from))) "
        # One shape for every edge: a CASE per row that left open edges without their always null valid_to
        # cost FalkorDB more than the client's parsing of it. No edge found: an empty list, not one of nulls.
        "WITH row, e, s, h, quiet, light, before_current, same_links, "
        f"  collect(CASE WHEN r IS NULL THEN null ELSE {EDGE_READ} END) AS listed "
        # Of the entity's properties, only its values: not its vector (a model's 1,536 numbers were parsed
        # for every row of a change), nor its words, times and marks. FalkorDB 4.22.1 works out both
        # branches of a CASE, so what a quiet row does not get is made over an empty list for it, and the
        # value names over an empty list for a light row. 500 quiet rows: 9.2 to 10.0 ms a read, against
        # 12.5 to 13.5 when every entity's keys were filtered and 10.3 to 11.7 with only that left out.
        f"RETURN CASE WHEN quiet THEN row[0] ELSE head([detail IN CASE WHEN quiet THEN [] ELSE [1] END | "
        f"  [row[0], e.`{REVISION}`, e.fp, light, "
        "  [name IN CASE WHEN light THEN [] ELSE keys(e) END WHERE NOT name IN $owned "
        f"    AND NOT name STARTS WITH '{INTERNAL}' | [name, e[name]]], id(s), s.valid_from, s.seen_last, "
        "  CASE WHEN h IS NULL THEN null ELSE [id(h), h.valid_from, h.valid_to, h.seen_last, h.fp] END, "
        "  before_current, listed, same_links]]) END"
    )


@lru_cache(maxsize=256)
def _owned(kind: Kind) -> list[str]:
    return sorted(not_values(kind))


def _values(kind: Kind, pairs: list) -> dict:
    """The entity's values from the read's [name, value] pairs: the query left out every name that is not
    a value (stored_values() does that again for a whole node), so only the times are made text."""
    found = dict(pairs)
    for name in kind.times:
        if name in found:
            found[name] = clock.stamp_of(clock.from_store(found[name]))
    return found


def read_current(graph, kind: Kind, rows: list[Row], full: bool = False) -> dict:
    """For each key: the entity's revision and current State; its values and open edges unless the row
    repeats that State or comes before it; for a late row, the times and fingerprint of the State its
    time falls in; QUIET for a row that decide() would find unchanged with nothing to write. full: always
    the values and edges (what update() completes a row from), and never QUIET."""
    asked = [
        [row.key, None, None, None] if full else [row.key, row.fp, clock.stamp_of(row.t), row.links_fp]
        for row in rows
    ]
    params = {"rows": asked, "owned": _owned(kind)}
    with server_at_work():
        result = read(graph, _current_query(kind), params)  # none from a graph that does not exist yet
    found = {}
    for (answer,) in result:
        if type(answer) is not list:  # a quiet row: its key alone
            found[typed(answer)] = QUIET
            continue
        key, rev, fp, light, props, sid, start, seen_last, past, before_current, listed, same_links = answer
        around = Around(rev=rev or 0, props=None if light else _values(kind, props))
        if sid is not None:
            began = clock.from_store(start)
            # Read but not needed: a light row's edges; a change's that keeps its targets (same_links).
            held = {} if light or same_links else holding(edges_from(listed), began)
            around.current = StateView(
                sid,
                began,
                None,
                clock.from_store(seen_last),
                around.props,
                None if light or same_links else relations_from(held, kind),
                fp,
            )
            around.same_links = same_links
            around.prev = around.current
            around.edges_prev = held
        if past is not None:  # a late row's State
            moments = [clock.from_store(one) for one in past[1:4]]
            around.past = StateView(past[0], *moments, None, None, past[4])
            if before_current:
                around.late_edges = edges_from(listed)
        found[typed(key)] = around
    for key in map(typed, (row.key for row in rows)):  # an entity not there (or no graph yet) answers nothing
        if key not in found:
            found[key] = ABSENT
    return found
