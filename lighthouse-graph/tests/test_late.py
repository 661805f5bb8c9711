"""Late rows: put into history at their time, read around in one query, and guarded like any write."""

from __future__ import annotations

import itertools

from devices import DEVICE, KINDS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lighthouse import clock, ensure_schema, history, related, remember
from lighthouse.write.applying import apply_plans
from lighthouse.write.current import read_current
from lighthouse.write.late import read_around
from lighthouse.write.plans import decide
from lighthouse.write.rows import prepare
from oracle import ACCEPTED, Oracle, accepted_in_time_order, arrivals, at, check_key, moment, probes_for, sent

EXAMPLES = settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
_serial = itertools.count()


def statuses(graph, rows):
    return [receipt["status"] for receipt in remember(graph, DEVICE, rows, "feed")]


def row(hour, status="ok", key="d1", **more):
    return {"key": key, "t": at(hour), "values": {"status": status}, **more}


def shape(found: list[dict]) -> list[tuple]:
    """A history without who wrote it, when, and from which entry: what the order of rows cannot change."""
    hidden = {"by", "recorded_at", "entry"}
    return [tuple(sorted((k, repr(v)) for k, v in state.items() if k not in hidden)) for state in found]


# --- properties -------------------------------------------------------------------------------------


@EXAMPLES
@given(data=st.data())
def test_rows_in_any_order_give_the_history_of_their_times(graph, data):
    """The accepted rows, sent again by time to another key, give the same history and relations."""
    number = next(_serial)
    shuffled, ordered = f"s{number}", f"o{number}"
    rows = data.draw(arrivals([shuffled]))
    found = statuses(graph, rows)
    oracle = Oracle(times=DEVICE.times)
    assert found == oracle.remember(rows)
    again = [{**one, "key": ordered} for one in accepted_in_time_order(rows, found)]
    assert set(statuses(graph, again)) <= ACCEPTED
    assert shape(history(graph, DEVICE, shuffled)) == shape(history(graph, DEVICE, ordered))
    for probe in probes_for(rows):
        for relation in DEVICE.relations:
            assert related(graph, DEVICE, shuffled, relation, probe) == related(
                graph, DEVICE, ordered, relation, probe
            )


@EXAMPLES
@given(hours=st.lists(st.integers(0, 40), min_size=1, max_size=8, unique=True), data=st.data())
def test_a_source_whose_values_never_come_back_has_every_late_row_inserted(graph, hours, data):
    key = f"c{next(_serial)}"
    timeline = [{"key": key, "t": at(hour), "values": {"reading": hour}} for hour in hours]
    rows = data.draw(st.permutations(timeline))
    found = statuses(graph, rows)
    assert found[0] == "created" and set(found[1:]) <= {"changed", "inserted"}
    assert [state["reading"] for state in history(graph, DEVICE, key)] == sorted(hours)
    oracle = Oracle()
    oracle.remember(rows)
    check_key(graph, DEVICE, oracle, key, probes_for(rows))


# --- one late row ----------------------------------------------------------------------------------------


def test_a_value_that_comes_back_makes_a_late_row_between_stale(graph):
    """A source that sends only changes, but a value that came back looks like a repeat: the rule's limit."""
    assert statuses(graph, [row(0, "a"), row(4, "a"), row(2, "b")]) == ["created", "unchanged", "stale"]


def test_a_late_row_before_the_first_state(graph):
    assert statuses(graph, [row(4, "hot"), row(1, "cold")]) == ["created", "inserted"]
    found = history(graph, DEVICE, "d1")
    assert [(s["status"], s["valid_from"], s.get("valid_to")) for s in found] == [
        ("cold", moment(at(1)), moment(at(4))),
        ("hot", moment(at(4)), None),
    ]
    assert graph.ro_query("MATCH (e:Device) RETURN e.status, e.`lh.rev`").result_set == [["hot", 2]]


def test_a_late_row_never_becomes_current(graph):
    statuses(graph, [row(0, relations={"LOCATED_IN": "r1"}), row(6, "hot", relations={"LOCATED_IN": "r2"})])
    assert statuses(graph, [row(3, "cold", relations={"LOCATED_IN": "r3"})]) == ["inserted"]
    node = graph.ro_query("MATCH (e:Device) RETURN e.status, e.valid_from").result_set[0]
    assert node[0] == "hot" and clock.from_store(node[1]) == moment(at(6))
    assert related(graph, DEVICE, "d1", "LOCATED_IN") == ["r2"]
    assert related(graph, DEVICE, "d1", "LOCATED_IN", at(4)) == ["r3"]
    assert related(graph, DEVICE, "d1", "LOCATED_IN", at(2)) == ["r1"]


