"""extract() and extract_again(): rows drawn from entries, each entry read once per kind, nothing passed over."""

from __future__ import annotations

import inspect
from datetime import UTC, datetime

import pytest
from devices import DEVICE, KINDS
from hostile import HostileList, HostileMap, HostileText, hostile_objects
from lighthouse import Refused, WrongType
from lighthouse.episodes import open_episode, record
from lighthouse.extraction import extract, extract_again
from lighthouse.graphs import ensure_schema
from lighthouse.read import history, related
from lighthouse.write.failures import failures


class Boom(Exception):
    """What an extractor of the application raises."""


def notes(graph, texts, episode="look", at="2026-01-01T00:00:00Z", entry_type="observation"):
    open_episode(graph, episode, by="watcher")
    return [
        record(graph, episode, entry_type, by="watcher", values={"text": text}, at=at)["id"] for text in texts
    ]


def reads_device(entry):
    """Plain code standing in for a model: 'd1 hot r2' gives a row for d1, status hot, in room r2."""
    if entry["text"] == "boom":
        raise Boom("the model fell over")
    key, status, room = entry["text"].split()
    return [{"key": key, "values": {"status": status}, "relations": {"LOCATED_IN": room}}]


def stored(graph) -> list:
    """Every node and edge the graph holds, but the Stamp's marks: what a call may not have written."""
    nodes = graph.ro_query("MATCH (n) WHERE NOT n:Stamp RETURN count(n)").result_set
    edges = graph.ro_query("MATCH ()-[r]->() RETURN count(r)").result_set
    return [nodes, edges]


def test_the_signature_is_the_published_one():
    empty = inspect.Parameter.empty
    listed = list(inspect.signature(extract).parameters.values())
    assert [(p.name, p.default) for p in listed[:6]] == [
        ("graph", empty),
        ("kind", empty),
        ("extractor", empty),
        ("by", empty),
        ("types", None),
        ("limit", 100),
    ]
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in listed[6:])


def test_rows_come_from_entries_and_point_at_them(graph):
    ensure_schema(graph, KINDS)
    first, second = notes(graph, ["d1 ok r1", "d1 hot r2"], at="2026-01-01T00:00:00Z")
    result = extract(graph, DEVICE, reads_device, "reader")
    assert result == {"read": 2, "rows": {"created": 1, "conflict": 1}, "waiting": 0}  # the same time
    assert [state["entry"] for state in history(graph, DEVICE, "d1")] == [first]
    assert history(graph, DEVICE, "d1")[0]["valid_from"].isoformat() == "2026-01-01T00:00:00+00:00"


def test_the_extractor_gets_the_entry_as_it_is_stored(graph):
    ensure_schema(graph, KINDS)
    open_episode(graph, "look", by="watcher")
    record(
        graph, "look", "observation", by="watcher", values={"text": "d1 ok r1", "level": 3, "episode": "x"}
    )
    seen = []
    extract(graph, DEVICE, lambda entry: seen.append(entry) or [], "reader")
    (entry,) = seen
    assert {
        name: entry[name] for name in ("id", "seq", "serial", "type", "by", "text", "level", "episode")
    } == {
        "id": "look/1",
        "seq": 1,
        "serial": 1,
        "type": "observation",
        "by": "watcher",
        "text": "d1 ok r1",
        "level": 3,
        "episode": "x",  # a value like any other: the library's own fields do not hide it
    }
    assert isinstance(entry["at"], datetime) and isinstance(entry["recorded_at"], datetime)
    assert not {"words", "cites", "content"} & set(entry)


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


def test_the_entry_of_a_row_is_always_the_entry_read(graph):
    ensure_schema(graph, KINDS)
    notes(graph, ["d1 ok r1"], episode="other")
    (read,) = notes(graph, ["d2 ok r1"])

    def naming_another(entry):
        if entry["id"] != read:
            return []
        return [{**row, "entry": "other/1"} for row in reads_device(entry)] + [{"key": "d3", "entry": None}]

    assert extract(graph, DEVICE, naming_another, by="reader")["rows"] == {"created": 2}
    assert history(graph, DEVICE, "d2")[0]["entry"] == read
    assert history(graph, DEVICE, "d3")[0]["entry"] == read


def test_each_entry_is_read_once_for_each_kind(graph):
    ensure_schema(graph, KINDS)
    notes(graph, ["d1 ok r1", "d2 ok r1"])
    calls = []

    def counting(entry):
        calls.append(entry["id"])
        return reads_device(entry)

    assert extract(graph, DEVICE, counting, by="reader")["read"] == 2
    assert extract(graph, DEVICE, counting, by="reader") == {"read": 0, "rows": {}, "waiting": 0}
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
    assert extract(graph, DEVICE, reads_device, by="reader", types=()) == {
        "read": 0,
        "rows": {},
        "waiting": 0,
    }


