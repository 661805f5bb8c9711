"""What a question may ask: kinds, relations, records, limits and times, and what is refused (API 2.13)."""

from __future__ import annotations

import pytest
from devices import DEVICE, KINDS, ROOM
from lighthouse import Refused, TooSlow, WrongType, ensure_schema
from lighthouse.algorithms.connection import connection
from lighthouse.algorithms.groups import groups
from lighthouse.algorithms.ranking import between, important
from lighthouse.algorithms.scope import RECORD_EDGES, checked_kinds, in_time, scope
from redis.exceptions import ResponseError
from test_algorithms import T1, Counting, the_seed


@pytest.fixture
def world(graph):
    ensure_schema(graph, KINDS)
    return graph


class HostileList(list):
    def __iter__(self):
        raise RuntimeError("no")

    def __len__(self):
        raise RuntimeError("no")


class HostileText(str):
    def __eq__(self, other):
        raise RuntimeError("no")

    __hash__ = str.__hash__


REFUSED = [
    (lambda g: groups(g, []), "at least one kind"),
    (lambda g: important(g, ()), "at least one kind"),
    (lambda g: between(g, []), "at least one kind"),
    (lambda g: groups(g, [DEVICE], ["KNOWS"]), "not a relation of these kinds"),
    (lambda g: groups(g, [DEVICE], [HostileText("LOCATED_IN")]), "not a relation of these kinds"),
    (lambda g: groups(g, [DEVICE], "LOCATED_IN"), "relations must be a list"),
    (lambda g: groups(g, [DEVICE], ["LOCATED_IN"] * 201), "relations must be a list"),
    (lambda g: groups(g, [DEVICE], HostileList(["LOCATED_IN"])), "relations must be a list"),
    (lambda g: groups(g, [DEVICE], []), "no relation to follow"),
    (lambda g: groups(g, [ROOM]), "no relation to follow"),
    (lambda g: groups(g, [DEVICE], records=["Task"]), "not a record"),
    (lambda g: groups(g, [DEVICE], records=[HostileText("Entry")]), "not a record"),
    (lambda g: groups(g, [DEVICE], records=["Episode"], at=T1), "records"),
    (lambda g: groups(g, [DEVICE], ["ABOUT"], at=T1), "records"),
    (lambda g: groups(g, [DEVICE], at_least=0), "at_least must be a whole number from 1 to 1000000"),
    (lambda g: groups(g, [DEVICE], limit=1001), "limit must be a whole number from 1 to 1000"),
    (lambda g: groups(g, [DEVICE], limit=True), "limit must be a whole number"),
    (lambda g: groups(g, [DEVICE], show=0), "show must be a whole number from 1 to 1000"),
    (lambda g: groups(g, [DEVICE], at="yesterday"), "ISO 8601"),
    (lambda g: groups(g, [DEVICE], at=""), "a time is needed"),
    (lambda g: groups(g, [DEVICE], most=0), "most"),
    (lambda g: groups(g, [DEVICE], most=2_000_000), "most"),
    (lambda g: important(g, [DEVICE], ["LOCATED_IN"]), "not a list"),
    (lambda g: important(g, [DEVICE], "KNOWS"), "not a relation of these kinds"),
    (lambda g: important(g, [DEVICE], limit=1.5), "limit must be a whole number"),
    (lambda g: between(g, [DEVICE], sample=0), "sample must be a whole number from 1 to 1000"),
    (lambda g: between(g, [DEVICE], sample=1.5), "sample must be a whole number"),
    (lambda g: between(g, [DEVICE], seed=0), "seed must be a whole number from 1 to 2147483647"),
    (lambda g: between(g, [DEVICE], seed=2**31), "seed must be a whole number"),
    (lambda g: between(g, [DEVICE], relations=[None]), "not a relation of these kinds"),
    (lambda g: connection(g, ("Device", "d1"), (DEVICE, "d2")), "start: not a reference"),
    (lambda g: connection(g, (DEVICE, None), (DEVICE, "d2")), "start: not a reference"),
    (lambda g: connection(g, (DEVICE, "d1"), (DEVICE, HostileText("d2"))), "end: not a reference"),
    (lambda g: connection(g, (DEVICE, "d1"), "d2"), "end: not a reference"),
    (lambda g: connection(g, (DEVICE, "d1"), (DEVICE, "d2"), relations=["KNOWS"]), "not a relation"),
    (lambda g: connection(g, (DEVICE, "d1"), (DEVICE, "d2"), relations=["ABOUT"], at=T1), "records"),
    (lambda g: connection(g, (DEVICE, "d1"), (DEVICE, "d2"), max_hops=0), "max_hops must be a whole number"),
    (lambda g: connection(g, (DEVICE, "d1"), (DEVICE, "d2"), max_hops=11), "from 1 to 10"),
]


