"""remember(): receipts, waves, queries of 500, entries, failures and racing writers, against the oracle."""

from __future__ import annotations

import itertools
import random
import threading
import uuid

from devices import DEVICE, ROOM
from falkordb import FalkorDB
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lighthouse import clock, ensure_schema, failures, history, related, remember, update
from lighthouse.write.batches import write_rows
from lighthouse.write.rows import prepare
from oracle import (
    ACCEPTED,
    Oracle,
    accepted_in_time_order,
    arrivals,
    at,
    check_key,
    cuts,
    moment,
    probes_for,
    sent,
)

EXAMPLES = settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
_serial = itertools.count()


def fresh_keys(count: int, ints: bool = False) -> list:
    """Keys no other example uses, so the examples of one test share a graph without meeting."""
    number = next(_serial)
    return [number * 10 + i + 1_000_000 if ints else f"d{number}-{i}" for i in range(count)]


def with_entries(graph) -> None:
    graph.query("UNWIND ['look/1', 'look/2'] AS id MERGE (:Entry {id: id})")


# --- the write rule, against the oracle -----------------------------------------------------------------


@EXAMPLES
@given(data=st.data(), count=st.integers(1, 3), ints=st.booleans())
def test_one_batch_gives_the_oracles_receipts_and_history(graph, data, count, ints):
    with_entries(graph)
    keys = fresh_keys(count, ints)
    rows = data.draw(arrivals(keys, entries=(None, "look/1", "look/2", "nowhere/1")))
    oracle = Oracle(times=DEVICE.times, entries={"look/1", "look/2"})
    receipts = remember(graph, DEVICE, rows, "feed")
    assert [r["status"] for r in receipts] == oracle.remember(rows)
    assert [r["key"] for r in receipts] == [row["key"] for row in rows]
    for key in keys:
        check_key(graph, DEVICE, oracle, key, probes_for(rows))


@EXAMPLES
@given(data=st.data(), count=st.integers(1, 2))
def test_several_calls_give_the_oracles_receipts_and_history(graph, data, count):
    with_entries(graph)
    keys = fresh_keys(count)
    rows = data.draw(arrivals(keys, entries=(None, "look/1", "look/2")))
    oracle = Oracle(times=DEVICE.times, entries={"look/1", "look/2"})
    for call in data.draw(cuts(rows)):
        receipts = remember(graph, DEVICE, call, "feed")
        assert [r["status"] for r in receipts] == oracle.remember(call)
    for key in keys:
        check_key(graph, DEVICE, oracle, key, probes_for(rows))


# --- each receipt status ---------------------------------------------------------------------------------


def statuses(graph, rows, kind=DEVICE):
    return [receipt["status"] for receipt in remember(graph, kind, rows, "feed")]


def row(hour, status="ok", key="d1", **more):
    return {"key": key, "t": at(hour), "values": {"status": status, **more.pop("values", {})}, **more}


def test_created_changed_unchanged_and_a_replay(graph):
    assert statuses(graph, [row(0), row(1, "hot"), row(2, "hot")]) == ["created", "changed", "unchanged"]
    assert statuses(graph, [row(0), row(1, "hot"), row(2, "hot")]) == ["unchanged"] * 3
    found = history(graph, DEVICE, "d1")
    assert [(s["status"], s["valid_from"], s.get("seen_last")) for s in found] == [
        ("ok", moment(at(0)), None),
        ("hot", moment(at(1)), moment(at(2))),
    ]


def test_a_late_row_is_inserted_and_never_current(graph):
    assert statuses(graph, [row(0), row(4, "hot"), row(2, "cold")]) == ["created", "changed", "inserted"]
    assert [s["status"] for s in history(graph, DEVICE, "d1")] == ["ok", "cold", "hot"]
    current = graph.ro_query("MATCH (e:Device {key: 'd1'}) RETURN e.status, e.valid_from").result_set
    assert current[0][0] == "hot" and clock.from_store(current[0][1]) == moment(at(4))


def test_stale_when_a_later_row_repeated_the_state(graph):
    assert statuses(graph, [row(0), row(3), row(1, "hot")]) == ["created", "unchanged", "stale"]
    refused = remember(graph, DEVICE, [row(1, "hot")], "feed")[0]
    assert refused == {"key": "d1", "status": "stale"}  # stale and conflict receipts carry no reason
    assert "repeated" in failures(graph, reason="stale")[0]["message"]
    kept = failures(graph, reason="stale")
    assert len(kept) == 1 and kept[0]["times"] == 2 and kept[0]["key"] == "d1"
    assert [s["status"] for s in history(graph, DEVICE, "d1")] == ["ok"]


