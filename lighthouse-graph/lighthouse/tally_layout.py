"""Where the counters of an episode and of the graph live: an episode's count and end on its one LH_TALLY
loop edge, the graph's last serial on the Stamp's, as open_episode() and ensure_schema() make them. A graph
written before the tallies keeps them on the nodes, and a race where LH_TALLY was not yet registered can
leave a second tally: record() and close_episode() find such a layout in their own query, which then
writes nothing, and write in it here, with a second query (append_in_any_layout()). ensure_schema() moves
such counters onto one tally each (move_counts()), so that every later entry takes one query.
"""

from __future__ import annotations

from functools import lru_cache


def entry_made(given: str) -> str:
    """Inside the FOREACH of an append, both layouts: the entry, every property in its CREATE (a node SET in
    a query that creates a node cost FalkorDB 4.22.1 time in proportion to the graph), its writer, its link
    from the last entry and what it cites. given: the entry's values as properties (", `v_name`: $value_0")."""
    return (
        "MERGE (writer:Agent {name: $by}) "
        "CREATE (ep)-[:HAS]->(n:Entry {id: $episode + '/' + toString(count + 1), episode: $episode, "
        "  seq: count + 1, serial: serial, type: $type, by: $by, at: localdatetime($at), "
        f"  recorded_at: localdatetime($now), words: $words, content: $content{given}}}) "
        "CREATE (writer)-[:WROTE]->(n) "
        "FOREACH (earlier IN CASE WHEN last IS NULL THEN [] ELSE [last] END | CREATE (earlier)-[:NEXT]->(n)) "
        "FOREACH (evidence IN found | CREATE (n)-[:CITES {as_of: localdatetime($at)}]->(evidence)) "
    )


@lru_cache(maxsize=512)
def _any_layout_query(given: str, closes: bool) -> str:
    # A counter kept on the node is read and moved too (a writer queued before LH_TALLY existed reads only
    # the node); the tallies are read collected, so a second one never doubles a row, and kept by a MERGE
    # that comes last, so both take the number, and one is made where there is none.
    return (
        "OPTIONAL MATCH (ep:Episode {id: $episode}) "
        "OPTIONAL MATCH (ep)-[tally:LH_TALLY]->(ep) "
        "WITH found, ep, collect(tally) AS tallies "
        "WITH found, ep, reduce(top = coalesce(ep.entry_count, 0), one IN tallies | "
        "  CASE WHEN one.entries > top THEN one.entries ELSE top END) AS count, "
        "  ep.closed_at IS NOT NULL OR any(one IN tallies WHERE one.closed_at IS NOT NULL) AS closed "
        "OPTIONAL MATCH (last:Entry {id: $episode + '/' + toString(count)}) "
        "OPTIONAL MATCH (st:Stamp) "
        "OPTIONAL MATCH (st)-[serials:LH_TALLY]->(st) "
        "WITH found, ep, count, closed, last, st, collect(serials) AS stamped "
        "WITH found, ep, count, closed, last, st, reduce(top = coalesce(st.serial, 0), one IN stamped | "
        "  CASE WHEN one.serial > top THEN one.serial ELSE top END) + 1 AS serial, "
        "  ep IS NOT NULL AND NOT closed AND count < $most AND size(found) = $expected AS writing "
        "FOREACH (appending IN CASE WHEN writing THEN [1] ELSE [] END | "
        "  FOREACH (stamping IN CASE WHEN st IS NULL THEN [1] ELSE [] END | "
        "    CREATE (made:Stamp {id: $stamp}) CREATE (made)-[:LH_TALLY {serial: serial}]->(made)) "
        + entry_made(given)
        + "  FOREACH (stamp IN CASE WHEN st IS NULL THEN [] ELSE [st] END | "
        "    FOREACH (old_stamp IN CASE WHEN stamp.serial IS NULL THEN [] ELSE [stamp] END | "
        "      SET old_stamp.serial = serial) "
        "    MERGE (stamp)-[kept_serial:LH_TALLY]->(stamp) SET kept_serial.serial = serial) "
        "  FOREACH (old_episode IN CASE WHEN ep.entry_count IS NULL THEN [] ELSE [ep] END | "
        "    SET old_episode.entry_count = count + 1) "
        "  MERGE (ep)-[kept_count:LH_TALLY]->(ep) SET kept_count.entries = count + 1"
        + (", kept_count.closed_at = localdatetime($at)" if closes else "")
        + ") "
        "RETURN ep IS NOT NULL, closed AND NOT writing, count, size(found) = $expected"
    )


