"""groups() now: union-find over one read, checked against a plain one and FalkorDB's algo.WCC; records; order."""

from __future__ import annotations

import plain
import pytest
from devices import DEVICE, KINDS, PERSON
from lighthouse import ensure_schema, open_episode, remember
from lighthouse.algorithms.components import name_key
from lighthouse.algorithms.connection import connection
from lighthouse.algorithms.groups import groups
from test_algorithms import ALL, T1, as_sets, put


@pytest.fixture
def world(graph):
    ensure_schema(graph, KINDS)
    return graph


def test_episodes_join_groups_and_chains_through_about(world):
    put(world, DEVICE, "d1", T1, LOCATED_IN="r1")
    put(world, DEVICE, "d2", T1, LOCATED_IN="r2")
    assert (
        open_episode(world, "e1", by="watcher", about=[(DEVICE, "d1"), (DEVICE, "d2")])["status"] == "opened"
    )
    assert len(groups(world, [DEVICE])) == 2
    joined = groups(world, [DEVICE], records=["Episode"])
    assert joined[0]["members"] == [
        ("Device", "d1"),
        ("Device", "d2"),
        ("Episode", "e1"),
        ("Room", "r1"),
        ("Room", "r2"),
    ]
    only_about = groups(world, [DEVICE], ["ABOUT"], records=["Episode"])
    assert as_sets(only_about) == {frozenset({("Device", "d1"), ("Device", "d2"), ("Episode", "e1")})}
    assert connection(world, (DEVICE, "d1"), (DEVICE, "d2")) is None
    chain = connection(world, (DEVICE, "d1"), (DEVICE, "d2"), relations=["LOCATED_IN", "ABOUT"])
    assert [s["to"] for s in chain] == [("Episode", "e1"), ("Device", "d2")]
    assert chain[0]["forward"] is False and chain[0]["current"] is True and chain[0]["since"] is None


# --- against plain implementations, on random graphs -------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_groups_are_those_of_union_find(world, seed):
    history = plain.random_history(seed)
    history.send(world, remember)
    expected = plain.groups(history.nodes(ALL), [(a, b) for a, b, _ in history.edges()])
    found = groups(world, [PERSON, DEVICE], at_least=1, limit=1000)
    assert as_sets(found) == expected
    order = [(-group["size"], name_key(group["members"][0])) for group in found]
    assert order == sorted(order)
    for group in found:
        assert group["members"] == sorted(group["members"], key=name_key)
    devices = plain.groups(
        history.nodes(["Device", "Room"], relations={"LOCATED_IN"})
        - {n for n in history.nodes(ALL) if n[0] == "Team"},
        [(a, b) for a, b, kind in history.edges() if kind == "LOCATED_IN"],
    )
    assert as_sets(groups(world, [DEVICE], ["LOCATED_IN"], at_least=1, limit=1000)) == devices
    assert groups(world, [PERSON, DEVICE], at_least=1, limit=2) == found[:2]
    assert groups(world, [PERSON, DEVICE], limit=1000) == [group for group in found if group["size"] >= 2]


def test_falkordbs_wcc_agrees_with_union_find_where_other_labels_lie_between(world):
    history = plain.random_history(7)
    history.send(world, remember)
    result = world.ro_query(
        "CALL algo.WCC({nodeLabels: ['Person'], relationshipTypes: ['KNOWS']}) YIELD node, componentId "
        "RETURN componentId, collect(node.key)"
    ).result_set
    found = {frozenset(("Person", key) for key in keys) for _, keys in result}
    knows = [(a, b) for a, b, kind in history.edges() if kind == "KNOWS"]
    assert found == plain.groups(history.nodes(["Person"], relations={"KNOWS"}), knows)


def test_equal_groups_come_in_the_order_of_their_first_member(world):
    for key, room in (("b", "r2"), ("a", 5), ("c", "r1"), (3, "r3")):
        put(world, DEVICE, key, T1, LOCATED_IN=room)
    found = groups(world, [DEVICE], ["LOCATED_IN"])
    assert [group["members"][0] for group in found] == [
        ("Device", 3),
        ("Device", "a"),
        ("Device", "b"),
        ("Device", "c"),
    ]