def test_conflict_in_the_same_second_and_at_seen_last(graph):
    assert statuses(graph, [row(0), row(0, "hot")]) == ["created", "conflict"]
    assert statuses(graph, [row(2), row(2, "cold")]) == ["unchanged", "conflict"]
    assert [r["reason"] for r in failures(graph, reason="conflict")] == ["conflict", "conflict"]
    assert [(s["status"], s.get("seen_last")) for s in history(graph, DEVICE, "d1")] == [
        ("ok", moment(at(2)))
    ]


def test_a_late_row_equal_to_the_next_state_makes_it_start_earlier(graph):
    assert statuses(graph, [row(0), row(4, "hot"), row(2, "hot")]) == ["created", "changed", "inserted"]
    found = history(graph, DEVICE, "d1")
    assert [(s["status"], s["valid_from"], s.get("valid_to"), s.get("seen_last")) for s in found] == [
        ("ok", moment(at(0)), moment(at(2)), None),
        ("hot", moment(at(2)), None, moment(at(4))),  # the old start is now seen_last
    ]
    node = graph.ro_query("MATCH (e:Device {key: 'd1'}) RETURN e.valid_from, e.seen_last").result_set[0]
    assert [clock.from_store(item) for item in node] == [moment(at(2)), moment(at(4))]
    # With seen_last already set, it is kept: it is later than the old start.
    assert statuses(graph, [row(6, "hot"), row(1, "hot")]) == ["unchanged", "inserted"]
    assert history(graph, DEVICE, "d1")[1]["seen_last"] == moment(at(6))


def test_missing_entries_are_checked_in_one_read_for_the_rows_of_each_query(graph, db):
    graph.query("CREATE (:Entry {id: 'look/3'})")
    rows = [row(0, entry="look/3"), row(1, "hot", entry="look/9"), row(0, key="d2", entry="look/3")]
    with sent(db, graph.name) as commands:
        receipts = remember(graph, DEVICE, rows, "feed")
    assert [r["status"] for r in receipts] == ["created", "missing", "created"]
    assert "look/9" in receipts[1]["reason"]
    # the first wave's query (d1 and d2), then the second wave's (d1 again): a read of entries before each
    reads = [text for _, text in commands if "Entry {id: id}" in text]
    assert len(reads) == 2 and "look/9" not in reads[0] and "look/3" not in reads[1]
    linked = graph.ro_query("MATCH (s:State)-[:FROM]->(n:Entry) RETURN s.key, n.id ORDER BY s.key").result_set
    assert linked == [["d1", "look/3"], ["d2", "look/3"]]
    assert [s.get("entry") for s in history(graph, DEVICE, "d1")] == ["look/3"]
    # The same values from another entry are unchanged, and the State keeps its entry.
    graph.query("CREATE (:Entry {id: 'look/4'})")
    assert statuses(graph, [row(2, entry="look/4")]) == ["unchanged"]
    assert [s.get("entry") for s in history(graph, DEVICE, "d1")] == ["look/3"]
    many = [row(5, key=f"e{n}", entry="look/3" if n % 2 else None) for n in range(1_200)]
    with sent(db, graph.name) as commands:
        assert {r["status"] for r in remember(graph, DEVICE, many, "feed")} == {"created"}
    assert sum("Entry {id: id}" in text for _, text in commands) == 3  # 500, 500 and 200 rows


def test_a_batch_without_entries_reads_no_entries_and_costs_the_same_queries_for_any_size(graph, db):
    def count(rows):
        with sent(db, graph.name) as commands:
            remember(graph, DEVICE, rows, "feed")
        return len(commands)

    few = count([row(0, key=f"a{i}") for i in range(3)])
    many = count([row(0, key=f"b{i}") for i in range(300)])
    assert few == many == 2  # one read of the current States, one write
    late = count([row(-1, "hot", key=f"b{i}") for i in range(300)])
    assert late == 3  # late rows only: the read of the current States, one read around them, their write
    mixed = [row(-2, "cold", key=f"b{i}") for i in range(300)] + [row(9, key=f"c{i}") for i in range(9)]
    with sent(db, graph.name) as commands:
        receipts = remember(graph, DEVICE, mixed, "feed")
    assert {r["status"] for r in receipts} == {"inserted", "created"}
    # late and current rows of one wave are written in one query: whole or not at all
    assert [command for command, _ in commands].count("GRAPH.QUERY") == 1 and len(commands) == 3
    replay = count([row(9, key=f"c{i}") for i in range(9)])
    assert replay == 1  # a replay is one light read and no write


