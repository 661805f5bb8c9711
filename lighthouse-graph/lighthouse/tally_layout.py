"""Where the counters of an episode and of the graph live: as the design names them, an episode's count and
end on the Episode (`entry_count`, `closed_at`) and the graph's last serial on the Stamp (`serial`), as
open_episode() and ensure_schema() make them. A graph written before kept them on LH_TALLY loop edges (one
each, or two after a race where LH_TALLY was not yet registered): the Stamp of a graph whose counters are
all on the nodes says so (COUNTS_ON_NODES), and record() and close_episode() write in one query only
there; elsewhere their query writes nothing, and the entry is written here with a second query
(append_in_any_layout()), which moves that episode's and the Stamp's counters onto the nodes. ensure_schema()
moves every episode's (move_counts()) and marks the Stamp, after which every entry is one query.
"""

from __future__ import annotations

from functools import lru_cache

# The Stamp's mark that every counter of its graph is on the nodes: set by move_counts().
COUNTS_ON_NODES = "lh.counts_on_nodes"


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


# Cypher, from a bound `ep` and its collected `tallies`: its count and its end wherever they are kept.
EPISODE_COUNT = (
    "reduce(top = coalesce(ep.entry_count, 0), one IN tallies | "
    "  CASE WHEN one.entries > top THEN one.entries ELSE top END)"
)
EPISODE_END = "coalesce(ep.closed_at, head([one IN tallies WHERE one.closed_at IS NOT NULL | one.closed_at]))"
# From a bound `st` and its collected `stamped` tallies: the last serial wherever it is kept.
STAMP_LAST = (
    "reduce(top = coalesce(st.serial, 0), one IN stamped | "
    "  CASE WHEN one.serial > top THEN one.serial ELSE top END)"
)


@lru_cache(maxsize=512)
def _any_layout_query(given: str, closes: bool) -> str:
    # The counters read wherever they are (the larger of the node's and its tallies'), written on the nodes,
    # and the tallies deleted: that episode and the Stamp are then in the layout of the one-query append.
    return (
        "OPTIONAL MATCH (ep:Episode {id: $episode}) "
        "OPTIONAL MATCH (ep)-[tally:LH_TALLY]->(ep) "
        "WITH found, ep, collect(tally) AS tallies "
        f"WITH found, ep, tallies, {EPISODE_COUNT} AS count, {EPISODE_END} AS ended "
        "OPTIONAL MATCH (last:Entry {id: $episode + '/' + toString(count)}) "
        "OPTIONAL MATCH (st:Stamp) "
        "OPTIONAL MATCH (st)-[serials:LH_TALLY]->(st) "
        "WITH found, ep, tallies, count, ended, last, st, collect(serials) AS stamped "
        f"WITH found, ep, tallies, count, ended, last, st, stamped, {STAMP_LAST} + 1 AS serial, "
        "  ep IS NOT NULL AND ended IS NULL AND count < $most AND size(found) = $expected AS writing "
        "FOREACH (appending IN CASE WHEN writing THEN [1] ELSE [] END | "
        "  FOREACH (stamping IN CASE WHEN st IS NULL THEN [1] ELSE [] END | "
        "    CREATE (:Stamp {id: $stamp, serial: serial})) "
        + entry_made(given)
        + "  FOREACH (stamp IN CASE WHEN st IS NULL THEN [] ELSE [st] END | SET stamp.serial = serial) "
        "  FOREACH (old IN stamped | DELETE old) "
        "  FOREACH (old IN tallies | DELETE old) "
        "  SET ep.entry_count = count + 1" + (", ep.closed_at = localdatetime($at)" if closes else "") + ") "
        "RETURN ep IS NOT NULL, ended IS NOT NULL, count, size(found) = $expected"
    )


def append_in_any_layout(graph, clause: str, given: str, closes: bool, params: dict) -> list:
    """The entry of record() or close_episode() appended whatever the layout of its episode and the Stamp:
    [the episode exists, it is closed (so nothing was written), its count before, all cites exist]. clause:
    what finds the cites (references.finding()); params: those of the append. One query; a database error
    passes as ResponseError."""
    return graph.query(clause + _any_layout_query(given, closes), params).result_set[0]


# Each episode whose count or end is on a tally, or that has no count: the count and the end on the node
# and its tallies deleted; then the Stamp's serial on the node, its tallies deleted, and the mark. Each is
# one query, and one write: atomic.
_MOVE_EPISODE_COUNTS = (
    "MATCH (ep:Episode) OPTIONAL MATCH (ep)-[tally:LH_TALLY]->(ep) "
    "WITH ep, collect(tally) AS tallies WHERE size(tallies) > 0 OR ep.entry_count IS NULL "
    f"WITH ep, tallies, {EPISODE_COUNT} AS count, {EPISODE_END} AS ended "
    "FOREACH (old IN tallies | DELETE old) "
    "SET ep.entry_count = count, ep.closed_at = ended "
    "RETURN count(ep)"
)
_MOVE_STAMP_SERIALS = (
    "MATCH (st:Stamp) OPTIONAL MATCH (st)-[tally:LH_TALLY]->(st) "
    f"WITH st, collect(tally) AS stamped WITH st, stamped, {STAMP_LAST} AS serial "
    "FOREACH (old IN stamped | DELETE old) "
    f"SET st.serial = serial, st.`{COUNTS_ON_NODES}` = true "
    "RETURN count(st)"
)


def move_counts(graph) -> int:
    """Counters kept on tallies moved onto the nodes: the episodes', then the Stamp's, once a graph (the
    Stamp's mark). Gives how many episodes were moved. The graph has its Stamp. Writers should be stopped,
    as for any change ensure_schema() makes."""
    if graph.query(f"MATCH (st:Stamp) RETURN st.`{COUNTS_ON_NODES}` = true").result_set[0][0]:
        return 0
    moved = graph.query(_MOVE_EPISODE_COUNTS).result_set[0][0]
    graph.query(_MOVE_STAMP_SERIALS)
    return moved
