"""diff_between(): what began, changed, and which relations began or ended between two times."""

from __future__ import annotations

import itertools
from datetime import datetime

import lighthouse.diff as diff
import pytest
from devices import DEVICE, KINDS, PERSON, ROOM
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lighthouse import ensure_schema, remember
from lighthouse.diff import _diff_query, diff_between
from lighthouse.graphs import read
from lighthouse.values import Refused
from lighthouse.write.failures import failures
from oracle import Oracle, arrivals, at, canon, moment, sent

EXAMPLES = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
_serial = itertools.count()


def expected_diff(oracle: Oracle, kind, keys: list, start: str, end: str) -> dict:
    """What changed in (start, end], computed from the oracle's versions of each key."""
    begin, finish = moment(start), moment(end)
    found: dict = {"began": [], "changed": [], "relations": {"began": [], "ended": []}}
    for key in keys:
        inside = [v for v in oracle.history(key) if begin < v.valid_from <= finish]
        if not inside:
            continue
        before, after = oracle.as_of(key, start), oracle.as_of(key, end)
        old = {} if before is None else before.values
        new = after.values
        values = {
            name: {"before": old.get(name), "after": new.get(name)}
            for name in sorted(set(old) | set(new))
            if (name in old) != (name in new) or canon(old.get(name)) != canon(new.get(name))
        }
        entity = {"kind": kind.label, "key": key, "versions": len(inside), "values": values}
        found["began" if before is None else "changed"].append(entity)
        for (relation, target), spans in oracle.spans(key).items():
            link = {
                "kind": kind.label,
                "key": key,
                "relation": relation,
                "target_kind": kind.target(relation).label,
                "target": target[1],
            }
            for opened, closed in spans:
                if begin < opened <= finish:
                    found["relations"]["began"].append({**link, "at": opened})
                if closed is not None and begin < closed <= finish:
                    found["relations"]["ended"].append({**link, "at": closed})
    return found


def comparable(found: dict, keys: list) -> dict:
    """The parts of an answer about these keys, as sets of text: the order is checked elsewhere."""
    mine = {canon(key) for key in keys}

    def kept(items: list) -> list:
        return sorted(repr(_typed(item)) for item in items if canon(item["key"]) in mine)

    return {
        "began": kept(found["began"]),
        "changed": kept(found["changed"]),
        "relations": {name: kept(found["relations"][name]) for name in ("began", "ended")},
    }


def _typed(item: object) -> object:
    if isinstance(item, dict):
        return {name: _typed(value) for name, value in sorted(item.items())}
    return canon(item)


def snapshot(graph) -> tuple[list, list]:
    nodes = read(graph, "MATCH (n) RETURN labels(n), properties(n)")
    edges = read(graph, "MATCH (a)-[r]->(b) RETURN id(a), type(r), properties(r), id(b)")
    return sorted(map(repr, nodes)), sorted(map(repr, edges))


# Against the oracle


@EXAMPLES
@given(data=st.data(), count=st.integers(1, 3), ints=st.booleans())
def test_diff_between_gives_what_the_oracle_computes(graph, data, count, ints):
    """Creates, changes, late rows put into history, repeats and relation changes, in any order."""
    ensure_schema(graph, KINDS)
    number = next(_serial)
    keys = [number * 10 + i + 1_000_000 if ints else f"d{number}-{i}" for i in range(count)]
    rows = data.draw(arrivals(keys))
    oracle = Oracle(times=DEVICE.times)
    assert [receipt["status"] for receipt in remember(graph, DEVICE, "feed", rows)] == oracle.remember(rows)
    halves = st.integers(-2, 20).map(lambda half: at(half / 2))
    start, end = sorted(data.draw(st.lists(halves, min_size=2, max_size=2, unique=True)), key=moment)
    found = diff_between(graph, [DEVICE], start, end)
    assert (found["start"], found["end"]) == (moment(start), moment(end))
    assert comparable(found, keys) == comparable(expected_diff(oracle, DEVICE, keys, start, end), keys)