def test_an_edge_that_held_across_a_late_row_is_split_and_one_the_next_state_has_starts_earlier(graph):
    statuses(
        graph,
        [
            row(0, relations={"USED_BY": ["red"]}),
            row(6, "hot", relations={"USED_BY": ["red", "blue"]}),
        ],
    )
    red = graph.ro_query("MATCH (:Device)-[r:USED_BY]->(:Team {key: 'red'}) RETURN id(r)").result_set[0][0]
    blue = graph.ro_query("MATCH (:Device)-[r:USED_BY]->(:Team {key: 'blue'}) RETURN id(r)").result_set[0][0]
    assert statuses(graph, [row(3, "hot", relations={"USED_BY": "blue"})]) == ["inserted"]
    edges = graph.ro_query(
        "MATCH (:Device)-[r:USED_BY]->(t:Team) RETURN t.key, id(r), r.valid_from, r.valid_to "
        "ORDER BY t.key, r.valid_from"
    ).result_set
    assert [(k, i, clock.from_store(a), clock.from_store(b)) for k, i, a, b in edges] == [
        ("blue", blue, moment(at(3)), None),  # the same edge, from the late row's time
        ("red", red, moment(at(0)), moment(at(3))),
        ("red", edges[2][1], moment(at(6)), None),
    ]
    assert edges[2][1] != red
    assert [(s["status"], s["valid_from"]) for s in history(graph, DEVICE, "d1")] == [
        ("ok", moment(at(0))),
        ("hot", moment(at(3))),  # a State of its own: its relations are not those of the next
        ("hot", moment(at(6))),
    ]
    assert related(graph, DEVICE, "d1", "USED_BY", at(4)) == ["blue"]


def test_a_late_row_equal_to_the_next_state_keeps_the_entry_of_that_state(graph):
    graph.query("UNWIND ['look/1', 'look/2'] AS id CREATE (:Entry {id: id})")
    statuses(graph, [row(0), row(6, "hot", entry="look/1")])
    assert statuses(graph, [row(3, "hot", entry="look/2")]) == ["inserted"]
    assert [
        (s["status"], s["valid_from"], s.get("seen_last"), s.get("entry"))
        for s in history(graph, DEVICE, "d1")
    ] == [
        ("ok", moment(at(0)), None, None),
        ("hot", moment(at(3)), moment(at(6)), "look/1"),
    ]
    assert statuses(graph, [row(1, "cold", entry="look/2")]) == ["inserted"]
    assert history(graph, DEVICE, "d1")[1]["entry"] == "look/2"


def test_late_rows_stale_conflict_and_unchanged_inside_a_past_state(graph):
    statuses(graph, [row(0), row(4), row(8, "hot")])  # ok from 0, seen at 4; hot from 8
    before = graph.ro_query("MATCH (n) RETURN count(n)").result_set
    assert statuses(graph, [row(2, "cold")]) == ["stale"]
    assert statuses(graph, [row(4, "cold")]) == ["conflict"]
    assert statuses(graph, [row(0, "cold")]) == ["conflict"]
    assert statuses(graph, [row(3), row(0)]) == ["unchanged", "unchanged"]
    assert statuses(graph, [row(6)]) == ["unchanged"]  # a later repeat: seen_last moves on
    assert history(graph, DEVICE, "d1")[0]["seen_last"] == moment(at(6))
    assert statuses(graph, [row(7, "cold")]) == ["inserted"]
    assert graph.ro_query("MATCH (n:State) RETURN count(n)").result_set == [[3]]
    assert graph.ro_query("MATCH (n:WriteFailure) RETURN count(n)").result_set == [[3]]
    assert before == [[3]]  # the device and its two States


def test_a_late_plan_is_not_written_when_another_writer_came_after_the_first_read(graph):
    statuses(graph, [row(0), row(6, "hot")])
    late = prepare(DEVICE, 0, row(3, "cold"), clock.present())
    current = read_current(graph, DEVICE, [late])
    remember(graph, DEVICE, [row(9, "cold")], "rival")  # between the first read and the second
    around = read_around(graph, DEVICE, [late], current)[0]
    status, plan = decide(DEVICE, late, around)
    assert status == "inserted"
    assert apply_plans(graph, DEVICE, "feed", [plan]) == set()
    assert [s["status"] for s in history(graph, DEVICE, "d1")] == ["ok", "hot", "cold"]
    fresh = read_current(graph, DEVICE, [late])
    around = read_around(graph, DEVICE, [late], fresh)[0]
    assert apply_plans(graph, DEVICE, "feed", [decide(DEVICE, late, around)[1]]) == {0}
    assert [s["status"] for s in history(graph, DEVICE, "d1")] == ["ok", "cold", "hot", "cold"]


