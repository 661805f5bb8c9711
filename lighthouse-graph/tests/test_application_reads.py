"""What an application that runs workers beside the library reads of a graph: what waits for vectors,
a kind's keys, the tenants, its own read-only queries, and whether an upgrade waits for ensure_schema()."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest
from lighthouse import (
    Kind,
    Refused,
    WrongType,
    embed,
    embed_entries,
    ensure_schema,
    entity_keys,
    entry_dimensions,
    history,
    note,
    read_query,
    remember,
    state_values,
    tenant,
    tenant_ids,
    upgrade_waiting,
    vectors_waiting,
)
from meaning import DIMS, MANUAL, PLAIN, bag

SAID = "2026-11-27T16:00:00Z"


def test_vectors_waiting_counts_entities_and_entries_by_model(graph):
    ensure_schema(graph, [MANUAL, PLAIN], entry_dimensions=DIMS)
    assert vectors_waiting(graph, [MANUAL, PLAIN]) == {"kinds": {"Manual": 0}, "entries": 0}
    embed(graph, MANUAL, bag, "bag")  # the kind's model named: what is written from now on waits for it
    written = remember(graph, MANUAL, [{"key": "m1", "t": SAID, "values": {"title": "pump"}}], "clerk")
    assert written[0]["status"] == "created"
    note(graph, "the pump leaks", "agent")
    note(graph, "the fan hums", "agent")
    assert vectors_waiting(graph, [MANUAL], "bag") == {"kinds": {"Manual": 1}, "entries": 2}
    embed(graph, MANUAL, bag, "bag")
    embed_entries(graph, bag, "bag", limit=1)
    assert vectors_waiting(graph, [MANUAL], "bag") == {"kinds": {"Manual": 0}, "entries": 1}
    assert vectors_waiting(graph, [], None)["entries"] == 2  # without a model: every entry stored
    assert vectors_waiting(graph, [MANUAL], "other")["entries"] == 2


def test_vectors_waiting_refuses_and_reads_a_graph_not_made_yet(graph):
    assert vectors_waiting(graph, [MANUAL], "bag") == {"kinds": {"Manual": 0}, "entries": 0}
    with pytest.raises(WrongType):
        vectors_waiting(graph, MANUAL)
    with pytest.raises(WrongType):
        vectors_waiting(graph, ["Manual"])
    with pytest.raises(Refused):
        vectors_waiting(graph, [], " bag")


def test_entry_dimensions_says_the_entries_index(graph):
    assert entry_dimensions(graph) is None  # no graph yet
    ensure_schema(graph)
    with pytest.raises(Refused):  # a graph without the entries' vector index
        entry_dimensions(graph)
    ensure_schema(graph, entry_dimensions=DIMS)
    assert entry_dimensions(graph) == DIMS


DEVICE = Kind("Device")


def test_entity_keys_lists_pages_and_finds_keys(graph):
    ensure_schema(graph, [DEVICE])
    assert entity_keys(graph, DEVICE) == []
    written = remember(graph, DEVICE, [{"key": key, "t": SAID} for key in ("b", 7, "a", "c")], "clerk")
    assert {receipt["status"] for receipt in written} == {"created"}
    assert entity_keys(graph, DEVICE) == ["a", "b", "c", 7]  # FalkorDB orders names first
    assert entity_keys(graph, DEVICE, skip=1, limit=2) == ["b", "c"]
    assert entity_keys(graph, DEVICE, limit=0) == []
    assert sorted(entity_keys(graph, DEVICE, among=["c", "zz", 7, "c"]), key=str) == [7, "c"]
    assert entity_keys(graph, DEVICE, among=[]) == []


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        ({"kind": "Device"}, Refused),
        ({"among": "a"}, WrongType),
        ({"among": [1.5]}, Refused),
        ({"among": ["a"] * 1_001}, Refused),
        ({"skip": -1}, Refused),
        ({"limit": 1_000_001}, Refused),
    ],
)
def test_entity_keys_refuses_bad_arguments(graph, arguments, error):
    with pytest.raises(error):
        entity_keys(graph, **{"kind": DEVICE, **arguments})


def test_tenant_ids_lists_the_tenants_with_a_graph(db):
    made = [f"t{uuid.uuid4().hex[:10]}" for _ in range(2)]
    try:
        for tenant_id in made:
            tenant(db, tenant_id).query("CREATE (:Marker)")
        listed = tenant_ids(db)
        assert set(made) <= set(listed) and listed == sorted(listed)
        assert not any(name.startswith("tenant:") for name in listed)
    finally:
        for tenant_id in made:
            tenant(db, tenant_id).delete()
    assert not set(made) & set(tenant_ids(db))


def test_read_query_reads_and_refuses(graph):
    assert read_query(graph, "MATCH (n) RETURN count(n)") == []  # no graph yet
    graph.query("CREATE (:Marker {n: 1})")
    assert read_query(graph, "MATCH (m:Marker) WHERE m.n = $n RETURN m.n", {"n": 1}) == [[1]]
    with pytest.raises(WrongType):
        read_query(graph, b"MATCH (n) RETURN n")
    with pytest.raises(WrongType):
        read_query(graph, "MATCH (n) RETURN n", [1])


def test_upgrade_waiting_says_when_ensure_schema_has_a_move_to_make(graph):
    assert upgrade_waiting(graph, [MANUAL]) is False  # no graph yet: nothing to move
    graph.query("CREATE (:Stamp {id: 'old', serial: 0})")  # a Stamp an earlier version made
    assert upgrade_waiting(graph) is True
    ensure_schema(graph, [MANUAL])
    assert upgrade_waiting(graph, [MANUAL]) is False
    assert upgrade_waiting(graph, (MANUAL, PLAIN)) is False
    with pytest.raises(WrongType):
        upgrade_waiting(graph, MANUAL)


SENSOR = Kind("Sensor", key="serial", times=("checked",))


def test_state_values_keeps_the_entitys_own_values_only(graph):
    ensure_schema(graph, [SENSOR])
    row = {"key": "s1", "t": SAID, "values": {"level": 3, "checked": SAID}}
    assert remember(graph, SENSOR, [row], "clerk", candidate=True)[0]["status"] == "created"
    (state,) = history(graph, SENSOR, "s1")
    assert {"valid_from", "recorded_at", "by", "fp", "trust"} <= set(state)
    assert state_values(SENSOR, state) == {"level": 3, "checked": datetime(2026, 11, 27, 16, tzinfo=UTC)}
    assert state_values(SENSOR, {"serial": "s1", "words": "x", "review": {}, "entry": "e/1"}) == {}
    with pytest.raises(Refused):
        state_values("Sensor", state)
    with pytest.raises(WrongType):
        state_values(SENSOR, [state])