def append_in_any_layout(graph, clause: str, given: str, closes: bool, params: dict) -> list:
    """The entry of record() or close_episode() appended whatever the layout of its episode and the Stamp:
    [the episode exists, it is closed (so nothing was written), its count before, all cites exist]. clause:
    what finds the cites (references.finding()); params: those of the append. One query; a database error
    passes as ResponseError."""
    return graph.query(clause + _any_layout_query(given, closes), params).result_set[0]


# Each episode whose count or end is on its node, or that has no tally or two: one tally with the larger
# count and the end, the others and the node's counters taken away. The Stamp's tallies made one the same
# way (ensure_schema() makes it one where it has none). Each is one query, and one write: atomic.
_MOVE_EPISODE_COUNTS = (
    "MATCH (ep:Episode) OPTIONAL MATCH (ep)-[tally:LH_TALLY]->(ep) "
    "WITH ep, collect(tally) AS tallies "
    "WHERE ep.entry_count IS NOT NULL OR ep.closed_at IS NOT NULL OR size(tallies) <> 1 "
    "WITH ep, tallies, reduce(top = coalesce(ep.entry_count, 0), one IN tallies | "
    "  CASE WHEN one.entries > top THEN one.entries ELSE top END) AS count, "
    "  coalesce(head([one IN tallies WHERE one.closed_at IS NOT NULL | one.closed_at]), ep.closed_at) AS ended "
    "FOREACH (old IN tallies | DELETE old) "
    "CREATE (ep)-[made:LH_TALLY {entries: count}]->(ep) "
    "SET made.closed_at = ended "
    "REMOVE ep.entry_count, ep.closed_at "
    "RETURN count(ep)"
)
_MOVE_STAMP_SERIALS = (
    "MATCH (st:Stamp) OPTIONAL MATCH (st)-[tally:LH_TALLY]->(st) "
    "WITH st, collect(tally) AS tallies WHERE size(tallies) > 1 "
    "WITH st, tallies, reduce(top = coalesce(st.serial, 0), one IN tallies | "
    "  CASE WHEN one.serial > top THEN one.serial ELSE top END) AS serial "
    "FOREACH (old IN tallies | DELETE old) "
    "CREATE (st)-[:LH_TALLY {serial: serial}]->(st) "
    "RETURN count(st)"
)


# The Stamp's mark that its graph's counters are on one tally each: set by the first move, after which no
# writer of this version keeps them otherwise (a second tally came only from a race before LH_TALLY was
# registered, which ensure_schema() does first), so later calls need not scan every episode (60,000 of
# them: 214 to 247 ms).
COUNTS_MOVED = "lh.counts_on_tallies"


def move_counts(graph) -> int:
    """Counters kept otherwise moved onto one tally each: the episodes', then the Stamp's, once a graph (the
    Stamp's mark). Gives how many nodes were moved. The graph has its Stamp. Writers should be stopped, as
    for any change ensure_schema() makes."""
    if graph.query(f"MATCH (st:Stamp) RETURN st.`{COUNTS_MOVED}` = true").result_set[0][0]:
        return 0
    moved = graph.query(_MOVE_EPISODE_COUNTS).result_set[0][0]
    moved += graph.query(_MOVE_STAMP_SERIALS).result_set[0][0]
    graph.query(f"MATCH (st:Stamp) SET st.`{COUNTS_MOVED}` = true")
    return moved