@pytest.mark.parametrize(("call", "says"), REFUSED)
def test_what_cannot_be_asked_is_refused_before_anything_is_read(world, call, says):
    the_seed(world)
    counting = Counting(world)
    with pytest.raises(Refused, match=says):
        call(counting)
    assert counting.sent == []


WRONG = [
    lambda g: groups(g, DEVICE),
    lambda g: groups(g, "Device"),
    lambda g: groups(g, ["Device"]),
    lambda g: groups(g, DEVICE.relations),
    lambda g: groups(g, HostileList([DEVICE])),
    lambda g: important(g, {DEVICE}),
    lambda g: between(g, [DEVICE, None]),
    lambda g: groups(g, [DEVICE], records=None),
    lambda g: groups(g, [DEVICE], records="Episode"),
    lambda g: groups(g, [DEVICE], records=HostileList(["Episode"])),
    lambda g: groups(g, [DEVICE], at=5),
    lambda g: connection(g, (DEVICE, "d1"), (DEVICE, "d2"), kinds=None),
    lambda g: connection(g, (DEVICE, "d1"), (DEVICE, "d2"), kinds=DEVICE),
    lambda g: connection(g, (DEVICE, "d1"), (DEVICE, "d2"), kinds=HostileList([ROOM])),
]


@pytest.mark.parametrize("call", WRONG)
def test_a_container_of_the_wrong_sort_raises_a_type_error(world, call):
    counting = Counting(world)
    with pytest.raises(WrongType) as raised:
        call(counting)
    assert isinstance(raised.value, TypeError)
    assert counting.sent == []


def test_the_message_for_kinds_is_the_apis():
    with pytest.raises(TypeError, match="kinds must be a list of Kind"):
        checked_kinds("Device")
    assert checked_kinds((), empty=True) == []


def test_record_edges_may_be_named_and_records_take_part_by_their_id(world):
    found = scope([DEVICE], ["LOCATED_IN", *RECORD_EDGES], ("Entry", "Episode"))
    assert found.labels == ("Device", "Entry", "Episode", "Room")
    assert ("Episode", "HAS", "Entry") in found.ends and ("Entry", "CITES", "Device") in found.ends
    assert ("Device", "LOCATED_IN", "Room") in found.ends
    assert ("Device", "USED_BY", "Team") not in found.ends  # USED_BY was not named


def test_at_a_time_each_answers_from_what_held_then(world):
    the_seed(world)
    assert groups(world, [DEVICE], ["LOCATED_IN"], at=T1) == [
        {"size": 2, "members": [("Device", "d1"), ("Room", "r1")]}
    ]
    assert connection(world, (DEVICE, "d1"), (ROOM, "r2"), at=T1) is None


def test_a_read_that_the_server_stopped_is_too_slow_and_other_errors_pass():
    with pytest.raises(TooSlow) as raised, in_time():
        raise ResponseError("Query timed out")
    assert isinstance(raised.value, ResponseError)
    with pytest.raises(ResponseError, match="unknown function") as raised, in_time():
        raise ResponseError("unknown function 'x'")
    assert not isinstance(raised.value, TooSlow)
