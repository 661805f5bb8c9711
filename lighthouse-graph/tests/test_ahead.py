"""Rows prepared ahead: a large call's rows checked in a thread of their own while the caller waits on the
server, with the receipts, history and refusals of one thread, and no thread left after any end."""

from __future__ import annotations

import contextlib
import threading
import time
import uuid

import pytest
from devices import DEVICE
from lighthouse import clock, ensure_schema, failures, remember
from lighthouse.graphs import schema_turn
from lighthouse.write import ahead
from oracle import at
from test_batches import row

THREAD = "lighthouse-rows-ahead"


def _threads_left() -> list[str]:
    return [one.name for one in threading.enumerate() if one.name == THREAD]


@pytest.fixture
def spied(monkeypatch):
    """The name of the thread that prepared each row, by index."""
    seen: dict[int, str] = {}
    prepare = ahead.prepared_row

    def spy(kind, index, raw, present, candidate, ahead_of_the_caller=False):
        seen[index] = threading.current_thread().name
        return prepare(kind, index, raw, present, candidate, ahead_of_the_caller)

    monkeypatch.setattr(ahead, "prepared_row", spy)
    return seen


@pytest.fixture
def other_graph(db):
    chosen = db.select_graph(f"test_{uuid.uuid4().hex[:12]}")
    yield chosen
    with contextlib.suppress(Exception), schema_turn(chosen, 10.0):
        chosen.delete()


class Hostile:
    def __repr__(self) -> str:
        raise RuntimeError("no repr")


def _nested(depth: int) -> list:
    made: list = ["x"]
    for _ in range(depth):
        made = [made]
    return made


def _mixed_rows() -> list:
    """1,300 rows: 1,100 keys, 200 of them again (late or later), refused rows and entries among them."""
    rows: list = []
    for index in range(1_300):
        key = f"d{index % 1_100}"
        if index < 1_100:
            one = row(0, key=key, values={"temperature": index / 7})
        else:
            one = row(-1, "cold", key=key) if index % 2 else row(2, "hot", key=key)
        if index % 50 == 0:
            one["entry"] = "look/1"
        if index % 333 == 0:
            one["entry"] = "look/404"
        rows.append(one)
    hostile = [
        "not a row",
        {"key": None, "t": at(0)},
        {"key": "h1", "t": at(0), "values": {"a b": None}},
        {"key": "h2", "t": at(0), "values": {"a": Hostile()}},
        {"key": "h3", "t": at(0), "values": {1: "x"}},
        {"key": "h4", "t": "later"},
        {"key": "h5", "t": at(0), "values": {"deep": _nested(40)}},
        {"key": "h6", "t": at(0), "relations": {"KNOWS": "p"}},
    ]
    for place, bad in enumerate(hostile):
        rows[97 * (place + 1)] = bad
    return rows


def _stored(graph) -> tuple:
    states = graph.ro_query(
        "MATCH (e:Device)-[:HAS_STATE]->(s) RETURN e.key, s.valid_from, s.valid_to, s.seen_last, s.fp, s.entry "
        "ORDER BY e.key, s.valid_from"
    ).result_set
    edges = graph.ro_query(
        "MATCH (e:Device)-[r]->(x:Entity) RETURN e.key, type(r), x.key, r.valid_from, r.valid_to "
        "ORDER BY e.key, type(r), x.key, r.valid_from"
    ).result_set
    refused = sorted((one["reason"], str(one["key"]), one["detail"]) for one in failures(graph, limit=10_000))
    return states, edges, refused


