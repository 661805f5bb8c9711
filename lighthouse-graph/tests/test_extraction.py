"""extract() and extract_again(): rows drawn from entries, each entry read once per kind, nothing passed over."""

from __future__ import annotations

import pytest
from devices import DEVICE, KINDS
from lighthouse.episodes import open_episode, record
from lighthouse.extraction import extract, extract_again
from lighthouse.graphs import ensure_schema
from lighthouse.read import history, related
from lighthouse.values import Refused
from lighthouse.write.failures import failures


def notes(graph, texts, episode="look", at="2026-01-01T00:00:00Z", entry_type="observation"):
    open_episode(graph, episode, by="watcher")
    return [
        record(graph, episode, entry_type, by="watcher", values={"text": text}, at=at)["id"] for text in texts
    ]


def reads_device(entry):
    """Plain code standing in for a model: 'd1 hot r2' gives a row for d1, status hot, in room r2."""
    key, status, room = entry["values"]["text"].split()
    return [{"key": key, "values": {"status": status}, "relations": {"LOCATED_IN": room}}]


def test_rows_come_from_entries_and_point_at_them(graph):
    ensure_schema(graph, KINDS)
    first, second = notes(graph, ["d1 ok r1", "d1 hot r2"], at="2026-01-01T00:00:00Z")
    result = extract(graph, DEVICE, reads_device, by="reader")
    assert result["read"] == 2 and result["waiting"] == 0 and result["stopped"] is None
    assert result["rows"] == {
        "created": 1,
        "conflict": 1,
    }  # both entries at the same time say different things
    assert [state["entry"] for state in history(graph, DEVICE, "d1")] == [first]
    assert history(graph, DEVICE, "d1")[0]["valid_from"].isoformat() == "2026-01-01T00:00:00+00:00"


def test_a_row_without_t_holds_from_its_entry_and_with_t_from_its_own(graph):
    ensure_schema(graph, KINDS)
    open_episode(graph, "look", by="watcher")
    record(graph, "look", "observation", by="watcher", values={"text": "d1 ok r1"}, at="2026-01-01T00:00:00Z")
    record(
        graph, "look", "observation", by="watcher", values={"text": "d1 hot r2"}, at="2026-01-02T00:00:00Z"
    )

    def timed(entry):
        rows = reads_device(entry)
        if entry["seq"] == 2:
            rows[0]["t"] = "2026-01-03T00:00:00Z"
        return rows

    assert extract(graph, DEVICE, timed, by="reader")["rows"] == {"created": 1, "changed": 1}
    starts = [state["valid_from"].day for state in history(graph, DEVICE, "d1")]
    assert starts == [1, 3]
    assert related(graph, DEVICE, "d1", "LOCATED_IN") == ["r2"]


def test_each_entry_is_read_once_for_each_kind(graph):
    ensure_schema(graph, KINDS)
    notes(graph, ["d1 ok r1", "d2 ok r1"])
    calls = []

    def counting(entry):
        calls.append(entry["id"])
        return reads_device(entry)

    assert extract(graph, DEVICE, counting, by="reader")["read"] == 2
    assert extract(graph, DEVICE, counting, by="reader")["read"] == 0
    assert extract(graph, DEVICE, counting, by="reader", types=["observation"])["read"] == 0  # READ_BY holds
    assert calls == ["look/1", "look/2"]
    edges = graph.query("MATCH (:Entry)-[r:READ_BY]->(a:Agent) RETURN r.kind, r.rows, a.name").result_set
    assert sorted(edges) == [["Device", 1, "reader"], ["Device", 1, "reader"]]


def test_types_and_entries_without_text_are_left_alone(graph):
    ensure_schema(graph, KINDS)
    open_episode(graph, "look", by="watcher")
    record(graph, "look", "forecast", by="watcher", values={"text": "d9 hot r9"})
    record(graph, "look", "observation", by="watcher", values={"level": 3})
    record(graph, "look", "observation", by="watcher", values={"text": "d1 ok r1"})
    result = extract(graph, DEVICE, reads_device, by="reader", types=["observation"])
    assert result["read"] == 1
    assert history(graph, DEVICE, "d9") == []


def test_limit_reads_a_slice_and_the_rest_waits(graph):
    ensure_schema(graph, KINDS)
    notes(graph, [f"d{i} ok r1" for i in range(7)])
    first = extract(graph, DEVICE, reads_device, by="reader", limit=3)
    assert (first["read"], first["waiting"]) == (3, 4)
    second = extract(graph, DEVICE, reads_device, by="reader", limit=3)
    assert (second["read"], second["waiting"]) == (3, 1)
    assert extract(graph, DEVICE, reads_device, by="reader", limit=3)["read"] == 1


