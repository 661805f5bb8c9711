"""update(): what it names changes from t on, the rest stays as the current State says."""

from __future__ import annotations

import itertools
import threading
import uuid
from datetime import timedelta

import pytest
from devices import DEVICE
from falkordb import FalkorDB
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lighthouse import clock, failures, history, related, remember, update
from lighthouse.values import Refused
from lighthouse.write.batches import write_rows
from lighthouse.write.partial import _completed
from lighthouse.write.rows import Row
from oracle import Oracle, at, check_key, moment

EXAMPLES = settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
_serial = itertools.count()


def first(graph, key="d1", hour=0):
    return remember(
        graph,
        DEVICE,
        [
            {
                "key": key,
                "t": at(hour),
                "values": {"status": "ok", "note": "pump room", "level": 1},
                "relations": {"LOCATED_IN": "r1", "USED_BY": ["red", "blue"]},
            }
        ],
        "feed",
    )


def edge_ids(graph, relation):
    return graph.ro_query(
        f"MATCH (:Device {{key: 'd1'}})-[r:{relation}]->(x) WHERE r.valid_to IS NULL RETURN x.key, id(r) ORDER BY x.key"
    ).result_set


def test_it_changes_what_it_names_and_keeps_the_rest(graph):
    first(graph)
    kept_edges = edge_ids(graph, "USED_BY") + edge_ids(graph, "LOCATED_IN")
    assert update(graph, DEVICE, "d1", at(1), by="agent", values={"status": "hot"}) == {
        "key": "d1",
        "status": "changed",
    }
    found = history(graph, DEVICE, "d1")
    assert [(s["status"], s["note"], s["level"], s["by"]) for s in found] == [
        ("ok", "pump room", 1, "feed"),
        ("hot", "pump room", 1, "agent"),
    ]
    assert edge_ids(graph, "USED_BY") + edge_ids(graph, "LOCATED_IN") == kept_edges


def test_none_removes_a_value(graph):
    first(graph)
    assert (
        update(graph, DEVICE, "d1", at(1), by="agent", values={"note": None, "last_seen": at(1)})["status"]
        == "changed"
    )
    now = history(graph, DEVICE, "d1")[-1]
    assert "note" not in now and now["last_seen"] == moment(at(1)) and now["status"] == "ok"
    assert graph.ro_query("MATCH (e:Device) RETURN e.note, e.words").result_set == [[None, ""]]


def test_a_relation_it_names_gets_exactly_its_targets_and_the_others_keep_their_edges(graph):
    first(graph)
    located = edge_ids(graph, "LOCATED_IN")
    kept_blue = dict(edge_ids(graph, "USED_BY"))["blue"]
    receipt = update(graph, DEVICE, "d1", at(1), by="agent", relations={"USED_BY": ["blue", "green"]})
    assert receipt["status"] == "changed"
    assert related(graph, DEVICE, "d1", "USED_BY") == ["blue", "green"]
    assert dict(edge_ids(graph, "USED_BY"))["blue"] == kept_blue
    assert edge_ids(graph, "LOCATED_IN") == located
    assert (
        update(graph, DEVICE, "d1", at(2), by="agent", relations={"LOCATED_IN": None})["status"] == "changed"
    )
    assert related(graph, DEVICE, "d1", "LOCATED_IN") == [] and related(graph, DEVICE, "d1", "USED_BY") == [
        "blue",
        "green",
    ]


def test_stale_before_the_current_state_and_nothing_changes(graph):
    first(graph, hour=4)
    receipt = update(graph, DEVICE, "d1", at(3), by="agent", values={"status": "hot"})
    assert receipt["status"] == "stale" and receipt["reason"]
    assert len(history(graph, DEVICE, "d1")) == 1
    assert [f["reason"] for f in failures(graph)] == ["stale"]