def test_limit_reads_a_slice_and_the_rest_waits(graph):
    ensure_schema(graph, KINDS)
    notes(graph, [f"d{i} ok r1" for i in range(7)])
    first = extract(graph, DEVICE, reads_device, "reader", None, 3)
    assert (first["read"], first["waiting"]) == (3, 4)
    second = extract(graph, DEVICE, reads_device, by="reader", limit=3)
    assert (second["read"], second["waiting"]) == (3, 1)
    assert extract(graph, DEVICE, reads_device, by="reader", limit=3)["read"] == 1


def test_bad_rows_are_refused_and_kept_and_the_entry_counts_as_read(graph):
    ensure_schema(graph, KINDS)
    notes(graph, ["d1 ok r1"])

    def half_bad(entry):
        return [
            reads_device(entry)[0],
            {"key": "d2", "values": {"bad name": 1}},
            "not a row",
            {"key": "d4", "t": ""},
        ]

    result = extract(graph, DEVICE, half_bad, by="reader")
    assert result == {"read": 1, "rows": {"created": 1, "invalid": 3}, "waiting": 0}
    assert len(failures(graph, reason="invalid")) == 3
    assert extract(graph, DEVICE, half_bad, by="reader")["read"] == 0
    # The row without its time took the entry's, and its refusal keeps it as text, not as a repr.
    (kept,) = [failure for failure in failures(graph, reason="invalid") if failure["key"] == "d2"]
    assert '"t": "20' in kept["detail"] and "datetime" not in kept["detail"], kept["detail"]


def test_hostile_rows_cost_one_invalid_row_each(graph):
    ensure_schema(graph, KINDS)
    notes(graph, ["d1 ok r1"])
    hostile = [
        *hostile_objects(),
        {"key": HostileText("d5")},
        {"key": "d6", "values": HostileMap({"status": "ok"})},
        {"key": "d7", "values": {"status": HostileText("ok")}},
        {"key": "d8", "relations": {"LOCATED_IN": HostileList(["r1"])}},
        {"key": "d9", "t": HostileText("2026-01-01T00:00:00Z")},
        {"key": "d10", "t": 5},
    ]

    def attacking(entry):
        return [*hostile, *reads_device(entry)]

    result = extract(graph, DEVICE, attacking, by="reader")
    assert result == {"read": 1, "rows": {"created": 1, "invalid": len(hostile)}, "waiting": 0}
    assert sum(failure["times"] for failure in failures(graph, reason="invalid")) == len(hostile)
    assert [key for key in range(5, 11) if history(graph, DEVICE, f"d{key}")] == []
    assert history(graph, DEVICE, "d1")[0]["status"] == "ok"


def test_an_extractor_that_raises_stops_the_call_and_its_entry_waits(graph):
    ensure_schema(graph, KINDS)
    notes(graph, ["d1 ok r1", "boom", "d2 ok r1"])
    with pytest.raises(Boom, match="fell over"):
        extract(graph, DEVICE, reads_device, by="reader")
    assert history(graph, DEVICE, "d1") and history(graph, DEVICE, "d2") == []  # the one before is done
    assert failures(graph) == []  # an error that propagates is the caller's to see, not a record
    with pytest.raises(Boom):  # its entry waits: the next call starts with it
        extract(graph, DEVICE, reads_device, by="reader")

    def mended(entry):
        return [] if entry["text"] == "boom" else reads_device(entry)

    assert extract(graph, DEVICE, mended, by="reader") == {"read": 2, "rows": {"created": 1}, "waiting": 0}


def test_an_extractor_that_exits_leaves_the_entries_before_it_done(graph):
    ensure_schema(graph, KINDS)
    notes(graph, ["d1 ok r1", "exit", "d2 ok r1"])

    def exiting(entry):
        if entry["text"] == "exit":
            raise SystemExit(3)  # not an Exception: it still passes unchanged, after the entry before
        return reads_device(entry)

    with pytest.raises(SystemExit):
        extract(graph, DEVICE, exiting, by="reader", attempts=1)
    assert history(graph, DEVICE, "d1") and history(graph, DEVICE, "d2") == []
    assert failures(graph) == []  # attempts count the extractor's errors, not an exit
    assert extract(graph, DEVICE, lambda entry: [], by="reader")["read"] == 2


