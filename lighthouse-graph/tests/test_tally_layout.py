"""Where the counters of an episode and of the graph live: record() and close_episode() write in one query
where they are on the tallies, and in a second one, whatever the layout, where a graph written before keeps
them elsewhere."""

from __future__ import annotations

import test_episodes
from lighthouse import close_episode, episode, record
from lighthouse.graphs import read
from lighthouse.tally_layout import append_in_any_layout, entry_made
from test_episodes import DAY2, CountingGraph, serial

pumps = test_episodes.pumps  # the fixture: the pumps and an open episode about p1

TALLY = (
    "MATCH (ep:Episode {id: 'p1-hot'})-[t:LH_TALLY]->(ep) RETURN count(t), max(t.entries), max(t.closed_at)"
)
NODE = "MATCH (ep:Episode {id: 'p1-hot'}) RETURN ep.entry_count, ep.closed_at"


def test_on_the_tallies_an_entry_and_an_outcome_are_one_query_each_and_move_only_the_tallies(pumps):
    counted = CountingGraph(pumps)
    before = serial(pumps)
    assert record(counted, "p1-hot", "seen", "agent", {"n": 1})["seq"] == 1
    assert close_episode(counted, "p1-hot", "agent", {"done": True}, ["p1-hot/1"], DAY2)["seq"] == 2
    assert len(counted.sent) == 2
    count, entries, ended = read(pumps, TALLY)[0]
    assert (count, entries) == (1, 2) and ended is not None
    assert read(pumps, NODE) == [[None, None]]
    assert serial(pumps) == before + 2
    assert read(pumps, "MATCH (s:Stamp) RETURN s.serial") == [[None]]  # on the tally only


def test_an_episode_counted_on_its_node_takes_a_second_query_and_counts_on(pumps):
    record(pumps, "p1-hot", "seen", "agent", {"n": 1})
    pumps.query("MATCH (ep:Episode {id: 'p1-hot'})-[t:LH_TALLY]->(ep) SET ep.entry_count = 3 DELETE t")
    counted = CountingGraph(pumps)
    assert record(counted, "p1-hot", "seen", "agent", {"n": 2}) == {
        "id": "p1-hot/4",
        "seq": 4,
        "status": "recorded",
    }
    assert len(counted.sent) == 2  # the first found the count on the node and wrote nothing
    assert read(pumps, TALLY)[0][:2] == [1, 4] and read(pumps, NODE)[0][0] == 4  # both moved
    entries = read(pumps, "MATCH (:Episode {id: 'p1-hot'})-[:HAS]->(n:Entry) RETURN n.seq ORDER BY n.seq")
    assert entries == [[1], [4]]


def test_an_episode_ended_on_its_node_is_closed_in_one_query(pumps):
    pumps.query("MATCH (ep:Episode {id: 'p1-hot'}) SET ep.closed_at = localdatetime('2026-01-02T00:00:00')")
    counted = CountingGraph(pumps)
    refused = record(counted, "p1-hot", "seen", "agent", {"n": 1})
    assert refused["status"] == "closed" and len(counted.sent) == 2  # the query, and the refusal kept
    assert episode(pumps, "p1-hot")["entry_count"] == 0
    assert read(pumps, "MATCH (n:Entry) RETURN count(n)") == [[0]]


def test_a_stamp_with_two_tallies_takes_a_second_query_and_both_take_the_serial(pumps):
    pumps.query("MATCH (st:Stamp)-[t:LH_TALLY]->(st) CREATE (st)-[:LH_TALLY {serial: t.serial + 5}]->(st)")
    top = read(pumps, "MATCH (st:Stamp)-[t:LH_TALLY]->(st) RETURN max(t.serial)")[0][0]
    counted = CountingGraph(pumps)
    assert record(counted, "p1-hot", "seen", "agent", {"n": 1})["seq"] == 1
    assert len(counted.sent) == 2
    stamped = "MATCH (st:Stamp)-[t:LH_TALLY]->(st) RETURN count(t), min(t.serial), max(t.serial)"
    assert read(pumps, stamped) == [[2, top + 1, top + 1]]
    assert read(pumps, "MATCH (n:Entry {id: 'p1-hot/1'}) RETURN n.serial") == [[top + 1]]