def test_the_same_second_conflicts_unless_it_says_the_same(graph):
    first(graph)
    assert update(graph, DEVICE, "d1", at(0), by="agent", values={"status": "hot"})["status"] == "conflict"
    assert update(graph, DEVICE, "d1", at(0), by="agent", values={"status": "ok"})["status"] == "unchanged"
    assert update(graph, DEVICE, "d1", at(2), by="agent", values={"status": "ok"})["status"] == "unchanged"
    assert history(graph, DEVICE, "d1")[0]["seen_last"] == moment(at(2))
    assert update(graph, DEVICE, "d1", at(1), by="agent", values={"status": "hot"})["status"] == "stale"
    assert update(graph, DEVICE, "d1", at(3), by="a", values={"status": "hot"})["status"] == "changed"
    assert update(graph, DEVICE, "d1", at(3), by="b", values={"status": "cold"})["status"] == "conflict"
    assert sorted(f["reason"] for f in failures(graph)) == ["conflict", "conflict", "stale"]


def test_an_entity_that_does_not_exist_is_created_with_only_what_the_update_names(graph):
    receipt = update(graph, DEVICE, "d9", at(0), by="agent", values={"status": "hot"})
    assert receipt == {"key": "d9", "status": "created"}
    [made] = history(graph, DEVICE, "d9")
    assert {name: made[name] for name in made if name not in ("recorded_at", "fp")} == {
        "status": "hot",
        "valid_from": moment(at(0)),
        "by": "agent",
    }
    assert related(graph, DEVICE, "d9", "LOCATED_IN") == []
    first(graph)  # r1 now exists, as a target only
    from devices import ROOM

    assert update(graph, ROOM, "r1", at(1), by="agent", values={"floor": 2})["status"] == "created"
    assert (
        update(graph, DEVICE, "d8", at(1), by="agent", relations={"USED_BY": "blue"})["status"] == "created"
    )
    assert (
        related(graph, DEVICE, "d8", "USED_BY") == ["blue"]
        and history(graph, DEVICE, "d8")[0]["by"] == "agent"
    )
    assert failures(graph) == []
    assert graph.ro_query("MATCH (s:State) RETURN count(s)").result_set == [[4]]


def test_a_stale_update_says_where_the_current_state_starts(graph):
    first(graph)
    update(graph, DEVICE, "d1", at(3), by="agent", values={"status": "hot"})
    receipt = update(graph, DEVICE, "d1", at(2), by="agent", values={"status": "cold"})
    assert receipt["status"] == "stale" and "2026-01-01T03:00:00" in receipt["reason"]
    assert set(receipt) == {"key", "status", "reason"}


def test_an_entry_it_names_must_exist_and_the_new_state_points_at_it(graph):
    first(graph)
    assert (
        update(graph, DEVICE, "d1", at(1), by="a", values={"status": "hot"}, entry="look/1")["status"]
        == "missing"
    )
    graph.query("CREATE (:Entry {id: 'look/1'})")
    assert (
        update(graph, DEVICE, "d1", at(1), by="a", values={"status": "hot"}, entry="look/1")["status"]
        == "changed"
    )
    assert [s.get("entry") for s in history(graph, DEVICE, "d1")] == [None, "look/1"]


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        ({"key": None}, "must be text"),
        ({"t": None}, "time t of an update is missing"),
        ({"t": "six minutes from now"}, "five minutes"),
        ({"values": ["status"]}, "must be a dict"),
        ({"values": {f"v{i}": 1 for i in range(201)}}, "more than 200"),
        ({"values": {f"v{i}": None for i in range(201)}}, "more than 200"),
        ({"values": {"a b": None}}, "property name"),
        ({"values": {"serial": 1}}, "not a value"),
        ({"relations": {"KNOWS": "x"}}, "no relation"),
        ({"relations": ["r1"]}, "must be a dict"),
        ({"entry": "x" * 206}, "1 to 205 characters"),
        ({"entry": "x" * 201}, "or an episode id and"),
    ],
)
def test_what_cannot_be_stored_is_refused_and_kept(graph, arguments, says):
    first(graph)
    given = {"key": "d1", "t": at(1), "values": {"status": "hot"}, **arguments}
    key, t = given.pop("key"), given.pop("t")
    if t == "six minutes from now":  # taken when the test runs, not when it is collected
        t = clock.present() + timedelta(minutes=6)
    receipt = update(graph, DEVICE, key, t, by="agent", **given)
    assert receipt["status"] == "invalid" and says in receipt["reason"]
    assert [f["reason"] for f in failures(graph)] == ["invalid"]
    assert len(history(graph, DEVICE, "d1")) == 1