def test_a_history_with_creates_changes_late_rows_and_relations(graph):
    ensure_schema(graph, KINDS)
    h = {hour: at(hour) for hour in range(8)}
    remember(
        graph,
        DEVICE,
        "feed",
        [
            {
                "key": "d1",
                "t": h[1],
                "values": {"status": "ok", "level": 1},
                "relations": {"LOCATED_IN": "r1"},
            },
            {"key": "d3", "t": h[0], "values": {"status": "ok"}},
            {"key": "d4", "t": h[1], "values": {"status": "ok"}, "relations": {"USED_BY": ["red"]}},
        ],
    )
    remember(
        graph,
        DEVICE,
        "feed",
        [
            {
                "key": "d1",
                "t": h[3],
                "values": {"status": "hot", "level": 1.0},
                "relations": {"LOCATED_IN": "r2"},
            },
            {"key": "d4", "t": h[3], "values": {"status": "ok"}, "relations": {"USED_BY": ["red", "blue"]}},
            {"key": "d3", "t": h[3], "values": {"status": "ok"}},  # a repeat: no new version
        ],
    )
    # Late: d1 was warm in r1 from hour 2, and d2 began at hour 4.
    late = [
        {"key": "d1", "t": h[2], "values": {"status": "warm", "level": 1}, "relations": {"LOCATED_IN": "r1"}},
        {"key": "d2", "t": h[4], "values": {"status": "new"}, "relations": {"LOCATED_IN": "r1"}},
    ]
    assert [r["status"] for r in remember(graph, DEVICE, "feed", late)] == ["inserted", "created"]
    found = diff_between(graph, [DEVICE], h[1], h[4])
    assert found == {
        "start": moment(h[1]),
        "end": moment(h[4]),
        "began": [
            {
                "kind": "Device",
                "key": "d2",
                "versions": 1,
                "values": {"status": {"before": None, "after": "new"}},
            },
        ],
        "changed": [
            {
                "kind": "Device",
                "key": "d1",
                "versions": 2,
                # 1 and 1.0 are two values: the level changed.
                "values": {
                    "level": {"before": 1, "after": 1.0},
                    "status": {"before": "ok", "after": "hot"},
                },
            },
            {"kind": "Device", "key": "d4", "versions": 1, "values": {}},
        ],
        "relations": {
            "began": [
                {
                    "kind": "Device",
                    "key": "d1",
                    "relation": "LOCATED_IN",
                    "target_kind": "Room",
                    "target": "r2",
                    "at": moment(h[3]),
                },
                {
                    "kind": "Device",
                    "key": "d2",
                    "relation": "LOCATED_IN",
                    "target_kind": "Room",
                    "target": "r1",
                    "at": moment(h[4]),
                },
                {
                    "kind": "Device",
                    "key": "d4",
                    "relation": "USED_BY",
                    "target_kind": "Team",
                    "target": "blue",
                    "at": moment(h[3]),
                },
            ],
            "ended": [
                {
                    "kind": "Device",
                    "key": "d1",
                    "relation": "LOCATED_IN",
                    "target_kind": "Room",
                    "target": "r1",
                    "at": moment(h[3]),
                },
            ],
        },
    }
    assert isinstance(found["changed"][0]["values"]["level"]["after"], float)
    # The window is (start, end]: what began at start is not in it, what began at end is.
    assert [e["key"] for e in diff_between(graph, [DEVICE], h[0], h[1])["began"]] == ["d1", "d4"]
    assert diff_between(graph, [DEVICE], h[4], h[7]) == {
        "start": moment(h[4]),
        "end": moment(h[7]),
        "began": [],
        "changed": [],
        "relations": {"began": [], "ended": []},
    }
    # The late row alone: between hours 1 and 2, d1 became warm; its room did not change.
    early = diff_between(graph, [DEVICE], h[1], h[2])
    assert early["changed"] == [
        {
            "kind": "Device",
            "key": "d1",
            "versions": 1,
            "values": {"status": {"before": "ok", "after": "warm"}},
        }
    ]
    assert early["relations"] == {"began": [], "ended": []}


def test_times_come_back_as_times(graph):
    ensure_schema(graph, KINDS)
    remember(graph, DEVICE, "feed", [{"key": "d1", "t": at(1), "values": {"last_seen": at(0)}}])
    remember(graph, DEVICE, "feed", [{"key": "d1", "t": at(2), "values": {"last_seen": at(2)}}])
    found = diff_between(graph, [DEVICE], at(1), at(2))
    assert found["changed"][0]["values"] == {"last_seen": {"before": moment(at(0)), "after": moment(at(2))}}


def test_only_the_kinds_asked_for(graph):
    ensure_schema(graph, KINDS)
    remember(graph, DEVICE, "feed", [{"key": "d1", "t": at(1), "values": {"status": "ok"}}])
    remember(graph, PERSON, "hr", [{"key": "ann", "t": at(1), "relations": {"KNOWS": ["bob"]}}])
    assert [e["key"] for e in diff_between(graph, [PERSON], at(0), at(2))["began"]] == ["ann"]
    both = diff_between(graph, [DEVICE, PERSON], at(0), at(2))
    assert [(e["kind"], e["key"]) for e in both["began"]] == [("Device", "d1"), ("Person", "ann")]
    assert both["relations"]["began"] == [
        {
            "kind": "Person",
            "key": "ann",
            "relation": "KNOWS",
            "target_kind": "Person",
            "target": "bob",
            "at": moment(at(1)),
        }
    ]
    assert diff_between(graph, [ROOM], at(0), at(2))["began"] == []
    assert diff_between(graph, DEVICE, at(0), at(2))["began"][0]["key"] == "d1"


