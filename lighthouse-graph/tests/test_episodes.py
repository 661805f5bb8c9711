"""Episodes: opened once, entries numbered in one query with evidence that exists, closed by an outcome."""

from __future__ import annotations

import fcntl
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from graph_contents import assert_one_refusal, snapshot
from hostile import HOSTILE_NAMES, HostileText, hostile_things, sort_of
from lighthouse import Kind, ensure_schema, invalidate_entry, remember
from lighthouse.episodes import (
    MAX_ENTRIES,
    close_episode,
    episode,
    episodes_about,
    episodes_by_id,
    open_episode,
    record,
)
from lighthouse.graphs import read
from lighthouse.values import MAX_ROW, Refused
from lighthouse.write.failures import failures
from racing import at_once
from redis.exceptions import ResponseError

ZONE = Kind("Zone", key="code")
PUMP = Kind("Pump", key="tag", text=("note",), relations={"IN": ZONE})

DAY1, DAY2 = "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z"


class CountingGraph:
    """A real falkordb Graph whose query() and ro_query() calls are counted; everything else forwarded."""

    def __init__(self, graph) -> None:
        self.graph = graph
        self.sent: list[str] = []

    def query(self, *args, **kwargs):
        self.sent.append(args[0])
        return self.graph.query(*args, **kwargs)

    def ro_query(self, *args, **kwargs):
        self.sent.append(args[0])
        return self.graph.ro_query(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.graph, name)


class FailingOnce(CountingGraph):
    """The real graph, whose first write query the server refuses (a ResponseError), as a full disk would."""

    def query(self, *args, **kwargs):
        if not self.sent:
            self.sent.append(args[0])
            raise ResponseError("the server refused the query")
        return super().query(*args, **kwargs)


SCHEMA_LOCK = Path(tempfile.gettempdir()) / "lighthouse-tests-schema.lock"


