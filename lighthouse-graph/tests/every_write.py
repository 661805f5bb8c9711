"""A graph written by every public function that writes: what the stored-model test reads."""

from __future__ import annotations

import lighthouse as lh
from devices import DEVICE, KINDS, MANUAL

T1, T2, T3 = "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z"


def embedder(texts: list[str]) -> list[list[float]]:
    return [[1.0, float(len(text) % 7) + 1.0, 0.5] for text in texts]


def extractor(entry: dict) -> list[dict]:
    return [{"key": "d9", "values": {"status": "seen"}}, {"values": "not a row"}]


def raising(entry: dict) -> list[dict]:
    raise ValueError("the extractor cannot read it")


def rule(episode: dict) -> list[dict]:
    return [
        {"lesson": "fans", "statement": "fans fail", "about": [(DEVICE, "d1")], "agrees": True},
        {"playbook": "cool", "trigger": {"status": "hot"}, "steps": [{"do": "clean"}]},
        {"ran": "cool", "succeeded": True},
    ]


def write_everything(graph) -> None:
    """Every public function that writes, called so that each thing it can store is stored once."""
    lh.ensure_schema(graph, KINDS, entry_dimensions=3)
    rows = [
        {
            "key": "d1",
            "t": T1,
            "values": {"status": "ok", "note": "a quiet fan", "last_seen": T1},
            "relations": {"LOCATED_IN": "r1", "USED_BY": ["t1", "t2"]},
        },
        {"key": "d2", "t": T1, "values": {"status": "ok"}, "relations": {"LOCATED_IN": "r1"}},
    ]
    lh.remember(graph, DEVICE, rows, "inventory")
    lh.remember(graph, DEVICE, [{"key": "d1", "t": T2, "values": {"status": "hot"}}], "inventory")
    lh.remember(graph, MANUAL, [{"key": "m1", "t": T1, "values": {"title": "Fans", "body": "clean"}}], "docs")
    lh.embed(graph, MANUAL, embedder, "test-model")
    lh.update(graph, DEVICE, "d2", T2, "agent", values={"status": "hot"})
    lh.remember(graph, DEVICE, [{"key": "d3", "t": T2, "values": {"status": "odd"}}], "model", candidate=True)
    lh.confirm(graph, DEVICE, "d3", T2, "reviewer", why="checked")
    lh.remember(graph, DEVICE, [{"key": "d4", "t": T2, "values": {"status": "odd"}}], "model", candidate=True)
    lh.reject(graph, DEVICE, "d4", T2, "reviewer", "wrong")
    for number in range(3):
        episode_id = f"e{number}"
        lh.open_episode(graph, episode_id, "watcher", [(DEVICE, "d1")], T1)
        lh.record(graph, episode_id, "observation", "watcher", {"status": "hot"}, [(DEVICE, "d1")], T2)
        lh.close_episode(graph, episode_id, "reviewer", {"fixed": True}, [f"{episode_id}/1"], T3)
    lh.remember(graph, DEVICE, [{"key": "d1", "t": T3, "values": {"status": "ok"}, "entry": "e0/1"}], "agent")
    lh.open_episode(graph, "open", "watcher", [(DEVICE, "d2")], T1)
    lh.record(graph, "open", "observation", "watcher", {"status": "odd", "note": "it hums"}, (), T2)
    lh.record(graph, "closed", "observation", "watcher", {"status": "odd"})  # refused: kept as a failure
    lh.invalidate_entry(graph, "open/1", "checker", "the sensor broke")
    lh.learn(graph, "hot", "reviewer", "hot devices recover", ["e0"], about=[(DEVICE, "d1")])
    lh.weigh(graph, "hot", "reviewer", "e1", False)
    lh.used(graph, "hot", "agent", "e2", helped=True)
    lh.learn(graph, "old", "reviewer", "an old lesson", ["e0"])
    lh.retire(graph, "old", "reviewer", "outdated")
    lh.write_playbook(graph, "check", "reviewer", {"status": "hot"}, [{"do": "look"}], ["e0"], needs=1)
    lh.write_playbook(graph, "check", "reviewer", {"status": "hot"}, [{"do": "look twice"}], ["e1"], needs=1)
    lh.ran(graph, "check", "agent", "e2", succeeded=False, stop_after=1)  # switched off: stopped_at
    lh.switch(graph, "check", "operator", True)
    lh.promote(graph, "promoter", rule, at_least=3)
    lh.record(graph, "open", "note", "watcher", {"text": "see"}, [("Lesson", "hot"), ("Playbook", "check#1")])
    lh.hand_off(graph, "h1", "watcher", "planner", points_to=[("Episode", "e0"), (DEVICE, "d1"), "e0/1"])
    lh.accept(graph, "h1", "planner")
    lh.add_task(graph, "t1", "check", "d1")
    lh.add_task(graph, "t2", "check", "d2", after=["t1"])
    lh.claim(graph, "worker", "check", lease=60)
    lh.complete(graph, "worker", "t1")
    lh.claim(graph, "worker", "check")
    lh.release(graph, "worker", "t2")
    lh.say(
        graph, "ann", "main", "user", "why is d1 hot?", "ann", mentions=[(DEVICE, "d1"), ("Episode", "e0")]
    )
    lh.say(graph, "ann", "main", "helper", "the fan", "desk", values={"mood": "calm"})
    lh.summarize(graph, "ann", "main", "ann asked about d1", 1, "desk")
    lh.say(graph, "bob", "gone", "user", "forget me", "bob", mentions=[(DEVICE, "d2")])
    lh.forget_session(graph, "bob", "gone")
    lh.forget_user(graph, "nobody")
    lh.note(graph, "d9 is seen in room r1", "reader", source="radio", at=T2)
    lh.notes(graph, [{"text": "d9 again", "source": "radio", "at": T3}], "reader")
    lh.extract(graph, DEVICE, extractor, "reader", types=["note"])
    lh.extract(graph, DEVICE, raising, "reader", types=["observation"], attempts=1)
    lh.extract_again(graph, DEVICE, extractor, "reader", "open/1")
    lh.embed_entries(graph, embedder, "test-model")
    lh.record_failure(graph, "invalid", DEVICE, "d7", detail="bad\x00row", owner="ann")
