"""history(), as_of(), related(): what an entity held, at any time, in one read each."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from devices import DEVICE, MANUAL, ROOM
from lighthouse import as_of, history, related, remember
from lighthouse.values import Refused, WrongType
from oracle import at, moment, sent


@pytest.fixture
def stored(graph):
    graph.query("CREATE (:Entry {id: 'look/1'})")
    remember(
        graph,
        DEVICE,
        [
            {
                "key": "d1",
                "t": at(0),
                "values": {"status": "ok", "note": "Pump room", "last_seen": at(0), "levels": [1, 2]},
                "relations": {"LOCATED_IN": "r1", "USED_BY": ["red", 7]},
                "entry": "look/1",
            },
            {"key": "d1", "t": at(2), "values": {"status": "hot"}, "relations": {"USED_BY": "blue"}},
            {"key": "d1", "t": at(3), "values": {"status": "hot"}, "relations": {"USED_BY": "blue"}},
            {"key": 1, "t": at(0), "values": {"status": "the number one"}},
        ],
        "inventory",
    )
    return graph


def test_history_gives_every_version_oldest_first(stored):
    found = history(stored, DEVICE, "d1")
    assert [set(state) for state in found] == [
        {
            "status",
            "note",
            "last_seen",
            "levels",
            "valid_from",
            "valid_to",
            "recorded_at",
            "by",
            "fp",
            "entry",
        },
        {"status", "valid_from", "seen_last", "recorded_at", "by", "fp"},
    ]
    first, second = found
    assert first["last_seen"] == moment(at(0)) and isinstance(first["last_seen"], datetime)
    assert (first["valid_from"], first["valid_to"], first.get("seen_last")) == (
        moment(at(0)),
        moment(at(2)),
        None,
    )
    assert "valid_to" not in second and second["seen_last"] == moment(at(3))
    assert first["entry"] == "look/1" and "entry" not in second
    assert first["fp"] != second["fp"] and int(first["fp"], 16) >= 0
    assert first["by"] == "inventory" and first["levels"] == [1, 2]
    assert first["recorded_at"].tzinfo is not None
    assert history(stored, DEVICE, 1)[0]["status"] == "the number one"
    assert history(stored, DEVICE, "1") == [] and history(stored, DEVICE, "nothing") == []


def test_as_of_gives_the_state_that_held(stored):
    assert as_of(stored, DEVICE, "d1", at(-1)) is None
    assert as_of(stored, DEVICE, "d1", at(0))["status"] == "ok"
    assert as_of(stored, DEVICE, "d1", "2026-01-01T01:59:59Z")["status"] == "ok"
    assert as_of(stored, DEVICE, "d1", at(2))["status"] == "hot"  # valid_to is not in the State
    assert as_of(stored, DEVICE, "d1", "2026-06-01T00:00:00Z")["status"] == "hot"
    assert as_of(stored, DEVICE, "d1", at(0)) == history(stored, DEVICE, "d1")[0]  # the shape of history()
    assert as_of(stored, DEVICE, "d1", moment(at(1)))["entry"] == "look/1"
    assert as_of(stored, DEVICE, "d2", at(1)) is None


def test_related_gives_the_targets_that_held_sorted(stored):
    assert related(stored, DEVICE, "d1", "USED_BY", at(1)) == [7, "red"]
    assert related(stored, DEVICE, "d1", "USED_BY", at(2)) == ["blue"]
    assert related(stored, DEVICE, "d1", "USED_BY") == ["blue"]
    assert related(stored, DEVICE, "d1", "LOCATED_IN", at(1)) == ["r1"]
    assert related(stored, DEVICE, "d1", "LOCATED_IN") == []
    assert related(stored, DEVICE, "d1", "LOCATED_IN", at(-1)) == []


def test_each_read_is_one_query(stored, db):
    with sent(db, stored.name) as commands:
        history(stored, DEVICE, "d1")
        as_of(stored, DEVICE, "d1", at(1))
        related(stored, DEVICE, "d1", "USED_BY", at(1))
    assert [command for command, _ in commands] == ["GRAPH.RO_QUERY"] * 3


def test_a_graph_that_does_not_exist_yet_reads_as_empty(db):
    nothing = db.select_graph("test_never_written_by_anyone")
    assert history(nothing, DEVICE, "d1") == []
    assert as_of(nothing, DEVICE, "d1", at(0)) is None
    assert related(nothing, DEVICE, "d1", "USED_BY") == []
    assert "test_never_written_by_anyone" not in db.list_graphs()


def test_a_kind_without_relations_or_with_text(graph):
    remember(graph, MANUAL, [{"key": "m1", "t": at(0), "values": {"title": "Seal", "body": "Pump"}}], "w")
    assert history(graph, MANUAL, "m1")[0]["title"] == "Seal"
    assert "words" not in history(graph, MANUAL, "m1")[0]
    with pytest.raises(Refused, match="no relation"):
        related(graph, ROOM, "r1", "LOCATED_IN")


@pytest.mark.parametrize("key", [None, 1.5, True, "", " d1", "d" * 201, "d\x00", "d\ud800", ["d1"], 2**64])
def test_keys_of_the_wrong_form_are_refused(stored, key):
    for read in (
        lambda: history(stored, DEVICE, key),
        lambda: as_of(stored, DEVICE, key, at(0)),
        lambda: related(stored, DEVICE, key, "USED_BY"),
    ):
        with pytest.raises(Refused):
            read()


@pytest.mark.parametrize("moment_given", ["yesterday", "", "  ", "2026-13-01T00:00:00Z"])
def test_times_of_the_wrong_form_are_refused(stored, moment_given):
    with pytest.raises(Refused):
        as_of(stored, DEVICE, "d1", moment_given)
    with pytest.raises(Refused):
        related(stored, DEVICE, "d1", "USED_BY", moment_given)


def test_as_of_needs_its_time_and_a_time_of_another_type_is_the_wrong_type(stored):
    with pytest.raises(Refused):
        as_of(stored, DEVICE, "d1", None)
    with pytest.raises(TypeError):
        as_of(stored, DEVICE, "d1", 12345)
    with pytest.raises(WrongType):
        related(stored, DEVICE, "d1", "USED_BY", [at(0)])
    naive = as_of(stored, DEVICE, "d1", "2026-01-01T00:00:00")  # a time without a zone is UTC
    assert naive["status"] == "ok"
    assert as_of(stored, DEVICE, "d1", "2026-01-01T01:59:59.9Z")["status"] == "ok"  # the fraction is cut


def test_values_named_as_the_library_once_named_its_own_are_stored_and_read_back(graph):
    given = {"kind": "pump", "model": "m-1", "rev": 3, "embedding": [0.5, 1.5], "serial_no": "x"}
    assert (
        remember(graph, DEVICE, [{"key": "d1", "t": at(0), "values": given}], "w")[0]["status"] == "created"
    )
    shown = history(graph, DEVICE, "d1")[0]
    assert {name: shown[name] for name in given} == given
    assert as_of(graph, DEVICE, "d1", at(0))["rev"] == 3
    again = remember(graph, DEVICE, [{"key": "d1", "t": at(1), "values": given}], "w")
    assert again == [{"key": "d1", "status": "unchanged"}]


def test_kinds_and_relations_of_the_wrong_form_are_refused(stored):
    with pytest.raises(Refused, match="Kind"):
        history(stored, "Device", "d1")
    with pytest.raises(Refused, match="Kind"):
        as_of(stored, None, "d1", at(0))
    for relation in ("KNOWS", "used_by", None, "USED_BY`]->() DETACH DELETE x //"):
        with pytest.raises(Refused, match="no relation"):
            related(stored, DEVICE, "d1", relation)
    assert len(history(stored, DEVICE, "d1")) == 2


def test_a_relation_that_cannot_be_printed_is_refused_not_a_crash(graph):
    class Hostile:
        def __str__(self):
            raise RuntimeError("no")

    from devices import DEVICE
    from lighthouse.read import related
    from lighthouse.values import Refused

    with pytest.raises(Refused):
        related(graph, DEVICE, "d1", Hostile())


def test_a_time_past_the_window_reads_what_holds_at_its_end_and_one_before_it_finds_nothing(stored):
    # API 2.3: as_of() raises only for a time that is missing or cannot be read. No stored time lies past
    # 2068-01-19T03:14:07 (clock.LATEST), so any later time sees what that last second sees.
    current = as_of(stored, DEVICE, "d1", "2026-06-01T00:00:00Z")
    assert as_of(stored, DEVICE, "d1", "2100-01-01T00:00:00Z") == current
    assert as_of(stored, DEVICE, "d1", datetime(9999, 12, 31, tzinfo=UTC)) == current
    assert related(stored, DEVICE, "d1", "USED_BY", "2100-01-01T00:00:00Z") == ["blue"]
    # No stored time lies before 2000-01-01 (clock.EARLIEST) either: a time before it finds nothing, where
    # its first second would see what began then.
    assert as_of(stored, DEVICE, "d1", "1999-12-31T23:59:59Z") is None
    assert related(stored, DEVICE, "d1", "USED_BY", "1999-12-31T23:59:59Z") == []
