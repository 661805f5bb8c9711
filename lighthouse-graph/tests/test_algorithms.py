"""The four questions together: the seed's example, and what the tests of each part share.

Each module of lighthouse/algorithms/ has its own test_algorithms_<module>.py; this file holds the seed's
example, a graph that does not exist, and the helpers they import (Counting, put, the_seed, D1_WAS_IN_R1).
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from devices import DEVICE, KINDS, ROOM
from lighthouse import ensure_schema, remember
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
