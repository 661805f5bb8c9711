"""Episodes: opened once, entries numbered in one query with evidence that exists, closed by an outcome."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from graph_contents import assert_one_refusal, snapshot
from lighthouse import Kind, as_of, ensure_schema, history, remember
from lighthouse.clock import from_store, now, stamp
from lighthouse.episodes import (
    MAX_EPISODE_ID,
    close_episode,
    episode,
    episodes_about,
    open_episode,
    record,
)
from lighthouse.graphs import read
from lighthouse.values import MAX_REFERENCES, MAX_ROW, MAX_TEXT, MAX_VALUES, Refused
from lighthouse.write.failures import failures
from racing import at_once

ZONE = Kind("Zone", key="code")
PUMP = Kind("Pump", key="tag", text=("note",), relations={"IN": ZONE})

DAY1, DAY2 = "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z"


@pytest.fixture
def pumps(graph):
    """p1 ok in z1 on day 1, hot in z2 on day 2; p2 ok; and an open episode about p1."""
    ensure_schema(graph, [PUMP])
    rows = [
        {"key": "p1", "t": DAY1, "values": {"status": "ok", "note": "north pump"}, "relations": {"IN": "z1"}},
        {"key": "p2", "t": DAY1, "values": {"status": "ok"}},
        {"key": 7, "t": DAY1, "values": {"status": "ok"}},
    ]
    remember(graph, PUMP, by="inventory", rows=rows)
    remember(graph, PUMP, by="inventory", rows=[{"key": "p1", "t": DAY2, "values": {"status": "hot"}}])
    assert open_episode(graph, "p1-hot", by="watcher", about=[(PUMP, "p1")])["status"] == "opened"
    return graph


def serial(graph) -> int | None:
    found = read(graph, "MATCH (s:Stamp) RETURN s.serial")
    return found[0][0] if found else None


# open_episode()


def test_open_links_the_entities_it_is_about(pumps):
    assert open_episode(pumps, "two", by="watcher", about=[(PUMP, "p2"), ("Pump", 7), (ZONE, "z1")]) == {
        "id": "two",
        "status": "opened",
    }
    found = episode(pumps, "two")
    assert found["about"] == [("Pump", 7), ("Pump", "p2"), ("Zone", "z1")]
    assert found["by"] == "watcher"
    assert found["entries"] == [] and found["outcome"] is None and found["closed_at"] is None
    assert abs(found["opened_at"] - now()) < timedelta(seconds=5)


def test_open_again_with_the_same_about_is_unchanged(pumps):
    before = snapshot(pumps)
    receipt = open_episode(pumps, "p1-hot", by="someone-else", about=[("Pump", "p1"), (PUMP, "p1")])
    assert receipt == {"id": "p1-hot", "status": "unchanged"}
    assert snapshot(pumps) == before
    assert failures(pumps) == []


def test_open_again_about_other_entities_is_a_conflict(pumps):
    before = snapshot(pumps)
    receipt = open_episode(pumps, "p1-hot", by="watcher", about=[(PUMP, "p1"), (PUMP, "p2")])
    assert receipt["status"] == "conflict" and "other entities" in receipt["reason"]
    assert snapshot(pumps) == before
    assert [f["reason"] for f in failures(pumps)] == ["conflict"]
    assert episode(pumps, "p1-hot")["about"] == [("Pump", "p1")]


def test_open_about_an_entity_that_does_not_exist_is_missing(pumps):
    before = snapshot(pumps)
    receipt = open_episode(pumps, "ghost", by="watcher", about=[(PUMP, "p1"), (PUMP, "p9")])
    assert receipt["status"] == "missing" and "Pump 'p9'" in receipt["reason"]
    assert snapshot(pumps) == before
    assert episode(pumps, "ghost") is None
    assert [(f["reason"], f["kind"], f["key"]) for f in failures(pumps)] == [("missing", "Episode", "ghost")]


def test_open_about_nothing_and_at_a_given_time(pumps):
    assert open_episode(pumps, "quiet", by="watcher", at=DAY1)["status"] == "opened"
    found = episode(pumps, "quiet")
    assert found["about"] == [] and found["opened_at"] == datetime(2026, 1, 1, tzinfo=UTC)


def test_open_a_graph_with_no_schema(graph):
    assert open_episode(graph, "first", by="watcher")["status"] == "opened"
    assert record(graph, "first", "note", by="watcher", values={"text": "hello"})["id"] == "first/1"
    assert serial(graph) == 1


def test_an_ended_episode_cannot_be_opened_again(pumps):
    close_episode(pumps, "p1-hot", by="reviewer", outcome={"failed": False})
    before = snapshot(pumps)
    receipt = open_episode(pumps, "p1-hot", by="watcher", about=[(PUMP, "p1")])
    assert receipt["status"] == "ended"
    assert snapshot(pumps) == before
    assert [f["reason"] for f in failures(pumps)] == ["ended"]


def test_an_episode_id_leaves_room_for_entry_numbers(pumps):
    longest = "e" * MAX_EPISODE_ID
    assert open_episode(pumps, longest, by="watcher")["status"] == "opened"
    entry = record(pumps, longest, "note", by="watcher")["id"]
    assert record(pumps, longest, "note", by="watcher", cites=[entry])["status"] == "recorded"
    assert open_episode(pumps, longest + "e", by="watcher")["status"] == "invalid"


# record()


def test_record_appends_numbered_entries_with_their_edges(pumps):
    first = record(
        pumps, "p1-hot", "observation", by="watcher", values={"status": "hot"}, cites=[(PUMP, "p1")]
    )
    assert first == {"id": "p1-hot/1", "seq": 1, "status": "recorded"}
    second = record(
        pumps, "p1-hot", "forecast", by="forecaster", values={"fails_in_hours": 6}, cites=[first["id"]]
    )
    assert second == {"id": "p1-hot/2", "seq": 2, "status": "recorded"}
    edges = read(
        pumps,
        "MATCH (a)-[r]->(b:Entry) WHERE type(r) IN ['HAS', 'NEXT', 'WROTE'] "
        "RETURN type(r), coalesce(a.id, a.name), b.id ORDER BY b.id, type(r)",
    )
    assert edges == [
        ["HAS", "p1-hot", "p1-hot/1"],
        ["WROTE", "watcher", "p1-hot/1"],
        ["HAS", "p1-hot", "p1-hot/2"],
        ["NEXT", "p1-hot/1", "p1-hot/2"],
        ["WROTE", "forecaster", "p1-hot/2"],
    ]
    cites = read(
        pumps, "MATCH (a:Entry)-[:CITES]->(b) RETURN a.id, b:Pump, coalesce(b.id, b.key) ORDER BY a.id"
    )
    assert cites == [["p1-hot/1", True, "p1"], ["p1-hot/2", False, "p1-hot/1"]]
    assert read(pumps, "MATCH (a:Agent) RETURN count(a)") == [[2]]


def test_an_entry_node_holds_what_was_said(pumps):
    receipt = record(
        pumps,
        "p1-hot",
        "observation",
        by="watcher",
        values={"status": "Hot", "note": "Fan_stopped\nÉLAN", "level": 3, "ok": False},
        at="2026-01-01T12:00:00Z",
    )
    props = read(pumps, "MATCH (n:Entry {id: $id}) RETURN properties(n)", {"id": receipt["id"]})[0][0]
    assert props["episode"] == "p1-hot" and props["seq"] == 1 and props["serial"] == 1
    assert props["type"] == "observation" and props["by"] == "watcher"
    assert from_store(props["at"]) == datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
    assert abs(from_store(props["recorded_at"]) - now()) < timedelta(seconds=5)
    assert props["words"] == "fan stopped élan hot"  # text values in the order of their names
    assert json.loads(props["content"]) == {
        "status": "Hot",
        "note": "Fan_stopped\nÉLAN",
        "level": 3,
        "ok": False,
    }
    assert (props["v_status"], props["v_level"], props["v_ok"]) == ("Hot", 3, False)
    # The values can be queried as properties.
    assert read(pumps, "MATCH (n:Entry) WHERE n.v_level > 2 RETURN n.id") == [["p1-hot/1"]]
    found = read(pumps, "CALL db.idx.fulltext.queryNodes('Entry', 'stopped') YIELD node RETURN node.id")
    assert found == [["p1-hot/1"]]


def test_values_come_back_exactly(pumps):
    given = {
        "sum": 0.1 + 0.2,
        "float_one": 1.0,
        "one": 1,
        "yes": True,
        "big": 2**63 - 1,
        "tiny": 5e-324,
        "minus_zero": -0.0,
        "mixed": [1, 1.0, "1", True, 123456789.123456789],
        "empty": [],
        "text": "ünïcode \u00a0 ✓ 'quoted' \"double\" `tick` \\",
    }
    record(pumps, "p1-hot", "observation", by="watcher", values=given)
    close_episode(pumps, "p1-hot", by="reviewer", outcome={"failed": False, "hours": 2.5})
    found = episode(pumps, "p1-hot")
    stored = found["entries"][0]["values"]
    # floats as FalkorDB reads them back, to 15 significant digits: the v_ properties hold the same
    assert stored == {**given, "sum": 0.3, "mixed": [1, 1.0, "1", True, 123456789.123457]}
    assert [type(stored[name]) for name in given] == [type(item) for item in given.values()]
    assert [type(item) for item in stored["mixed"]] == [int, float, str, bool, float]
    assert found["outcome"] == {"failed": False, "hours": 2.5}
    assert found["outcome"]["failed"] is False


def test_a_cited_entity_is_pinned_to_the_time_of_the_entry(pumps):
    record(
        pumps,
        "p1-hot",
        "observation",
        by="watcher",
        values={"seen": "ok"},
        cites=[(PUMP, "p1")],
        at="2026-01-01T06:00:00Z",
    )
    record(pumps, "p1-hot", "observation", by="watcher", values={"seen": "hot"}, cites=[(PUMP, "p1")])
    pinned = read(pumps, "MATCH (n:Entry)-[c:CITES]->(:Pump) RETURN n.seq, c.as_of ORDER BY n.seq")
    assert [pinned[0][0], from_store(pinned[0][1])] == [1, datetime(2026, 1, 1, 6, 0, tzinfo=UTC)]
    assert as_of(pumps, PUMP, "p1", from_store(pinned[0][1]))["status"] == "ok"
    assert as_of(pumps, PUMP, "p1", from_store(pinned[1][1]))["status"] == "hot"
    entries = episode(pumps, "p1-hot")["entries"]
    assert entries[0]["at"] == datetime(2026, 1, 1, 6, 0, tzinfo=UTC)


def test_cites_keep_the_order_given(pumps):
    for n in range(12):
        record(pumps, "p1-hot", "observation", by="watcher", values={"n": n})
    given = [f"p1-hot/{n}" for n in (11, 2, 10, 1, 12, 3)]
    given[3:3] = [(PUMP, "p2"), (ZONE, "z1"), (PUMP, 7), ("Episode", "p1-hot"), (PUMP, "p1"), "p1-hot/4"]
    record(pumps, "p1-hot", "forecast", by="watcher", cites=given)
    assert episode(pumps, "p1-hot")["entries"][12]["cites"] == [
        ("Entry", "p1-hot/11"),
        ("Entry", "p1-hot/2"),
        ("Entry", "p1-hot/10"),
        ("Pump", "p2"),
        ("Zone", "z1"),
        ("Pump", 7),
        ("Episode", "p1-hot"),
        ("Pump", "p1"),
        ("Entry", "p1-hot/4"),
        ("Entry", "p1-hot/1"),
        ("Entry", "p1-hot/12"),
        ("Entry", "p1-hot/3"),
    ]


def test_lessons_and_playbooks_can_be_cited_once_they_exist(pumps):
    cites = [("Lesson", "hot-in-z2"), ("Playbook", "cool#1")]
    assert record(pumps, "p1-hot", "action", by="watcher", cites=cites)["status"] == "missing"
    pumps.query("CREATE (:Lesson {id: 'hot-in-z2'}), (:Playbook {id: 'cool#1'})")
    assert record(pumps, "p1-hot", "action", by="watcher", cites=cites)["seq"] == 1
    assert episode(pumps, "p1-hot")["entries"][0]["cites"] == [
        ("Lesson", "hot-in-z2"),
        ("Playbook", "cool#1"),
    ]


def test_200_cites_are_taken(pumps):
    for n in range(3):
        record(pumps, "p1-hot", "observation", by="watcher", values={"n": n})
    cites = ["p1-hot/1", "p1-hot/2", "p1-hot/3", (PUMP, "p1"), (PUMP, "p2"), (PUMP, 7)]
    cites += [(ZONE, "z1")] * 10 + [("Pump", "p1")] * (MAX_REFERENCES - 16)
    assert len(cites) == MAX_REFERENCES
    assert record(pumps, "p1-hot", "summary", by="watcher", cites=cites)["seq"] == 4
    assert len(episode(pumps, "p1-hot")["entries"][3]["cites"]) == 7


def test_the_same_call_again_makes_a_new_entry(pumps):
    first = record(pumps, "p1-hot", "observation", by="watcher", values={"status": "hot"}, at=DAY2)
    again = record(pumps, "p1-hot", "observation", by="watcher", values={"status": "hot"}, at=DAY2)
    assert (first["seq"], again["seq"]) == (1, 2)
    assert [e["values"] for e in episode(pumps, "p1-hot")["entries"]] == [{"status": "hot"}] * 2


def test_serials_count_the_entries_of_the_whole_graph(pumps):
    open_episode(pumps, "other", by="watcher")
    receipts = [
        record(pumps, "p1-hot", "a", by="w"),
        record(pumps, "other", "a", by="w"),
        record(pumps, "p1-hot", "a", by="w"),
    ]
    assert [r["id"] for r in receipts] == ["p1-hot/1", "other/1", "p1-hot/2"]
    found = read(pumps, "MATCH (n:Entry) RETURN n.id, n.serial ORDER BY n.serial")
    assert found == [["p1-hot/1", 1], ["other/1", 2], ["p1-hot/2", 3]]
    assert serial(pumps) == 3


def test_evidence_must_exist_and_a_refused_entry_uses_no_number(pumps):
    record(pumps, "p1-hot", "observation", by="watcher")
    for cites in (
        ["p1-hot/9"],
        [(PUMP, "p9")],
        [(PUMP, "p1"), ("Zone", "z9")],
        [("Episode", "nope")],
        [(PUMP, "7")],
    ):
        before = snapshot(pumps)
        receipt = record(pumps, "p1-hot", "forecast", by="watcher", cites=cites)
        assert receipt["status"] == "missing" and receipt["id"] is None and receipt["seq"] is None
        assert "does not exist" in receipt["reason"]
        assert snapshot(pumps) == before
    assert serial(pumps) == 1
    assert record(pumps, "p1-hot", "forecast", by="watcher", cites=["p1-hot/1"])["seq"] == 2
    assert serial(pumps) == 2
    stored = failures(pumps, reason="missing")
    assert len(stored) == 5 and {f["kind"] for f in stored} == {"Entry"}
    assert any("p1-hot/9" in f["content"] for f in stored)


def test_a_refused_entry_is_counted_again_on_the_same_failure(pumps):
    for _ in range(3):
        assert record(pumps, "p1-hot", "forecast", by="watcher", cites=["p1-hot/9"])["status"] == "missing"
    assert [f["times"] for f in failures(pumps)] == [3]


def test_an_entry_into_no_episode_is_unknown(pumps):
    before = snapshot(pumps)
    receipt = record(pumps, "nope", "observation", by="watcher", cites=[(PUMP, "p9")])
    assert receipt["status"] == "unknown"
    assert snapshot(pumps) == before
    assert serial(pumps) == 0


def test_an_entry_into_a_graph_that_does_not_exist(graph):
    assert record(graph, "nope", "observation", by="watcher")["status"] == "unknown"
    assert [f["reason"] for f in failures(graph)] == ["unknown"]
    assert snapshot(graph) == ([], [])


def test_an_outcome_closes_and_a_closed_episode_refuses(pumps):
    record(pumps, "p1-hot", "observation", by="watcher")
    closed = close_episode(
        pumps, "p1-hot", by="reviewer", outcome={"failed": False}, cites=["p1-hot/1"], at=DAY2
    )
    assert closed == {"id": "p1-hot/2", "seq": 2, "status": "closed"}
    before = snapshot(pumps)
    for call in (
        lambda: record(pumps, "p1-hot", "observation", by="watcher"),
        lambda: close_episode(pumps, "p1-hot", by="reviewer", outcome={"failed": True}),
    ):
        receipt = call()
        assert receipt["status"] == "ended" and "has ended" in receipt["reason"]
    assert snapshot(pumps) == before
    assert serial(pumps) == 2
    found = episode(pumps, "p1-hot")
    assert found["closed_at"] == datetime(2026, 1, 2, tzinfo=UTC)
    assert found["outcome"] == {"failed": False}
    assert [e["type"] for e in found["entries"]] == ["observation", "outcome"]


def test_record_of_type_outcome_closes_too(pumps):
    assert record(pumps, "p1-hot", "outcome", by="reviewer", values={"fixed": True})["status"] == "closed"
    assert record(pumps, "p1-hot", "note", by="reviewer")["status"] == "ended"
    assert episode(pumps, "p1-hot")["outcome"] == {"fixed": True}


def test_eight_writers_get_distinct_gapless_numbers(pumps, db):
    open_episode(pumps, "side", by="watcher")

    def write(number: int, graph) -> list[dict]:
        receipts: list[dict] = []
        for n in range(6):
            target = "side" if n == 5 and number % 2 else "p1-hot"  # other entries take serials between
            got = record(
                graph, target, "observation", by=f"writer-{number}", values={"n": n}, cites=[(PUMP, "p1")]
            )
            receipts.append(got)
        return receipts

    receipts = [receipt for written in at_once(db, pumps, write) for receipt in written]
    assert {r["status"] for r in receipts} == {"recorded"}
    main = sorted(r["seq"] for r in receipts if r["id"].startswith("p1-hot/"))
    side = sorted(r["seq"] for r in receipts if r["id"].startswith("side/"))
    assert main == list(range(1, 45)) and side == [1, 2, 3, 4]
    serials = read(pumps, "MATCH (n:Entry) RETURN n.serial ORDER BY n.serial")
    assert [row[0] for row in serials] == list(range(1, 49))
    assert serial(pumps) == 48
    chain = read(pumps, "MATCH (a:Entry {episode: 'p1-hot'})-[:NEXT]->(b:Entry) RETURN a.seq, b.seq")
    assert sorted(chain) == [[n, n + 1] for n in range(1, 44)]
    # Numbers follow the order in which the entries were stored.
    in_order = read(pumps, "MATCH (n:Entry {episode: 'p1-hot'}) RETURN n.seq ORDER BY n.serial")
    assert [row[0] for row in in_order] == main


# episode() and episodes_about()


def test_episode_reads_entries_by_seq_and_shows_no_words(pumps):
    for n in range(12):
        record(pumps, "p1-hot", "observation", by="watcher", values={"note": f"reading {n}"})
    found = episode(pumps, "p1-hot")
    assert [e["seq"] for e in found["entries"]] == list(range(1, 13))
    assert [e["id"] for e in found["entries"]][:2] == ["p1-hot/1", "p1-hot/2"]
    assert set(found) == {"id", "by", "opened_at", "closed_at", "about", "outcome", "entries"}
    assert set(found["entries"][0]) == {"id", "seq", "type", "by", "at", "values", "cites"}
    assert "words" not in repr(found) and "content" not in repr(found)
    assert episode(pumps, "none") is None
    with pytest.raises(Refused):
        episode(pumps, "bad\x00id")


def test_episodes_about_gives_the_newest_first_with_outcomes(pumps):
    open_episode(pumps, "older", by="watcher", about=[(PUMP, "p1"), (PUMP, "p2")], at=DAY1)
    open_episode(pumps, "only-p2", by="watcher", about=[(PUMP, "p2")])
    close_episode(pumps, "p1-hot", by="reviewer", outcome={"failed": False})
    found = episodes_about(pumps, PUMP, "p1")
    assert [e["id"] for e in found] == ["p1-hot", "older"]
    assert found[0]["outcome"]["failed"] is False
    assert found[1]["outcome"] is None
    assert found[0]["entries"][0]["type"] == "outcome"
    assert [e["id"] for e in episodes_about(pumps, "Pump", "p2")] == ["only-p2", "older"]
    assert [e["id"] for e in episodes_about(pumps, PUMP, "p1", limit=1)] == ["p1-hot"]
    assert episodes_about(pumps, PUMP, "p9") == []
    assert episodes_about(pumps, PUMP, 7) == []


def test_episodes_about_in_one_round_trip(pumps):
    class Counting:
        def __init__(self, graph):
            self.graph, self.reads = graph, 0

        def ro_query(self, *args, **kwargs):
            self.reads += 1
            return self.graph.ro_query(*args, **kwargs)

    counted = Counting(pumps)
    for n in range(3):
        open_episode(pumps, f"e{n}", by="w", about=[(PUMP, "p1")])
        record(pumps, f"e{n}", "observation", by="w", cites=[(PUMP, "p1")])
    assert len(episodes_about(counted, PUMP, "p1")) == 4
    assert counted.reads == 1


@pytest.mark.parametrize(
    "kind, key, limit",
    [
        ("Episode", "p1-hot", 5),
        (PUMP, None, 5),
        (PUMP, "p1", 0),
        (PUMP, "p1", 1001),
        (PUMP, "p1", True),
        ("Bad`", "p1", 5),
    ],
)
def test_episodes_about_refuses_bad_questions(pumps, kind, key, limit):
    with pytest.raises(Refused):
        episodes_about(pumps, kind, key, limit=limit)


# remember() rows that name an entry


def test_a_row_can_name_the_entry_it_comes_from(pumps):
    look = record(
        pumps, "p1-hot", "observation", by="watcher", values={"status": "cold"}, cites=[(PUMP, "p1")]
    )
    row = {"key": "p1", "t": "2026-01-03T00:00:00Z", "values": {"status": "cold"}, "entry": look["id"]}
    assert remember(pumps, PUMP, by="reader", rows=[row]) == [{"key": "p1", "status": "changed"}]
    assert history(pumps, PUMP, "p1")[-1]["entry"] == "p1-hot/1"
    assert history(pumps, PUMP, "p1")[0]["entry"] is None
    wrong = {"key": "p2", "t": "2026-01-03T00:00:00Z", "values": {"status": "cold"}, "entry": "p1-hot/2"}
    assert remember(pumps, PUMP, by="reader", rows=[wrong])[0]["status"] == "missing"


# Attacks: each refused write leaves one WriteFailure and changes nothing else.

FUTURE = (datetime.now(UTC) + timedelta(minutes=10)).strftime("%Y-%m-%dT%H:%M:%SZ")
HOSTILE = "') MATCH (n) DETACH DELETE n //"

ATTACKS = {
    "record: cites not a list": lambda g: record(g, "p1-hot", "o", by="w", cites="p1-hot/1"),
    "record: a cite of three parts": lambda g: record(g, "p1-hot", "o", by="w", cites=[("Pump", "p1", 1)]),
    "record: a cite with a bad label": lambda g: record(g, "p1-hot", "o", by="w", cites=[("Pump` {", "p1")]),
    "record: a cite of a State": lambda g: record(g, "p1-hot", "o", by="w", cites=[("State", "p1")]),
    "record: a cite of a bool key": lambda g: record(g, "p1-hot", "o", by="w", cites=[(PUMP, True)]),
    "record: a cite that is a number": lambda g: record(g, "p1-hot", "o", by="w", cites=[5]),
    "record: 201 cites": lambda g: record(g, "p1-hot", "o", by="w", cites=[(PUMP, "p1")] * 201),
    "record: a text over the limit": lambda g: record(
        g, "p1-hot", "o", by="w", values={"t": "x" * (MAX_TEXT + 1)}
    ),
    "record: an entry over the limit": lambda g: record(
        g, "p1-hot", "o", by="w", values={f"t{n}": "x" * (MAX_ROW // 2) for n in range(3)}
    ),
    "record: 201 values": lambda g: record(
        g, "p1-hot", "o", by="w", values={f"v{n}": n for n in range(MAX_VALUES + 1)}
    ),
    "record: a list of 1001 items": lambda g: record(
        g, "p1-hot", "o", by="w", values={"l": list(range(1001))}
    ),
    "record: a dict value": lambda g: record(g, "p1-hot", "o", by="w", values={"d": {"a": 1}}),
    "record: a None value": lambda g: record(g, "p1-hot", "o", by="w", values={"d": None}),
    "record: NaN": lambda g: record(g, "p1-hot", "o", by="w", values={"d": float("nan")}),
    "record: a value named words": lambda g: record(g, "p1-hot", "o", by="w", values={"words": "x"}),
    "record: a value name that is not plain": lambda g: record(g, "p1-hot", "o", by="w", values={"a`b": 1}),
    "record: values not a dict": lambda g: record(g, "p1-hot", "o", by="w", values=["a"]),
    "record: a time in the future": lambda g: record(g, "p1-hot", "o", by="w", at=FUTURE),
    "record: a time without a zone": lambda g: record(g, "p1-hot", "o", by="w", at="2026-01-01T00:00:00"),
    "record: a time with fractions": lambda g: record(g, "p1-hot", "o", by="w", at="2026-01-01T00:00:00.5Z"),
    "record: a time that is not one": lambda g: record(g, "p1-hot", "o", by="w", at=HOSTILE),
    "record: by empty": lambda g: record(g, "p1-hot", "o", by=""),
    "record: by with NUL": lambda g: record(g, "p1-hot", "o", by="w\x00"),
    "record: by with a lone surrogate": lambda g: record(g, "p1-hot", "o", by="w\ud800"),
    "record: by too long": lambda g: record(g, "p1-hot", "o", by="w" * 201),
    "record: by not text": lambda g: record(g, "p1-hot", "o", by=["w"]),
    "record: type with a control character": lambda g: record(g, "p1-hot", "o\x1b[2J", by="w"),
    "record: type None": lambda g: record(g, "p1-hot", None, by="w"),
    "record: episode id too long": lambda g: record(g, "p" * (MAX_EPISODE_ID + 1), "o", by="w"),
    "record: episode id not text": lambda g: record(g, {"id": 1}, "o", by="w"),
    "record: a text with NUL": lambda g: record(g, "p1-hot", "o", by="w", values={"t": "a\x00b"}),
    "open: about a record": lambda g: open_episode(g, "new", by="w", about=[("Episode", "p1-hot")]),
    "open: about 201 entities": lambda g: open_episode(
        g, "new", by="w", about=[(PUMP, f"p{n}") for n in range(201)]
    ),
    "open: about an entity that is missing": lambda g: open_episode(g, "new", by="w", about=[(PUMP, "p9")]),
    "open: about not a list": lambda g: open_episode(g, "new", by="w", about=(PUMP, "p1", "x")),
    "open: at in the future": lambda g: open_episode(g, "new", by="w", at=FUTURE),
    "open: id with a line break": lambda g: open_episode(g, "new\nline", by="w"),
    "open: id with spaces around": lambda g: open_episode(g, " new", by="w"),
    "open: by None": lambda g: open_episode(g, "new", by=None),
    "close: an outcome over the limit": lambda g: close_episode(
        g, "p1-hot", by="w", outcome={"t": "x" * (MAX_TEXT + 1)}
    ),
    "close: evidence missing": lambda g: close_episode(
        g, "p1-hot", by="w", outcome={"ok": True}, cites=["p1-hot/1"]
    ),
}


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_an_attack_costs_one_failure_and_nothing_else(pumps, attack):
    before = snapshot(pumps)
    assert_one_refusal(pumps, before, ATTACKS[attack](pumps), {"invalid", "missing"})
    assert episode(pumps, "p1-hot")["closed_at"] is None


def test_hostile_names_are_stored_as_given(pumps):
    assert open_episode(pumps, HOSTILE, by=HOSTILE, about=[(PUMP, "p1")])["status"] == "opened"
    receipt = record(pumps, HOSTILE, HOSTILE, by="Ω agent ✓", values={"note": HOSTILE}, cites=[(PUMP, "p1")])
    assert receipt == {"id": HOSTILE + "/1", "seq": 1, "status": "recorded"}
    found = episode(pumps, HOSTILE)
    assert found["by"] == HOSTILE
    assert found["entries"][0]["type"] == HOSTILE and found["entries"][0]["values"] == {"note": HOSTILE}
    assert len(history(pumps, PUMP, "p1")) == 2


def test_the_bidi_override_is_refused_in_a_name(pumps):
    # U+202E cannot be printed (category Cf): a name that hides its own text is refused.
    assert record(pumps, "p1-hot", "o", by="a\u202eb")["status"] == "invalid"


def test_times_are_stored_in_utc_whole_seconds(pumps):
    record(pumps, "p1-hot", "o", by="w", at="2026-01-01T02:00:00+02:00")
    assert episode(pumps, "p1-hot")["entries"][0]["at"] == datetime(2026, 1, 1, 0, 0, tzinfo=UTC)
    assert stamp("2026-01-01T02:00:00+02:00") == "2026-01-01T00:00:00"


# --- floats -----------------------------------------------------------------------------------------------


def test_a_float_is_stored_as_it_reads_back_in_the_content_and_the_property(pumps):
    given = {"ratio": 0.1 + 0.2, "thirds": [1 / 3], "exact": 2.5}
    assert record(pumps, "p1-hot", "observation", by="watcher", values=given)["status"] == "recorded"
    shown = {"ratio": 0.3, "thirds": [0.333333333333333], "exact": 2.5}
    assert episode(pumps, "p1-hot")["entries"][0]["values"] == shown
    # the v_ properties hold what the content holds, so a query by a value finds what reads show
    stored = read(pumps, "MATCH (n:Entry) RETURN n.v_ratio, n.v_thirds, n.v_exact, n.content")
    assert stored[0][:3] == [0.3, [0.333333333333333], 2.5] and json.loads(stored[0][3]) == shown
    found = read(pumps, "MATCH (n:Entry) WHERE n.v_ratio = $ratio RETURN n.id", {"ratio": 0.3})
    assert found == [["p1-hot/1"]]


@pytest.mark.parametrize("huge", [1.7976931348623157e308, [1.7976931348623157e308]])
def test_a_float_that_would_read_back_as_infinity_is_refused(pumps, huge):
    before = snapshot(pumps)
    receipt = record(pumps, "p1-hot", "observation", by="watcher", values={"m": huge})
    assert receipt["status"] == "invalid" and "too large to be read back" in receipt["reason"]
    assert snapshot(pumps) == before
    assert record(pumps, "p1-hot", "observation", by="watcher", values={"m": 1e308})["status"] == "recorded"
    assert episode(pumps, "p1-hot")["entries"][0]["values"] == {"m": 1e308}


def test_episodes_by_id_reads_several_in_one_query_as_episode_gives_each(graph):
    from ended_episodes import ended, overheat
    from lighthouse.episodes import episode, episodes_by_id
    from query_plans import scans

    overheat(graph)  # d1 exists, so episodes can be about it
    first, second = ended(graph, "e1", {"failed": True}), ended(graph, "e2")
    found = episodes_by_id(graph, [second, first, "nowhere", first])
    assert found == {first: episode(graph, first), second: episode(graph, second)}
    plan = graph.explain("UNWIND $ids AS wanted MATCH (ep:Episode {id: wanted}) RETURN ep", {"ids": ["e1"]})
    assert scans(plan) == ["Node By Index Scan | (ep:Episode)"]
    assert episodes_by_id(graph, []) == {}
    for bad in ("e1", [None], ["x" * 201], list(map(str, range(1_001)))):
        with pytest.raises(Refused):
            episodes_by_id(graph, bad)
