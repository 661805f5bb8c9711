"""Small remember calls that arrive together are written together, each getting exactly its receipts."""

from __future__ import annotations

import threading
import time

import lighthouse as lh
import pytest
from lighthouse_server.gathering import GATHER_MOST, Gathering

DEVICE = lh.Kind("Device", "serial", text=("note",))


class SlowCounted:
    """The library's remember, counted, and slowed a little so that calls pile up behind one in flight."""

    def __init__(self) -> None:
        self.calls: list[int] = []
        self._lock = threading.Lock()

    def __call__(self, graph, kind, rows, by):
        with self._lock:
            self.calls.append(len(rows))
        time.sleep(0.05)
        return lh.remember(graph, kind, rows, by)


def at_once(count: int, work) -> list:
    results: list = [None] * count
    barrier = threading.Barrier(count)

    def run(n: int) -> None:
        barrier.wait()
        try:
            results[n] = work(n)
        except Exception as error:  # noqa: BLE001 - the test looks at it
            results[n] = error

    threads = [threading.Thread(target=run, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


@pytest.fixture
def devices(graph):
    lh.ensure_schema(graph, [DEVICE])
    return graph


def test_calls_that_arrive_together_share_writes_and_get_their_own_receipts(devices):
    counted = SlowCounted()
    gathering = Gathering(counted)

    def write(n: int) -> list:
        rows = [{"key": f"d{n}", "t": "2026-01-01T00:00:00Z", "values": {"note": f"n{n}"}}]
        if n % 4 == 0:
            rows.append({"key": f"d{n}", "t": "bad time"})
        return gathering.remember(devices, DEVICE, rows, "planner")

    results = at_once(16, write)
    for n, receipts in enumerate(results):
        expected = [{"key": f"d{n}", "status": "created"}]
        if n % 4 == 0:
            expected.append({"key": f"d{n}", "status": "invalid", "reason": receipts[1]["reason"]})
        assert receipts == expected, (n, receipts)
    assert sum(counted.calls) == 20 and len(counted.calls) < 16  # fewer library calls than calls
    assert all(lh.history(devices, DEVICE, f"d{n}")[0]["note"] == f"n{n}" for n in range(16))


def test_rows_of_one_key_from_many_calls_keep_the_write_rule(devices):
    gathering = Gathering(SlowCounted())

    def write(n: int) -> list:
        row = {"key": "shared", "t": f"2026-01-01T00:00:{n:02d}Z", "values": {"note": f"v{n}"}}
        return gathering.remember(devices, DEVICE, [row], "planner")

    results = at_once(10, write)
    statuses = sorted(receipts[0]["status"] for receipts in results)
    history = lh.history(devices, DEVICE, "shared")
    assert [state["note"] for state in history] == [f"v{n}" for n in range(10)]  # every version, in time
    assert statuses.count("created") == 1 and set(statuses) <= {"created", "changed", "inserted"}


def test_a_large_call_is_written_on_its_own(devices):
    counted = SlowCounted()
    gathering = Gathering(counted)
    rows = [{"key": f"d{n}", "t": "2026-01-01T00:00:00Z", "values": {}} for n in range(GATHER_MOST + 1)]
    assert len(gathering.remember(devices, DEVICE, rows, "planner")) == GATHER_MOST + 1
    assert counted.calls == [GATHER_MOST + 1]


def test_an_error_of_the_write_reaches_every_call_of_it_and_the_next_calls_still_work(devices):
    failing = {"on": True}

    def write(graph, kind, rows, by):
        time.sleep(0.05)
        if failing["on"]:
            raise RuntimeError("the database went away")
        return lh.remember(graph, kind, rows, by)

    gathering = Gathering(write)
    row = {"key": "d1", "t": "2026-01-01T00:00:00Z", "values": {}}
    results = at_once(6, lambda _n: gathering.remember(devices, DEVICE, [row], "planner"))
    assert all(isinstance(result, RuntimeError) for result in results)
    failing["on"] = False
    assert gathering.remember(devices, DEVICE, [row], "planner") == [{"key": "d1", "status": "created"}]


def test_calls_of_other_agents_or_kinds_are_not_mixed(devices):
    other = lh.Kind("Room", "code")
    lh.ensure_schema(devices, [DEVICE, other])
    counted = SlowCounted()
    gathering = Gathering(counted)

    def write(n: int) -> list:
        kind = DEVICE if n % 2 else other
        return gathering.remember(
            devices, kind, [{"key": f"k{n}", "t": "2026-01-01T00:00:00Z"}], f"agent{n % 3}"
        )

    results = at_once(12, write)
    assert all(receipts == [{"key": f"k{n}", "status": "created"}] for n, receipts in enumerate(results))
    assert {state["by"] for n in range(1, 12, 2) for state in lh.history(devices, DEVICE, f"k{n}")} == {
        "agent0",
        "agent1",
        "agent2",
    }
    assert [lh.history(devices, DEVICE, f"k{n}")[0]["by"] for n in range(1, 12, 2)] == [
        f"agent{n % 3}" for n in range(1, 12, 2)
    ]
