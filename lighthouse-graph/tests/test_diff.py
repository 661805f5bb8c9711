"""diff_between(): what began, changed, and which relations began or ended between two times."""

from __future__ import annotations

import itertools

import lighthouse.diff as diff
import pytest
from devices import DEVICE, KINDS, PERSON, ROOM
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lighthouse import WrongType, close_episode, ensure_schema, open_episode, remember, stamp
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
    found: dict = {"entities_added": [], "values_changed": [], "relations_opened": [], "relations_closed": []}
    for key in keys:
        entity = (kind.label, key)
        inside = [v for v in oracle.history(key) if begin < v.valid_from <= finish]
        if inside:
            before, after = oracle.as_of(key, start), oracle.as_of(key, end)
            new = after.values
            if before is None:
                found["entities_added"].append({"entity": entity, "values": new})
            else:
                old = before.values
                changed = [
                    name
                    for name in sorted(set(old) | set(new))
                    if (name in old) != (name in new) or canon(old.get(name)) != canon(new.get(name))
                ]
                if changed:
                    found["values_changed"].append(
                        {"entity": entity, "before": old, "after": new, "changed_keys": changed}
                    )
        for (relation, target), spans in oracle.spans(key).items():
            step = {"from": entity, "relation": relation, "to": (kind.target(relation).label, target[1])}
            for opened, closed in spans:
                if begin < opened <= finish:
                    found["relations_opened"].append({**step, "since": opened})
                if closed is not None and begin < closed <= finish:
                    found["relations_closed"].append({**step, "until": closed})
    return found


def comparable(found: dict, keys: list) -> dict:
    """The parts of an answer about these keys, as sets of text: the order is checked elsewhere."""
    mine = {canon(key) for key in keys}

    def kept(items: list, side: str) -> list:
        return sorted(repr(_typed(item)) for item in items if canon(item[side][1]) in mine)

    return {
        "entities_added": kept(found["entities_added"], "entity"),
        "values_changed": kept(found["values_changed"], "entity"),
        "relations_opened": kept(found["relations_opened"], "from"),
        "relations_closed": kept(found["relations_closed"], "from"),
    }


def _typed(item: object) -> object:
    if isinstance(item, dict):
        return {name: _typed(value) for name, value in sorted(item.items())}
    if isinstance(item, tuple | list):
        return [_typed(one) for one in item]
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
    assert [receipt["status"] for receipt in remember(graph, DEVICE, rows, "feed")] == oracle.remember(rows)
    halves = st.integers(-2, 20).map(lambda half: at(half / 2))
    start, end = sorted(data.draw(st.lists(halves, min_size=2, max_size=2)), key=moment)
    found = diff_between(graph, [DEVICE], start, end)
    assert (found["from_time"], found["to_time"]) == (stamp(start), stamp(end))
    assert comparable(found, keys) == comparable(expected_diff(oracle, DEVICE, keys, start, end), keys)