def test_with_attempts_an_entry_that_keeps_failing_is_set_aside_and_given_back(graph):
    ensure_schema(graph, KINDS)
    notes(graph, ["d1 ok r1", "boom", "d2 ok r1"])
    for _ in range(2):
        with pytest.raises(Boom):
            extract(graph, DEVICE, reads_device, by="reader", attempts=3)
    third = extract(graph, DEVICE, reads_device, by="reader", attempts=3, detail=True)
    assert third == {"read": 1, "rows": {"created": 1}, "waiting": 0, "set_aside": ["look/2"]}
    assert history(graph, DEVICE, "d2")  # the entry after it was not blocked
    assert failures(graph, reason="set_aside")[0]["key"] == "look/2"
    assert failures(graph, reason="extractor_raised")[0]["times"] == 3

    def mended(entry):
        return [{"key": "d3", "values": {"status": "ok"}}] if entry["text"] == "boom" else []

    given_back = extract_again(graph, DEVICE, mended, by="reader", entry_id="look/2")
    assert given_back == {"id": "look/2", "rows": {"created": 1}, "status": "read"}
    assert history(graph, DEVICE, "d3")[0]["entry"] == "look/2"


def test_an_answer_that_is_not_a_list_of_rows_raises_and_writes_nothing_for_its_entry(graph):
    ensure_schema(graph, KINDS)
    notes(graph, ["d1 ok r1", "d2 ok r1"])
    for answer in (
        {"key": "d2"},
        ({"key": "d2"},),
        None,
        "rows",
        HostileList([{"key": "d2"}]),
        (row for row in [{"key": "d2"}]),
        [{"key": "d2"}] * 1001,
    ):

        def answering(entry, answer=answer):
            return reads_device(entry) if entry["seq"] == 1 else answer

        with pytest.raises(WrongType, match="list of at most 1,000 rows"):
            extract(graph, DEVICE, answering, by="reader")
        assert history(graph, DEVICE, "d2") == []
    assert history(graph, DEVICE, "d1")  # the entry before it was done, once
    assert extract(graph, DEVICE, lambda entry: [{"key": "d2"}] * 1000, by="reader")["read"] == 1


@pytest.mark.parametrize(
    "arguments, error",
    [
        ({"extractor": "not callable"}, WrongType),
        ({"extractor": None}, WrongType),
        ({"types": "observation"}, Refused),
        ({"types": ["bad\x00"]}, Refused),
        ({"types": [None]}, Refused),
        ({"types": ["x"] * 201}, Refused),
        ({"limit": 0}, Refused),
        ({"limit": 1_001}, Refused),
        ({"limit": True}, Refused),
        ({"limit": 2.0}, Refused),
        ({"attempts": 0}, Refused),
        ({"attempts": True}, Refused),
        ({"detail": "yes"}, WrongType),
        ({"by": ""}, Refused),
        ({"by": None}, Refused),
        ({"kind": "Device"}, Refused),
    ],
)
def test_refusals_write_nothing(graph, arguments, error):
    ensure_schema(graph, KINDS)
    notes(graph, ["d1 ok r1"])
    before = stored(graph)
    given = {"kind": DEVICE, "extractor": reads_device, "by": "reader", **arguments}
    with pytest.raises(error):
        extract(graph, given.pop("kind"), given.pop("extractor"), **given)
    assert stored(graph) == before and failures(graph) == []


def test_hostile_arguments_raise_only_the_library_s_errors_and_write_nothing(graph):
    ensure_schema(graph, KINDS)
    notes(graph, ["d1 ok r1"])
    before = stored(graph)
    for hostile in hostile_objects():
        for arguments in (
            {"kind": hostile},
            {"by": hostile},
            {"types": hostile},
            {"types": [hostile]},
            {"limit": hostile},
            {"attempts": hostile},
        ):
            given = {"kind": DEVICE, "extractor": reads_device, "by": "reader", **arguments}
            with pytest.raises(Refused):
                extract(graph, given.pop("kind"), given.pop("extractor"), **given)
        with pytest.raises(WrongType):
            extract(graph, DEVICE, hostile, "reader")
        with pytest.raises((Refused, WrongType)):
            extract_again(graph, DEVICE, reads_device, "reader", hostile)
    assert stored(graph) == before and failures(graph) == []


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
        "  recorded_at: localdatetime('2026-01-01T00:00:00'), "
        "  words: 'd' + toString(seq % 50) + ' ok r1', content: '{\"text\": \"d' + toString(seq % 50) + ' ok r1\"}'}) "
        "WITH max(seq) AS last, st, ep SET st.serial = last, ep.entry_count = last"
    )
    seen = []

    def counting(entry):
        seen.append(entry["serial"])
        return reads_device(entry)

    for _ in range(10):
        assert extract(graph, DEVICE, counting, by="reader", limit=1_000)["read"] == 1_000
    assert seen == list(range(1, 10_001))
    seen.clear()
    notes(graph, ["d1 hot r2", *(f"n{i} ok r3" for i in range(9))], episode="later", at=None)
    result = extract(graph, DEVICE, counting, by="reader", limit=1_000)
    assert result["read"] == 10 and seen == list(range(10_001, 10_011))
    assert history(graph, DEVICE, "d1")[-1]["valid_from"] > datetime(2026, 1, 1, tzinfo=UTC)
