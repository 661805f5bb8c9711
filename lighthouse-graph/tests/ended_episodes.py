"""Episodes that ended, which lessons, playbooks and promotion learn from."""

from __future__ import annotations

from devices import DEVICE
from lighthouse import close_episode, ensure_schema, open_episode, record, remember


def ended(graph, name: str, outcome: dict | None = None, observed: dict | None = None) -> str:
    """An episode about d1 that the watcher opened and the reviewer closed with its outcome ({"failed":
    False} without one); observed: the values of an observation of d1 recorded in between."""
    assert open_episode(graph, name, by="watcher", about=[(DEVICE, "d1")])["status"] == "opened"
    if observed is not None:
        receipt = record(graph, name, "observation", by="watcher", values=observed, cites=[(DEVICE, "d1")])
        assert receipt["status"] == "recorded", receipt
    closing = close_episode(graph, name, by="reviewer", outcome=outcome or {"failed": False})
    assert closing["status"] == "recorded", closing
    return name


def overheat(graph) -> str:
    """The seed's example: d1, ok on 1 January, and the episode d1-overheat that saw it hot and ended,
    its outcome citing what it saw."""
    ensure_schema(graph, [DEVICE])
    remember(
        graph,
        DEVICE,
        by="inventory",
        rows=[{"key": "d1", "t": "2026-01-01T00:00:00Z", "values": {"status": "ok"}}],
    )
    open_episode(graph, "d1-overheat", by="watcher", about=[(DEVICE, "d1")])
    record(
        graph, "d1-overheat", "observation", by="watcher", values={"status": "hot"}, cites=[(DEVICE, "d1")]
    )
    close_episode(graph, "d1-overheat", by="reviewer", outcome={"failed": False}, cites=["d1-overheat/1"])
    return "d1-overheat"
