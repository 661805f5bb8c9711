"""Where the counters of an episode and of the graph live: on the Episode and the Stamp, where record() and
close_episode() write in one query, and in a second one, which moves them there, where a graph written
before keeps them on LH_TALLY loop edges."""

from __future__ import annotations

import test_episodes
from lighthouse import close_episode, episode, open_episode, record
from lighthouse.graphs import read
from lighthouse.tally_layout import COUNTS_ON_NODES, append_in_any_layout, entry_made, move_counts
from test_episodes import DAY2, PUMP, CountingGraph, as_kept_on_tallies, schema_ready, serial

pumps = test_episodes.pumps  # the fixture: the pumps and an open episode about p1

NODE = "MATCH (ep:Episode {id: 'p1-hot'}) RETURN ep.entry_count, ep.closed_at IS NOT NULL"
TALLIES = "MATCH ()-[t:LH_TALLY]->() RETURN count(t)"


def test_on_the_nodes_an_entry_and_an_outcome_are_one_query_each(pumps):
    counted = CountingGraph(pumps)
    before = serial(pumps)
    assert record(counted, "p1-hot", "seen", "agent", {"n": 1})["seq"] == 1
    assert close_episode(counted, "p1-hot", "agent", {"done": True}, ["p1-hot/1"], DAY2)["seq"] == 2
    assert len(counted.sent) == 2
    assert read(pumps, NODE) == [[2, True]] and serial(pumps) == before + 2
    assert read(pumps, TALLIES) == [[0]]


def test_an_episode_counted_on_a_tally_takes_a_second_query_which_moves_it_to_the_node(pumps):
    record(pumps, "p1-hot", "seen", "agent", {"n": 1})
    as_kept_on_tallies(pumps)
    pumps.query("MATCH (ep:Episode {id: 'p1-hot'})-[t:LH_TALLY]->(ep) SET t.entries = 3")
    counted = CountingGraph(pumps)
    assert record(counted, "p1-hot", "seen", "agent", {"n": 2}) == {
        "id": "p1-hot/4",
        "seq": 4,
        "status": "recorded",
    }
    assert len(counted.sent) == 2  # the first found the graph unmarked and wrote nothing
    assert read(pumps, NODE) == [[4, False]] and read(pumps, TALLIES) == [[0]]
    entries = read(pumps, "MATCH (:Episode {id: 'p1-hot'})-[:HAS]->(n:Entry) RETURN n.seq ORDER BY n.seq")
    assert entries == [[1], [4]]


def test_an_episode_ended_on_a_tally_is_closed(pumps):
    record(pumps, "p1-hot", "seen", "agent", {"n": 1})
    close_episode(pumps, "p1-hot", "agent", {"done": True}, ["p1-hot/1"], DAY2)
    as_kept_on_tallies(pumps)
    counted = CountingGraph(pumps)
    refused = record(counted, "p1-hot", "seen", "agent", {"n": 2})
    assert refused["status"] == "closed" and len(counted.sent) == 3  # the two queries, the refusal kept
    assert episode(pumps, "p1-hot")["entry_count"] == 2
    assert read(pumps, "MATCH (n:Entry) RETURN count(n)") == [[2]]


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


def test_ensure_schema_moves_every_counter_onto_the_nodes_and_then_an_entry_is_one_query(pumps):
    record(pumps, "p1-hot", "seen", "agent", {"n": 1})
    assert open_episode(pumps, "ended", "agent", [(PUMP, "p2")])["status"] == "opened"
    assert open_episode(pumps, "twice", "agent", [(PUMP, "p2")])["status"] == "opened"
    pumps.query("MATCH (ep:Episode {id: 'ended'}) SET ep.closed_at = localdatetime('2026-01-03T00:00:00')")
    for one in ("ended", "twice"):
        as_kept_on_tallies(pumps, one)
        pumps.query("MATCH (st:Stamp)-[t:LH_TALLY]->(st) DELETE t SET st.serial = t.serial")
    as_kept_on_tallies(pumps)  # p1-hot, and the Stamp's serial on a tally
    pumps.query("MATCH (ep:Episode {id: 'p1-hot'})-[t:LH_TALLY]->(ep) SET t.entries = 3")
    pumps.query("MATCH (ep:Episode {id: 'twice'}) CREATE (ep)-[:LH_TALLY {entries: 6}]->(ep)")
    pumps.query("MATCH (st:Stamp)-[t:LH_TALLY]->(st) CREATE (st)-[:LH_TALLY {serial: t.serial + 5}]->(st)")
    top = read(pumps, "MATCH (st:Stamp)-[t:LH_TALLY]->(st) RETURN max(t.serial)")[0][0]
    schema_ready(pumps, [PUMP])  # ensure_schema(), one test process at a time
    counts = read(
        pumps, "MATCH (ep:Episode) RETURN ep.id, ep.entry_count, ep.closed_at IS NOT NULL ORDER BY ep.id"
    )
    assert counts == [["ended", 0, True], ["p1-hot", 3, False], ["twice", 6, False]]
    assert read(pumps, TALLIES) == [[0]] and serial(pumps) == top
    assert read(pumps, f"MATCH (st:Stamp) RETURN st.`{COUNTS_ON_NODES}`") == [[True]]
    # Marked, the graph is not scanned again: a tally put back by hand stays there.
    pumps.query("MATCH (ep:Episode {id: 'twice'}) CREATE (ep)-[:LH_TALLY {entries: 9}]->(ep)")
    assert move_counts(pumps) == 0 and read(pumps, TALLIES) == [[1]]
    pumps.query("MATCH (ep:Episode {id: 'twice'})-[t:LH_TALLY]->(ep) DELETE t")
    counted = CountingGraph(pumps)
    assert record(counted, "p1-hot", "seen", "agent", {"n": 2})["seq"] == 4
    assert record(counted, "twice", "seen", "agent", {"n": 1})["seq"] == 7
    assert record(counted, "ended", "seen", "agent", {"n": 1})["status"] == "closed"
    assert len(counted.sent) == 4  # one query each, and the kept refusal
    assert read(pumps, "MATCH (n:Entry {id: 'p1-hot/4'}) RETURN n.serial") == [[top + 1]]