def test_a_history_with_creates_changes_late_rows_and_relations(graph):
    ensure_schema(graph, KINDS)
    h = {hour: at(hour) for hour in range(8)}
    remember(
        graph,
        DEVICE,
        by="feed",
        rows=[
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
        by="feed",
        rows=[
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
    assert [r["status"] for r in remember(graph, DEVICE, by="feed", rows=late)] == ["inserted", "created"]
    found = diff_between(graph, [DEVICE], h[1], h[4])
    assert found == {
        "from_time": stamp(h[1]),
        "to_time": stamp(h[4]),
        "entities_added": [{"entity": ("Device", "d2"), "values": {"status": "new"}}],
        "values_changed": [
            {
                "entity": ("Device", "d1"),
                "before": {"status": "ok", "level": 1},
                "after": {"status": "hot", "level": 1.0},
                "changed_keys": ["level", "status"],  # 1 and 1.0 are two values: the level changed
            },
        ],
        "relations_opened": [
            {"from": ("Device", "d1"), "relation": "LOCATED_IN", "to": ("Room", "r2"), "since": moment(h[3])},
            {"from": ("Device", "d2"), "relation": "LOCATED_IN", "to": ("Room", "r1"), "since": moment(h[4])},
            {"from": ("Device", "d4"), "relation": "USED_BY", "to": ("Team", "blue"), "since": moment(h[3])},
        ],
        "relations_closed": [
            {"from": ("Device", "d1"), "relation": "LOCATED_IN", "to": ("Room", "r1"), "until": moment(h[3])},
        ],
        "episodes_opened": [],
        "episodes_closed": [],
    }
    assert isinstance(found["values_changed"][0]["after"]["level"], float)
    # The window is (t1, t2]: what began at t1 is not in it, what began at t2 is.
    added = diff_between(graph, [DEVICE], h[0], h[1])["entities_added"]
    assert [e["entity"][1] for e in added] == ["d1", "d4"]
    assert diff_between(graph, [DEVICE], h[4], h[7]) == {
        "from_time": stamp(h[4]),
        "to_time": stamp(h[7]),
        "entities_added": [],
        "values_changed": [],
        "relations_opened": [],
        "relations_closed": [],
        "episodes_opened": [],
        "episodes_closed": [],
    }
    # The late row alone: between hours 1 and 2, d1 became warm; its room did not change.
    early = diff_between(graph, [DEVICE], h[1], h[2])
    assert early["values_changed"] == [
        {
            "entity": ("Device", "d1"),
            "before": {"status": "ok", "level": 1},
            "after": {"status": "warm", "level": 1},
            "changed_keys": ["status"],
        }
    ]
    assert early["relations_opened"] == [] and early["relations_closed"] == []
    # t1 == t2 is an empty window, and allowed.
    assert diff_between(graph, [DEVICE], h[3], h[3])["entities_added"] == []


def test_times_come_back_as_times(graph):
    ensure_schema(graph, KINDS)
    remember(graph, DEVICE, by="feed", rows=[{"key": "d1", "t": at(1), "values": {"last_seen": at(0)}}])
    remember(graph, DEVICE, by="feed", rows=[{"key": "d1", "t": at(2), "values": {"last_seen": at(2)}}])
    found = diff_between(graph, [DEVICE], at(1), at(2))
    (changed,) = found["values_changed"]
    assert (changed["before"], changed["after"]) == (
        {"last_seen": moment(at(0))},
        {"last_seen": moment(at(2))},
    )


def test_a_window_that_ends_past_2068_ends_where_stored_times_end(graph):
    # No stored time lies past clock.LATEST: a later end sees what that last second sees.
    ensure_schema(graph, KINDS)
    remember(graph, DEVICE, by="feed", rows=[{"key": "d1", "t": at(1), "values": {"status": "ok"}}])
    remember(graph, DEVICE, by="feed", rows=[{"key": "d1", "t": at(2), "values": {"status": "hot"}}])
    far = diff_between(graph, [DEVICE], at(1), "9999-01-01T00:00:00Z")
    assert far == diff_between(graph, [DEVICE], at(1), "2068-01-19T03:14:07Z")
    assert [one["after"] for one in far["values_changed"]] == [{"status": "hot"}]


def test_only_the_kinds_asked_for(graph):
    ensure_schema(graph, KINDS)
    remember(graph, DEVICE, by="feed", rows=[{"key": "d1", "t": at(1), "values": {"status": "ok"}}])
    remember(graph, PERSON, by="hr", rows=[{"key": "ann", "t": at(1), "relations": {"KNOWS": ["bob"]}}])
    assert [e["entity"] for e in diff_between(graph, [PERSON], at(0), at(2))["entities_added"]] == [
        ("Person", "ann")
    ]
    both = diff_between(graph, (DEVICE, PERSON), at(0), at(2))
    assert [e["entity"] for e in both["entities_added"]] == [("Device", "d1"), ("Person", "ann")]
    assert both["relations_opened"] == [
        {"from": ("Person", "ann"), "relation": "KNOWS", "to": ("Person", "bob"), "since": moment(at(1))}
    ]
    assert diff_between(graph, [ROOM], at(0), at(2))["entities_added"] == []


def test_episodes_opened_and_closed_in_the_window(graph):
    ensure_schema(graph, KINDS)
    assert open_episode(graph, "e1", by="watcher", at=at(1))["status"] == "opened"
    assert open_episode(graph, "e2", by="watcher", at=at(3))["status"] == "opened"
    assert close_episode(graph, "e1", by="watcher", outcome={"ok": True}, at=at(4))["status"] == "recorded"
    found = diff_between(graph, [DEVICE], at(2), at(4))
    assert (found["episodes_opened"], found["episodes_closed"]) == (["e2"], ["e1"])
    found = diff_between(graph, [DEVICE], at(0), at(3))
    assert (found["episodes_opened"], found["episodes_closed"]) == (["e1", "e2"], [])


def test_keys_come_in_python_order(graph):
    ensure_schema(graph, KINDS)
    rows = [{"key": key, "t": at(1), "values": {"status": "ok"}} for key in ["b", 10, "a", 2]]
    remember(graph, DEVICE, by="feed", rows=rows)
    added = diff_between(graph, [DEVICE], at(0), at(1))["entities_added"]
    assert [e["entity"][1] for e in added] == [2, 10, "a", "b"]


def test_found_through_the_index_not_a_scan(graph, db):
    """Fifty versions outside the window, two inside: the index gives the two, in one query."""
    ensure_schema(graph, KINDS)
    for hour in range(50):
        remember(graph, DEVICE, by="feed", rows=[{"key": "busy", "t": at(hour), "values": {"n": hour}}])
    remember(graph, DEVICE, by="feed", rows=[{"key": "busy", "t": at(60), "values": {"n": 60}}])
    remember(graph, DEVICE, by="feed", rows=[{"key": "new", "t": at(61), "values": {"n": 0}}])
    with sent(db, graph.name) as seen:
        found = diff_between(graph, [DEVICE], at(55), at(65))
    assert [command for command, _text in seen] == ["GRAPH.RO_QUERY", "GRAPH.RO_QUERY"]  # States, episodes
    assert [e["entity"][1] for e in found["values_changed"]] == ["busy"]
    assert [e["entity"][1] for e in found["entities_added"]] == ["new"]
    assert (found["values_changed"][0]["before"], found["values_changed"][0]["after"]) == (
        {"n": 49},
        {"n": 60},
    )
    params = {"start": "2026-01-03T07:00:00", "end": "2026-01-03T17:00:00", "labels": ["Device"], "cap": 10}
    plan = "\n".join(graph.profile(_diff_query(("LOCATED_IN", "USED_BY")), params).plan)
    scan = next(line for line in plan.splitlines() if "Index Scan" in line and "began:State" in line)
    assert "Records produced: 2," in scan, plan


def test_a_window_with_too_many_versions_is_refused(graph, monkeypatch):
    ensure_schema(graph, KINDS)
    remember(
        graph, DEVICE, by="feed", rows=[{"key": f"d{i}", "t": at(1), "values": {"n": i}} for i in range(4)]
    )
    monkeypatch.setattr(diff, "MAX_VERSIONS", 3)
    with pytest.raises(Refused, match="shorter"):
        diff_between(graph, [DEVICE], at(0), at(2))
    monkeypatch.setattr(diff, "MAX_VERSIONS", 4)
    assert len(diff_between(graph, [DEVICE], at(0), at(2))["entities_added"]) == 4


def test_a_graph_that_does_not_exist(graph):
    assert diff_between(graph, [DEVICE], at(0), at(2))["entities_added"] == []


class HostileList(list):
    def __iter__(self):
        raise RuntimeError("no")


class HostileTime(str):
    def strip(self, *args):
        raise RuntimeError("no")


@pytest.mark.parametrize(
    ("kinds", "start", "end", "says"),
    [
        ([DEVICE], at(2), at(1), "not be later"),
        ([DEVICE], "an hour ago", at(2), "ISO 8601"),
        ([DEVICE], None, at(2), "a time is needed"),
        ([DEVICE], at(1), "", "a time is needed"),
        ([DEVICE], "1900-01-01T00:00:00Z", at(2), "FalkorDB"),
        ([DEVICE], at(1) + "\x00", at(2), "ISO 8601"),
        ([], at(1), at(2), "at least one kind"),
        ((), at(1), at(2), "at least one kind"),
        ([DEVICE] * 201, at(1), at(2), "more than 200"),
    ],
)
def test_diff_between_refuses_a_bad_value(graph, kinds, start, end, says):
    ensure_schema(graph, KINDS)
    remember(graph, DEVICE, by="feed", rows=[{"key": "d1", "t": at(1), "values": {"status": "ok"}}])
    before = snapshot(graph)
    with pytest.raises(Refused, match=says) as raised:
        diff_between(graph, kinds, start, end)
    assert isinstance(raised.value, ValueError)
    assert snapshot(graph) == before and failures(graph) == []


@pytest.mark.parametrize(
    ("kinds", "start", "end"),
    [
        (None, at(1), at(2)),
        (DEVICE, at(1), at(2)),
        (["Device"], at(1), at(2)),
        ("Device') DETACH DELETE n //", at(1), at(2)),
        ([DEVICE, 7], at(1), at(2)),
        (HostileList([DEVICE]), at(1), at(2)),
        ({DEVICE}, at(1), at(2)),
        ([DEVICE], at(1), 1767225600),
        ([DEVICE], HostileTime(at(1)), at(2)),
    ],
)
def test_diff_between_refuses_the_wrong_sort_of_argument(graph, kinds, start, end):
    ensure_schema(graph, KINDS)
    before = snapshot(graph)
    with pytest.raises(WrongType) as raised:
        diff_between(graph, kinds, start, end)
    assert isinstance(raised.value, TypeError)
    assert snapshot(graph) == before


def test_a_window_in_the_future_is_read(graph):
    ensure_schema(graph, KINDS)
    remember(graph, DEVICE, by="feed", rows=[{"key": "d1", "t": at(1), "values": {"status": "ok"}}])
    found = diff_between(graph, [DEVICE], at(2), "2060-01-01T00:00:00Z")
    assert found["entities_added"] == [] and found["to_time"] == "2060-01-01T00:00:00"