def test_keys_come_in_python_order(graph):
    ensure_schema(graph, KINDS)
    rows = [{"key": key, "t": at(1), "values": {"status": "ok"}} for key in ["b", 10, "a", 2]]
    remember(graph, DEVICE, "feed", rows)
    assert [e["key"] for e in diff_between(graph, [DEVICE], at(0), at(1))["began"]] == [2, 10, "a", "b"]


def test_found_through_the_index_not_a_scan(graph, db):
    """Fifty versions outside the window, two inside: the index gives the two, in one query."""
    ensure_schema(graph, KINDS)
    for hour in range(50):
        remember(graph, DEVICE, "feed", [{"key": "busy", "t": at(hour), "values": {"n": hour}}])
    remember(graph, DEVICE, "feed", [{"key": "busy", "t": at(60), "values": {"n": 60}}])
    remember(graph, DEVICE, "feed", [{"key": "new", "t": at(61), "values": {"n": 0}}])
    with sent(db, graph.name) as seen:
        found = diff_between(graph, [DEVICE], at(55), at(65))
    assert [command for command, _text in seen] == ["GRAPH.RO_QUERY"]
    assert [e["key"] for e in found["changed"]] == ["busy"] and [e["key"] for e in found["began"]] == ["new"]
    assert found["changed"][0]["values"] == {"n": {"before": 49, "after": 60}}
    params = {"start": "2026-01-03T07:00:00", "end": "2026-01-03T17:00:00", "labels": ["Device"], "cap": 10}
    plan = "\n".join(graph.profile(_diff_query(("LOCATED_IN", "USED_BY")), params).plan)
    scan = next(line for line in plan.splitlines() if "Index Scan" in line and "began:State" in line)
    assert "Records produced: 2," in scan, plan


def test_a_window_with_too_many_versions_is_refused(graph, monkeypatch):
    ensure_schema(graph, KINDS)
    remember(graph, DEVICE, "feed", [{"key": f"d{i}", "t": at(1), "values": {"n": i}} for i in range(4)])
    monkeypatch.setattr(diff, "MAX_STATES", 3)
    with pytest.raises(Refused, match="shorter"):
        diff_between(graph, [DEVICE], at(0), at(2))
    monkeypatch.setattr(diff, "MAX_STATES", 4)
    assert len(diff_between(graph, [DEVICE], at(0), at(2))["began"]) == 4


def test_a_graph_that_does_not_exist(graph):
    assert diff_between(graph, [DEVICE], at(0), at(2))["began"] == []


@pytest.mark.parametrize(
    ("kinds", "start", "end"),
    [
        ([DEVICE], at(2), at(1)),  # reversed
        ([DEVICE], at(1), at(1)),  # empty
        ([DEVICE], "2026-01-01T01:00:00", at(2)),  # no zone
        ([DEVICE], at(1), "2026-01-01T02:00:00.5Z"),
        ([DEVICE], "an hour ago", at(2)),
        ([DEVICE], None, at(2)),
        ([DEVICE], at(1), 1767225600),
        ([DEVICE], "1900-01-01T00:00:00Z", at(2)),
        ([DEVICE], at(1), "9999-01-01T00:00:00Z"),
        ([DEVICE], at(1) + "\x00", at(2)),
        ([], at(1), at(2)),
        (None, at(1), at(2)),
        (["Device"], at(1), at(2)),
        ("Device') DETACH DELETE n //", at(1), at(2)),
        ([DEVICE, 7], at(1), at(2)),
        ([DEVICE] * 201, at(1), at(2)),
    ],
)
def test_diff_between_refuses_what_it_cannot_use(graph, kinds, start, end):
    ensure_schema(graph, KINDS)
    remember(graph, DEVICE, "feed", [{"key": "d1", "t": at(1), "values": {"status": "ok"}}])
    before = snapshot(graph)
    with pytest.raises(Refused):
        diff_between(graph, kinds, start, end)
    assert snapshot(graph) == before and failures(graph) == []


def test_a_window_in_the_future_is_read(graph):
    ensure_schema(graph, KINDS)
    remember(graph, DEVICE, "feed", [{"key": "d1", "t": at(1), "values": {"status": "ok"}}])
    found = diff_between(graph, [DEVICE], at(2), "2060-01-01T00:00:00Z")
    assert found["began"] == [] and found["end"] == datetime.fromisoformat("2060-01-01T00:00:00+00:00")
