"""remember(..., endings=True): the receipt of a full-picture row says what the row ended, told by the
write from what it decided on; without it the receipts keep the published shape."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

import pytest
from devices import DEVICE, KINDS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lighthouse import diff_between, ensure_schema, history, once, remember
from lighthouse.values import WrongType
from oracle import arrivals, at

_serial = itertools.count()


@pytest.fixture
def built(graph):
    ensure_schema(graph, KINDS)
    return graph


def row(hour, key="d1", values=None, relations=None):
    return {"key": key, "t": at(hour), "values": values or {}, "relations": relations or {}}


FULL = {"status": "ok", "note": "pump", "last_seen": "2026-01-01T00:00:00Z"}
LINKED = {"LOCATED_IN": ["r1", "r2"], "USED_BY": ["red"]}


def test_a_change_names_the_values_and_relations_it_ended(built):
    assert remember(built, DEVICE, [row(1, values=FULL, relations=LINKED)], "feed", endings=True) == [
        {"key": "d1", "status": "created"}
    ]
    [changed] = remember(
        built,
        DEVICE,
        [row(2, values={"status": "ok"}, relations={"LOCATED_IN": ["r2"]})],
        "feed",
        endings=True,
    )
    assert changed == {
        "key": "d1",
        "status": "changed",
        "ended": {"values": ["last_seen", "note"], "relations": {"LOCATED_IN": ["r1"], "USED_BY": ["red"]}},
    }


def test_without_endings_the_receipts_keep_their_published_shape(built):
    remember(built, DEVICE, [row(1, values=FULL, relations=LINKED)], "feed")
    assert remember(built, DEVICE, [row(2, values={"status": "ok"})], "feed") == [
        {"key": "d1", "status": "changed"}
    ]


def test_only_what_ended_is_named(built):
    remember(built, DEVICE, [row(1, values=FULL, relations=LINKED)], "feed")
    same_links = remember(
        built, DEVICE, [row(2, values={"status": "x"}, relations=LINKED)], "f", endings=True
    )
    assert same_links == [{"key": "d1", "status": "changed", "ended": {"values": ["last_seen", "note"]}}]
    more = remember(
        built,
        DEVICE,
        [row(3, values={"status": "y", "note": "n"}, relations={"USED_BY": ["red"]})],
        "f",
        endings=True,
    )
    assert more == [{"key": "d1", "status": "changed", "ended": {"relations": {"LOCATED_IN": ["r1", "r2"]}}}]
    added = remember(
        built,
        DEVICE,
        [row(4, values={"status": "y", "note": "n", "extra": 1}, relations=LINKED)],
        "f",
        endings=True,
    )
    assert added == [{"key": "d1", "status": "changed"}]  # it only added: nothing ended


def test_unchanged_created_and_refused_rows_end_nothing(built):
    rows = [row(1, values=FULL), row(1, key="d2", values=FULL), {"key": "d3"}]
    first = remember(built, DEVICE, rows, "feed", endings=True)
    assert [one["status"] for one in first] == ["created", "created", "invalid"]
    assert all("ended" not in one for one in first)
    again = remember(built, DEVICE, [row(1, values=FULL), row(0, values={"status": "z"})], "f", endings=True)
    assert again == [{"key": "d1", "status": "unchanged"}, {"key": "d1", "status": "inserted"}]


def test_a_late_row_names_what_the_state_its_time_falls_in_held(built):
    remember(built, DEVICE, [row(1, values=FULL, relations=LINKED), row(5, values={"status": "new"})], "f")
    # Decided from fingerprints alone (the State just before the current one): its values are read by id.
    [late] = remember(built, DEVICE, [row(3, values={"note": "pump"})], "feed", endings=True)
    assert late == {
        "key": "d1",
        "status": "inserted",
        "ended": {
            "values": ["last_seen", "status"],
            "relations": {"LOCATED_IN": ["r1", "r2"], "USED_BY": ["red"]},
        },
    }
    # Farther back, read around its time: the State at hour 1 until hour 3 now.
    [later] = remember(
        built, DEVICE, [row(2, values=FULL, relations={"USED_BY": ["red"]})], "f", endings=True
    )
    assert later == {"key": "d1", "status": "inserted", "ended": {"relations": {"LOCATED_IN": ["r1", "r2"]}}}
    assert len(history(built, DEVICE, "d1")) == 4


def test_targets_of_other_types_are_other_targets(built):
    remember(built, DEVICE, [row(1, values=FULL, relations={"USED_BY": [7]})], "feed")
    [changed] = remember(
        built, DEVICE, [row(2, values=FULL, relations={"USED_BY": ["7"]})], "f", endings=True
    )
    assert changed == {"key": "d1", "status": "changed", "ended": {"relations": {"USED_BY": [7]}}}


def test_several_rows_of_a_key_in_one_call_each_name_their_own(built):
    rows = [
        row(1, values=FULL, relations=LINKED),
        row(2, values={"status": "ok"}, relations=LINKED),
        row(3, values={"status": "ok"}),
    ]
    assert remember(built, DEVICE, rows, "feed", endings=True) == [
        {"key": "d1", "status": "created"},
        {"key": "d1", "status": "changed", "ended": {"values": ["last_seen", "note"]}},
        {
            "key": "d1",
            "status": "changed",
            "ended": {"relations": {"LOCATED_IN": ["r1", "r2"], "USED_BY": ["red"]}},
        },
    ]


def test_a_call_done_once_tells_the_same_endings_when_made_again(built):
    remember(built, DEVICE, [row(1, values=FULL, relations=LINKED)], "feed")
    rows = [row(2, values={"status": "ok"}), row(0, key="d1", values={"status": "early"})]
    first = remember(once(built, "request-1"), DEVICE, rows, "feed", endings=True)
    again = remember(once(built, "request-1"), DEVICE, rows, "feed", endings=True)
    assert first == again
    assert first[0]["ended"] == {
        "values": ["last_seen", "note"],
        "relations": {"LOCATED_IN": ["r1", "r2"], "USED_BY": ["red"]},
    }
    assert "ended" not in first[1]  # before the first State: nothing held before it
    assert len(history(built, DEVICE, "d1")) == 3


@pytest.mark.parametrize("given_endings", [1, "yes", None, [True]])
def test_endings_that_are_not_a_flag_are_refused_and_nothing_is_written(built, given_endings):
    with pytest.raises(WrongType, match="endings is True or False"):
        remember(built, DEVICE, [row(1, values=FULL)], "feed", endings=given_endings)
    assert history(built, DEVICE, "d1") == []


def _from_the_diff(graph, receipt: dict, given: dict) -> dict:
    """What ended by diff_between() over the second that ends at the row's time, read after the write."""
    moment = datetime.fromisoformat(given["t"].replace("Z", "+00:00")).astimezone(UTC)
    diff = diff_between(graph, [DEVICE], moment - timedelta(seconds=1), moment)
    ended: dict = {}
    for change in diff["values_changed"]:
        if tuple(change["entity"]) == ("Device", receipt["key"]):
            gone = [name for name in change["changed_keys"] if change["after"].get(name) is None]
            if gone:
                ended["values"] = gone
    closed: dict = {}
    for relation in diff["relations_closed"]:
        if tuple(relation["from"]) == ("Device", receipt["key"]) and relation["until"] == moment:
            closed.setdefault(relation["relation"], []).append(relation["to"][1])
    if closed:
        ended["relations"] = {name: sorted(keys, key=str) for name, keys in sorted(closed.items())}
    return ended


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_what_the_write_tells_is_what_the_history_says_ended(built, data):
    """Rows of random timelines, sent one call each in any order: each receipt's "ended" is what a read of
    the history over the second before the row's time finds ended then."""
    key = f"k{next(_serial)}"
    for given_row in data.draw(arrivals([key])):
        [receipt] = remember(built, DEVICE, [given_row], "feed", endings=True)
        if receipt["status"] in ("changed", "inserted"):
            assert receipt.get("ended", {}) == _from_the_diff(built, receipt, given_row), given_row
        else:
            assert "ended" not in receipt
