"""entries_by_id() and cited_by(): the entries behind an entity."""

from __future__ import annotations

import pytest
from devices import DEVICE, KINDS
from lighthouse import (
    Refused,
    WrongType,
    cited_by,
    ensure_schema,
    entries_by_id,
    invalidate_entry,
    open_episode,
    record,
)
from reviewed_devices import reviewed


def test_entries_by_id_with_their_values_and_invalidation(graph):
    notes = reviewed(graph)
    invalidate_entry(graph, notes["first"], "reviewer", "wrong device")
    found = entries_by_id(graph, [notes["first"], notes["second"], notes["first"], "no/such"])
    assert sorted(found) == sorted([notes["first"], notes["second"]])
    first = found[notes["first"]]
    assert (
        first["type"] == "note"
        and first["by"] == "ops"
        and first["values"]["text"].startswith("d1 is broken")
    )
    assert first["invalidated_by"] == "reviewer" and first["invalidated_why"] == "wrong device"
    assert first["at"].tzinfo is not None and first["invalidated_at"].tzinfo is not None
    assert found[notes["second"]]["invalidated_at"] is None
    assert entries_by_id(graph, []) == {}


def test_the_entries_citing_an_entity_oldest_first(graph):
    ensure_schema(graph, KINDS)
    reviewed(graph)
    open_episode(graph, "ep", "planner")
    later = record(graph, "ep", "check", "planner", {"ok": True}, [(DEVICE, "d1")], "2026-01-04T00:00:00Z")
    earlier = record(graph, "ep", "check", "planner", {"ok": False}, [(DEVICE, "d1")], "2026-01-02T00:00:00Z")
    cites = cited_by(graph, DEVICE, "d1")
    assert [one["id"] for one in cites] == [earlier["id"], later["id"]]
    assert cites[0]["as_of"].isoformat().startswith("2026-01-02") and cites[0]["episode"] == "ep"
    assert cited_by(graph, DEVICE, "d2") == []
    assert len(cited_by(graph, DEVICE, "d1", limit=1)) == 1


def test_refusals(graph):
    with pytest.raises(WrongType):
        entries_by_id(graph, "an id")
    with pytest.raises(Refused):
        entries_by_id(graph, ["x"] * 10_001)
    with pytest.raises(Refused):
        entries_by_id(graph, [" padded "])
    with pytest.raises(Refused):
        cited_by(graph, DEVICE, "d1", limit=0)
