"""what_if(): rows laid over a time without writing them; the groups that would merge or split and the
ranks that would move, checked against what the same rows do once they are written."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from devices import DEVICE, KINDS, PERSON
from lighthouse import Refused, ensure_schema, remember
from lighthouse.algorithms.groups import groups
from lighthouse.algorithms.ranking import important
from lighthouse.whatif import MAX_ROWS, _replaced_query, what_if
from query_plans import scans
from test_algorithms import as_sets, put, scores

T1, T2, T3 = "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z"
NOON = "2026-01-01T12:00:00Z"


@pytest.fixture
def world(graph):
    ensure_schema(graph, KINDS)
    return graph


def members(group: dict) -> set:
    return set(group["members"])


def test_rows_that_join_two_groups_merge_them(world):
    put(world, DEVICE, "d1", T1, LOCATED_IN="r1")
    put(world, DEVICE, "d2", T1, LOCATED_IN="r2")
    found = what_if(world, DEVICE, [{"key": "d2", "relations": {"LOCATED_IN": "r1"}}], at=T2)
    assert found["at"] == datetime(2026, 1, 2, tzinfo=UTC)
    assert found["rows"] == [{"key": "d2", "status": "laid"}]
    (merged,) = found["groups"]["merged"]
    assert merged["into"] == {"size": 3, "members": [("Device", "d1"), ("Device", "d2"), ("Room", "r1")]}
    assert [group["members"] for group in merged["from"]] == [
        [("Device", "d1"), ("Room", "r1")],
        [("Device", "d2"), ("Room", "r2")],
    ]
    assert found["groups"]["split"] == []
    moved = {move["entity"]: move for move in found["ranks"]}
    assert moved[("Room", "r1")]["change"] > 0
    assert moved[("Room", "r2")]["after"] is None  # nothing points at r2 any more: it is gone then


def test_rows_that_cut_a_group_split_it(world):
    put(world, DEVICE, "d1", T1, LOCATED_IN="r1")
    put(world, DEVICE, "d2", T1, LOCATED_IN="r1", USED_BY=["red"])
    found = what_if(world, DEVICE, [{"key": "d1", "relations": {"LOCATED_IN": "r3"}}], at=T2)
    (split,) = found["groups"]["split"]
    assert split["from"]["members"] == [("Device", "d1"), ("Device", "d2"), ("Room", "r1"), ("Team", "red")]
    assert [group["members"] for group in split["into"]] == [
        [("Device", "d1"), ("Room", "r3")],
        [("Device", "d2"), ("Room", "r1"), ("Team", "red")],
    ]
    assert found["groups"]["merged"] == []


def test_what_a_row_does_not_name_is_closed(world):
    put(world, DEVICE, "d1", T1, LOCATED_IN="r1", USED_BY=["red", "blue"])
    found = what_if(world, DEVICE, [{"key": "d1", "relations": {"LOCATED_IN": "r1"}}], at=T2)
    gone = {move["entity"] for move in found["ranks"] if move["after"] is None}
    assert gone == {("Team", "red"), ("Team", "blue")}
    assert found["groups"] == {"merged": [], "split": []}
    kept = what_if(
        world,
        DEVICE,
        [{"key": "d1", "relations": {"LOCATED_IN": "r1"}}],
        at=T2,
        question={"relations": ["LOCATED_IN"]},
    )
    assert kept["ranks"] == []  # the question does not follow USED_BY: nothing it reads moved


def test_the_answer_is_what_writing_the_rows_would_do(world):
    for key, room, teams in (
        ("d1", "r1", ["red"]),
        ("d2", "r2", ["blue"]),
        ("d3", "r2", []),
        ("d4", "r3", ["red"]),
    ):
        put(world, DEVICE, key, T1, LOCATED_IN=room, USED_BY=teams)
    rows = [
        {"key": "d3", "relations": {"LOCATED_IN": "r3", "USED_BY": ["green"]}},
        {"key": "d5", "relations": {"LOCATED_IN": "r1", "USED_BY": ["blue"]}},
    ]
    before = scores(important(world, [DEVICE], at=T2, limit=1000))
    found = what_if(world, DEVICE, rows, at=T2, question={"limit": 1000})
    assert world.ro_query("MATCH (d:Device {key: 'd5'}) RETURN count(d)").result_set == [[0]]
    assert (
        remember(world, DEVICE, by="test", rows=[{**row, "t": T2} for row in rows])[1]["status"] == "created"
    )
    after = scores(important(world, [DEVICE], at=T2, limit=1000))
    moved = {move["entity"]: move for move in found["ranks"]}
    for name in set(before) | set(after):
        if name in moved:
            assert (moved[name]["before"], moved[name]["after"]) == pytest.approx(
                (before.get(name), after.get(name))
            )
        else:
            assert abs(before[name] - after[name]) <= 1e-6
    assert len(moved) >= 5
    now_groups = as_sets(groups(world, [DEVICE], at=T2, limit=1000))
    for merged in found["groups"]["merged"]:
        assert members(merged["into"]) in now_groups
    assert found["groups"]["merged"] and found["groups"]["split"] == []


def test_nothing_is_written(world):
    put(world, DEVICE, "d1", T1, LOCATED_IN="r1")

    def picture():
        stats = world.ro_query(
            "CALL db.meta.stats() YIELD labels, relTypes, nodeCount, relCount RETURN *"
        ).result_set
        stamp = world.ro_query("MATCH (s:Stamp) RETURN s.id").result_set
        return stats, stamp

    was = picture()
    what_if(world, DEVICE, [{"key": "d9", "relations": {"LOCATED_IN": "r9", "USED_BY": ["x"]}}], at=T2)
    with pytest.raises(Refused):
        what_if(world, DEVICE, [{"key": "d9", "relations": {"NOPE": "r9"}}], at=T2)
    assert picture() == was


def test_a_row_that_a_stored_state_replaced_before_the_time_does_not_reach_it(world):
    put(world, DEVICE, "d1", T1, LOCATED_IN="r1")
    put(world, DEVICE, "d1", T3, LOCATED_IN="r2")
    row = {"key": "d1", "t": NOON, "relations": {"LOCATED_IN": "r9"}}
    late = what_if(world, DEVICE, [row], at=T3)
    assert late["rows"] == [{"key": "d1", "status": "replaced"}]
    assert late["ranks"] == [] and late["groups"] == {"merged": [], "split": []}
    laid = what_if(world, DEVICE, [row], at=T2)
    assert laid["rows"] == [{"key": "d1", "status": "laid"}]
    assert {move["entity"] for move in laid["ranks"]} == {("Room", "r1"), ("Room", "r9")}


def test_the_latest_row_of_a_key_is_laid(world):
    put(world, DEVICE, "d1", T1, LOCATED_IN="r1")
    rows = [
        {"key": "d1", "t": NOON, "relations": {"LOCATED_IN": "r2"}},
        {"key": "d1", "t": T1, "relations": {"LOCATED_IN": "r3"}},
    ]
    found = what_if(world, DEVICE, rows, at=T2)
    moved = {move["entity"]: (move["before"] is None, move["after"] is None) for move in found["ranks"]}
    assert moved == {("Room", "r2"): (True, False), ("Room", "r1"): (False, True)}
    assert found["rows"] == [{"key": "d1", "status": "laid"}]
    with pytest.raises(Refused, match="same key and time"):
        what_if(world, DEVICE, [rows[0], {**rows[0], "relations": {"LOCATED_IN": "r4"}}], at=T2)


def test_other_kinds_may_be_asked_about_too(world):
    put(world, PERSON, "ann", T1, KNOWS=["bob"])
    put(world, DEVICE, "d1", T1, LOCATED_IN="r1")
    found = what_if(
        world, DEVICE, [{"key": "d1", "relations": {"LOCATED_IN": "r2"}}], at=T2, question={"kinds": [PERSON]}
    )
    assert {move["entity"] for move in found["ranks"]} == {("Room", "r1"), ("Room", "r2")}


@pytest.mark.parametrize(
    "call",
    [
        lambda g: what_if(g, "Device", []),
        lambda g: what_if(g, DEVICE, {"key": "d1"}),
        lambda g: what_if(g, DEVICE, [{"key": f"d{i}"} for i in range(MAX_ROWS + 1)]),
        lambda g: what_if(g, DEVICE, ["d1"]),
        lambda g: what_if(g, DEVICE, [{"key": None}]),
        lambda g: what_if(g, DEVICE, [{"key": "d1", "relations": {"KNOWS": "x"}}]),
        lambda g: what_if(g, DEVICE, [{"key": "d1", "t": T3}], at=T2),
        lambda g: what_if(g, DEVICE, [{"key": "d1"}], at="later"),
        lambda g: what_if(g, DEVICE, [{"key": "d1"}], at="2099-01-01T00:00:00Z"),
        lambda g: what_if(g, DEVICE, [{"key": "d1"}], question={"kind": [DEVICE]}),
        lambda g: what_if(g, DEVICE, [{"key": "d1"}], question={"kinds": "all"}),
        lambda g: what_if(g, DEVICE, [{"key": "d1"}], question={"relations": ["KNOWS"]}),
        lambda g: what_if(g, DEVICE, [{"key": "d1"}], question={"limit": 0}),
        lambda g: what_if(g, DEVICE, [{"key": "d1"}], question=["kinds"]),
    ],
)
def test_what_cannot_be_laid_is_refused(world, call):
    put(world, DEVICE, "d1", T1, LOCATED_IN="r1")
    with pytest.raises(Refused):
        call(world)


def test_without_a_time_the_rows_are_laid_over_now(world):
    put(world, DEVICE, "d1", T1, LOCATED_IN="r1")
    found = what_if(world, DEVICE, [{"key": "d2", "relations": {"LOCATED_IN": "r1"}}])
    assert abs((found["at"] - datetime.now(UTC)).total_seconds()) < 60
    assert {move["entity"] for move in found["ranks"]} >= {("Device", "d2"), ("Room", "r1")}


def test_a_bad_row_is_named_by_its_place(world):
    with pytest.raises(Refused, match="row 1"):
        what_if(world, DEVICE, [{"key": "d1"}, {"key": "d2", "values": {"key": 1}}])


def test_replaced_rows_are_found_from_their_entity_not_from_every_state(world):
    # With (s:State) in one MATCH with the entity, FalkorDB 4.22 started from the index on
    # State.valid_from and read every State of the graph in the window.
    put(world, DEVICE, "d1", T1, LOCATED_IN="r1")
    put(world, DEVICE, "d1", T2, LOCATED_IN="r2")
    put(world, DEVICE, "d2", T1, LOCATED_IN="r1")
    params = {"rows": [{"i": 0, "key": "d1", "t": "2026-01-01T00:00:00"}], "at": "2026-01-03T00:00:00"}
    assert scans(world.explain(_replaced_query(DEVICE), params)) == ["Node By Index Scan | (e:Device)"]
    rows = [{"key": "d1", "t": T1, "relations": {"LOCATED_IN": "r3"}}, {"key": "d2", "t": T1}]
    assert what_if(world, DEVICE, rows, at=T3)["rows"] == [
        {"key": "d1", "status": "replaced"},
        {"key": "d2", "status": "laid"},
    ]
