"""Answers kept until the graph grows: the queries a repeated question sends are counted."""

from __future__ import annotations

import pytest
from devices import DEVICE, KINDS
from lighthouse import ensure_schema, remember
from lighthouse.algorithms import kept
from lighthouse.algorithms.groups import groups
from lighthouse.algorithms.ranking import between, important
from lighthouse.algorithms.scope import scope
from test_algorithms import T1, T2, T3, Counting, put, the_seed


@pytest.fixture
def world(graph):
    ensure_schema(graph, KINDS)
    return graph


def test_a_repeated_question_does_not_ask_the_database_again(world):
    the_seed(world)
    counting = Counting(world)
    asked = [
        lambda: groups(counting, [DEVICE]),
        lambda: important(counting, [DEVICE], "LOCATED_IN"),
        lambda: between(counting, [DEVICE]),
    ]
    first = [ask() for ask in asked]
    assert len(counting.computed()) == 3
    counting.sent.clear()
    assert [ask() for ask in asked] == first
    assert counting.computed() == [] and len(counting.sent) == 3  # one look at the counts each


def test_a_new_edge_that_the_question_reads_makes_it_new(world):
    the_seed(world)
    counting = Counting(world)
    assert groups(counting, [DEVICE])[0]["size"] == 5
    put(world, DEVICE, "d2", T1, LOCATED_IN="r9")
    counting.sent.clear()
    assert [group["size"] for group in groups(counting, [DEVICE])] == [5, 2]
    assert len(counting.computed()) == 1


def test_a_value_change_or_an_edge_the_question_does_not_read_keeps_the_answer(world):
    the_seed(world)
    counting = Counting(world)
    first = important(counting, [DEVICE], "LOCATED_IN")
    put(world, DEVICE, "d1", T3, {"status": "cold"}, LOCATED_IN="r2", USED_BY=["blue"])
    put(world, DEVICE, "d1", "2026-01-04T00:00:00Z", {"status": "cold"}, LOCATED_IN="r2", USED_BY=["green"])
    counting.sent.clear()
    assert important(counting, [DEVICE], "LOCATED_IN") == first
    assert counting.computed() == []
    assert len(important(counting, [DEVICE])) == 6  # a question that reads USED_BY sees green
    assert len(counting.computed()) == 1


def test_a_new_stamp_makes_every_answer_new(world):
    put(world, DEVICE, "d1", T1, {"status": "ok"}, LOCATED_IN="r1")
    put(world, DEVICE, "d1", T3, {"status": "hot"}, LOCATED_IN="r1")
    counting = Counting(world)
    groups(counting, [DEVICE])
    stamp = world.ro_query("MATCH (s:Stamp) RETURN s.id").result_set[0][0]
    put(world, DEVICE, "d1", T2, {"status": "warm"}, LOCATED_IN="r1")  # late: replaces a NEXT link
    assert world.ro_query("MATCH (s:Stamp) RETURN s.id").result_set[0][0] != stamp
    counting.sent.clear()
    groups(counting, [DEVICE])
    assert len(counting.computed()) == 1


def test_a_caller_gets_a_copy(world):
    the_seed(world)
    found = groups(world, [DEVICE])
    found[0]["members"].clear()
    found.append("mine")
    ranked = important(world, [DEVICE])
    ranked[0]["score"] = 99
    assert groups(world, [DEVICE])[0]["size"] == 5 and len(groups(world, [DEVICE])[0]["members"]) == 5
    assert len(groups(world, [DEVICE])) == 1
    assert important(world, [DEVICE])[0]["score"] < 1


def test_a_graph_without_a_stamp_keeps_nothing(graph):
    put(graph, DEVICE, "d1", T1, LOCATED_IN="r1")
    counting = Counting(graph)
    groups(counting, [DEVICE])
    groups(counting, [DEVICE])
    assert len(counting.computed()) == 2


def test_at_most_64_answers_are_kept_for_a_client(world):
    the_seed(world)
    counting = Counting(world)
    for limit in range(1, kept.MAX_ANSWERS + 2):
        groups(counting, [DEVICE], limit=limit)
    counting.sent.clear()
    groups(counting, [DEVICE], limit=kept.MAX_ANSWERS + 1)
    assert counting.computed() == []
    groups(counting, [DEVICE], limit=1)  # the oldest went
    assert len(counting.computed()) == 1


def test_a_group_lists_at_most_show_members_and_the_answer_is_kept(world):
    rows = [{"key": f"d{i:04d}", "t": T1, "relations": {"LOCATED_IN": "big"}} for i in range(1_050)]
    rows += [{"key": "z1", "t": T1, "relations": {"LOCATED_IN": "small"}}]
    assert {r["status"] for r in remember(world, DEVICE, by="test", rows=rows)} == {"created"}
    counting = Counting(world)
    found = groups(counting, [DEVICE], ["LOCATED_IN"], limit=2, show=1_000)
    assert [group["size"] for group in found] == [1_051, 2]
    assert found[0]["members"] == [("Device", f"d{i:04d}") for i in range(1_000)]
    assert found[1]["members"] == [("Device", "z1"), ("Room", "small")]
    counting.sent.clear()
    assert groups(counting, [DEVICE], ["LOCATED_IN"], limit=2, show=1_000) == found
    assert counting.computed() == []


# --- choices, refusals and limits ---------------------------------------------------------------------------


def test_the_counts_are_read_without_a_scan(world):
    """db.meta.stats() gives every label's and type's count at once; counting two labels in a query scans."""
    the_seed(world)
    plan = str(world.profile(kept._MEASURE))
    assert "ProcedureCall" in plan
    scans = [line for line in plan.splitlines() if "Scan" in line]
    assert scans == [line for line in scans if "(stamp:Stamp)" in line] and len(scans) == 1
    counted_twice = str(
        world.profile("MATCH (d:Device) WITH count(d) AS d MATCH (r:Room) RETURN d, count(r)")
    )
    assert "Node By Label Scan" in counted_twice
    found = kept.measure(world, scope([DEVICE]))
    assert dict(found.labels) == {"Device": 1, "Room": 2, "Team": 2}
    assert dict(found.types) == {"LOCATED_IN": 2, "USED_BY": 2}


def test_an_answer_of_more_than_10000_names_is_not_kept(world):
    the_seed(world)
    computed = []

    def compute():
        computed.append(1)
        return ["an answer"]

    for _ in range(2):
        kept.answered(world, ("big",), scope([DEVICE]), compute, lambda answer: kept.MAX_NAMES + 1)
    assert len(computed) == 2
    for _ in range(2):
        kept.answered(world, ("small",), scope([DEVICE]), compute, lambda answer: kept.MAX_NAMES)
    assert len(computed) == 3


def test_a_new_stamp_drops_every_answer_of_the_graph(world):
    put(world, DEVICE, "d1", T1, {"status": "ok"}, LOCATED_IN="r1")
    put(world, DEVICE, "d1", T3, {"status": "hot"}, LOCATED_IN="r1")
    groups(world, [DEVICE])
    important(world, [DEVICE])
    held = kept._kept[world.client]
    assert sum(1 for key in held if key[0] == world.name) == 2
    put(world, DEVICE, "d1", T2, {"status": "warm"}, LOCATED_IN="r1")  # late: a new stamp
    groups(world, [DEVICE])
    assert [key[1][0] for key in held if key[0] == world.name] == ["groups"]
