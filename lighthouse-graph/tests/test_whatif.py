"""what_if(): rows laid over a time without writing them; the groups before and after and the ranks that
would move, checked against what the same rows do once they are written."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from devices import DEVICE, KINDS, PERSON, ROOM
from lighthouse import Refused, WrongType, ensure_schema, remember
from lighthouse.algorithms.groups import groups
from lighthouse.algorithms.ranking import important
from lighthouse.playbooks import playbooks_for
from lighthouse.whatif import MAX_LAID, MAX_SHIFTS, what_if
from test_algorithms import Counting, as_sets, put, scores

T1, T2, T3 = "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z"


@pytest.fixture
def world(graph):
    ensure_schema(graph, KINDS)
    return graph


def row(key, **relations) -> dict:
    return {"key": key, "relations": relations}


def test_rows_that_join_two_groups_merge_them(world):
    put(world, DEVICE, "d1", T1, LOCATED_IN="r1")
    put(world, DEVICE, "d2", T1, LOCATED_IN="r2")
    found = what_if(world, [DEVICE], [(DEVICE, [row("d2", LOCATED_IN="r1")])], at=T2)
    assert found["at"] == "2026-01-02T00:00:00"
    assert found["groups_before"] == [
        {"size": 2, "members": [("Device", "d1"), ("Room", "r1")]},
        {"size": 2, "members": [("Device", "d2"), ("Room", "r2")]},
    ]
    assert found["groups_after"] == [
        {"size": 3, "members": [("Device", "d1"), ("Device", "d2"), ("Room", "r1")]}
    ]
    moved = {move["entity"]: move for move in found["rank_shifts"]}
    assert moved[("Room", "r1")]["delta"] > 0
    assert moved[("Room", "r1")]["delta"] == pytest.approx(
        moved[("Room", "r1")]["after"] - moved[("Room", "r1")]["before"]
    )
    assert moved[("Room", "r2")]["after"] is None  # nothing points at r2 any more: it is gone then
    assert found["playbooks"] == []


def test_what_a_row_does_not_name_is_closed(world):
    put(world, DEVICE, "d1", T1, LOCATED_IN="r1", USED_BY=["red", "blue"])
    found = what_if(world, [DEVICE], [(DEVICE, [row("d1", LOCATED_IN="r1")])], at=T2)
    gone = {move["entity"] for move in found["rank_shifts"] if move["after"] is None}
    assert gone == {("Team", "red"), ("Team", "blue")}
    assert found["groups_after"] == [{"size": 2, "members": [("Device", "d1"), ("Room", "r1")]}]
    # Only each row's key and relations are used: values and times are not read.
    same = what_if(
        world, [DEVICE], [(DEVICE, [{**row("d1", LOCATED_IN="r1"), "values": {"x": 1}, "t": "soon"}])], at=T2
    )
    assert same == found


def test_the_answer_is_what_writing_the_rows_would_do(world):
    for key, room, teams in (
        ("d1", "r1", ["red"]),
        ("d2", "r2", ["blue"]),
        ("d3", "r2", []),
        ("d4", "r3", ["red"]),
    ):
        put(world, DEVICE, key, T1, LOCATED_IN=room, USED_BY=teams)
    rows = [row("d3", LOCATED_IN="r3", USED_BY=["green"]), row("d5", LOCATED_IN="r1", USED_BY=["blue"])]
    before = scores(important(world, [DEVICE], at=T2, limit=1000))
    found = what_if(world, [DEVICE], [(DEVICE, rows)], at=T2)
    assert world.ro_query("MATCH (d:Device {key: 'd5'}) RETURN count(d)").result_set == [[0]]
    assert found["groups_before"] == groups(world, [DEVICE], at=T2)
    receipts = remember(world, DEVICE, by="test", rows=[{**one, "t": T2} for one in rows])
    assert [receipt["status"] for receipt in receipts] == ["changed", "created"]
    after = scores(important(world, [DEVICE], at=T2, limit=1000))
    assert found["groups_after"] == groups(world, [DEVICE], at=T2)
    changes = sorted(
        (abs(after.get(name, 0.0) - before.get(name, 0.0)), name) for name in set(before) | set(after)
    )
    moved = {move["entity"]: move for move in found["rank_shifts"]}
    assert len(moved) == min(MAX_SHIFTS, sum(1 for change, _ in changes if change > 1e-9))
    for name, move in moved.items():
        assert (move["before"], move["after"]) == pytest.approx((before.get(name), after.get(name)))
    assert as_sets(found["groups_after"]) == as_sets(groups(world, [DEVICE], at=T2))


def test_at_most_ten_rank_shifts_the_largest_first(world):
    put(world, DEVICE, "d0", T1, LOCATED_IN="hub")
    rows = [row(f"d{i}", LOCATED_IN=f"r{i}") for i in range(1, 20)]
    found = what_if(world, [DEVICE], [(DEVICE, rows)], at=T2)
    assert len(found["rank_shifts"]) == MAX_SHIFTS
    sizes = [abs(move["delta"]) for move in found["rank_shifts"]]
    assert sizes == sorted(sizes, reverse=True)


def test_the_last_row_of_an_entity_is_laid(world):
    put(world, DEVICE, "d1", T1, LOCATED_IN="r1")
    found = what_if(
        world,
        [DEVICE],
        [(DEVICE, [row("d1", LOCATED_IN="r2")]), (DEVICE, [row("d1", LOCATED_IN="r3")])],
        at=T2,
    )
    assert found["groups_after"] == [{"size": 2, "members": [("Device", "d1"), ("Room", "r3")]}]


def test_rows_of_several_kinds_and_other_kinds_asked_about(world):
    put(world, PERSON, "ann", T1, KNOWS=["bob"])
    put(world, DEVICE, "d1", T1, LOCATED_IN="r1")
    found = what_if(
        world,
        [PERSON, DEVICE],
        [(DEVICE, [row("d1", LOCATED_IN="r2")]), (PERSON, [row("cat", KNOWS=["ann"])])],
        at=T2,
    )
    assert as_sets(found["groups_after"]) == {
        frozenset({("Person", "ann"), ("Person", "bob"), ("Person", "cat")}),
        frozenset({("Device", "d1"), ("Room", "r2")}),
    }


def test_nothing_is_written(world):
    put(world, DEVICE, "d1", T1, LOCATED_IN="r1")

    def picture():
        stats = world.ro_query(
            "CALL db.meta.stats() YIELD labels, relTypes, nodeCount, relCount RETURN *"
        ).result_set
        return stats, world.ro_query("MATCH (s:Stamp) RETURN s.id").result_set

    was = picture()
    counting = Counting(world)
    what_if(counting, [DEVICE], [(DEVICE, [row("d9", LOCATED_IN="r9", USED_BY=["x"])])], at=T2)
    with pytest.raises(Refused):
        what_if(counting, [DEVICE], [(DEVICE, [row("d9", NOPE="r9")])], at=T2)
    assert picture() == was
    assert all(not text.lstrip().upper().startswith(("CREATE", "MERGE")) for text in counting.sent)


def test_the_playbooks_are_those_for_the_situation(world):
    put(world, DEVICE, "d1", T1, LOCATED_IN="r1")
    situation = {"room": "r1"}
    found = what_if(world, [DEVICE], [(DEVICE, [row("d1", LOCATED_IN="r2")])], at=T2, situation=situation)
    assert found["playbooks"] == playbooks_for(world, situation)
    with pytest.raises(WrongType):
        what_if(world, [DEVICE], [], at=T2, situation=["room"])


def test_without_a_time_the_rows_are_laid_over_now(world):
    put(world, DEVICE, "d1", T1, LOCATED_IN="r1")
    found = what_if(world, [DEVICE], [(DEVICE, [row("d2", LOCATED_IN="r1")])])
    at = datetime.fromisoformat(found["at"]).replace(tzinfo=UTC)
    assert type(found["at"]) is str and abs((at - datetime.now(UTC)).total_seconds()) < 60
    assert {move["entity"] for move in found["rank_shifts"]} >= {("Device", "d2"), ("Room", "r1")}


class HostileList(list):
    def __iter__(self):
        raise RuntimeError("no")


class HostileKey(str):
    def __hash__(self):
        raise RuntimeError("no")


@pytest.mark.parametrize(
    "call",
    [
        lambda g: what_if(g, DEVICE, []),
        lambda g: what_if(g, "Device", []),
        lambda g: what_if(g, HostileList([DEVICE]), []),
        lambda g: what_if(g, [DEVICE], (DEVICE, [row("d1")])),
        lambda g: what_if(g, [DEVICE], {DEVICE: []}),
        lambda g: what_if(g, [DEVICE], HostileList([(DEVICE, [])])),
        lambda g: what_if(g, [DEVICE], [(DEVICE, [{"key": "d1", "relations": ["LOCATED_IN"]}])]),
        lambda g: what_if(g, [DEVICE], [(DEVICE, [{"key": "d1", "relations": "r1"}])]),
    ],
)
def test_a_container_of_the_wrong_sort_raises_a_type_error(world, call):
    counting = Counting(world)
    with pytest.raises(WrongType):
        call(counting)
    assert counting.sent == []


@pytest.mark.parametrize(
    "call",
    [
        lambda g: what_if(g, [], []),
        lambda g: what_if(g, [DEVICE], [], at=""),
        lambda g: what_if(g, [DEVICE], [], at="later"),
        lambda g: what_if(g, [DEVICE], [DEVICE]),
        lambda g: what_if(g, [DEVICE], [("Device", [row("d1")])]),
        lambda g: what_if(g, [DEVICE], [(DEVICE, row("d1"))]),
        lambda g: what_if(g, [DEVICE], [(DEVICE, [row("d1")], "more")]),
        lambda g: what_if(g, [DEVICE], [(DEVICE, ["d1"])]),
        lambda g: what_if(g, [DEVICE], [(DEVICE, [{"relations": {}}])]),
        lambda g: what_if(g, [DEVICE], [(DEVICE, [{"key": None}])]),
        lambda g: what_if(g, [DEVICE], [(DEVICE, [{"key": HostileKey("d1")}])]),
        lambda g: what_if(g, [DEVICE], [(DEVICE, [{"key": 1.5}])]),
        lambda g: what_if(g, [DEVICE], [(DEVICE, [row("d1", KNOWS="x")])]),
        lambda g: what_if(g, [DEVICE], [(DEVICE, [row("d1", LOCATED_IN=None)])]),
        lambda g: what_if(g, [DEVICE], [(DEVICE, [row("d1", LOCATED_IN=[HostileKey("r1")])])]),
        lambda g: what_if(g, [DEVICE], [(DEVICE, [row("d1", LOCATED_IN=["r1", 2.5])])]),
        lambda g: what_if(g, [DEVICE], [(DEVICE, [row(f"d{i}") for i in range(MAX_LAID + 1)])]),
        lambda g: what_if(g, [ROOM], []),
    ],
)
def test_what_cannot_be_laid_is_refused_before_anything_is_read(world, call):
    counting = Counting(world)
    with pytest.raises(Refused) as raised:
        call(counting)
    assert isinstance(raised.value, ValueError)
    assert counting.sent == []