def test_the_append_in_any_layout_answers_for_an_episode_that_is_not_there(pumps):
    params = {
        "episode": "nowhere",
        "expected": 0,
        "by": "agent",
        "type": "seen",
        "at": "2026-01-02T00:00:00",
        "now": "2026-01-02T00:00:00",
        "stamp": "s",
        "words": "",
        "content": "{}",
        "most": 5_000,
    }
    found = "WITH [] AS found "
    assert append_in_any_layout(pumps, found, "", False, params) == [False, False, 0, True]
    assert read(pumps, "MATCH (n:Entry) RETURN count(n)") == [[0]]
    assert "`v_n`: $value_0" in entry_made(", `v_n`: $value_0")


def test_ensure_schema_moves_every_counter_onto_one_tally_and_then_an_entry_is_one_query(pumps):
    from lighthouse import open_episode
    from lighthouse.tally_layout import COUNTS_MOVED, move_counts
    from test_episodes import PUMP, schema_ready

    record(pumps, "p1-hot", "seen", "agent", {"n": 1})
    # On the node: a count (and no tally); an end on the node (with its tally); two tallies; the Stamp's two.
    pumps.query("MATCH (ep:Episode {id: 'p1-hot'})-[t:LH_TALLY]->(ep) SET ep.entry_count = 3 DELETE t")
    assert open_episode(pumps, "ended", "agent", [(PUMP, "p2")])["status"] == "opened"
    pumps.query("MATCH (ep:Episode {id: 'ended'}) SET ep.closed_at = localdatetime('2026-01-03T00:00:00')")
    assert open_episode(pumps, "twice", "agent", [(PUMP, "p2")])["status"] == "opened"
    pumps.query("MATCH (ep:Episode {id: 'twice'}) CREATE (ep)-[:LH_TALLY {entries: 6}]->(ep)")
    pumps.query("MATCH (st:Stamp)-[t:LH_TALLY]->(st) CREATE (st)-[:LH_TALLY {serial: t.serial + 5}]->(st)")
    top = read(pumps, "MATCH (st:Stamp)-[t:LH_TALLY]->(st) RETURN max(t.serial)")[0][0]
    pumps.query(f"MATCH (st:Stamp) REMOVE st.`{COUNTS_MOVED}`")  # as a graph written before has it
    schema_ready(pumps, [PUMP])  # ensure_schema(), one test process at a time
    tallies = read(
        pumps,
        "MATCH (ep:Episode) OPTIONAL MATCH (ep)-[t:LH_TALLY]->(ep) "
        "RETURN ep.id, count(t), max(t.entries), max(t.closed_at) IS NOT NULL, ep.entry_count, ep.closed_at "
        "ORDER BY ep.id",
    )
    assert tallies == [
        ["ended", 1, 0, True, None, None],
        ["p1-hot", 1, 3, False, None, None],
        ["twice", 1, 6, False, None, None],
    ]
    assert read(pumps, "MATCH (st:Stamp)-[t:LH_TALLY]->(st) RETURN count(t), max(t.serial)") == [[1, top]]
    assert read(pumps, f"MATCH (st:Stamp) RETURN st.`{COUNTS_MOVED}`") == [[True]]
    pumps.query(f"MATCH (st:Stamp) REMOVE st.`{COUNTS_MOVED}`")
    assert move_counts(pumps) == 0  # nothing left to move
    # Marked, the graph is not scanned again: a count put back on a node by hand stays there.
    pumps.query("MATCH (ep:Episode {id: 'twice'}) SET ep.entry_count = 6")
    assert move_counts(pumps) == 0 and read(
        pumps, "MATCH (ep:Episode {id: 'twice'}) RETURN ep.entry_count"
    ) == [[6]]
    pumps.query("MATCH (ep:Episode {id: 'twice'}) REMOVE ep.entry_count")
    counted = CountingGraph(pumps)
    assert record(counted, "p1-hot", "seen", "agent", {"n": 2})["seq"] == 4
    assert record(counted, "twice", "seen", "agent", {"n": 1})["seq"] == 7
    assert record(counted, "ended", "seen", "agent", {"n": 1})["status"] == "closed"
    assert len(counted.sent) == 4  # one query each, and the kept refusal
    assert read(pumps, "MATCH (n:Entry {id: 'p1-hot/4'}) RETURN n.serial") == [[top + 1]]
