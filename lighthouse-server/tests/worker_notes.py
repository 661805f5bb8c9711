"""What the worker's tests share: the kinds, a note written as an agent writes one, and the worker's
settings pointed at a fake model."""

from __future__ import annotations

import lighthouse
from lighthouse import Kind, ensure_schema
from lighthouse_server.settings import Settings

ROOM = Kind("Room", key="code")
DEVICE = Kind(
    "Device",
    key="serial",
    times=("last_seen",),
    text=("note",),
    relations={"LOCATED_IN": ROOM},
)
KINDS = {"Room": ROOM, "Device": DEVICE}


def schema(graph) -> None:
    ensure_schema(graph, list(KINDS.values()))


def note(graph, text: str, at: str | None = None, by: str = "planner") -> str:
    """A note as an agent keeps it (lighthouse.note()); its entry id."""
    receipt = lighthouse.note(graph, text, by, source="agent", at=at)
    assert receipt["status"] == "recorded", receipt
    return receipt["id"]


def settings(url: str, **more) -> Settings:
    chosen = {
        "model_url": url,
        "model_name": "fake-1",
        "model_key": "sk-test",
        "model_timeout_s": 1,
        "model_attempts": 3,
        **more,
    }
    return Settings(**chosen)
