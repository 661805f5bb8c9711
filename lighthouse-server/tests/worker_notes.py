"""What the worker's tests share: the kinds, a note written as an agent writes one, the worker's
settings pointed at a fake model, and a worker holding the graph."""

from __future__ import annotations

import lighthouse
from lighthouse import Kind, ensure_schema, hold_extraction
from lighthouse_server.settings import Settings
from lighthouse_server.worker import lease

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


def held(graph, model_name: str = "fake-1") -> str:
    """The owner name of a worker of this test process that holds the graph (lighthouse.hold_extraction()), the one that
    holds it already or a new one: what extract_notes() is given."""
    owner = lease.me()
    holder = hold_extraction(graph, owner, model_name)
    if holder is None:
        return owner
    assert holder.rsplit(":", 1)[0] == owner.rsplit(":", 1)[0], holder  # of this process
    return holder
