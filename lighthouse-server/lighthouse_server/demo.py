"""The demo: the README's example, run against a graph, printing what each call gives."""

from __future__ import annotations

import sys
from typing import TextIO

from lighthouse import (
    Kind,
    as_of,
    close_episode,
    connection,
    ensure_schema,
    episodes_about,
    groups,
    history,
    messages,
    open_episode,
    record,
    related,
    remember,
    say,
    search,
    update,
)

ROOM = Kind("Room", key="code")
TEAM = Kind("Team", key="name")
DEVICE = Kind(
    "Device",
    key="serial",
    times=("last_seen",),
    text=("note",),
    relations={"LOCATED_IN": ROOM, "USED_BY": TEAM},
)


def run(graph, out: TextIO = sys.stdout) -> dict:
    """Runs the example; returns what each step gave, by name, and prints it."""
    seen: dict = {}

    def show(name: str, value: object) -> None:
        seen[name] = value
        print(f"{name}: {value!r}", file=out, flush=True)

    ensure_schema(graph, [DEVICE])
    first = {
        "key": "d1",
        "t": "2026-01-01T00:00:00Z",
        "values": {"status": "ok", "note": "pump room sensor", "last_seen": "2026-01-01T00:00:00Z"},
        "relations": {"LOCATED_IN": "r1", "USED_BY": ["red", "blue"]},
    }
    # The published API's order: graph, kind, rows, by.
    show("remember first", remember(graph, DEVICE, [first], "inventory"))
    second = {
        "key": "d1",
        "t": "2026-01-02T00:00:00Z",
        "values": {"status": "hot", "note": "pump room sensor"},
        "relations": {"LOCATED_IN": "r2", "USED_BY": ["blue"]},
    }
    show("remember second", remember(graph, DEVICE, by="inventory", rows=[second]))
    show("both again", remember(graph, DEVICE, by="inventory", rows=[first, second]))
    show(
        "versions",
        [(state["valid_from"].isoformat(), state["status"]) for state in history(graph, DEVICE, "d1")],
    )
    show("status at noon", as_of(graph, DEVICE, "d1", "2026-01-01T12:00:00Z")["status"])
    show("located in now", related(graph, DEVICE, "d1", "LOCATED_IN"))
    show("used by at noon", related(graph, DEVICE, "d1", "USED_BY", "2026-01-01T12:00:00Z"))
    late = {
        "key": "d1",
        "t": "2026-01-01T18:00:00Z",
        "values": {"status": "warm"},
        "relations": {"LOCATED_IN": "r1"},
    }
    show("late row", remember(graph, DEVICE, by="inventory", rows=[late]))
    show("status at 20:00", as_of(graph, DEVICE, "d1", "2026-01-01T20:00:00Z")["status"])
    show(
        "partial update",
        update(graph, DEVICE, "d1", "2026-01-03T00:00:00Z", by="agent", values={"status": "ok"}),
    )
    show("located in after update", related(graph, DEVICE, "d1", "LOCATED_IN"))
    show("search", [found["key"] for found in search(graph, DEVICE, "pump sensor")])
    show("open episode", open_episode(graph, "demo-overheat", by="watcher", about=[(DEVICE, "d1")]))
    seen_hot = record(
        graph, "demo-overheat", "observation", by="watcher", values={"status": "hot"}, cites=[(DEVICE, "d1")]
    )
    show("record", seen_hot)
    show(
        "close episode",
        close_episode(
            graph, "demo-overheat", by="reviewer", outcome={"failed": False}, cites=["demo-overheat/1"]
        ),
    )
    show(
        "episodes about d1",
        [(found["id"], found["outcome"]["failed"]) for found in episodes_about(graph, DEVICE, "d1")],
    )
    show("say", say(graph, "ann", "demo", "user", "why is d1 hot?", by="ann", mentions=[(DEVICE, "d1")]))
    show("messages", [message["text"] for message in messages(graph, "ann", "demo")])
    show("group sizes", [group["size"] for group in groups(graph, [DEVICE])])
    show(
        "d1 to r1",
        [
            (step["relation"], step["to"], step["current"])
            for step in connection(graph, (DEVICE, "d1"), (ROOM, "r1"))
        ],
    )
    return seen
