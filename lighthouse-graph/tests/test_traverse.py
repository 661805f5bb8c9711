"""pointing_at() and similar(): what relation edges lead to, now and at a time, and what shares them."""

from __future__ import annotations

import inspect
from datetime import timedelta

import pytest
from devices import DEVICE, PERSON, ROOM
from hostile import hostile_objects
from lighthouse import Kind, Refused, TooSlow, WrongType, clock, ensure_schema, remember
from lighthouse.recall.traverse import pointing_at, similar

CRATE = Kind("Crate", relations={"LOCATED_IN": ROOM})  # another kind in the same rooms
PLAIN = Kind("Plain")  # no relations at all
T0, T1, T2, T3 = (
    "2025-12-01T00:00:00Z",
    "2026-01-01T00:00:00Z",
    "2026-01-02T00:00:00Z",
    "2026-01-03T00:00:00Z",
)
NOON = "2026-01-01T12:00:00Z"


@pytest.fixture
def world(graph):
    ensure_schema(graph, [DEVICE, CRATE, PERSON, PLAIN])
    return graph


def put(graph, key, t, kind=DEVICE, **relations) -> None:
    receipts = remember(graph, kind, by="inventory", rows=[{"key": key, "t": t, "relations": relations}])
    assert receipts[0]["status"] in ("created", "changed", "inserted"), receipts


def seed(graph) -> None:
    """The example of the seed: d1 moves from r1 to r2, and red stops using it."""
    put(graph, "d1", T1, LOCATED_IN="r1", USED_BY=["red", "blue"])
    put(graph, "d1", T2, LOCATED_IN="r2", USED_BY=["blue"])


def iso(moment) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


# --- pointing_at() ----------------------------------------------------------------------------------------


def test_the_signatures_are_the_published_ones():
    listed = list(inspect.signature(pointing_at).parameters.values())
    assert [(p.name, p.default) for p in listed] == [
        ("graph", inspect.Parameter.empty),
        ("kind", inspect.Parameter.empty),
        ("relation", inspect.Parameter.empty),
        ("key", inspect.Parameter.empty),
        ("when", None),
    ]
    listed = list(inspect.signature(similar).parameters.values())
    assert [(p.name, p.default) for p in listed[:5]] == [
        ("graph", inspect.Parameter.empty),
        ("kind", inspect.Parameter.empty),
        ("key", inspect.Parameter.empty),
        ("relations", None),
        ("limit", 10),
    ]
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in listed[5:])


def test_the_seed_example_points_at_the_room_it_is_in_now(world):
    seed(world)
    assert pointing_at(world, DEVICE, "LOCATED_IN", "r2") == ["d1"]
    assert pointing_at(world, DEVICE, "LOCATED_IN", "r1") == []
    assert pointing_at(world, DEVICE, "USED_BY", "blue") == ["d1"]
    assert pointing_at(world, DEVICE, "USED_BY", "red") == []


def test_at_a_time_it_sees_the_relations_that_held_then(world):
    seed(world)
    assert pointing_at(world, DEVICE, "LOCATED_IN", "r1", NOON) == ["d1"]
    assert pointing_at(world, DEVICE, "LOCATED_IN", "r2", NOON) == []
    assert pointing_at(world, DEVICE, "USED_BY", "red", NOON) == ["d1"]
    assert pointing_at(world, DEVICE, "LOCATED_IN", "r1", T0) == []  # before it existed
    # A relation holds from its start and no longer at its end.
    assert pointing_at(world, DEVICE, "LOCATED_IN", "r2", T2) == ["d1"]
    assert pointing_at(world, DEVICE, "LOCATED_IN", "r1", T2) == []
    assert pointing_at(world, DEVICE, "LOCATED_IN", "r1", "2026-01-01T23:59:59Z") == ["d1"]
    assert pointing_at(world, DEVICE, "LOCATED_IN", "r1", when=NOON) == ["d1"]
    assert pointing_at(graph=world, kind=DEVICE, relation="USED_BY", key="red", when=NOON) == ["d1"]


