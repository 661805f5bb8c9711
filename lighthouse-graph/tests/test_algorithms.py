"""The four questions together: the seed's example, and what the tests of each part share.

Each module of lighthouse/algorithms/ has its own test_algorithms_<module>.py; this file holds the seed's
example, a graph that does not exist, and the helpers they import (Counting, put, the_seed, D1_WAS_IN_R1).
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from devices import DEVICE, KINDS, PERSON, ROOM
from lighthouse import ensure_schema, open_episode, record, remember
from lighthouse.algorithms.connection import connection
from lighthouse.algorithms.groups import groups
from lighthouse.algorithms.ranking import between, important

T1, T2, T3 = "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z"
ALL = ["Person", "Device", "Room", "Team"]


class Counting:
    """The graph, with every query it is sent written down: to count round trips, not to fake them."""

    def __init__(self, graph):
        self.graph = graph
        self.sent: list[str] = []

    def query(self, text, params=None, **options):
        self.sent.append(text)
        return self.graph.query(text, params, **options)

    def ro_query(self, text, params=None, **options):
        self.sent.append(text)
        return self.graph.ro_query(text, params, **options)

    def __getattr__(self, name):
        return getattr(self.graph, name)

    def computed(self) -> list[str]:
        """The queries sent that were not the look at the stamp and the counts."""
        return [text for text in self.sent if "db.meta.stats" not in text]


@pytest.fixture
def world(graph):
    ensure_schema(graph, KINDS)
    return graph


def put(graph, kind, key, t, values=None, **relations):
    receipts = remember(
        graph, kind, by="test", rows=[{"key": key, "t": t, "values": values or {}, "relations": relations}]
    )
    assert receipts[0]["status"] in ("created", "changed", "inserted", "unchanged"), receipts


def the_seed(graph):
    put(graph, DEVICE, "d1", T1, {"status": "ok"}, LOCATED_IN="r1", USED_BY=["red", "blue"])
    put(graph, DEVICE, "d1", T2, {"status": "hot"}, LOCATED_IN="r2", USED_BY=["blue"])


# The step from d1 to r1 in the seed's example: it held from T1 until d1 moved to r2 at T2.
D1_WAS_IN_R1 = {
    "from": ("Device", "d1"),
    "relation": "LOCATED_IN",
    "to": ("Room", "r1"),
    "forward": True,
    "current": False,
    "since": datetime(2026, 1, 1, tzinfo=UTC),
    "until": datetime(2026, 1, 2, tzinfo=UTC),
}


def as_sets(answer) -> set[frozenset]:
    return {frozenset(group["members"]) for group in answer}


def scores(answer) -> dict:
    return {one["entity"]: one["score"] for one in answer}


# --- the seed's example -------------------------------------------------------------------------------


def test_the_seed_example(world):
    the_seed(world)
    found = groups(world, [DEVICE])
    assert found[0]["size"] == 5
    assert found[0]["members"] == [
        ("Device", "d1"),
        ("Room", "r1"),
        ("Room", "r2"),
        ("Team", "blue"),
        ("Team", "red"),
    ]
    assert connection(world, (DEVICE, "d1"), (ROOM, "r1")) == [D1_WAS_IN_R1]


def test_questions_about_a_graph_that_does_not_exist_answer_nothing(graph):
    assert groups(graph, [DEVICE]) == []
    assert important(graph, [DEVICE]) == []
    assert between(graph, [DEVICE]) == []
    assert connection(graph, (DEVICE, "d1"), (ROOM, "r1")) is None


# --- the published parameters (API 2.13) ---------------------------------------------------------------


def test_every_parameter_is_taken_by_position_in_the_published_order(world):
    # Each position gets a value that changes the answer (or is refused by its own name), so an argument
    # taken at another position gives another answer.
    the_seed(world)
    put(world, DEVICE, "d2", T1, LOCATED_IN="r1")
    put(world, DEVICE, "d3", T3, LOCATED_IN="r3", USED_BY=["green"])
    d1, d2 = (DEVICE, "d1"), (DEVICE, "d2")
    by_name = groups(
        world, [DEVICE], relations=["LOCATED_IN"], records=(), at_least=1, limit=5, show=1, at=T1
    )
    assert groups(world, [DEVICE], ["LOCATED_IN"], (), 1, 5, 1, T1) == by_name
    assert by_name == [{"size": 3, "members": [("Device", "d1")]}]  # show=1 of d1, d2 and r1 at T1
    assert groups(world, [DEVICE], ["LOCATED_IN"], (), 1, 1, 5, T1) == [
        {"size": 3, "members": [("Device", "d1"), ("Device", "d2"), ("Room", "r1")]}
    ]
    assert groups(world, [DEVICE], None, (), 1, 5, 1, None) == [
        {"size": 6, "members": [("Device", "d1")]},
        {"size": 3, "members": [("Device", "d3")]},
    ]
    assert groups(world, [DEVICE], ["LOCATED_IN"], (), 4, 5, 2, T1) == []  # at_least 4: none at T1
    with pytest.raises(TypeError, match="records"):
        groups(world, [DEVICE], None, None)
    for place, name in enumerate(("at_least", "limit", "show")):
        with pytest.raises(ValueError, match=name):
            groups(world, [DEVICE], None, (), *[1] * place, 0)
    by_name = important(world, [DEVICE], relation="USED_BY", limit=2, at=T1)
    assert important(world, [DEVICE], "USED_BY", 2, T1) == by_name
    assert [one["entity"] for one in by_name] == [("Team", "blue"), ("Team", "red")]
    assert [one["entity"] for one in important(world, [DEVICE], "LOCATED_IN", 1, T3)] == [("Room", "r1")]
    assert [one["entity"] for one in between(world, [DEVICE], None, 3, None, 5, T1)] == [
        ("Device", "d1"),
        ("Device", "d2"),
        ("Room", "r1"),
    ]
    assert [one["entity"] for one in between(world, [DEVICE], None, 3, None, 5, None)] == [
        ("Device", "d1"),
        ("Device", "d2"),
        ("Device", "d3"),
    ]
    with pytest.raises(ValueError, match="sample"):
        between(world, [DEVICE], None, 3, 0)
    with pytest.raises(ValueError, match="seed"):
        between(world, [DEVICE], None, 3, None, 0)
    by_name = connection(world, d1, d2, kinds=(), relations=None, max_hops=2, at=T1)
    assert connection(world, d1, d2, (), None, 2, T1) == by_name
    shown = [(step["from"], step["to"]) for step in by_name]
    assert shown == [(("Device", "d1"), ("Room", "r1")), (("Room", "r1"), ("Device", "d2"))]
    assert connection(world, d1, d2, (), ["USED_BY"], 2, T1) is None  # relations: no team in common
    assert connection(world, d1, d2, (), None, 1, T1) is None  # max_hops: two steps are needed
    assert connection(world, d1, d2, (), None, 2, T3) is None  # at: d1 had moved to r2
    with pytest.raises(TypeError, match="kinds"):
        connection(world, d1, d2, "LOCATED_IN")


def test_groups_keep_to_at_least_and_list_show_members(world):
    for key, room in (("a", "r1"), ("b", "r1"), ("c", "r1"), ("d", "r2"), ("e", "r3")):
        put(world, DEVICE, key, T1, LOCATED_IN=room)
    put(world, DEVICE, "lonely", T1)
    every = groups(world, [DEVICE], ["LOCATED_IN"], at_least=1)
    assert [group["size"] for group in every] == [4, 2, 2, 1]
    assert every[-1]["members"] == [("Device", "lonely")]
    assert [group["size"] for group in groups(world, [DEVICE], ["LOCATED_IN"])] == [4, 2, 2]
    assert [group["size"] for group in groups(world, [DEVICE], ["LOCATED_IN"], at_least=3)] == [4]
    shown = groups(world, [DEVICE], ["LOCATED_IN"], show=2, limit=2)
    assert shown == [
        {"size": 4, "members": [("Device", "a"), ("Device", "b")]},
        {"size": 2, "members": [("Device", "d"), ("Room", "r2")]},
    ]


def test_records_of_each_label_take_part_by_their_id(world):
    put(world, DEVICE, "d1", T1, LOCATED_IN="r1")
    put(world, DEVICE, "d2", T1, LOCATED_IN="r2")
    open_episode(world, "e1", by="watcher", about=[(DEVICE, "d1")], at=T1)
    record(world, "e1", "note", by="watcher", cites=[(DEVICE, "d2")], at=T1)
    found = groups(world, [DEVICE], ["LOCATED_IN", "ABOUT", "HAS", "CITES"], records=["Episode", "Entry"])
    assert found == [
        {
            "size": 6,
            "members": [
                ("Device", "d1"),
                ("Device", "d2"),
                ("Entry", "e1/1"),
                ("Episode", "e1"),
                ("Room", "r1"),
                ("Room", "r2"),
            ],
        }
    ]
    # Without the entries the citation joins nothing: two groups.
    assert len(groups(world, [DEVICE], ["LOCATED_IN", "ABOUT", "CITES"], records=["Episode"])) == 2


def test_important_scores_sum_to_one_over_every_entity(world):
    the_seed(world)
    found = important(world, [DEVICE], limit=1000)
    assert sum(one["score"] for one in found) == pytest.approx(1.0)
    assert {one["entity"][0] for one in found} == {"Device", "Room", "Team"}


def test_the_seed_of_between_draws_the_sample(world):
    for index in range(12):
        put(world, PERSON, f"p{index}", T1, KNOWS=[f"p{(index + 1) % 12}", f"p{(index + 5) % 12}"])
    asked = {seed: between(world, [PERSON], sample=3, seed=seed, limit=12) for seed in (1, 2, 3, 4)}
    assert asked[1] == between(world, [PERSON], sample=3, seed=1, limit=12)
    assert len({repr(answer) for answer in asked.values()}) > 1


def test_a_chain_longer_than_max_hops_is_none(world):
    names = [f"p{index}" for index in range(5)]
    for here, there in zip(names, names[1:], strict=False):
        put(world, PERSON, here, T1, KNOWS=[there])
    assert len(connection(world, (PERSON, "p0"), (PERSON, "p4"))) == 4
    assert len(connection(world, (PERSON, "p0"), (PERSON, "p4"), max_hops=4)) == 4
    assert connection(world, (PERSON, "p0"), (PERSON, "p4"), max_hops=3) is None
    assert connection(world, (PERSON, "p0"), (PERSON, "nobody")) is None
    assert connection(world, (PERSON, "p2"), (PERSON, "p2")) == []
