"""read_current(): the light read before a batch is decided: a quiet row's key alone, values only."""

from __future__ import annotations

from devices import DEVICE
from lighthouse import as_of, clock, ensure_schema, history
from lighthouse.recall.vector import embed
from lighthouse.write.current import QUIET, _current_query, _owned, read_current
from lighthouse.write.rows import parameters_header, prepare
from meaning import MANUAL, bag
from oracle import at, moment, sent
from test_batches import row, statuses


def test_a_quiet_row_comes_back_as_its_key_alone_and_costs_no_write(graph, db):
    # Quiet: it repeats the State its time falls in, at or before when that State was last seen.
    assert statuses(graph, [row(0), row(4, "hot"), row(6, "hot")]) == ["created", "changed", "unchanged"]
    asked = [row(0), row(4, "hot"), row(5, "hot"), row(6, "hot"), row(7, "hot"), row(2), row(3, "cold")]
    prepared = [prepare(DEVICE, index, one, clock.present()) for index, one in enumerate(asked)]
    quiet = [read_current(graph, DEVICE, [one])[("str", "d1")] is QUIET for one in prepared]
    # at the past State's start, at the current one's start, up to its seen_last: quiet; after
    # seen_last (it moves), after the past State's start (its seen_last moves), other content: not
    assert quiet == [True, True, True, True, False, False, False]
    assert read_current(graph, DEVICE, prepared[:1], full=True)[("str", "d1")] is not QUIET
    with sent(db, graph.name) as commands:
        assert statuses(graph, asked[:4]) == ["unchanged"] * 4
    assert [command for command, _ in commands] == ["GRAPH.RO_QUERY"] * 4  # a wave a row of one key
    assert statuses(graph, asked[4:]) == ["unchanged", "unchanged", "inserted"]
    found = history(graph, DEVICE, "d1")
    assert [(s["status"], s["valid_from"], s.get("seen_last")) for s in found] == [
        ("ok", moment(at(0)), moment(at(2))),
        ("cold", moment(at(3)), None),
        ("hot", moment(at(4)), moment(at(7))),
    ]


def test_the_read_before_a_change_brings_the_entitys_values_only(graph):
    ensure_schema(graph, [MANUAL])
    first = {"key": "m1", "t": at(0), "values": {"title": "pump", "body": "oil the pump", "pages": 3}}
    assert statuses(graph, [first], MANUAL) == ["created"]
    embed(graph, MANUAL, bag, "bag")
    node = graph.ro_query("MATCH (e:Manual {code: 'm1'}) RETURN keys(e)").result_set[0][0]
    assert {"words", "fp"} <= set(node)
    assert graph.ro_query("MATCH (:Manual)-[:LH_VECTOR]->(v) RETURN count(v)").result_set == [[1]]
    later = prepare(MANUAL, 0, {**first, "t": at(1), "values": {"title": "pump"}}, clock.present())
    params = {"rows": [[later.key, later.fp, clock.stamp_of(later.t)]], "owned": _owned(MANUAL)}
    (reply,) = graph.ro_query(parameters_header(params) + _current_query(MANUAL)).result_set[0]
    assert sorted(reply[4]) == [["body", "oil the pump"], ["pages", 3], ["title", "pump"]]
    # and the change still removes what the row leaves out, and takes the vector away with the old text
    assert statuses(graph, [{**first, "t": at(1), "values": {"title": "pump"}}], MANUAL) == ["changed"]
    node = graph.ro_query("MATCH (e:Manual {code: 'm1'}) RETURN properties(e)").result_set[0][0]
    assert "pages" not in node and "body" not in node and node["title"] == "pump"
    assert graph.ro_query("MATCH (v:ManualVector) RETURN count(v)").result_set == [[0]]
    assert as_of(graph, MANUAL, "m1", at(0))["pages"] == 3 and "pages" not in as_of(
        graph, MANUAL, "m1", at(1)
    )
