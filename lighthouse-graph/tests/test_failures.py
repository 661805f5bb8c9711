"""record_failures(), failures(): a refused write is kept once, with a count, whatever it held."""

from __future__ import annotations

import pytest
from devices import DEVICE
from lighthouse import failures, record_failure
from lighthouse.values import Refused
from lighthouse.write.failures import REFUSALS, Failure, record_failures
from oracle import sent


def count(graph) -> list:
    return graph.ro_query("MATCH (f:WriteFailure) RETURN count(f), sum(f.times)").result_set[0]


def test_a_refusal_is_kept_with_what_it_held(graph):
    record_failures(
        graph, [Failure("invalid", "Device", "d1", {"key": "d1", "values": {"a": 1}}, "why", "feed")]
    )
    [found] = failures(graph)
    assert {k: found[k] for k in ("reason", "message", "kind", "key", "detail", "times", "by", "owner")} == {
        "reason": "invalid",
        "message": "why",
        "kind": "Device",
        "key": "d1",
        "detail": '{"key": "d1", "values": {"a": 1}}',
        "times": 1,
        "by": "feed",
        "owner": None,
    }
    assert found["first_at"] == found["last_at"] and found["first_at"] is not None


def test_the_same_refusal_again_is_counted_on_the_same_node(graph):
    again = Failure("stale", "Device", 7, {"key": 7, "t": "x"}, "late", "feed")
    record_failures(graph, [again, again])
    record_failures(graph, [Failure("stale", "Device", 7, {"key": 7, "t": "x"}, "another message", "other")])
    assert count(graph) == [1, 3]
    assert failures(graph)[0]["by"] == "feed"  # the first one's
    record_failures(graph, [Failure("stale", "Device", 7, {"key": 7, "t": "y"}, "late", "feed")])
    record_failures(graph, [Failure("conflict", "Device", 7, {"key": 7, "t": "x"}, "late", "feed")])
    record_failures(graph, [Failure("stale", "Device", "7", {"key": 7, "t": "x"}, "late", "feed")])
    record_failures(graph, [Failure("stale", "Room", 7, {"key": 7, "t": "x"}, "late", "feed")])
    assert count(graph) == [5, 7]


def test_many_refusals_are_kept_in_one_query_and_none_costs_nothing(graph, db):
    with sent(db, graph.name) as commands:
        record_failures(graph, [])
        record_failures(graph, [Failure("invalid", "Device", f"d{i}", i) for i in range(300)])
    assert len(commands) == 1
    assert count(graph) == [300, 300]


def test_what_cannot_be_printed_is_kept_as_ascii_and_cut_to_2000_characters(graph):
    circular: dict = {}
    circular["self"] = circular
    hostile = [
        Failure("invalid", "Device", "d\ud800\x00", {"v": b"\x00\xff", "s": {1, 2}, "o": object()}),
        Failure("invalid", "Device", ["not", "a", "key"], circular, "m\x00\udc80"),
        Failure("invalid", "Dev\x00ice", True, "x" * 5_000, by="b\ud800y", owner="ann\x00"),
        Failure("invalid", "Device", 2**70, float("nan")),
    ]
    record_failures(graph, hostile)
    found = {f["detail"][:20]: f for f in failures(graph)}
    assert len(found) == 4
    for failure in found.values():
        assert failure["detail"].isascii() and len(failure["detail"]) <= 2_000
        assert failure["message"].isascii()
    first = next(f for f in found.values() if "\\ud800" in str(f["key"]))
    assert first["key"] == "d\\ud800\\x00"
    long = next(f for f in found.values() if f["detail"].startswith('"xxx'))
    assert len(long["detail"]) == 2_000 and long["owner"] == "ann\\x00" and long["by"] == "b\\ud800y"


def test_failures_are_read_by_kind_and_reason_newest_first(graph):
    record_failures(
        graph,
        [
            Failure("stale", "Device", "d1", 1),
            Failure("conflict", "Device", "d2", 2),
            Failure("stale", "Room", "r", 3),
        ],
    )
    assert sorted(f["key"] for f in failures(graph, kind=DEVICE)) == ["d1", "d2"]
    assert [f["key"] for f in failures(graph, kind="Room")] == ["r"]
    assert [f["key"] for f in failures(graph, kind=DEVICE, reason="stale")] == ["d1"]
    assert len(failures(graph, limit=2)) == 2
    assert failures(graph, reason="busy") == []