def test_now_compares_with_the_time_not_with_a_missing_end(world):
    soon = clock.present() + timedelta(minutes=3)
    put(world, "d1", T1, LOCATED_IN="r1")
    put(world, "d1", iso(soon), LOCATED_IN="r2")  # closes r1 three minutes from now
    assert pointing_at(world, DEVICE, "LOCATED_IN", "r1") == ["d1"]  # closed, but not yet
    assert pointing_at(world, DEVICE, "LOCATED_IN", "r2") == []  # open, but not yet begun
    later = iso(soon + timedelta(minutes=1))
    assert pointing_at(world, DEVICE, "LOCATED_IN", "r2", later) == ["d1"]
    assert pointing_at(world, DEVICE, "LOCATED_IN", "r1", later) == []


def test_an_entity_that_came_back_is_named_once(world):
    put(world, "d1", T1, LOCATED_IN="r1")
    put(world, "d1", T2, LOCATED_IN="r2")
    put(world, "d1", T3, LOCATED_IN="r1")
    assert pointing_at(world, DEVICE, "LOCATED_IN", "r1") == ["d1"]
    assert pointing_at(world, DEVICE, "LOCATED_IN", "r1", NOON) == ["d1"]
    assert pointing_at(world, DEVICE, "LOCATED_IN", "r1", "2026-01-02T12:00:00Z") == []


def test_an_entity_with_two_edges_held_at_once_is_named_once(world):
    put(world, "d1", T1, LOCATED_IN="r1")
    put(world, 7, T1, LOCATED_IN="r1")
    world.query("MATCH (d)-[r:LOCATED_IN]->(x) CREATE (d)-[:LOCATED_IN {valid_from: r.valid_from}]->(x)")
    assert world.query("MATCH ()-[r:LOCATED_IN]->() RETURN count(r)").result_set == [[4]]
    assert pointing_at(world, DEVICE, "LOCATED_IN", "r1") == [7, "d1"]


def test_keys_come_sorted_whole_numbers_first_and_only_of_the_kind(world):
    for key in ("b", 10, "a", 2):
        put(world, key, T1, LOCATED_IN="r1")
    put(world, "crate-1", T1, kind=CRATE, LOCATED_IN="r1")
    assert pointing_at(world, DEVICE, "LOCATED_IN", "r1") == [2, 10, "a", "b"]
    assert pointing_at(world, CRATE, "LOCATED_IN", "r1") == ["crate-1"]


def test_a_relation_to_the_same_kind(world):
    put(world, "ann", T1, kind=PERSON, KNOWS=["bob", "carl"])
    put(world, "bob", T1, kind=PERSON, KNOWS=["carl"])
    assert pointing_at(world, PERSON, "KNOWS", "carl") == ["ann", "bob"]
    assert pointing_at(world, PERSON, "KNOWS", "bob") == ["ann"]
    assert pointing_at(world, PERSON, "KNOWS", "ann") == []


def test_pointing_at_a_graph_that_was_never_written_finds_nothing(graph):
    assert pointing_at(graph, DEVICE, "LOCATED_IN", "r1") == []


def test_pointing_at_refuses_what_it_cannot_ask(world):
    with pytest.raises(Refused, match="kind"):
        pointing_at(world, "Device", "LOCATED_IN", "r1")
    for relation in ("NOPE", None, "located_in", "KNOWS", ["LOCATED_IN"], "LOCATED_IN\n"):
        with pytest.raises(Refused, match="no relation"):
            pointing_at(world, DEVICE, relation, "r1")
    for key in (None, True, "", " r1", "r" * 201, 2**63, 1.5, "a\nb"):
        with pytest.raises(Refused):
            pointing_at(world, DEVICE, "LOCATED_IN", key)
    for moment in ("yesterday", "", "   ", "2026-01-01T00:00:00+25:00", "1999-12-31T00:00:00Z"):
        with pytest.raises(Refused):  # a blank when is refused: only None means now
            pointing_at(world, DEVICE, "LOCATED_IN", "r1", moment)
    for moment in (5, 1.5, ["2026-01-01"]):
        with pytest.raises(WrongType):  # not a time at all, as stamp() says
            pointing_at(world, DEVICE, "LOCATED_IN", "r1", moment)
    assert pointing_at(world, DEVICE, "LOCATED_IN", "r" * 200) == []  # 200 characters is a key


# --- similar() --------------------------------------------------------------------------------------------