def test_at_most_500_rows_go_in_one_query(graph, db):
    rows = [row(0, key=f"n{i}") for i in range(1_200)]
    with sent(db, graph.name) as commands:
        receipts = remember(graph, DEVICE, rows, "feed")
    assert [r["status"] for r in receipts] == ["created"] * 1_200
    writes = [text for command, text in commands if command == "GRAPH.QUERY"]
    assert len(writes) == 3
    assert graph.ro_query("MATCH (e:Device) RETURN count(e)").result_set == [[1_200]]


def test_a_query_carries_a_bounded_size_and_a_bounded_number_of_targets(graph, db):
    from lighthouse.write import batches

    wide = [
        row(0, key=f"w{i}", relations={"USED_BY": [f"t{i}-{n}" for n in range(200)], "LOCATED_IN": f"r{i}"})
        for i in range(30)
    ]  # 6,030 targets, each a new node
    with sent(db, graph.name) as commands:
        receipts = remember(graph, DEVICE, wide, "feed")
    assert {r["status"] for r in receipts} == {"created"}
    writes = [text for command, text in commands if command == "GRAPH.QUERY"]
    per_query = batches.QUERY_TARGETS // 201  # whole rows of 201 targets
    assert len(writes) == -(-30 // per_query) > 1
    assert graph.ro_query("MATCH (t:Team) RETURN count(t)").result_set == [[6_000]]
    big = [row(0, key=f"b{i}", values={"note": "x" * 99_000, "more": "y" * 99_000}) for i in range(12)]
    with sent(db, graph.name) as commands:
        receipts = remember(graph, DEVICE, big, "feed")
    assert {r["status"] for r in receipts} == {"created"}
    writes = [text for command, text in commands if command == "GRAPH.QUERY"]
    per_query = batches.QUERY_CHARS // (2 * 198_060)  # rows of about 198,000 characters, counted twice
    assert len(writes) == -(-12 // per_query) > 1 and max(map(len, writes)) <= batches.QUERY_CHARS
    assert len(history(graph, DEVICE, "b11")[0]["note"]) == 99_000


RECEIPT_STATUSES = {
    "created",
    "changed",
    "inserted",
    "unchanged",
    "stale",
    "conflict",
    "missing",
    "invalid",
    "failed",
    "busy",
}
_odd_rows = st.sampled_from(
    [
        {"key": "d1"},
        {"key": "d1", "t": "later"},
        {"key": None, "t": at(1)},
        {"key": "d1", "t": at(1), "values": {"a": None}},
        {"key": "d1", "t": at(1), "entry": "nowhere/1"},
        {"key": "d1", "t": at(1), "relations": {"KNOWS": "p"}},
        "not a row",
    ]
)


@EXAMPLES
@given(data=st.data())
def test_no_write_gives_a_status_outside_the_receipt_table(graph, data):
    with_entries(graph)
    keys = fresh_keys(2)
    rows = data.draw(arrivals(keys, entries=(None, "look/1", "nowhere/1")))
    rows += data.draw(st.lists(_odd_rows, max_size=3))
    found = [
        receipt["status"] for receipt in remember(graph, DEVICE, data.draw(st.permutations(rows)), "feed")
    ]
    for hour, status in data.draw(
        st.lists(st.tuples(st.integers(0, 9), st.sampled_from(["ok", "hot"])), max_size=4)
    ):
        found.append(update(graph, DEVICE, keys[0], at(hour), "agent", values={"status": status})["status"])
    found.append(
        update(graph, DEVICE, keys[1], at(1), "agent", values={"a": None}, entry="nowhere/1")["status"]
    )
    assert set(found) <= RECEIPT_STATUSES, found


def test_a_refused_query_fails_its_500_rows_and_no_others(graph, changed_schema):
    graph.query("CREATE (:Device {key: 'holder', note: 'taken'})")
    changed_schema(graph, "CREATE INDEX FOR (n:Device) ON (n.note)", unique=[("Device", "note")])
    _wait_for_constraint(graph)
    rows = [row(0, key=f"n{i}") for i in range(1_200)]
    rows[700]["values"]["note"] = "taken"  # the database refuses this one: its whole query is not written
    receipts = remember(graph, DEVICE, rows, "feed")
    found = [r["status"] for r in receipts]
    assert found == ["created"] * 500 + ["failed"] * 500 + ["created"] * 200
    assert "unique constraint" in receipts[700]["reason"]
    assert graph.ro_query("MATCH (e:Device) WHERE e.key STARTS WITH 'n' RETURN count(e)").result_set == [
        [700]
    ]
    assert graph.ro_query("MATCH (s:State) RETURN count(s)").result_set == [[700]]
    kept = failures(graph, reason="failed", limit=1_000)
    assert len(kept) == 500


def _wait_for_constraint(graph) -> None:
    for _ in range(200):
        listed = graph.ro_query("CALL db.constraints() YIELD status RETURN status").result_set
        if listed and listed[0][0] == "OPERATIONAL":
            return
        threading.Event().wait(0.02)
    raise AssertionError("the constraint did not become operational")


def test_rows_of_one_key_in_one_batch_go_in_waves_in_their_order(graph, db):
    rows = [row(hour, status) for hour, status in [(0, "a"), (5, "b"), (3, "c"), (5, "b"), (1, "a")]]
    rows.append(row(0, key="other"))
    with sent(db, graph.name) as commands:
        found = statuses(graph, rows)
    assert found == ["created", "changed", "inserted", "unchanged", "unchanged", "created"]
    # a wave: a read, and a write when it changes something. A late row that differs from the State its
    # time falls in needs one more read, unless that State is the one just before the current one (the
    # first read brings both then) or the row repeats it. Here: 2, 2, 2, 1, 2.
    assert len(commands) == 9
    assert [(s["status"], s.get("seen_last")) for s in history(graph, DEVICE, "d1")] == [
        ("a", moment(at(1))),
        ("c", None),
        ("b", None),
    ]


def test_a_late_row_just_before_the_current_state_needs_no_read_around_it(graph, db):
    def queries(one):
        with sent(db, graph.name) as commands:
            assert statuses(graph, [one]) == ["inserted"]
        return [command for command, _ in commands]

    linked = {"LOCATED_IN": "r1", "USED_BY": ["t1", "t2"]}
    statuses(graph, [row(0, relations=linked), row(4, "hot", relations={"USED_BY": "t2"}), row(8, "cold")])
    # In the State just before the current one: the light read and the write.
    assert queries(row(6, "warm", relations={"LOCATED_IN": "r2"})) == ["GRAPH.RO_QUERY", "GRAPH.QUERY"]
    # In an older State, or before the first: a read around it too.
    assert queries(row(2, "cool", relations=linked)) == ["GRAPH.RO_QUERY"] * 2 + ["GRAPH.QUERY"]
    assert queries(row(-1, "first")) == ["GRAPH.RO_QUERY"] * 2 + ["GRAPH.QUERY"]
    # A State kept without a fingerprint is compared by its values, which the read around it brings.
    graph.query("MATCH (s:State) WHERE s.status = 'warm' SET s.fp = null")
    assert queries(row(7, "mild")) == ["GRAPH.RO_QUERY"] * 2 + ["GRAPH.QUERY"]
    found = history(graph, DEVICE, "d1")
    assert [(s["status"], s["valid_from"], s.get("valid_to")) for s in found] == [
        ("first", moment(at(-1)), moment(at(0))),
        ("ok", moment(at(0)), moment(at(2))),
        ("cool", moment(at(2)), moment(at(4))),
        ("hot", moment(at(4)), moment(at(6))),
        ("warm", moment(at(6)), moment(at(7))),
        ("mild", moment(at(7)), moment(at(8))),
        ("cold", moment(at(8)), None),
    ]
    # The relations of each row hold through its State, and no longer.
    held = {
        hour: [related(graph, DEVICE, "d1", name, at(hour)) for name in ("LOCATED_IN", "USED_BY")]
        for hour in (-1, 0, 2, 4, 6, 7, 8)
    }
    assert held == {
        -1: [[], []],
        0: [["r1"], ["t1", "t2"]],
        2: [["r1"], ["t1", "t2"]],
        4: [[], ["t2"]],
        6: [["r2"], []],
        7: [[], []],
        8: [[], []],
    }


def test_relations_open_and_close_by_the_rule_and_an_unchanged_one_keeps_its_edge(graph):
    first = row(0, relations={"LOCATED_IN": "r1", "USED_BY": ["red", "blue"]})
    statuses(graph, [first, row(2, "hot", relations={"LOCATED_IN": "r1", "USED_BY": "blue"})])

    def edges():
        return graph.ro_query(
            "MATCH (:Device {key: 'd1'})-[r]->(x) WHERE type(r) IN ['LOCATED_IN', 'USED_BY'] "
            "RETURN type(r), x.key, id(r), r.valid_from, r.valid_to, r.by ORDER BY type(r), x.key"
        ).result_set

    found = edges()
    assert [(t, k, clock.from_store(a), clock.from_store(b), by) for t, k, _, a, b, by in found] == [
        ("LOCATED_IN", "r1", moment(at(0)), None, "feed"),
        ("USED_BY", "blue", moment(at(0)), None, "feed"),
        ("USED_BY", "red", moment(at(0)), moment(at(2)), "feed"),
    ]
    kept_ids = {row[2] for row in found if row[4] is None}
    statuses(graph, [row(3, "cold", relations={"LOCATED_IN": "r1", "USED_BY": "blue"})])
    assert {row[2] for row in edges() if row[4] is None} == kept_ids  # the same edges, not new ones
    statuses(graph, [row(4, "cold")])  # the row names no relation: every one is closed
    assert all(clock.from_store(row[4]) == moment(at(4)) for row in edges() if row[2] in kept_ids)
    room = graph.ro_query("MATCH (r:Room:Entity {key: 'r1'}) RETURN r.code, r.`lh.rev`").result_set
    assert room == [["r1", 0]]


def test_the_words_of_text_values_only(graph):
    statuses(graph, [row(0, values={"note": "Pump-room_SENSOR\nÉlan  x2"})])
    assert graph.ro_query("MATCH (e:Device) RETURN e.words").result_set == [["pump room sensor élan x2"]]
    assert graph.ro_query("MATCH (s:State) RETURN s.words").result_set == [["pump room sensor élan x2"]]
    assert "words" not in history(graph, DEVICE, "d1")[0]
    statuses(graph, [row(0, key="r9")], ROOM)
    assert graph.ro_query("MATCH (s:State {key: 'r9'}) RETURN s.words").result_set == [[""]]


def test_an_entity_that_was_only_a_target_is_created_by_its_first_row(graph):
    statuses(graph, [row(0, relations={"LOCATED_IN": "r1"})])
    assert statuses(graph, [{"key": "r1", "t": at(1), "values": {"floor": 2}}], ROOM) == ["created"]
    assert graph.ro_query("MATCH (r:Room) RETURN count(r), r.floor, r.`lh.rev`").result_set == [[1, 2, 1]]


def test_busy_after_five_reads_that_each_found_another_writer(graph, db):
    statuses(graph, [row(0)])
    rival = own_connection(db, graph)
    moments = iter(range(1, 10))
    reads = []

    def beaten(pending, around):  # between this writer's read and its write, a rival writes a change
        reads.append(around.rev)
        hour = next(moments)
        remember(rival, DEVICE, [row(hour, f"rival{hour}")], "rival")
        return pending

    mine = prepare(DEVICE, 0, row(20, "mine"), clock.present())
    found, refusals = {}, []
    write_rows(graph, DEVICE, "feed", [mine], found, refusals, partial=beaten)
    assert found == {0: "busy"} and len(reads) == 5 and reads == sorted(set(reads))
    assert [f.reason for f in refusals] == ["busy"]
    assert [s["by"] for s in history(graph, DEVICE, "d1")] == ["feed"] + ["rival"] * 5


# --- racing writers ----------------------------------------------------------------------------------------


def own_connection(db, graph):
    """The same graph through a connection of its own, as another process would have."""
    kwargs = db.connection.connection_pool.connection_kwargs
    return FalkorDB(host=kwargs["host"], port=kwargs["port"], password=kwargs.get("password")).select_graph(
        graph.name
    )


def in_eight_threads(db, graph, work) -> None:
    """work(number, graph) in 8 threads at once, each with its own connection; an error fails the test.

    The graph gets its schema first, as the library asks (ensure_schema() once, before the first write):
    on a graph that never saw a label or relation type, FalkorDB 4.22 let writers that MERGE at the same
    moment each make their own node or edge, and a writer does not see edges of a type new when its query
    arrived (graphs.py). Without it, a race of eight once left an entity with wrong edges in a full run."""
    ensure_schema(graph, [DEVICE])
    errors = []

    def run(number):
        try:
            work(number, own_connection(db, graph))
        except Exception as error:  # shown by the assertion below
            errors.append(error)

    threads = [threading.Thread(target=run, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors


def test_eight_writers_on_the_same_entities_lose_nothing(graph, db):
    chooser = random.Random(7)
    keys = ["w1", "w2", "w3"]
    contents = [{"status": "ok"}, {"status": "hot"}, {"status": "hot", "level": 2}]
    pool = [
        {
            "key": key,
            "t": at(hour),
            "values": chooser.choice(contents),
            "relations": {"LOCATED_IN": chooser.choice(["r1", "r2"])},
        }
        for key in keys
        for hour in chooser.sample(range(24), 10)
    ]
    sent_rows: list = [None] * 8
    receipts: list = [None] * 8

    def writer(number, mine):
        order = random.Random(number)
        rows = order.sample(pool, len(pool)) + order.sample(pool, 8)
        sent_rows[number], receipts[number] = rows, []
        for start in range(0, len(rows), 4):
            receipts[number] += remember(mine, DEVICE, rows[start : start + 4], f"w{number}")

    in_eight_threads(db, graph, writer)
    every = [(r, s["status"]) for n in range(8) for r, s in zip(sent_rows[n], receipts[n], strict=True)]
    assert {status for _, status in every} <= ACCEPTED | {"stale", "conflict", "busy"}
    for key in keys:
        mine = [(r, status) for r, status in every if r["key"] == key]
        assert [status for _, status in mine].count("created") == 1
        accepted = accepted_in_time_order([r for r, _ in mine], [s for _, s in mine])
        oracle = Oracle(times=DEVICE.times)
        assert set(oracle.remember(accepted)) <= ACCEPTED  # the accepted rows, by time, are all accepted
        check_key(graph, DEVICE, oracle, key, probes_for(pool), entries=False)
    refused = sum(status not in ACCEPTED for _, status in every)
    counted = graph.ro_query("MATCH (f:WriteFailure) RETURN sum(f.times)").result_set[0][0] or 0
    assert counted == refused


def test_every_accepted_row_holds_at_its_time_after_racing(graph, db):
    """Whatever the order the writers won in: each accepted row says what holds at its time."""
    pool = [
        {"key": "z", "t": at(hour), "values": {"status": random.Random(hour).choice("abc")}}
        for hour in range(30)
    ]
    results = []

    def writer(number, mine):
        rows = random.Random(100 + number).sample(pool, len(pool))
        results.extend(zip(rows, remember(mine, DEVICE, rows, "w"), strict=True))

    in_eight_threads(db, graph, writer)
    assert len(results) == 8 * len(pool)
    for sent_row, receipt in results:
        found = graph.ro_query(
            "MATCH (:Device {key: 'z'})-[:HAS_STATE]->(s:State) WHERE s.valid_from <= localdatetime($t) "
            "AND (s.valid_to IS NULL OR s.valid_to > localdatetime($t)) RETURN s.status, s.seen_last",
            {"t": clock.stamp(sent_row["t"])},
        ).result_set
        if receipt["status"] in ACCEPTED:
            assert found[0][0] == sent_row["values"]["status"]
        elif receipt["status"] == "stale":
            assert found[0][0] != sent_row["values"]["status"]
            assert clock.from_store(found[0][1]) > moment(sent_row["t"])


def test_a_database_that_refuses_everything_gives_failed_receipts_and_raises_nothing(db):
    # The key holds a string, not a graph: every query, the WriteFailures' too, is refused (WRONGTYPE).
    name = f"not-a-graph-remember-{uuid.uuid4().hex[:8]}"
    db.connection.set(name, "text")
    try:
        broken = db.select_graph(name)
        rows = [
            {"key": "d1", "t": "2026-01-01T00:00:00Z", "values": {"status": "ok"}},
            {"key": "d2", "t": "2026-01-01T00:00:00Z", "entry": "e1/1"},
            {"key": "d3", "t": "not a time"},
        ]
        receipts = remember(broken, DEVICE, rows, "ann")
        assert [receipt["status"] for receipt in receipts] == ["failed", "failed", "invalid"]
        assert all("WRONGTYPE" in receipt["reason"] for receipt in receipts[:2])
        assert db.connection.get(name) == "text"
    finally:
        db.connection.delete(name)