@pytest.mark.parametrize(
    "arguments",
    [
        {"limit": 0},
        {"limit": 10_001},
        {"limit": "5"},
        {"limit": True},
        {"kind": 5},
        {"reason": ["x"]},
        {"kind": "a\x00"},  # a NUL or a lone surrogate could not be sent: refused, not a database error
        {"reason": "a\x00"},
        {"kind": "\ud800"},
        {"reason": "\ud800"},
        {"reason": ""},
    ],
)
def test_failures_refuses_arguments_of_the_wrong_form(graph, arguments):
    with pytest.raises(Refused):
        failures(graph, **arguments)


def test_a_graph_that_does_not_exist_has_no_failures(db):
    assert failures(db.select_graph("test_no_such_graph_for_failures")) == []


def test_the_refusal_statuses():
    assert {"stale", "conflict", "missing", "invalid", "failed", "busy", "unknown"} == REFUSALS
    assert not REFUSALS & {"created", "changed", "inserted", "unchanged"}


def test_refuse_keeps_the_refusal_and_gives_its_receipt(graph):
    from lighthouse.write.failures import failures, refuse

    receipt = refuse(
        graph, "Handoff", "h1", {"to": "nobody"}, "missing", "the receiver does not exist", "desk"
    )
    assert receipt == {"id": "h1", "status": "missing", "reason": "the receiver does not exist"}
    again = refuse(graph, "Handoff", "h1", {"to": "nobody"}, "missing", "the receiver does not exist", "desk")
    assert again == receipt
    kept = failures(graph)
    assert [(one["reason"], one["kind"], one["key"], one["times"]) for one in kept] == [
        ("missing", "Handoff", "h1", 2)
    ]


def test_record_failure_is_public_and_keeps_the_applications_own_refusal(graph):
    assert record_failure(graph, "rejected_by_rule", DEVICE, "d1", "bad\x00" + "x" * 3_000, "u1") is None
    record_failure(graph, "rejected_by_rule", DEVICE, "d1", "bad\x00" + "x" * 3_000, "u1")
    [found] = failures(graph)
    assert (found["reason"], found["kind"], found["key"], found["owner"], found["times"]) == (
        "rejected_by_rule",
        "Device",
        "d1",
        "u1",
        2,
    )
    assert found["detail"].startswith("bad\\x00x") and len(found["detail"]) == 2_000


def test_record_failure_stores_what_is_not_valid_as_null(graph):
    record_failure(graph, "odd", kind=5, key=1.5, detail={"a": 1}, owner=" u")
    record_failure(graph, "odd", kind="Device", key=7)
    kept = sorted(failures(graph), key=lambda one: str(one["kind"]))
    assert [(one["kind"], one["key"], one["owner"], one["detail"]) for one in kept] == [
        ("Device", 7, None, None),
        (None, None, None, '{"a": 1}'),
    ]


@pytest.mark.parametrize("reason", [None, "", " x", 5, "x" * 201, "a\nb"])
def test_record_failure_refuses_a_reason_that_is_not_a_name_and_stores_nothing(graph, reason):
    with pytest.raises(Refused, match="must be text"):
        record_failure(graph, reason, DEVICE, "d1")
    assert failures(graph) == []


def test_the_identity_of_a_refusal_is_all_it_held_not_the_2000_characters_kept(graph):
    head = "x" * 2_500
    record_failures(graph, [Failure("invalid", "Device", "d1", {"note": head + "a"})])
    record_failures(graph, [Failure("invalid", "Device", "d1", {"note": head + "b"})])
    record_failures(graph, [Failure("invalid", "Device", "d1", {"note": head + "b"})])
    kept = failures(graph)
    assert sorted(one["times"] for one in kept) == [1, 2]
    assert kept[0]["detail"] == kept[1]["detail"]  # the same first 2,000 characters, two refusals