def schema_ready(graph, kinds: list) -> None:
    """ensure_schema(), one test process at a time: FalkorDB 4.22.1 crashed (SIGSEGV in its indexer) when
    two connections created constraints on two graphs at the same moment."""
    with open(SCHEMA_LOCK, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            ensure_schema(graph, kinds)
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@pytest.fixture
def pumps(graph):
    """p1 ok on day 1, hot on day 2; p2 ok; pump 7; and an open episode about p1."""
    schema_ready(graph, [PUMP])
    rows = [
        {"key": "p1", "t": DAY1, "values": {"status": "ok", "note": "north pump"}, "relations": {"IN": "z1"}},
        {"key": "p2", "t": DAY1, "values": {"status": "ok"}},
        {"key": 7, "t": DAY1, "values": {"status": "ok"}},
    ]
    remember(graph, PUMP, rows, "inventory")
    remember(graph, PUMP, [{"key": "p1", "t": DAY2, "values": {"status": "hot"}}], "inventory")
    assert open_episode(graph, "p1-hot", "watcher", [(PUMP, "p1")]) == {"id": "p1-hot", "status": "opened"}
    return graph


def serial(graph) -> int:
    return read(graph, "MATCH (s:Stamp) RETURN s.serial")[0][0]


def as_kept_on_tallies(graph, episode_id: str = "p1-hot") -> None:
    """The episode's count and end, and the graph's serial, moved onto LH_TALLY loop edges, as a graph
    written before kept them (and the Stamp's mark taken away)."""
    graph.query(
        "MATCH (ep:Episode {id: $id}) CREATE (ep)-[t:LH_TALLY {entries: ep.entry_count}]->(ep) "
        "SET t.closed_at = ep.closed_at REMOVE ep.entry_count, ep.closed_at",
        {"id": episode_id},
    )
    graph.query(
        "MATCH (st:Stamp) CREATE (st)-[:LH_TALLY {serial: st.serial}]->(st) "
        "REMOVE st.serial, st.`lh.counts_on_nodes`"
    )


# open_episode()


def test_open_links_the_entities_it_is_about_and_shows_the_api_fields(pumps):
    assert open_episode(pumps, "two", "watcher", [(PUMP, "p2"), (PUMP, 7), (ZONE, "z1")], DAY2) == {
        "id": "two",
        "status": "opened",
    }
    found = episode(pumps, "two")
    assert found["about"] == [("Pump", "p2"), ("Pump", 7), ("Zone", "z1")]  # by str() of the pair
    assert found["opened_at"] == datetime(2026, 1, 2, tzinfo=UTC) and found["recorded_at"].tzinfo is UTC
    assert set(found) == {"id", "by", "opened_at", "recorded_at", "entry_count", "about", "entries"}
    assert (found["by"], found["entry_count"], found["entries"]) == ("watcher", 0, [])


def test_open_about_nothing_by_default(pumps):
    assert open_episode(pumps, "plain", "watcher")["status"] == "opened"
    assert episode(pumps, "plain")["about"] == []


def test_open_again_exists_and_changes_nothing_even_about_others_or_after_its_end(pumps):
    before = snapshot(pumps)
    assert open_episode(pumps, "p1-hot", "other", [(PUMP, "p2")]) == {"id": "p1-hot", "status": "exists"}
    assert snapshot(pumps) == before
    close_episode(pumps, "p1-hot", "reviewer", {"failed": False})
    assert open_episode(pumps, "p1-hot", "watcher", [(PUMP, "p1")])["status"] == "exists"
    assert "closed_at" in episode(pumps, "p1-hot")
    assert failures(pumps) == []


def test_open_about_an_entity_that_does_not_exist_is_missing(pumps):
    before = snapshot(pumps)
    receipt = open_episode(pumps, "ghost", "watcher", [(PUMP, "p1"), (PUMP, "nope")])
    assert receipt == {"id": None, "status": "missing", "reason": "something it refers to does not exist"}
    assert_one_refusal(pumps, before, receipt, ("missing",), kind="Episode")
    assert episode(pumps, "ghost") is None


@pytest.mark.parametrize(
    "about, at",
    [
        (None, None),
        ("p1", None),
        ([("Episode", "p1-hot")], None),
        ([("Entry", "p1-hot/1")], None),
        ([(PUMP, 1.5)], None),
        ([(PUMP, "p1")], "not a time"),
        ([(PUMP, "p1")], 17),
        ([(PUMP, "p1")], datetime.now(UTC) + timedelta(hours=1)),
    ],
)
def test_open_with_bad_content_is_invalid(pumps, about, at):
    before = snapshot(pumps)
    receipt = open_episode(pumps, "bad", "watcher", about, at)
    assert receipt["id"] is None
    assert_one_refusal(pumps, before, receipt, kind="Episode")


@pytest.mark.parametrize("bad", ["", " x", "a\nb", None, 7, "x" * 201, *HOSTILE_NAMES], ids=sort_of)
def test_open_with_a_bad_id_or_by_raises_and_keeps_nothing(pumps, bad):
    before = snapshot(pumps)
    with pytest.raises(Refused, match="must be text"):
        open_episode(pumps, "x" * 201, "watcher")
    with pytest.raises(Refused, match="must be text"):
        open_episode(pumps, bad, "watcher")
    with pytest.raises(Refused, match="must be text"):
        open_episode(pumps, "fine", bad)
    assert snapshot(pumps) == before and failures(pumps) == []


@pytest.mark.parametrize("thing", hostile_things(), ids=sort_of)
def test_open_given_a_hostile_object_as_content_refuses_once(pumps, thing):
    for about, at in (([(PUMP, "p1"), thing], None), (thing, None), ([(PUMP, "p1")], thing)):
        pumps.query("MATCH (f:WriteFailure) DELETE f")
        before = snapshot(pumps)
        receipt = open_episode(pumps, "attacked", "watcher", about, at)
        assert_one_refusal(pumps, before, receipt, kind="Episode")


def test_open_is_one_query_and_a_server_error_is_failed(pumps):
    counted = CountingGraph(pumps)
    assert open_episode(counted, "counted", "watcher", [(PUMP, "p1"), (PUMP, 7)])["status"] == "opened"
    assert len(counted.sent) == 1
    # A refusal is one query too, which says why it wrote nothing; a missing one is kept as well.
    counted.sent.clear()
    assert open_episode(counted, "counted", "watcher", [(PUMP, "p1")])["status"] == "exists"
    assert len(counted.sent) == 1
    counted.sent.clear()
    assert open_episode(counted, "new", "watcher", [(PUMP, "p1"), (PUMP, "nope")])["status"] == "missing"
    assert len(counted.sent) == 2 and "WriteFailure" in counted.sent[1]
    assert episode(pumps, "new") is None and [one["reason"] for one in failures(pumps)] == ["missing"]
    pumps.query("MATCH (f:WriteFailure) DELETE f")
    failing = FailingOnce(pumps)
    receipt = open_episode(failing, "refused", "watcher", [(PUMP, "p1")])
    assert receipt == {"id": None, "status": "failed", "reason": "the server refused the query"}
    assert [one["reason"] for one in failures(pumps)] == ["failed"] and episode(pumps, "refused") is None


# record()


def test_record_numbers_entries_in_the_order_of_writing_and_counts_serials(pumps):
    first = serial(pumps)
    later = record(pumps, "p1-hot", "observation", "watcher", {"status": "hot"}, [(PUMP, "p1")], DAY2)
    earlier = record(pumps, "p1-hot", "observation", "watcher", {"status": "ok"}, (), DAY1)
    assert later == {"id": "p1-hot/1", "seq": 1, "status": "recorded"}
    assert earlier == {"id": "p1-hot/2", "seq": 2, "status": "recorded"}
    assert [entry["status"] for entry in episode(pumps, "p1-hot")["entries"]] == ["hot", "ok"]
    assert serial(pumps) == first + 2
    chained = read(pumps, "MATCH (a:Entry)-[:NEXT]->(b:Entry) RETURN a.id, b.id")
    assert chained == [["p1-hot/1", "p1-hot/2"]]


def test_an_entry_reads_back_its_values_at_the_top_level_without_serial_or_words(pumps):
    values = {"status": "hot", "level": 2, "ratio": 0.1, "ok": False, "tags": ["a", "b"], "gone": None}
    record(pumps, "p1-hot", "observation", "watcher", values, [(PUMP, "p1"), (PUMP, 7)], DAY2)
    record(pumps, "p1-hot", "forecast", "forecaster", {"fails_in_hours": 6}, ["p1-hot/1"], DAY2)
    first, second = episode(pumps, "p1-hot")["entries"]
    assert set(first) == {"id", "seq", "type", "at", "recorded_at", "by", "cites", *values} - {"gone"}
    assert (first["level"], first["ratio"], first["ok"], first["tags"]) == (2, 0.1, False, ["a", "b"])
    assert type(first["level"]) is int and first["at"] == datetime(2026, 1, 2, tzinfo=UTC)
    assert first["cites"] == [("Pump", "p1"), ("Pump", 7)]  # sorted by str() of the pair
    assert second["cites"] == [("Entry", "p1-hot/1")] and second["by"] == "forecaster"


def test_every_value_name_the_api_allows_is_stored_and_read_back(pumps):
    """The library's own properties of an entry (episode, content, v_...) are no value's place."""
    values = {name: name for name in ("episode", "content", "key", "valid_from", "entry", "fp", "v_status")}
    receipt = record(pumps, "p1-hot", "observation", "watcher", values)
    assert receipt["status"] == "recorded"
    entry = episode(pumps, "p1-hot")["entries"][0]
    assert {name: entry[name] for name in values} == values and entry["id"] == "p1-hot/1"


@pytest.mark.parametrize(
    "reserved", ["id", "seq", "serial", "type", "at", "recorded_at", "by", "cites", "words"]
)
def test_a_value_with_a_name_of_the_entry_is_invalid(pumps, reserved):
    before = snapshot(pumps)
    receipt = record(pumps, "p1-hot", "observation", "watcher", {reserved: 1})
    assert_one_refusal(pumps, before, receipt, kind="Entry")


def test_a_refused_entry_uses_no_number(pumps):
    assert record(pumps, "p1-hot", "observation", "watcher", cites=["p1-hot/9"])["status"] == "missing"
    assert record(pumps, "p1-hot", "observation", "watcher", {"bad": {"nested": 1}})["status"] == "invalid"
    assert record(pumps, "p1-hot", "observation", "watcher")["seq"] == 1


def test_record_refusals_have_the_api_reasons(pumps):
    cases = [
        (("nowhere", "observation", "watcher"), {}, "unknown", "the episode does not exist"),
        (("p1-hot", "observation", "watcher"), {"cites": [(PUMP, "nope")]}, "missing", None),
        (("p1-hot", "observation", "watcher"), {"cites": ["p1-hot/1"]}, "missing", None),
    ]
    for args, kwargs, status, reason in cases:
        before = snapshot(pumps)
        receipt = record(pumps, *args, **kwargs)
        assert receipt == {
            "id": None,
            "status": status,
            "reason": reason or "something it refers to does not exist",
        }
        assert snapshot(pumps) == before
    close_episode(pumps, "p1-hot", "reviewer")
    before = snapshot(pumps)
    receipt = record(pumps, "p1-hot", "observation", "watcher")
    assert receipt == {"id": None, "status": "closed", "reason": "the episode is closed"}
    assert snapshot(pumps) == before
    assert sorted(one["reason"] for one in failures(pumps)) == ["closed", "missing", "missing", "unknown"]


def test_an_episode_with_5000_entries_is_full(pumps):
    pumps.query("MATCH (ep:Episode {id: 'p1-hot'}) SET ep.entry_count = $most", {"most": MAX_ENTRIES})
    receipt = record(pumps, "p1-hot", "observation", "watcher")
    assert receipt["status"] == "full" and receipt["id"] is None
    assert read(pumps, "MATCH (n:Entry) RETURN count(n)") == [[0]]


@pytest.mark.parametrize(
    "values, cites, at",
    [
        ("hot", (), None),
        ({"status": None, "x": {"a": 1}}, (), None),
        ({"big": "x" * (MAX_ROW + 1)}, (), None),
        ({"bad name": 1}, (), None),
        (None, None, None),
        (None, "p1-hot/1", None),
        (None, [("Nope-label", 1)], None),
        (None, (), "2026-13-01"),
        (None, (), datetime.now(UTC) + timedelta(minutes=10)),
        (None, (), "1999-12-31T00:00:00Z"),
    ],
)
def test_record_with_bad_content_is_invalid(pumps, values, cites, at):
    before = snapshot(pumps)
    receipt = record(pumps, "p1-hot", "observation", "watcher", values, cites, at)
    assert_one_refusal(pumps, before, receipt, kind="Entry")


def test_record_of_an_outcome_or_with_bad_names_raises(pumps):
    before = snapshot(pumps)
    with pytest.raises(Refused, match="outcome"):
        record(pumps, "p1-hot", "outcome", "watcher", {"failed": True})
    for bad in ["", None, 3, " type", *HOSTILE_NAMES]:
        for args in ((bad, "observation", "watcher"), ("p1-hot", bad, "watcher"), ("p1-hot", "seen", bad)):
            with pytest.raises(Refused, match="must be text"):
                record(pumps, *args)
    assert snapshot(pumps) == before and failures(pumps) == []


@pytest.mark.parametrize("thing", hostile_things(), ids=sort_of)
def test_record_and_close_given_a_hostile_object_as_content_refuse_once(pumps, thing):
    for write in (record, close_episode):
        kind = ("observation",) if write is record else ()
        for values, cites, at in (({"a": thing}, (), None), (thing, (), None), (None, thing, None),
                                  (None, [thing], None), (None, (), thing)):  # fmt: skip
            pumps.query("MATCH (f:WriteFailure) DELETE f")
            before = snapshot(pumps)
            receipt = write(pumps, "p1-hot", *kind, "watcher", values, cites, at)
            assert_one_refusal(pumps, before, receipt, kind="Entry")
    assert "closed_at" not in episode(pumps, "p1-hot")


def test_record_and_close_are_one_query_and_a_server_error_is_failed(pumps):
    counted = CountingGraph(pumps)
    record(counted, "p1-hot", "observation", "watcher", {"status": "hot"}, [(PUMP, "p1"), (PUMP, 7)])
    assert len(counted.sent) == 1
    record(counted, "p1-hot", "forecast", "watcher", {"hours": 6}, ["p1-hot/1"])
    close_episode(counted, "p1-hot", "reviewer", {"failed": False}, ["p1-hot/2"])
    assert len(counted.sent) == 3
    open_episode(pumps, "other", "watcher")
    receipt = record(FailingOnce(pumps), "other", "observation", "watcher")
    assert receipt == {"id": None, "status": "failed", "reason": "the server refused the query"}
    assert episode(pumps, "other")["entries"] == [] and failures(pumps)[0]["reason"] == "failed"


def test_eight_writers_at_once_get_distinct_numbers(pumps, db):
    def write(number, own):
        return [record(own, "p1-hot", "observation", f"agent-{number}", {"n": number}) for _ in range(5)]

    receipts = [receipt for written in at_once(db, pumps, write) for receipt in written]
    assert sorted(receipt["seq"] for receipt in receipts) == list(range(1, 41))
    entries = episode(pumps, "p1-hot")["entries"]
    assert [entry["seq"] for entry in entries] == list(range(1, 41))
    assert read(pumps, "MATCH (:Entry)-[r:NEXT]->(:Entry) RETURN count(r)") == [[39]]


# close_episode()


def test_close_records_the_outcome_and_closes(pumps):
    record(pumps, "p1-hot", "observation", "watcher", {"status": "hot"})
    assert "closed_at" not in episode(pumps, "p1-hot")
    receipt = close_episode(pumps, "p1-hot", "reviewer", {"failed": False}, ["p1-hot/1"], DAY2)
    assert receipt == {"id": "p1-hot/2", "seq": 2, "status": "recorded"}
    found = episode(pumps, "p1-hot")
    assert found["closed_at"] == datetime(2026, 1, 2, tzinfo=UTC) and found["entry_count"] == 2
    assert found["entries"][-1]["type"] == "outcome" and found["entries"][-1]["failed"] is False
    assert close_episode(pumps, "p1-hot", "reviewer")["status"] == "closed"


def test_a_refused_close_leaves_the_episode_open(pumps):
    receipt = close_episode(pumps, "p1-hot", "reviewer", {"failed": False}, ["p1-hot/5"])
    assert receipt["status"] == "missing"
    assert "closed_at" not in episode(pumps, "p1-hot")
    assert record(pumps, "p1-hot", "observation", "watcher")["seq"] == 1


# episode(), episodes_about()


def test_episode_of_nothing_is_none_and_a_bad_id_raises(pumps):
    assert episode(pumps, "nowhere") is None
    with pytest.raises(Refused, match="must be text"):
        episode(pumps, HostileText("p1-hot"))


def test_episodes_about_newest_first_with_the_outcome(pumps):
    open_episode(pumps, "b-old", "watcher", [(PUMP, "p1")], DAY1)
    open_episode(pumps, "a-old", "watcher", [(PUMP, "p1")], DAY1)
    open_episode(pumps, "p2-only", "watcher", [(PUMP, "p2")])
    close_episode(pumps, "a-old", "reviewer", {"failed": True}, [(PUMP, "p1")], DAY2)
    found = episodes_about(pumps, PUMP, "p1")
    assert [one["id"] for one in found] == ["p1-hot", "b-old", "a-old"]
    assert found[0]["outcome"] is None and "closed_at" not in found[0]
    outcome = found[2]["outcome"]
    assert outcome["failed"] is True and outcome["cites"] == [("Pump", "p1")] and outcome["seq"] == 1
    assert not {"serial", "words", "content", "episode"} & set(outcome)
    assert not {"about", "entries"} & set(found[2])
    assert [one["id"] for one in episodes_about(pumps, "Pump", "p1", limit=2)] == ["p1-hot", "b-old"]
    assert episodes_about(pumps, PUMP, "nobody") == []
    with pytest.raises(Refused):
        episodes_about(pumps, PUMP, 1.5)


def test_episodes_by_id_gives_each_exactly_as_episode_does(pumps):
    record(pumps, "p1-hot", "observation", "watcher", {"status": "hot", "values": "a value like another"})
    found = episodes_by_id(pumps, ["p1-hot", "nowhere"])
    assert list(found) == ["p1-hot"]
    assert found["p1-hot"] == episode(pumps, "p1-hot")
    entry = found["p1-hot"]["entries"][0]
    assert entry["status"] == "hot" and entry["values"] == "a value like another"


def test_an_entry_marked_wrong_shows_its_marks_and_the_others_none(pumps):
    record(pumps, "p1-hot", "observation", "watcher", {"status": "hot"})
    record(pumps, "p1-hot", "observation", "watcher", {"status": "ok"})
    receipt = invalidate_entry(pumps, "p1-hot/1", "checker", "the sensor broke", at="2026-01-03T00:00:00Z")
    assert receipt["status"] == "invalidated"
    marked, clean = episode(pumps, "p1-hot")["entries"]
    assert (marked["invalidated_at"], marked["invalidated_by"], marked["invalidated_why"]) == (
        datetime(2026, 1, 3, tzinfo=UTC),
        "checker",
        "the sensor broke",
    )
    assert not {"invalidated_at", "invalidated_by", "invalidated_why"} & set(clean)


def test_an_episode_keeps_its_count_and_end_on_the_node_and_the_stamp_its_serial(pumps):
    before = serial(pumps)
    record(pumps, "p1-hot", "seen", "agent")
    close_episode(pumps, "p1-hot", "reviewer", {"failed": False}, ["p1-hot/1"], DAY2)
    node = read(pumps, "MATCH (ep:Episode {id: 'p1-hot'}) RETURN properties(ep)")[0][0]
    assert node["entry_count"] == 2 and node["closed_at"] == datetime(2026, 1, 2, tzinfo=UTC)
    assert serial(pumps) == before + 2
    assert read(pumps, "MATCH ()-[t:LH_TALLY]->() RETURN count(t)") == [[0]]


def test_an_episode_kept_on_a_tally_before_reads_and_counts_on(pumps):
    assert record(pumps, "p1-hot", "seen", "agent", {"n": 1})["seq"] == 1
    assert record(pumps, "p1-hot", "seen", "agent", {"n": 2})["seq"] == 2
    as_kept_on_tallies(pumps)
    before = read(pumps, "MATCH (st:Stamp)-[t:LH_TALLY]->(st) RETURN t.serial")[0][0]
    assert episode(pumps, "p1-hot")["entry_count"] == 2
    assert record(pumps, "p1-hot", "seen", "agent", {"n": 3}) == {
        "id": "p1-hot/3",
        "seq": 3,
        "status": "recorded",
    }
    closed = close_episode(pumps, "p1-hot", "agent", {"done": True}, cites=["p1-hot/3"])
    assert closed == {"id": "p1-hot/4", "seq": 4, "status": "recorded"}
    found = episode(pumps, "p1-hot")
    assert found["entry_count"] == 4 and [entry["seq"] for entry in found["entries"]] == [1, 2, 3, 4]
    assert episodes_about(pumps, PUMP, "p1")[0]["outcome"]["done"] is True
    assert read(pumps, "MATCH ()-[t:LH_TALLY]->() RETURN count(t)") == [[0]]  # moved by the first write
    assert serial(pumps) == before + 2


def test_a_second_tally_never_doubles_an_entry_and_numbers_after_the_larger(pumps):
    """Two LH_TALLY edges on an episode and on the Stamp, as a race before the type was registered can
    leave them: the next entry is written once, numbered after the larger count."""
    assert record(pumps, "p1-hot", "seen", "agent", {"n": 1})["seq"] == 1
    as_kept_on_tallies(pumps)
    pumps.query("MATCH (ep:Episode {id: 'p1-hot'}) CREATE (ep)-[:LH_TALLY {entries: 3}]->(ep)")
    pumps.query("MATCH (st:Stamp)-[t:LH_TALLY]->(st) CREATE (st)-[:LH_TALLY {serial: t.serial + 5}]->(st)")
    top = read(pumps, "MATCH (st:Stamp)-[t:LH_TALLY]->(st) RETURN max(t.serial)")[0][0]
    assert record(pumps, "p1-hot", "seen", "agent", {"n": 2}) == {
        "id": "p1-hot/4",
        "seq": 4,
        "status": "recorded",
    }
    assert episode(pumps, "p1-hot")["entry_count"] == 4 and serial(pumps) == top + 1
    entries = "MATCH (:Episode {id: 'p1-hot'})-[:HAS]->(n:Entry) RETURN n.seq, n.serial ORDER BY n.seq"
    assert read(pumps, entries)[-1] == [4, top + 1] and len(read(pumps, entries)) == 2
    writers = "MATCH (:Agent {name: 'agent'})-[w:WROTE]->(:Entry {id: 'p1-hot/4'}) RETURN count(w)"
    assert read(pumps, writers) == [[1]]


def test_an_end_is_kept_on_the_node_and_one_kept_on_a_tally_before_is_read_everywhere(pumps):
    from lighthouse import agent_trust, diff_between, learn, weigh

    record(pumps, "p1-hot", "observation", "watcher", {"status": "hot"})
    close_episode(pumps, "p1-hot", "reviewer", {"failed": False}, ["p1-hot/1"], DAY2)
    for where in ("node", "tally"):
        if where == "tally":  # as an episode closed by a version that kept its end on a tally
            as_kept_on_tallies(pumps)
            kept = "MATCH (ep:Episode {id: 'p1-hot'})-[t:LH_TALLY]->(ep) RETURN ep.closed_at, t.closed_at"
            assert read(pumps, kept) == [[None, datetime(2026, 1, 2, tzinfo=UTC)]]
        assert episode(pumps, "p1-hot")["closed_at"] == datetime(2026, 1, 2, tzinfo=UTC)
        [about] = episodes_about(pumps, PUMP, "p1")
        assert about["closed_at"] == datetime(2026, 1, 2, tzinfo=UTC) and about["outcome"]["id"] == "p1-hot/2"
        assert agent_trust(pumps, "reviewer")["closed_episodes"] == 1
        window = diff_between(pumps, [PUMP], DAY1, "2026-01-03T00:00:00Z")
        assert window["episodes_closed"] == ["p1-hot"]
        lesson_id = f"lesson-{where}"
        assert learn(pumps, lesson_id, "reviewer", "hot pumps recover", ["p1-hot"])["status"] == "learned"
        assert weigh(pumps, lesson_id, "reviewer", "p1-hot", True)["status"] == "exists"
        assert record(pumps, "p1-hot", "observation", "watcher", {"late": True})["status"] == "closed"


def test_an_episode_id_may_be_a_whole_name_and_its_entries_are_cited_and_invalidated(pumps):
    # API 1.2: a name of 1 to 200 characters is every id; an entry's id is longer by "/" and its number.
    long_id = "e" * 200
    assert open_episode(pumps, long_id, "watcher", [(PUMP, "p1")]) == {"id": long_id, "status": "opened"}
    first = record(pumps, long_id, "observation", "watcher", {"reading": 1})
    assert first == {"id": f"{long_id}/1", "seq": 1, "status": "recorded"}
    cited = record(
        pumps, long_id, "observation", "watcher", cites=[f"{long_id}/1", ("Entry", f"{long_id}/1")]
    )
    assert cited["status"] == "recorded"
    assert [entry["cites"] for entry in episode(pumps, long_id)["entries"]][1] == [("Entry", f"{long_id}/1")]
    rows = [{"key": "p2", "t": DAY2, "values": {"status": "hot"}, "entry": f"{long_id}/2"}]
    assert remember(pumps, PUMP, rows, "watcher") == [{"key": "p2", "status": "changed"}]
    assert invalidate_entry(pumps, f"{long_id}/1", "watcher", "misread")["status"] == "invalidated"
    before = snapshot(pumps)
    with pytest.raises(Refused, match="1 to 200 characters"):  # the id's own check: nothing is written
        open_episode(pumps, "e" * 201, "watcher")
    with pytest.raises(Refused, match="1 to 205 characters"):
        invalidate_entry(pumps, "e" * 206, "watcher", "misread")
    for longer in ("e" * 201, "e" * 199 + "/x1", f"{long_id}/12345", f"{long_id}/"):  # only <name>/<number>
        with pytest.raises(Refused, match="must be text"):
            invalidate_entry(pumps, longer, "watcher", "misread")
    assert snapshot(pumps) == before
