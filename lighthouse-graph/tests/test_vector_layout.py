"""Vectors on nodes of their own, and the move of a graph written when they were on the entities."""

from __future__ import annotations

import math

import pytest
from lighthouse import Kind, SchemaNotReady, embed, ensure_schema, nearest, remember
from lighthouse.vector_layout import clear_copies, copy_vectors
from meaning import DIMS, MANUAL, T, bag

TEXTS = {"pump": "the seal of the pump leaks", "fan": "the fan blade is bent", "belt": "the belt slips"}
NO_VECTORS = Kind("Manual", key="code", text=("title", "body"))  # the same kind, before it had an index


def unit(vector: list[float]) -> list[float]:
    length = math.sqrt(sum(x * x for x in vector))
    return [x / length for x in vector]


def old_layout(graph, changed_schema, keys=TEXTS) -> None:
    """A graph as the library wrote it when an entity held its vector, under an index on its label."""
    ensure_schema(graph, [NO_VECTORS])
    changed_schema(
        graph,
        f"CREATE VECTOR INDEX FOR (n:Manual) ON (n.`lh.vector`) "
        f"OPTIONS {{dimension: {DIMS}, similarityFunction: 'cosine'}}",
    )
    rows = [{"key": key, "t": T[0], "values": {"title": key, "body": TEXTS[key]}} for key in keys]
    assert {r["status"] for r in remember(graph, NO_VECTORS, rows, "writer")} == {"created"}
    texts = [f"{key}\n{TEXTS[key]}" for key in keys]
    graph.query(
        "UNWIND $rows AS row MATCH (e:Manual {key: row[0]}) "
        "SET e.`lh.vector` = vecf32(row[1]), e.`lh.model` = 'bag'",
        {"rows": [[key, unit(vector)] for key, vector in zip(keys, bag(texts), strict=True)]},
    )
    graph.query("MATCH (st:Stamp) SET st.`embed_model_Manual` = 'bag'")


def vector_indexes(graph) -> list:
    return graph.ro_query(
        "CALL db.indexes() YIELD label, types WHERE 'VECTOR' IN types['lh.vector'] RETURN label ORDER BY label"
    ).result_set


def held(graph) -> dict:
    """key -> (model, vector) of each entity's vector node; the entities hold none themselves."""
    on_entities = graph.ro_query("MATCH (e:Manual) WHERE e.`lh.vector` IS NOT NULL RETURN count(e)")
    assert on_entities.result_set == [[0]]
    found = graph.ro_query(
        "MATCH (e:Manual)-[:LH_VECTOR]->(v:ManualVector) RETURN e.key, v.`lh.model`, v.`lh.vector`"
    ).result_set
    assert len({key for key, _, _ in found}) == len(found), "one vector node an entity"
    return {key: (model, vector) for key, model, vector in found}


def test_a_graph_with_vectors_on_its_entities_has_them_moved_by_ensure_schema(graph, changed_schema):
    old_layout(graph, changed_schema)
    before = {
        key: vector
        for key, vector in graph.ro_query("MATCH (e:Manual) RETURN e.key, e.`lh.vector`").result_set
    }
    assert vector_indexes(graph) == [["Manual"]]
    ensure_schema(graph, [MANUAL])
    assert vector_indexes(graph) == [["ManualVector"]]
    assert held(graph) == {key: ("bag", vector) for key, vector in before.items()}
    # nothing waits to be embedded again, and nearest() finds them by the vectors they had
    assert embed(graph, MANUAL, bag, "bag") == {"embedded": 0, "waiting": 0}
    found = nearest(graph, MANUAL, "pump seal leaks", bag, "bag", 3)
    assert [item["key"] for item in found][0] == "pump" and len(found) == 3
    # a change that is not of the text keeps the vector; one of the text takes it away
    later = {"key": "pump", "t": T[1], "values": {"title": "pump", "body": TEXTS["pump"], "level": 2}}
    assert remember(graph, MANUAL, [later], "writer")[0]["status"] == "changed"
    assert held(graph)["pump"] == ("bag", before["pump"])
    retold = {"key": "pump", "t": T[2], "values": {"title": "pump", "body": "a new seal"}}
    assert remember(graph, MANUAL, [retold], "writer")[0]["status"] == "changed"
    assert "pump" not in held(graph)
    assert graph.ro_query("MATCH (v:ManualVector) RETURN count(v)").result_set == [[2]]
    assert embed(graph, MANUAL, bag, "bag") == {"embedded": 1, "waiting": 0}
    assert set(held(graph)) == set(TEXTS)
    # ensure_schema() again: nothing left to move, nothing changes
    ensure_schema(graph, [MANUAL])
    assert vector_indexes(graph) == [["ManualVector"]] and set(held(graph)) == set(TEXTS)