def test_the_row_an_update_makes_keeps_the_limits_of_a_row(graph):
    remember(graph, DEVICE, [{"key": "d1", "t": at(0), "values": {f"v{i}": i for i in range(150)}}], "feed")
    receipt = update(graph, DEVICE, "d1", at(1), by="a", values={f"w{i}": i for i in range(51)})
    assert receipt["status"] == "invalid" and "200 values" in receipt["reason"]
    receipt = update(graph, DEVICE, "d1", at(1), by="a", values={f"w{i}": i for i in range(50)})
    assert receipt["status"] == "changed"
    assert len(history(graph, DEVICE, "d1")[-1]) == 200 + 4  # and valid_from, recorded_at, by, fp
    big = "x" * 99_900
    stored = remember(graph, DEVICE, [{"key": "d2", "t": at(0), "values": {"note": big, "a": big}}], "feed")
    assert stored[0]["status"] == "created"
    receipt = update(graph, DEVICE, "d2", at(1), by="a", values={"b": "y" * 1_000})
    assert receipt["status"] == "invalid" and "200,000" in receipt["reason"]


def test_by_and_kind_are_checked_before_anything(graph):
    with pytest.raises(Refused):
        update(graph, DEVICE, "d1", at(1), by="", values={"status": "x"})
    with pytest.raises(Refused, match="Kind"):
        update(graph, "Device", "d1", at(1), by="a", values={"status": "x"})
    assert failures(graph) == []  # identity arguments raise and store nothing


def test_busy_after_five_reads_that_each_found_another_writer(graph, db):
    first(graph)
    kwargs = db.connection.connection_pool.connection_kwargs
    rival = FalkorDB(host=kwargs["host"], port=kwargs["port"], password=kwargs.get("password")).select_graph(
        graph.name
    )
    ticks = itertools.count(2)
    wanted = Row(0, "d1", moment(at(30)), {}, {}, None, {"key": "d1"})
    complete = _completed(DEVICE, wanted, {"status": "mine"}, {})

    def beaten(pending, around):  # the rival writes between this read and this write, every time
        hour = next(ticks)
        update(rival, DEVICE, "d1", at(hour), by="rival", values={"level": hour})
        return complete(pending, around)

    found, refusals = {}, []
    write_rows(graph, DEVICE, "agent", [wanted], found, refusals, partial=beaten)
    assert found == {0: "busy"} and [f.reason for f in refusals] == ["busy"]
    assert [s["level"] for s in history(graph, DEVICE, "d1")] == [1, 2, 3, 4, 5, 6]
    assert "mine" not in {s["status"] for s in history(graph, DEVICE, "d1")}


# --- against the oracle ------------------------------------------------------------------------------

_changes = st.fixed_dictionaries(
    {},
    optional={
        "status": st.sampled_from(["ok", "hot", None]),
        "level": st.sampled_from([1, 1.0, None]),
        "note": st.sampled_from(["pump room", None]),
    },
)
_linked = st.fixed_dictionaries(
    {},
    optional={
        "LOCATED_IN": st.sampled_from([None, "r1", ["r1", "r2"]]),
        "USED_BY": st.sampled_from([[], "red", ["red", 7]]),
    },
)


