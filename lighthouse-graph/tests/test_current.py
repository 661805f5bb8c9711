"""read_current(): the light read before a batch is decided: a quiet row's key alone, values only."""

from __future__ import annotations

from devices import DEVICE
from lighthouse import as_of, clock, ensure_schema, history, related
from lighthouse.kinds import LINKS_FP
from lighthouse.recall.vector import embed
from lighthouse.wire import parameters_header
from lighthouse.write.current import QUIET, _current_query, _owned, read_current
from lighthouse.write.rows import fingerprints, prepare
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
    params = {
        "rows": [[later.key, later.fp, clock.stamp_of(later.t), later.links_fp]],
        "owned": _owned(MANUAL),
    }
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


LINKED = {"LOCATED_IN": "r1", "USED_BY": ["t1", "t2"]}


def _digest(**targets) -> str:
    return fingerprints({}, {relation: frozenset(listed) for relation, listed in targets.items()})[1]


def _around(graph, raw: dict):
    return read_current(graph, DEVICE, [prepare(DEVICE, 0, raw, clock.present())])[("str", raw["key"])]


def _links_kept(graph, key="d1"):
    query = f"MATCH (e:Device {{key: $key}}) RETURN e.`{LINKS_FP}`"
    return graph.ro_query(query, {"key": key}).result_set[0][0]


def _edges(graph, key="d1"):
    query = (
        "MATCH (:Device {key: $key})-[r:LOCATED_IN|USED_BY]->(x) "
        "RETURN type(r), x.key, r.valid_from, r.valid_to ORDER BY type(r), x.key, r.valid_from"
    )
    return graph.ro_query(query, {"key": key}).result_set


def test_a_change_that_keeps_its_targets_reads_and_writes_no_edge(graph, db):
    assert statuses(graph, [row(0, relations=LINKED)]) == ["created"]
    assert _links_kept(graph) == _digest(LOCATED_IN=["r1"], USED_BY=["t2", "t1"])
    edges = _edges(graph)
    assert len(edges) == 3
    kept = _around(graph, row(1, "hot", relations={"USED_BY": ("t2", "t1"), "LOCATED_IN": ["r1"]}))
    assert kept.same_links and kept.edges_prev == {} and kept.current.relations is None
    moved = _around(graph, row(1, "hot", relations={"LOCATED_IN": "r2", "USED_BY": ["t1", "t2"]}))
    assert not moved.same_links and len(moved.edges_prev) == 3
    with sent(db, graph.name) as commands:
        assert statuses(graph, [row(1, "hot", relations=LINKED)]) == ["changed"]
    assert [command for command, _ in commands] == ["GRAPH.RO_QUERY", "GRAPH.QUERY"]
    assert _edges(graph) == edges  # not one edge closed, opened or moved
    assert sorted(related(graph, DEVICE, "d1", "USED_BY", at(1))) == ["t1", "t2"]
    later = prepare(DEVICE, 0, row(1, "cold", relations=LINKED), clock.present())
    params = {
        "rows": [[later.key, later.fp, clock.stamp_of(later.t), later.links_fp]],
        "owned": _owned(DEVICE),
    }
    (reply,) = graph.ro_query(parameters_header(params) + _current_query(DEVICE)).result_set[0]
    assert reply[-1] is True and reply[-2] == []  # the server walked no edge for it
    assert statuses(graph, [row(2, "hot", relations={**LINKED, "LOCATED_IN": "r2"})]) == ["changed"]
    assert related(graph, DEVICE, "d1", "LOCATED_IN", at(1)) == ["r1"]
    assert related(graph, DEVICE, "d1", "LOCATED_IN", at(2)) == ["r2"]
    assert _links_kept(graph) == _digest(LOCATED_IN=["r2"], USED_BY=["t2", "t1"])
    assert statuses(graph, [row(3, "cold")]) == ["changed"]  # no targets at all: every edge closes
    assert related(graph, DEVICE, "d1", "USED_BY", at(3)) == []
    assert _links_kept(graph) == _digest()
    # a target of another type is another target: 1 is not "1"
    assert statuses(graph, [row(5, "hot", relations={"LOCATED_IN": 1})]) == ["changed"]
    assert statuses(graph, [row(6, "hot", relations={"LOCATED_IN": "1"})]) == ["changed"]
    assert related(graph, DEVICE, "d1", "LOCATED_IN", at(5)) == [1]
    assert related(graph, DEVICE, "d1", "LOCATED_IN", at(6)) == ["1"]


def test_an_entity_without_the_digest_of_its_targets_reads_its_edges_and_then_keeps_it(graph):
    # A graph written before the digest: the entity keeps only its fp.
    assert statuses(graph, [row(0, relations=LINKED)]) == ["created"]
    graph.query(f"MATCH (e:Device) REMOVE e.`{LINKS_FP}`")
    assert not _around(graph, row(1, "hot", relations=LINKED)).same_links
    assert statuses(graph, [row(1, "hot", relations={**LINKED, "USED_BY": "t1"})]) == ["changed"]
    assert related(graph, DEVICE, "d1", "USED_BY", at(1)) == ["t1"]
    assert _links_kept(graph) == _digest(LOCATED_IN=["r1"], USED_BY=["t1"])
    assert _around(graph, row(2, "cold", relations={**LINKED, "USED_BY": "t1"})).same_links


def test_a_late_row_and_a_full_read_never_take_the_digest_for_the_edges(graph):
    assert statuses(graph, [row(0, relations=LINKED), row(4, "hot", relations=LINKED)]) == [
        "created",
        "changed",
    ]
    # update() reads the whole current State (full): its edges come whatever the digest says
    full = read_current(graph, DEVICE, [prepare(DEVICE, 0, row(5, relations=LINKED), clock.present())], True)
    assert not full[("str", "d1")].same_links and len(full[("str", "d1")].edges_prev) == 3
    # a late row in another room: the current State keeps its edges and its digest
    assert statuses(graph, [row(2, "warm", relations={**LINKED, "LOCATED_IN": "r9"})]) == ["inserted"]
    assert related(graph, DEVICE, "d1", "LOCATED_IN", at(2)) == ["r9"]
    assert related(graph, DEVICE, "d1", "LOCATED_IN", at(4)) == ["r1"]
    assert _links_kept(graph) == _digest(LOCATED_IN=["r1"], USED_BY=["t2", "t1"])
    assert statuses(graph, [row(5, "cold", relations=LINKED)]) == ["changed"]
    assert related(graph, DEVICE, "d1", "LOCATED_IN", at(5)) == ["r1"]
