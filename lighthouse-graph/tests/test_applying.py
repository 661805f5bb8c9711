"""apply_plans(): the guarded write of plans, in one query holding the parts its plans use, each plan
sent as a list of the fields that query reads."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from devices import DEVICE, KINDS, MANUAL
from lighthouse import Kind, ensure_schema, history, remember
from lighthouse.write.applying import MAX_NAMED_VALUES, _needs, apply_plans, positional_query
from lighthouse.write.current import read_current
from lighthouse.write.plans import Around, StateView, decide
from lighthouse.write.rows import Row, prepare
from oracle import at

T0 = datetime(2026, 1, 1, tzinfo=UTC)
NO_RELATIONS = {"LOCATED_IN": frozenset(), "USED_BY": frozenset()}


def row(hour, values=None, relations=None) -> Row:
    linked = {**NO_RELATIONS, **(relations or {})}
    return Row(
        0, "d1", T0 + timedelta(hours=hour), values if values is not None else {"status": "ok"}, linked, None
    )


def test_apply_plans_writes_only_plans_of_the_revision_they_were_made_from(graph):
    remember(graph, DEVICE, [{"key": "d1", "t": "2026-01-01T00:00:00Z", "values": {"status": "ok"}}], "feed")
    around = read_current(graph, DEVICE, [row(2, {"status": "hot"})])[("str", "d1")]
    assert around.rev == 1
    status, plan = decide(DEVICE, row(2, {"status": "hot"}), around)
    stale_plan = {**plan, "rev": 0}
    assert apply_plans(graph, DEVICE, "feed", [stale_plan]) == set()
    assert [s["status"] for s in history(graph, DEVICE, "d1")] == ["ok"]
    assert apply_plans(graph, DEVICE, "feed", [plan]) == {0}
    assert apply_plans(graph, DEVICE, "feed", [plan]) == set()  # its revision is gone now
    assert [s["status"] for s in history(graph, DEVICE, "d1")] == ["ok", "hot"]
    assert apply_plans(graph, DEVICE, "feed", []) == set()


def test_a_text_change_marks_the_entity_to_embed_and_takes_its_vector_out(graph):
    ensure_schema(graph, KINDS)

    def manual(hour, **values):
        return [
            r["status"]
            for r in remember(graph, MANUAL, [{"key": "m1", "t": at(hour), "values": values}], "feed")
        ]

    def marks():  # waiting, no vector, its model; and a vector taken out is gone from the graph
        (found,) = graph.ro_query(
            "MATCH (m:Manual {key: 'm1'}) OPTIONAL MATCH (m)-[:LH_VECTOR]->(v) "
            "RETURN m:ManualToEmbed, v IS NULL, v.`lh.model`"
        ).result_set
        held = graph.ro_query("MATCH (v:ManualVector) RETURN count(v)").result_set[0][0]
        assert held == (0 if found[1] else 1)
        return found

    def embedded():  # what embed() does, by hand: a vector node, and the mark off
        graph.query(
            "MATCH (m:Manual {key: 'm1'}) REMOVE m:ManualToEmbed "
            "CREATE (m)-[:LH_VECTOR]->(:ManualVector {`lh.vector`: vecf32([1.0, 0.0, 0.0]), `lh.model`: 'x'})"
        )

    assert manual(0, title="Seal", body="Pump") == ["created"]
    assert marks() == [True, True, None]
    embedded()
    assert manual(1, title="Seal", body="Pump", level=2) == ["changed"]  # not text: the vector stays
    assert marks() == [False, False, "x"]
    assert manual(2, title="Seal", body="Pump, new", level=2) == ["changed"]
    assert marks() == [True, True, None]
    embedded()
    assert manual(3, level=2) == ["changed"]  # no text left: nothing to embed, and no vector of what is gone
    assert marks() == [False, True, None]
    assert manual(1.5, title="Late") == ["inserted"]  # a late row never touches the current text
    assert marks() == [False, True, None]
    remember(graph, DEVICE, [{"key": "d1", "t": at(0)}], "feed")
    assert graph.ro_query("MATCH (d:Device) RETURN labels(d)").result_set == [[["Device", "Entity"]]]


def _plans() -> dict[str, dict]:
    """A plan of each sort: a new entity, a change of the current State, a late row between two States."""
    held = StateView(1, T0, None, None, {"status": "ok"}, NO_RELATIONS)
    before = StateView(1, T0, T0 + timedelta(hours=6), None, {"status": "ok"}, NO_RELATIONS)
    after = StateView(2, T0 + timedelta(hours=6), None, None, {"status": "hot"}, NO_RELATIONS)
    return {
        "created": decide(DEVICE, row(0, relations={"LOCATED_IN": frozenset({"r1"})}), Around())[1],
        "changed": decide(
            DEVICE, row(2, {"status": "hot"}), Around(rev=1, props={"status": "ok"}, current=held, prev=held)
        )[1],
        "inserted": decide(
            DEVICE,
            row(3, {"status": "cold"}),
            Around(rev=2, props={"status": "hot"}, current=after, prev=before, next=after),
        )[1],
    }


def test_each_plan_travels_as_a_list_of_the_fields_its_query_reads():
    plans = _plans()
    for chosen in ([plans["created"]], [plans["changed"]], [plans["inserted"]], list(plans.values())):
        query, layout = positional_query(DEVICE, _needs(chosen))
        assert "row." not in query.replace("row.i", "")  # no field read by name (row.i is not left either)
        assert "row.i" not in query
        places = {int(place) for place in re.findall(r"\brow\[(\d+)\]", query)}
        assert places == set(range(len(layout)))  # every place read, and only those sent
        assert len(set(layout)) == len(layout) and layout[-1] == "i"  # RETURN row.i is read last
        assert {"i", "key", "rev"} <= set(layout)
    created = positional_query(DEVICE, _needs([plans["created"]]))[1]
    assert {"held", "next", "until", "moves", "end_held"}.isdisjoint(created)  # what a create does not use


def test_a_new_entity_is_written_without_clearing_a_vector_it_cannot_have():
    assert MANUAL.dimensions  # a kind whose text is embedded
    created = decide(MANUAL, Row(0, "m1", T0, {"title": "Seal"}, {}, None), Around())[1]
    assert created["unembed"] is False and "unembed" not in _needs([created])
    assert "unembedding" not in positional_query(MANUAL, _needs([created]))[0]
    held = StateView(1, T0, None, None, {"title": "Seal"}, {})
    changed = decide(
        MANUAL,
        Row(0, "m1", T0 + timedelta(hours=1), {"title": "Seal, new"}, {}, None),
        Around(rev=1, props={"title": "Seal"}, current=held, prev=held),
    )[1]
    assert changed["unembed"] is True and "unembed" in _needs([changed, created])
    assert "unembedding" in positional_query(MANUAL, _needs([changed, created]))[0]


def test_an_edge_that_moves_is_looked_for_between_the_entity_and_its_target_by_its_type(graph):
    # Without the types, FalkorDB walked every edge of the entity, its States' among them (measured: 23
    # of 85 ms inside FalkorDB for 500 late rows); from the entity alone, every relation edge of it (15.8
    # of some 75 ms). Between two nodes it holds, it looks at the edges between them only: Expand Into.
    ensure_schema(graph, KINDS)
    query, layout = positional_query(DEVICE, frozenset({"move:LOCATED_IN", "move:USED_BY"}))
    plan = str(
        graph.explain(query, {"rows": [[None] * len(layout)], "by": "feed", "now": "2026-01-01T00:00:00"})
    )
    moving = sorted(line.strip() for line in plan.splitlines() if "[moved" in line)
    # one type each: with both in one pattern, FalkorDB 4.22.1 took twenty times as long between two nodes
    assert moving == [
        "Expand Into | (e)-[moved0:LOCATED_IN]->(moved_to0)",
        "Expand Into | (e)-[moved1:USED_BY]->(moved_to1)",
    ], plan
    assert "NodeByIdSeek | (moved_to0)" in plan and "NodeByIdSeek | (moved_to1)" in plan, plan


def test_a_new_states_values_are_properties_of_its_create_by_name_up_to_a_bound(graph):
    # A SET after the CREATE cost FalkorDB some 10 µs a node; by name in the CREATE, nothing. Values a
    # row does not hold are null there, which FalkorDB does not store.
    rows = [
        {"key": "d1", "t": at(0), "values": {"status": "ok", "level": 1}},
        {"key": "d2", "t": at(0), "values": {"note": "quiet", "flag": True}},
        {"key": "d3", "t": at(0)},
    ]
    plans = [
        decide(DEVICE, prepare(DEVICE, i, one, T0 + timedelta(days=1)), Around())[1]
        for i, one in enumerate(rows)
    ]
    query = positional_query(DEVICE, _needs(plans))[0]
    assert "SET made +=" not in query and "`level`: row[" in query and "`note`: row[" in query
    assert [r["status"] for r in remember(graph, DEVICE, rows, "feed")] == ["created"] * 3
    stored = graph.ro_query("MATCH (e)-[:HAS_STATE]->(s:State) RETURN e.key, properties(s) ORDER BY e.key")
    states = dict(stored.result_set)
    library = set(states["d3"])  # a State without values: the library's names alone
    values = {key: {name: props[name] for name in set(props) - library} for key, props in states.items()}
    assert values == {"d1": {"status": "ok", "level": 1}, "d2": {"note": "quiet", "flag": True}, "d3": {}}
    # More names than the bound, between the new States of a batch: they go as a map, SET after.
    many = [{"key": f"m{i}", "t": at(0), "values": {f"x{i}_{j}": j for j in range(9)}} for i in range(8)]
    plans = [
        decide(DEVICE, prepare(DEVICE, i, one, T0 + timedelta(days=1)), Around())[1]
        for i, one in enumerate(many)
    ]
    assert MAX_NAMED_VALUES < 8 * 9
    assert "SET made += row[" in positional_query(DEVICE, _needs(plans))[0]
    assert [r["status"] for r in remember(graph, DEVICE, many, "feed")] == ["created"] * 8
    for one in many:
        shown = history(graph, DEVICE, one["key"])[0]
        assert {name: item for name, item in shown.items() if name.startswith("x")} == one["values"]


def test_a_new_entity_made_by_another_writer_after_the_read_is_not_made_twice(graph):
    rows = [row(0, {"status": "ok"}), Row(1, "d2", T0, {"status": "ok"}, NO_RELATIONS, None)]
    current = read_current(graph, DEVICE, rows)
    assert all(around.absent for around in current.values())  # no node of either entity was found
    plans = [decide(DEVICE, one, current[("str", one.key)])[1] for one in rows]
    assert all(plan["absent"] for plan in plans)
    query = positional_query(DEVICE, _needs(plans))[0]
    assert "MERGE (e:" not in query and "CREATE (e:`Device`:Entity {" in query  # created whole
    remember(graph, DEVICE, [{"key": "d1", "t": at(1), "values": {"status": "rival"}}], "rival")
    assert apply_plans(graph, DEVICE, "feed", plans) == {1}  # d1 exists now: only d2 is written
    count = "MATCH (e:Device {key: $key}) RETURN count(e)"
    assert [graph.ro_query(count, {"key": key}).result_set[0][0] for key in ("d1", "d2")] == [1, 1]
    assert [s["status"] for s in history(graph, DEVICE, "d1")] == ["rival"]
    # Read again, the row is a late row of the entity now there: the usual write.
    assert remember(
        graph, DEVICE, [{"key": "d1", "t": "2026-01-01T00:00:00Z", "values": {"status": "ok"}}], "feed"
    ) == [{"key": "d1", "status": "inserted"}]
    # One plan of an entity that exists in the batch: every entity goes the usual way.
    found = read_current(graph, DEVICE, [row(5, {"status": "hot"}), Row(1, "d3", T0, {}, NO_RELATIONS, None)])
    mixed = [decide(DEVICE, row(5, {"status": "hot"}), found[("str", "d1")])[1]]
    mixed.append(decide(DEVICE, Row(1, "d3", T0, {}, NO_RELATIONS, None), found[("str", "d3")])[1])
    assert "absent" not in _needs(mixed) and "MERGE (e:" in positional_query(DEVICE, _needs(mixed))[0]
    assert apply_plans(graph, DEVICE, "feed", mixed) == {0, 1}
    assert [s["status"] for s in history(graph, DEVICE, "d1")] == ["ok", "rival", "hot"]


def test_new_entities_wait_for_their_vectors_by_a_label_in_the_create_when_all_of_them_do(graph):
    def made(rows):
        plans = [
            decide(MANUAL, Row(i, key, T0, given, {}, None), Around(absent=True))[1]
            for i, (key, given) in enumerate(rows)
        ]
        query = positional_query(MANUAL, _needs(plans))[0]
        assert apply_plans(graph, MANUAL, "feed", plans) == set(range(len(rows)))
        return query

    marked = "MATCH (m:Manual) WHERE m.key IN $keys RETURN m.key, m:ManualToEmbed ORDER BY m.key"
    query = made([("a1", {"title": "Seal"}), ("a2", {"body": "Pump"})])
    assert "CREATE (e:`Manual`:Entity:`ManualToEmbed` {" in query and "marking" not in query
    query = made([("b1", {"level": 1}), ("b2", {})])
    assert "ToEmbed" not in query
    query = made([("c1", {"title": "Seal"}), ("c2", {"level": 2})])
    assert "FOREACH (marking" in query
    found = graph.ro_query(marked, {"keys": ["a1", "a2", "b1", "b2", "c1", "c2"]}).result_set
    assert found == [["a1", True], ["a2", True], ["b1", False], ["b2", False], ["c1", True], ["c2", False]]


def test_a_kind_whose_key_is_named_key_creates_its_entities_whole(graph):
    sensor = Kind("Sensor", key="key")
    plans = [decide(sensor, Row(0, "s1", T0, {"status": "ok"}, {}, None), Around(absent=True))[1]]
    assert apply_plans(graph, sensor, "feed", plans) == {0}
    assert graph.ro_query("MATCH (s:Sensor:Entity) RETURN s.key, s.status").result_set == [["s1", "ok"]]


def test_the_parts_a_created_plan_asks_for_are_those_the_general_reading_of_its_fields_gives():
    from lighthouse.write.plans import CREATED_PARTS

    made = [
        Row(0, "d1", T0, {"status": "ok"}, NO_RELATIONS, None),
        Row(
            1,
            "d2",
            T0,
            {"status": "ok", "note": "pump"},
            {**NO_RELATIONS, "USED_BY": frozenset({"t1"})},
            None,
        ),
        Row(2, "d3", T0, {"last_seen": "2026-01-01T00:00:00Z"}, NO_RELATIONS, "look/1"),
    ]
    for kind in (DEVICE, MANUAL):
        for one in made:
            if kind is MANUAL and one.relations["USED_BY"]:
                continue  # a manual has no such relation
            values = {"title": "pump"} if kind is MANUAL else one.values
            relations = {} if kind is MANUAL else one.relations
            given = Row(one.index, one.key, one.t, values, relations, one.entry)
            for trust in (None, "candidate"):
                _, plan = decide(kind, given, Around(absent=True))
                if trust is not None:
                    plan["trust"] = trust
                fast = _needs([plan])
                general = _needs([{**plan, "absent": False}])
                assert fast - {"absent", "embed_all", "embed_none"} == general
                assert "absent" in fast and fast >= CREATED_PARTS
                assert ("trust" in fast) == (trust is not None) and ("source" in fast) == (
                    one.entry is not None
                )
