"""A small reviewed world the tests of the reading pages share: device d1 moved from room r1 to r2, a
model's candidate and a rejected State drawn from a note, and a second device in r1."""

from __future__ import annotations

from devices import DEVICE, KINDS, MANUAL, ROOM
from lighthouse import ensure_schema, note, reject, remember

DAY = "2026-01-0{}T00:00:00Z"


def reviewed(graph) -> dict:
    """d1: ok (day 1, in r1), warm (day 3, in r2), broken (day 5, a candidate rejected), broken again
    (day 6, a candidate drawn from a second note); d2: ok (day 2, in r1). Gives the notes' ids."""
    ensure_schema(graph, KINDS)
    rows = [
        {"key": "d1", "t": DAY.format(1), "values": {"status": "ok"}, "relations": {"LOCATED_IN": "r1"}},
        {"key": "d2", "t": DAY.format(2), "values": {"status": "ok"}, "relations": {"LOCATED_IN": "r1"}},
        {"key": "d1", "t": DAY.format(3), "values": {"status": "warm"}, "relations": {"LOCATED_IN": "r2"}},
    ]
    assert [r["status"] for r in remember(graph, DEVICE, rows, "inventory")] == [
        "created",
        "created",
        "changed",
    ]
    first = note(graph, "d1 is broken, says the model", "ops")["id"]
    second = note(graph, "d1 looks broken again", "ops")["id"]
    drawn = [
        {"key": "d1", "t": DAY.format(5), "values": {"status": "broken", "note": "cracked"}, "entry": first},
        {"key": "d1", "t": DAY.format(6), "values": {"status": "broken", "note": "dented"}, "entry": second},
    ]
    assert [r["status"] for r in remember(graph, DEVICE, drawn, "model:m1", candidate=True)] == [
        "changed"
    ] * 2
    assert reject(graph, DEVICE, "d1", DAY.format(5), "reviewer", "the pump was fine")["status"] == "rejected"
    remember(graph, MANUAL, [{"key": "m1", "t": DAY.format(1), "values": {"title": "pumps"}}], "docs")
    return {"first": first, "second": second, "rooms": ROOM}