def test_read_around_gives_the_state_a_time_falls_in_and_the_next_one(graph):
    statuses(graph, [row(0, relations={"LOCATED_IN": "r1"}), row(4, "hot"), row(8, "cold")])
    rows = [prepare(DEVICE, i, row(hour), clock.present()) for i, hour in enumerate([-1, 2, 4])]
    current = read_current(graph, DEVICE, rows[:1])
    found = read_around(graph, DEVICE, rows, current)
    assert found[0].prev is None and found[0].next.valid_from == moment(at(0))
    first = prepare(DEVICE, 0, row(0, relations={"LOCATED_IN": "r1"}), clock.present())
    assert found[0].next.content_fp == first.fp  # a State is compared by its fingerprint alone
    assert found[0].next.values is None and found[0].next.relations is None
    assert found[1].prev.valid_from == moment(at(0)) and found[1].next.valid_from == moment(at(4))
    assert set(found[1].edges_prev) == {("LOCATED_IN", ("str", "r1"))} and found[1].edges_next == {}
    assert found[2].prev.valid_to == moment(at(8)) and found[2].next.valid_to is None
    assert read_around(graph, DEVICE, [], current) == {}
    # A State kept without a fingerprint is read with its values and relations, and compared by them.
    graph.query("MATCH (s:State) SET s.fp = null")
    found = read_around(graph, DEVICE, rows, current)
    assert found[0].next.values == {"status": "ok"} and found[0].next.content_fp == first.fp
    assert found[0].next.relations["LOCATED_IN"] == frozenset({"r1"})
    assert found[2].prev.values == {"status": "hot"} and found[2].next.values == {"status": "cold"}


def test_states_kept_without_fingerprints_are_compared_by_their_values_and_relations(graph):
    # A graph written before fingerprints: neither the States nor the entity keep one.
    statuses(graph, [row(0, relations={"LOCATED_IN": "r1"}), row(4, "hot"), row(8, "cold")])
    graph.query("MATCH (s:State) SET s.fp = null")
    graph.query("MATCH (e:Device) SET e.fp = null")
    again = [row(2, relations={"LOCATED_IN": "r1"}), row(6, "hot"), row(8, "cold"), row(3, "warm")]
    assert [statuses(graph, [one])[0] for one in again] == ["unchanged", "unchanged", "unchanged", "inserted"]
    assert statuses(graph, [row(2)]) == ["conflict"]  # the relation is content: without it, other content
    found = history(graph, DEVICE, "d1")
    assert [(s["status"], s["valid_from"], s.get("seen_last")) for s in found] == [
        ("ok", moment(at(0)), moment(at(2))),
        ("warm", moment(at(3)), None),
        ("hot", moment(at(4)), moment(at(6))),
        ("cold", moment(at(8)), None),
    ]


def test_a_late_row_replaces_the_next_link_and_gives_the_graph_a_new_stamp(graph, db):
    ensure_schema(graph, KINDS)
    statuses(graph, [row(0), row(4, "hot")])
    before = graph.ro_query("MATCH (s:Stamp) RETURN s.id").result_set[0][0]
    statuses(graph, [row(8, "cold")])  # a change deletes nothing: the stamp stays
    assert graph.ro_query("MATCH (s:Stamp) RETURN s.id").result_set[0][0] == before
    with sent(db, graph.name) as commands:
        assert statuses(graph, [row(2, "warm")]) == ["inserted"]
    assert [command for command, _ in commands].count("GRAPH.QUERY") == 1  # the link and the stamp together
    after = graph.ro_query("MATCH (s:Stamp) RETURN s.id").result_set[0][0]
    assert after != before
    chain = graph.ro_query(
        "MATCH (a:State)-[:NEXT]->(b:State) RETURN a.status, b.status ORDER BY a.valid_from"
    ).result_set
    assert chain == [["ok", "warm"], ["warm", "hot"], ["hot", "cold"]]
    assert statuses(graph, [row(-2, "first")]) == ["inserted"]  # before the first State: no link replaced
    assert graph.ro_query("MATCH (s:Stamp) RETURN s.id").result_set[0][0] == after