def test_a_move_cut_short_goes_on_without_making_a_vector_twice(graph, changed_schema, monkeypatch):
    from lighthouse import vector_layout

    keys = {f"m{number}": f"text number {number}" for number in range(7)}
    monkeypatch.setattr("test_vector_layout.TEXTS", keys)
    old_layout(graph, changed_schema, keys)
    monkeypatch.setattr(vector_layout, "MOVED_AT_ONCE", 3)
    # the first query of the move ran, then it stopped: 3 entities have their node, 4 do not
    graph.query(vector_layout._copy_query(MANUAL))
    assert copy_vectors(graph, MANUAL) == 4
    assert copy_vectors(graph, MANUAL) == 0
    counted = graph.ro_query("MATCH (e:Manual)-[:LH_VECTOR]->(v) RETURN count(DISTINCT e), count(v)")
    assert counted.result_set == [[7, 7]]
    ensure_schema(graph, [MANUAL])  # drops the old index, then clears the copies
    assert set(held(graph)) == set(keys)
    assert clear_copies(graph, MANUAL) == 0


def test_an_old_index_of_other_dimensions_is_refused_and_nothing_moves(graph, changed_schema):
    old_layout(graph, changed_schema)
    wider = Kind("Manual", key="code", text=("title", "body"), dimensions=DIMS + 1)
    with pytest.raises(SchemaNotReady, match=f"Manual already has a vector index of {DIMS} dimensions, not"):
        ensure_schema(graph, [wider])
    assert vector_indexes(graph) == [["Manual"]]
    on_entities = graph.ro_query("MATCH (e:Manual) WHERE e.`lh.vector` IS NOT NULL RETURN count(e)")
    assert on_entities.result_set == [[len(TEXTS)]]
    assert graph.ro_query("MATCH (v:ManualVector) RETURN count(v)").result_set == [[0]]


def test_a_graph_written_since_has_no_vector_on_an_entity_and_one_node_each(graph):
    ensure_schema(graph, [MANUAL])
    rows = [{"key": key, "t": T[0], "values": {"title": key, "body": text}} for key, text in TEXTS.items()]
    remember(graph, MANUAL, rows, "writer")
    assert embed(graph, MANUAL, bag, "bag") == {"embedded": 3, "waiting": 0}
    assert set(held(graph)) == set(TEXTS)
    # a new model replaces each vector node: one a entity, of the new model
    assert embed(graph, MANUAL, bag, "other") == {"embedded": 3, "waiting": 0}
    assert {model for model, _ in held(graph).values()} == {"other"}
    assert graph.ro_query("MATCH (v:ManualVector) RETURN count(v)").result_set == [[3]]


def test_a_text_changed_before_the_move_is_embedded_again_not_given_its_old_vector(graph, changed_schema):
    old_layout(graph, changed_schema)
    retold = {"key": "pump", "t": T[1], "values": {"title": "pump", "body": "a brand new gasket"}}
    assert remember(graph, MANUAL, [retold], "writer")[0]["status"] == "changed"
    on_entity = graph.ro_query("MATCH (e:Manual {key: 'pump'}) RETURN e.`lh.vector`, e:ManualToEmbed")
    assert on_entity.result_set == [[None, True]]  # the change took the old text's vector off the entity
    ensure_schema(graph, [MANUAL])
    assert set(held(graph)) == {"fan", "belt"}
    assert embed(graph, MANUAL, bag, "bag") == {"embedded": 1, "waiting": 0}
    (expected,) = bag(["pump\na brand new gasket"])
    assert held(graph)["pump"][1] == pytest.approx(unit(expected), abs=1e-6)


def test_an_entity_waiting_for_a_vector_gets_no_copy_of_the_one_it_holds(graph, changed_schema):
    old_layout(graph, changed_schema)
    graph.query("MATCH (e:Manual {key: 'fan'}) SET e:ManualToEmbed")  # as after a change of model
    assert copy_vectors(graph, MANUAL) == 2
    ensure_schema(graph, [MANUAL])
    assert set(held(graph)) == {"pump", "belt"}
    assert embed(graph, MANUAL, bag, "bag") == {"embedded": 1, "waiting": 0}
    assert set(held(graph)) == set(TEXTS)


def test_a_move_cut_short_after_the_drop_clears_the_copies_at_the_next_call(graph, changed_schema):
    from lighthouse.vector_layout import clearing_mark, old_index_drop

    old_layout(graph, changed_schema)
    ensure_schema(graph, [NO_VECTORS])  # the new index is made only with the kind's dimensions
    assert copy_vectors(graph, MANUAL) == 3
    changed_schema(
        graph,
        f"CREATE VECTOR INDEX FOR (n:ManualVector) ON (n.`lh.vector`) "
        f"OPTIONS {{dimension: {DIMS}, similarityFunction: 'cosine'}}",
        old_index_drop(MANUAL),  # and then it stopped, its copies still on the entities
    )
    mark = graph.ro_query(f"MATCH (st:Stamp) RETURN st.`{clearing_mark(MANUAL)}`").result_set
    assert mark == [[True]]
    ensure_schema(graph, [MANUAL])
    assert set(held(graph)) == set(TEXTS)  # held() checks that no entity keeps a copy
    mark = graph.ro_query(f"MATCH (st:Stamp) RETURN st.`{clearing_mark(MANUAL)}`").result_set
    assert mark == [[None]]
