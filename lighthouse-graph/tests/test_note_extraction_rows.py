"""write_note_rows(): the facts drawn from a note written as candidates with the note as evidence, each
completed from what its entity held, each bad item kept as a WriteFailure."""

from __future__ import annotations

import json

import pytest
from lighthouse import (
    Kind,
    Refused,
    WrongType,
    as_of,
    candidates,
    ensure_schema,
    failures,
    note,
    related,
    remember,
    write_note_rows,
)

ROOM = Kind("Room", key="code")
DEVICE = Kind("Device", key="serial", relations={"LOCATED_IN": ROOM})
KINDS = {"Room": ROOM, "Device": DEVICE}
SAID = "2026-11-27T16:00:00Z"


@pytest.fixture
def noted(graph):
    ensure_schema(graph, [ROOM, DEVICE])
    return graph, note(graph, "pump-7 runs hot, and the fan is in the attic", "agent", at=SAID)["id"]


def test_good_facts_are_candidates_from_the_note_and_bad_ones_are_kept(noted):
    graph, note_id = noted
    facts = [
        {"kind": "Device", "key": "pump-7", "values": {"status": "hot"}},
        {"kind": "Room", "key": "attic", "t": "2026-11-20T00:00:00Z", "values": {}},
        "not an object",
        {"key": "no-kind"},
        {"kind": "Boat", "key": "b1"},
        {"kind": "Device", "key": "", "values": {}},  # the write rule refuses it: invalid
    ]
    written = write_note_rows(graph, KINDS, note_id, facts, "model:fake")
    assert written == {"rows": {"created": 2, "invalid": 1}, "refused": 4, "again": 0}
    state = as_of(graph, DEVICE, "pump-7", SAID)
    assert state["entry"] == note_id and state["valid_from"].isoformat().startswith("2026-11-27T16:00")
    assert as_of(graph, ROOM, "attic", "2026-11-21T00:00:00Z") is not None  # its own time
    assert {(one["kind"], one["key"]) for one in candidates(graph, [ROOM, DEVICE])} == {
        ("Device", "pump-7"),
        ("Room", "attic"),
    }
    details = [json.loads(one["detail"]) for one in failures(graph, reason="invalid")]
    assert {detail["why"] for detail in details if "why" in detail} == {
        "a fact is an object, not str",
        "a fact needs its kind: the label of a declared kind",
        "no kind 'Boat' is declared",
    }
    assert all(detail["note"] == note_id for detail in details if "why" in detail)
    again = write_note_rows(graph, list(KINDS.values()), note_id, facts[:2], "model:fake")
    assert again == {"rows": {"unchanged": 2}, "refused": 0, "again": 0}  # the same facts again: a replay


def test_a_fact_about_a_known_entity_keeps_what_it_does_not_name(noted):
    graph, note_id = noted
    remember(graph, ROOM, [{"key": "hall", "t": "2026-01-01T00:00:00Z", "values": {}}], "agent")
    held = {"key": "pump-7", "t": "2026-01-01T00:00:00Z", "values": {"status": "ok", "model": "X1"}}
    remember(graph, DEVICE, [{**held, "relations": {"LOCATED_IN": "hall"}}], "agent")
    write_note_rows(
        graph, KINDS, note_id, [{"kind": "Device", "key": "pump-7", "values": {"status": "hot"}}], "m"
    )
    state = as_of(graph, DEVICE, "pump-7", "2026-11-28T00:00:00Z")
    assert (state["status"], state["model"]) == ("hot", "X1")  # the model named only what changed
    assert related(graph, DEVICE, "pump-7", "LOCATED_IN", when="2026-11-28T00:00:00Z") == ["hall"]


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        ({"kinds": ["Device"]}, WrongType),
        ({"kinds": "Device"}, WrongType),
        ({"facts": {"kind": "Device"}}, WrongType),
        ({"facts": [{}] * 1_001}, Refused),
        ({"by": ""}, Refused),
        ({"note_id": "bad\x00id"}, Refused),
    ],
)
def test_bad_arguments_are_refused_before_anything_is_written(noted, arguments, error):
    graph, note_id = noted
    given = {"kinds": KINDS, "note_id": note_id, "facts": [{"kind": "Device", "key": "d1"}], "by": "m"}
    given |= arguments
    with pytest.raises(error):
        write_note_rows(graph, given["kinds"], given["note_id"], given["facts"], given["by"])
    assert candidates(graph, [ROOM, DEVICE]) == [] and failures(graph) == []


def test_an_id_of_no_note_is_refused_as_unknown(noted):
    graph, _note_id = noted
    with pytest.raises(Refused) as refused:
        write_note_rows(graph, KINDS, "no/1", [{"kind": "Device", "key": "d1"}], "m")
    assert refused.value.reason == "unknown" and candidates(graph, [DEVICE]) == []