def test_a_large_call_is_prepared_ahead_and_gives_what_one_thread_gives(
    graph, other_graph, spied, monkeypatch
):
    rows = _mixed_rows()
    for chosen in (graph, other_graph):
        ensure_schema(chosen, [DEVICE])
        chosen.query("MERGE (:Entry {id: 'look/1'})")
    ahead_receipts = remember(graph, DEVICE, rows, "feed")
    assert set(spied.values()) == {THREAD} and len(spied) == len(rows)
    spied.clear()
    monkeypatch.setattr(ahead, "OVERLAPPED_FROM", 10**9)
    alone_receipts = remember(other_graph, DEVICE, rows, "feed")
    assert set(spied.values()) == {threading.current_thread().name}
    assert ahead_receipts == alone_receipts
    statuses = [one["status"] for one in ahead_receipts]
    assert {"created", "changed", "inserted", "invalid", "missing"} <= set(statuses)
    assert statuses.count("invalid") == 8 and statuses.count("missing") == 4
    assert _stored(graph) == _stored(other_graph)
    assert len(_stored(graph)[2]) == 12  # each refusal kept once
    assert _threads_left() == []


def test_a_small_call_is_prepared_in_the_callers_thread(graph, spied):
    assert (
        len(remember(graph, DEVICE, [row(0, key=f"s{n}") for n in range(ahead.OVERLAPPED_FROM - 1)], "f")) > 0
    )
    assert set(spied.values()) == {threading.current_thread().name}


def test_the_thread_prepares_only_while_the_caller_waits(spied):
    listed = [row(0, key=f"g{n}") for n in range(2_000)]
    with ahead.prepared_ahead(DEVICE, listed, clock.present(), False) as prepared:
        first = next(prepared)  # the caller waits for rows: the thread works
        assert first[0] == 0 and first[1].key == "g0"
        time.sleep(0.2)  # the caller at work in Python: the thread ends the slice in hand and waits
        idle = len(spied)
        # Some slices at most: the GIL the thread gives back by sleep(0) may be taken again by it until the
        # interpreter's switch interval (5 ms) makes it wait. Left to run, it would have filled what it may
        # hold (SLICES_AHEAD slices, 1,000 rows) in these 0.2 s, and then waited for room.
        assert idle <= 20 * ahead.SLICE < ahead.SLICES_AHEAD * ahead.SLICE
        time.sleep(0.2)
        assert len(spied) - idle <= ahead.SLICE  # the slice in hand, if any, and no other
        with ahead.server_at_work():
            time.sleep(0.5)  # the caller waits on the server: the thread fills what it may hold
        assert len(spied) >= min(len(listed), ahead.SLICES_AHEAD * ahead.SLICE)
        assert [index for index, _, _ in prepared] == list(range(1, 2_000))
    assert _threads_left() == []


def test_server_at_work_outside_a_large_call_does_nothing():
    with ahead.server_at_work():
        pass
    assert _threads_left() == []


class FailingWrites:
    """A graph whose first write raises what a lost connection would."""

    def __init__(self, graph) -> None:
        self._graph = graph

    def query(self, *args, **kwargs):
        raise ConnectionError("the server went away")

    def __getattr__(self, name):
        return getattr(self._graph, name)


def test_a_call_cut_short_by_the_server_leaves_no_thread(graph):
    ensure_schema(graph, [DEVICE])
    with pytest.raises(ConnectionError, match="went away"):
        remember(FailingWrites(graph), DEVICE, [row(0, key=f"c{n}") for n in range(3_000)], "feed")
    assert _threads_left() == []
    assert graph.ro_query("MATCH (e:Device) RETURN count(e)").result_set == [[0]]


def test_a_fault_of_the_thread_is_raised_in_the_callers_thread_and_whole_queries_stay(graph, monkeypatch):
    ensure_schema(graph, [DEVICE])
    prepare = ahead.prepared_row

    def faulty(kind, index, raw, present, candidate, ahead_of_the_caller=False):
        if index == 700:
            raise RuntimeError("a fault of the library")
        return prepare(kind, index, raw, present, candidate, ahead_of_the_caller)

    monkeypatch.setattr(ahead, "prepared_row", faulty)
    with pytest.raises(RuntimeError, match="a fault of the library"):
        remember(graph, DEVICE, [row(0, key=f"f{n}") for n in range(2_000)], "feed")
    assert _threads_left() == []
    # the first query's 500 rows went before the fault was met; the query that held row 700 never went
    assert graph.ro_query("MATCH (e:Device) RETURN count(e)").result_set == [[500]]
