"""A tenant's kinds: declared as JSON, stored in its own graph, seen by every process, schema made once."""

from __future__ import annotations

import contextlib
import threading
import time
import uuid

import pytest
from lighthouse import Kind, tenant
from lighthouse.graphs import schema_turn
from lighthouse_server.declarations import DECLARATION, Kinds, built, checked
from lighthouse_server.problems import Problem

ROOM = {"label": "Room", "key": "code"}
DEVICE = {
    "label": "Device",
    "key": "serial",
    "text": ["note"],
    "relations": {"LOCATED_IN": "Room", "NEAR": "self"},
}


@pytest.fixture
def tenant_id(db):
    name = f"k{uuid.uuid4().hex[:10]}"
    yield name
    # a test that stored nothing leaves no graph; a deletion drops indexes: in the schema turn
    with contextlib.suppress(Exception), schema_turn(tenant(db, name), 10.0):
        tenant(db, name).delete()


def test_declared_kinds_are_stored_in_the_tenant_graph_and_seen_by_another_process(db, tenant_id):
    assert Kinds(db).declare(tenant_id, [ROOM, DEVICE], "admin") == [
        {"label": "Room", "status": "declared"},
        {"label": "Device", "status": "declared"},
    ]
    stored = (
        tenant(db, tenant_id).ro_query(f"MATCH (d:{DECLARATION}) RETURN d.label ORDER BY d.label").result_set
    )
    assert stored == [["Device"], ["Room"]]
    elsewhere = Kinds(db)  # another process: nothing cached
    device = elsewhere.kind(tenant_id, "Device")
    assert isinstance(device, Kind) and device.key == "serial" and device.text == ("note",)
    assert device.relations["LOCATED_IN"].label == "Room" and device.relations["NEAR"] is device
    assert Kinds(db).declare(tenant_id, [ROOM], "admin") == [{"label": "Room", "status": "unchanged"}]
    indexes = (
        tenant(db, tenant_id).ro_query("CALL db.indexes() YIELD label RETURN collect(label)").result_set[0][0]
    )
    assert "Device" in indexes  # ensure_schema ran


def test_an_undeclared_kind_is_not_found(db, tenant_id):
    with pytest.raises(Problem) as raised:
        Kinds(db).kind(tenant_id, "Boat")
    assert raised.value.code == "not_found"


@pytest.mark.parametrize(
    ("declarations", "code", "says"),
    [
        ([{"label": "Device", "relations": {"IN": "Room"}}], "not_found", "not declared"),
        (
            [{"label": "A", "relations": {"B": "B"}}, {"label": "B", "relations": {"A": "A"}}],
            "invalid_argument",
            "circle",
        ),
        ([{"label": "State"}], "invalid_argument", "State"),
        ([{"label": "Room", "colour": "red"}], "invalid_argument", "no field"),
        ([{"label": "Room", "dimensions": True}], "invalid_argument", "dimensions"),
        ("Room", "invalid_argument", "list"),
        ([], "invalid_argument", "list"),
    ],
)
def test_a_bad_declaration_is_refused_and_nothing_is_stored(db, tenant_id, declarations, code, says):
    with pytest.raises(Problem) as raised:
        Kinds(db).declare(tenant_id, declarations, "admin")
    assert raised.value.code == code and says in raised.value.message
    assert Kinds(db).declared(tenant_id)[0] == {}


def test_a_key_cannot_change(db, tenant_id):
    Kinds(db).declare(tenant_id, [ROOM], "admin")
    with pytest.raises(Problem, match="cannot change"):
        Kinds(db).declare(tenant_id, [{"label": "Room", "key": "number"}], "admin")


def test_writers_wait_while_the_schema_changes(db, tenant_id):
    kinds = Kinds(db)
    gate = kinds.gate(tenant_id)
    order: list[str] = []
    with gate.changing():
        writer = threading.Thread(target=lambda: gate.writing().__enter__() or order.append("wrote"))
        writer.start()
        time.sleep(0.3)
        order.append("changed")
    writer.join(timeout=5)
    assert order == ["changed", "wrote"]


def test_checked_gives_every_field():
    assert checked({"label": "Room"}) == {
        "label": "Room",
        "key": "key",
        "times": [],
        "text": [],
        "relations": {},
        "dimensions": 0,
    }
    assert set(built({"Room": checked(ROOM)})) == {"Room"}


def _entry_vector_size(graph) -> int | None:
    found = graph.ro_query(
        "CALL db.indexes() YIELD label, types, options WHERE label = 'Entry' RETURN types, options"
    ).result_set
    for types, options in found:
        if "VECTOR" in (types or {}).get("lh.vector", []):
            return int(options["lh.vector"]["dimension"])
    return None