def test_similar_ranks_by_shared_pairs_and_says_through_which(world):
    seed(world)  # d1 now: r2, blue
    put(world, "d2", T1, LOCATED_IN="r2", USED_BY=["blue", "green"])
    put(world, "d3", T1, USED_BY=["blue"])
    put(world, "d4", T1, LOCATED_IN="r9")
    found = similar(world, DEVICE, "d1")
    assert found == [
        {"key": "d2", "shared": 2, "through": [("LOCATED_IN", "r2"), ("USED_BY", "blue")]},
        {"key": "d3", "shared": 1, "through": [("USED_BY", "blue")]},
    ]


def test_similar_finds_entities_whose_shared_relation_was_closed(world):
    seed(world)
    put(world, "d5", T0, LOCATED_IN="r2")
    put(world, "d5", NOON, LOCATED_IN="r7")  # left r2 before d1 came
    (found,) = similar(world, DEVICE, "d1")
    assert found == {"key": "d5", "shared": 1, "through": [("LOCATED_IN", "r2")]}


def test_similar_compares_only_the_current_relations_of_the_entity(world):
    seed(world)  # d1 was in r1 and used by red: both closed
    put(world, "d4", T1, LOCATED_IN="r1", USED_BY=["red"])
    assert similar(world, DEVICE, "d1") == []
    assert similar(world, DEVICE, "d4") == [
        {"key": "d1", "shared": 2, "through": [("LOCATED_IN", "r1"), ("USED_BY", "red")]}
    ]


def test_a_target_shared_twice_over_time_counts_once(world):
    seed(world)
    put(world, "d6", T0, LOCATED_IN="r2")
    put(world, "d6", NOON, LOCATED_IN="r3")
    put(world, "d6", T3, LOCATED_IN="r2")  # back in r2: two edges to it
    assert similar(world, DEVICE, "d1") == [{"key": "d6", "shared": 1, "through": [("LOCATED_IN", "r2")]}]


def test_ties_come_in_key_order_and_limit_keeps_the_first(world):
    put(world, "d0", T1, LOCATED_IN="r1")
    for key in ("d9", "d3", 7, "d5"):
        put(world, key, T1, LOCATED_IN="r1")
    assert [item["key"] for item in similar(world, DEVICE, "d0")] == [7, "d3", "d5", "d9"]
    assert [item["key"] for item in similar(world, DEVICE, "d0", limit=2)] == [7, "d3"]
    assert len(similar(world, DEVICE, "d0", limit=1_000)) == 4


def test_relations_keeps_to_the_named_ones(world):
    seed(world)
    put(world, "d2", T1, LOCATED_IN="r2", USED_BY=["blue"])
    put(world, "d3", T1, LOCATED_IN="r2")
    assert similar(world, DEVICE, "d1", relations=["USED_BY"]) == [
        {"key": "d2", "shared": 1, "through": [("USED_BY", "blue")]}
    ]
    assert [item["key"] for item in similar(world, DEVICE, "d1", relations=("LOCATED_IN",))] == ["d2", "d3"]


def test_similar_through_a_relation_to_the_same_kind(world):
    put(world, "ann", T1, kind=PERSON, KNOWS=["carl", "dora"])
    put(world, "bob", T1, kind=PERSON, KNOWS=["carl"])
    assert similar(world, PERSON, "ann") == [{"key": "bob", "shared": 1, "through": [("KNOWS", "carl")]}]
    assert similar(world, PERSON, "carl") == []  # known, knowing no one


def test_similar_of_what_shares_nothing_or_does_not_exist_is_empty(world):
    seed(world)
    assert similar(world, DEVICE, "nobody") == []
    assert similar(world, DEVICE, "d1") == []  # alone in its room and team
    with pytest.raises(Refused, match="relation"):  # a kind with no relations has none to follow
        similar(world, PLAIN, "p1")
    put(world, "crate-1", T2, kind=CRATE, LOCATED_IN="r2")
    assert similar(world, DEVICE, "d1") == []  # a crate is not a device