@EXAMPLES
@given(steps=st.lists(st.tuples(st.integers(0, 8), _changes, _linked, st.booleans()), min_size=1, max_size=8))
def test_updates_and_rows_give_the_oracles_receipts_and_history(graph, steps):
    key = f"u{next(_serial)}"
    oracle = Oracle(times=DEVICE.times)
    for hour, changes, linked, full in steps:
        if full:  # a full row by remember(), between the updates
            row = {"key": key, "t": at(hour), "values": {k: v for k, v in changes.items() if v is not None}}
            row["relations"] = linked
            assert remember(graph, DEVICE, [row], "feed")[0]["status"] == oracle.one(row)
        else:
            found = update(graph, DEVICE, key, at(hour), by="agent", values=changes, relations=linked)
            assert found["status"] == oracle.update(key, at(hour), changes, linked)
    check_key(graph, DEVICE, oracle, key, [at(hour + shift) for hour in range(-1, 10) for shift in (0, 0.5)])


# --- racing writers ---------------------------------------------------------------------------------------


def test_eight_agents_updating_one_entity_lose_no_change(graph, db):
    """Each agent sets its own value; every change is written over the one before it, never over another."""
    first(graph)
    kwargs = db.connection.connection_pool.connection_kwargs
    receipts: dict = {n: [] for n in range(8)}
    clock_hand, hand = itertools.count(1), threading.Lock()

    def agent(number):
        mine = FalkorDB(
            host=kwargs["host"], port=kwargs["port"], password=kwargs.get("password")
        ).select_graph(graph.name)
        for step in range(12):
            with hand:  # the agents' times go forward together, as the present does; no two share a second
                hour = next(clock_hand) / 60
            found = update(mine, DEVICE, "d1", at(hour), by=f"a{number}", values={f"a{number}": step})
            receipts[number].append((step, hour, found["status"]))

    threads = [threading.Thread(target=agent, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    every = [one for listed in receipts.values() for one in listed]
    assert {status for _, _, status in every} <= {"changed", "stale", "busy"}
    found = history(graph, DEVICE, "d1")
    assert len(found) == 1 + sum(status == "changed" for _, _, status in every)
    for before, after in zip(found, found[1:], strict=False):
        names = {k for k in set(before) | set(after) if k.startswith("a") and before.get(k) != after.get(k)}
        assert len(names) == 1, (before, after)  # one agent's change, on top of everything before it
        assert after["by"] == names.pop()
    last = found[-1]
    for number, listed in receipts.items():
        written = [step for step, _, status in listed if status == "changed"]
        assert last.get(f"a{number}") == (written[-1] if written else None)
    for _, hour, status in every:
        if status == "changed":
            assert any(state["valid_from"] == moment(at(hour)) for state in found)
    refused = sum(status != "changed" for _, _, status in every)
    assert (graph.ro_query("MATCH (f:WriteFailure) RETURN sum(f.times)").result_set[0][0] or 0) == refused
    assert (
        clock.from_store(graph.ro_query("MATCH (e:Device) RETURN e.valid_from").result_set[0][0])
        == found[-1]["valid_from"]
    )


def test_a_database_that_refuses_everything_gives_failed_receipts_and_raises_nothing(db):
    # The key holds a string, not a graph: every query, the WriteFailure's too, is refused (WRONGTYPE).
    name = f"not-a-graph-update-{uuid.uuid4().hex[:8]}"
    db.connection.set(name, "text")
    try:
        broken = db.select_graph(name)
        found = update(broken, DEVICE, "d1", "2026-01-01T00:00:00Z", "ann", values={"status": "ok"})
        assert found["key"] == "d1" and found["status"] == "failed" and "WRONGTYPE" in found["reason"]
        named = update(broken, DEVICE, "d1", "2026-01-01T00:00:00Z", "ann", entry="e1/1")
        assert named["status"] == "failed" and "WRONGTYPE" in named["reason"]
        refused = update(broken, DEVICE, "d1", "not a time", "ann")
        assert refused["status"] == "invalid"  # its WriteFailure was refused too: the receipt says it all
        assert db.connection.get(name) == "text"
    finally:
        db.connection.delete(name)