def test_a_declaration_makes_the_entries_vector_index_the_embedder_needs(db, tenant_id):
    # So the embedding worker never builds it later while the tenant's calls run.
    Kinds(db, entry_dimensions=lambda: 8).declare(tenant_id, [ROOM], "admin")
    assert _entry_vector_size(tenant(db, tenant_id)) == 8
    # An index of another size is left as it is (the embedding status says so), the declaration is made.
    assert (
        Kinds(db, entry_dimensions=lambda: 16).declare(tenant_id, [DEVICE], "admin")[0]["status"]
        == "declared"
    )
    assert _entry_vector_size(tenant(db, tenant_id)) == 8


def test_without_an_embedder_a_declaration_makes_no_entries_vector_index(db, tenant_id):
    Kinds(db, entry_dimensions=lambda: 0).declare(tenant_id, [ROOM], "admin")
    assert _entry_vector_size(tenant(db, tenant_id)) is None


def test_a_tenant_whose_entities_kept_their_vectors_is_moved_once_by_keep_layout(
    db, tenant_id, changed_schema
):
    from lighthouse import remember

    memo = {"label": "Memo", "key": "id", "text": ["body"], "dimensions": 4}
    Kinds(db).declare(tenant_id, [memo], "admin")
    graph = tenant(db, tenant_id)
    kind = built({"Memo": checked(memo)})["Memo"]
    remember(graph, kind, [{"key": "m1", "t": "2026-01-01T00:00:00Z", "values": {"body": "hello"}}], "feed")
    # as a version that kept vectors on the entities left it
    changed_schema(
        graph,
        "DROP VECTOR INDEX FOR (n:MemoVector) ON (n.`lh.vector`)",
        "CREATE VECTOR INDEX FOR (n:Memo) ON (n.`lh.vector`) OPTIONS {dimension: 4, similarityFunction: 'cosine'}",
    )
    graph.query(
        "MATCH (e:Memo) REMOVE e:MemoToEmbed SET e.`lh.vector` = vecf32([1.0, 0, 0, 0]), e.`lh.model` = 'm'"
    )
    served = Kinds(db)  # a process started after the upgrade
    served.keep_layout(tenant_id)
    moved = "MATCH (e:Memo)-[:LH_VECTOR]->(v:MemoVector) RETURN e.`lh.vector`, v.`lh.model`, v.`lh.vector`"
    assert graph.ro_query(moved).result_set == [[None, "m", [1.0, 0.0, 0.0, 0.0]]]
    # once a process: undone by hand, the same process does not look again; another one does
    graph.query("MATCH (e:Memo)-[:LH_VECTOR]->(v) SET e.`lh.vector` = v.`lh.vector` DELETE v")
    changed_schema(
        graph,
        "DROP VECTOR INDEX FOR (n:MemoVector) ON (n.`lh.vector`)",
        "CREATE VECTOR INDEX FOR (n:Memo) ON (n.`lh.vector`) OPTIONS {dimension: 4, similarityFunction: 'cosine'}",
    )
    served.keep_layout(tenant_id)
    assert graph.ro_query("MATCH (v:MemoVector) RETURN count(v)").result_set == [[0]]
    Kinds(db).keep_layout(tenant_id)
    assert graph.ro_query("MATCH (v:MemoVector) RETURN count(v)").result_set == [[1]]


def test_a_tenant_whose_counters_and_failures_were_kept_otherwise_is_moved_by_keep_layout(db, tenant_id):
    from lighthouse import failures, open_episode, record, record_failure

    Kinds(db).declare(tenant_id, [ROOM], "admin")
    graph = tenant(db, tenant_id)
    open_episode(graph, "e1", "watcher")
    record(graph, "e1", "seen", "watcher")
    record_failure(graph, "invalid", "Room", "r9", detail="what it held")
    # as a version that kept them elsewhere left it
    graph.query(
        "MATCH (ep:Episode) CREATE (ep)-[:LH_TALLY {entries: ep.entry_count}]->(ep) REMOVE ep.entry_count"
    )
    graph.query(
        "MATCH (st:Stamp) CREATE (st)-[:LH_TALLY {serial: st.serial}]->(st) "
        "REMOVE st.serial, st.`lh.counts_on_nodes`, st.`lh.named_as_designed`"
    )
    graph.query(
        "MATCH (f:WriteFailure) SET f.fingerprint = f.`lh.fingerprint`, f.content = f.detail "
        "SET f.`lh.fingerprint` = null, f.detail = null"
    )
    Kinds(db).keep_layout(tenant_id)  # a process started after the upgrade
    assert graph.ro_query("MATCH ()-[t:LH_TALLY]->() RETURN count(t)").result_set == [[0]]
    assert graph.ro_query("MATCH (ep:Episode) RETURN ep.entry_count").result_set == [[1]]
    assert [one["detail"] for one in failures(graph)] == ["what it held"]
    assert graph.ro_query("MATCH (f:WriteFailure) RETURN f.fingerprint").result_set == [[None]]