def test_similar_refuses_what_it_cannot_ask(world):
    with pytest.raises(Refused, match="kind"):
        similar(world, "Device", "d1")
    for key in (None, False, "", "d" * 201, 2**64):
        with pytest.raises(Refused):
            similar(world, DEVICE, key)
    for relations in ("LOCATED_IN", [], (), ["NOPE"], [None], {"LOCATED_IN": 1}, ["USED_BY"] * 201):
        with pytest.raises(Refused, match="relation"):
            similar(world, DEVICE, "d1", relations=relations)
    for limit in (0, 1_001, True, "5", 10**5000):
        with pytest.raises(Refused, match="limit"):
            similar(world, DEVICE, "d1", limit=limit)
    with pytest.raises(Refused, match="limit"):  # relations come before limit, as published
        similar(world, DEVICE, "d1", ["USED_BY"], 0)
    for timeout in (0, 5_001, 2.5):
        with pytest.raises(Refused, match="timeout"):
            similar(world, DEVICE, "d1", timeout=timeout)


def test_hostile_arguments_raise_only_the_library_s_errors_and_write_nothing(world):
    seed(world)
    before = world.ro_query("MATCH (n) RETURN count(n)").result_set
    for hostile in hostile_objects():
        with pytest.raises(Refused):
            pointing_at(world, hostile, "LOCATED_IN", "r2")
        with pytest.raises(Refused, match="no relation"):
            pointing_at(world, DEVICE, hostile, "r2")
        with pytest.raises(Refused):
            pointing_at(world, DEVICE, "LOCATED_IN", hostile)
        with pytest.raises((Refused, WrongType)):
            pointing_at(world, DEVICE, "LOCATED_IN", "r2", hostile)
        with pytest.raises(Refused):
            similar(world, hostile, "d1")
        with pytest.raises(Refused):
            similar(world, DEVICE, hostile)
        with pytest.raises(Refused, match="relation"):
            similar(world, DEVICE, "d1", hostile)
        with pytest.raises(Refused, match="relation"):
            similar(world, DEVICE, "d1", [hostile])
        with pytest.raises(Refused):
            similar(world, DEVICE, "d1", None, hostile)
        with pytest.raises(Refused):
            similar(world, DEVICE, "d1", timeout=hostile)
    assert world.ro_query("MATCH (n) RETURN count(n)").result_set == before
    assert pointing_at(world, DEVICE, "LOCATED_IN", "r2") == ["d1"]


# --- the stop ---------------------------------------------------------------------------------------------


def crowd(graph, devices: int, teams: int) -> None:
    """d0 and `devices` more devices, each used by the same `teams` teams: every one shares them all."""
    graph.query(
        "UNWIND range(0, $teams - 1) AS i CREATE (:Team:Entity {key: 't' + toString(i), `lh.rev`: 0})",
        {"teams": teams},
    )
    graph.query(
        "CREATE (d:Device:Entity {key: 'd0', `lh.rev`: 1}) WITH d MATCH (x:Team) "
        "CREATE (d)-[:USED_BY {valid_from: localdatetime('2026-01-01T00:00:00')}]->(x)"
    )
    for start in range(1, devices + 1, 5_000):  # the others' edges are never read for their times
        graph.query(
            "UNWIND range($first, $last) AS i CREATE (d:Device:Entity {key: 'd' + toString(i), `lh.rev`: 1}) "
            "WITH d MATCH (x:Team) CREATE (d)-[:USED_BY]->(x)",
            {"first": start, "last": min(devices, start + 4_999)},
        )


def test_similar_past_its_time_is_stopped_with_too_slow(world):
    crowd(world, 5_000, 20)
    with pytest.raises(TooSlow, match="stopped"):  # a ResponseError, as the published API raises
        similar(world, DEVICE, "d0", timeout=1)
    found = similar(world, DEVICE, "d0", limit=3)
    assert [(item["key"], item["shared"]) for item in found] == [("d1", 20), ("d10", 20), ("d100", 20)]


def test_similar_is_stopped_after_five_seconds_by_default(world):
    # How long a search runs depends on the machine; the stop itself is shown above with a budget of
    # 1 ms. Here: the budget a caller gets without asking is FalkorDB's 5 seconds, and no more is allowed.
    assert inspect.signature(similar).parameters["timeout"].default == 5_000
    with pytest.raises(Refused):
        similar(world, DEVICE, "d0", timeout=5_001)