def test_bad_rows_are_refused_and_kept_and_the_entry_counts_as_read(graph):
    ensure_schema(graph, KINDS)
    notes(graph, ["d1 ok r1"])

    def half_bad(entry):
        return [reads_device(entry)[0], {"key": "d2", "values": {"bad name": 1}}, "not a row"]

    result = extract(graph, DEVICE, half_bad, by="reader")
    assert result["read"] == 1 and result["rows"] == {"created": 1, "invalid": 2}
    assert len(failures(graph, reason="invalid")) == 2
    assert extract(graph, DEVICE, half_bad, by="reader")["read"] == 0


def test_an_extractor_that_raises_stops_the_call_and_its_entry_waits(graph):
    ensure_schema(graph, KINDS)
    notes(graph, ["d1 ok r1", "boom", "d2 ok r1"])
    result = extract(graph, DEVICE, reads_device, by="reader")
    assert result["read"] == 1 and result["stopped"]["entry"] == "look/2"
    assert "ValueError" in result["stopped"]["error"] and result["waiting"] == 2
    assert history(graph, DEVICE, "d2") == []
    kept = failures(graph, reason="extractor_raised")
    assert kept[0]["key"] == "look/2" and kept[0]["times"] == 1


def test_an_entry_that_keeps_failing_is_set_aside_and_given_back(graph):
    ensure_schema(graph, KINDS)
    notes(graph, ["d1 ok r1", "boom", "d2 ok r1"])
    for _ in range(2):
        assert extract(graph, DEVICE, reads_device, by="reader")["stopped"]["entry"] == "look/2"
    third = extract(graph, DEVICE, reads_device, by="reader")
    assert third["set_aside"] == 1 and third["stopped"] is None and third["waiting"] == 0
    assert history(graph, DEVICE, "d2")  # the entry after it was not blocked
    assert failures(graph, reason="set_aside")[0]["key"] == "look/2"

    def mended(entry):
        return [{"key": "d3", "values": {"status": "ok"}}] if entry["values"]["text"] == "boom" else []

    given_back = extract_again(graph, DEVICE, mended, by="reader", entry_id="look/2")
    assert given_back == {"id": "look/2", "rows": {"created": 1}, "status": "read"}
    assert history(graph, DEVICE, "d3")[0]["entry"] == "look/2"


def test_an_answer_that_is_not_a_list_of_rows_is_a_failure(graph):
    ensure_schema(graph, KINDS)
    notes(graph, ["d1 ok r1"])
    result = extract(graph, DEVICE, lambda entry: {"key": "d1"}, by="reader")
    assert result["read"] == 0 and "Refused" in result["stopped"]["error"]
    too_many = extract(graph, DEVICE, lambda entry: [{"key": "d1"}] * 1001, by="reader")
    assert too_many["stopped"]["entry"] == "look/1"
    assert extract(graph, DEVICE, lambda entry: [], by="reader")["read"] == 1


@pytest.mark.parametrize(
    "arguments",
    [
        {"extractor": "not callable"},
        {"types": []},
        {"types": "observation"},
        {"types": ["bad\x00"]},
        {"limit": 0},
        {"limit": 10_001},
        {"limit": True},
        {"attempts": 0},
        {"by": ""},
    ],
)
def test_refusals(graph, arguments):
    ensure_schema(graph, KINDS)
    given = {"extractor": reads_device, "by": "reader", **arguments}
    with pytest.raises(Refused):
        extract(graph, DEVICE, given.pop("extractor"), **given)


def test_extract_again_refuses_an_unknown_entry(graph):
    ensure_schema(graph, KINDS)
    with pytest.raises(Refused):
        extract_again(graph, DEVICE, reads_device, by="reader", entry_id="nowhere/1")


def test_a_call_costs_what_came_since_the_mark(graph):
    """Over 10,000 entries, the call after 10 new ones reads those 10 and no more."""
    ensure_schema(graph, KINDS)
    open_episode(graph, "bulk", by="watcher")
    # The entries are made as record() makes them, in one query, so the test takes seconds, not minutes.
    graph.query(
        "MATCH (ep:Episode {id: 'bulk'}), (st:Stamp) "
        "UNWIND range(1, 10000) AS seq "
        "CREATE (ep)-[:HAS]->(:Entry {id: 'bulk/' + toString(seq), episode: 'bulk', seq: seq, serial: seq, "
        "  type: 'observation', by: 'watcher', at: localdatetime('2026-01-01T00:00:00'), "
        "  words: 'd' + toString(seq % 50) + ' ok r1', content: '{\"text\": \"d' + toString(seq % 50) + ' ok r1\"}'}) "
        "WITH max(seq) AS last, st, ep SET st.serial = last, ep.seq = last"
    )
    seen = []

    def counting(entry):
        seen.append(entry["serial"])
        return reads_device(entry)

    assert extract(graph, DEVICE, counting, by="reader", limit=10_000)["read"] == 10_000
    seen.clear()
    record(graph, "bulk", "observation", by="watcher", values={"text": "d1 hot r2"})
    for i in range(9):
        record(graph, "bulk", "observation", by="watcher", values={"text": f"n{i} ok r3"})
    result = extract(graph, DEVICE, counting, by="reader", limit=10_000)
    assert result["read"] == 10 and seen == list(range(10_001, 10_011))
