"""The review operations over HTTP: candidates, confirm, reject (scope review), and recall across kinds."""

from __future__ import annotations

import lighthouse as lh
import pytest
from service_process import Lighthouse

DEVICE = lh.Kind("Device", "serial", text=("note",))
DAY1, DAY2 = "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z"


@pytest.fixture
def drawn(lighthouse):
    """A tenant where a model drew two facts from a note: d1 moved to paris, d2 is in rome."""
    tenant, key = lighthouse.tenant("review")
    said = lighthouse.result("note", {"text": "d1 moved to paris; d2 sits in rome"}, key)
    lighthouse.result(
        "remember",
        {"kind": "Device", "rows": [{"key": "d1", "t": DAY1, "values": {"note": "pump in berlin"}}]},
        key,
    )
    graph = lh.tenant(lighthouse.db(), tenant)
    rows = [
        {"key": "d1", "t": DAY2, "values": {"note": "pump in paris"}, "entry": said["id"]},
        {"key": "d2", "t": DAY2, "values": {"note": "pump in rome"}, "entry": said["id"]},
    ]
    assert [one["status"] for one in lh.remember(graph, DEVICE, rows, "model:m1", candidate=True)] == [
        "changed",
        "created",
    ]
    return lighthouse, tenant, key, said


def test_candidates_then_confirm_and_reject_take_effect(drawn):
    lighthouse, _tenant, key, said = drawn
    waiting = lighthouse.result("candidates", {}, key)
    assert [(one["kind"], one["key"], one["state"]["trust"]) for one in waiting] == [
        ("Device", "d1", "candidate"),
        ("Device", "d2", "candidate"),
    ]
    assert waiting[0]["state"]["entry"] == said["id"]
    confirmed = lighthouse.result("confirm", {"kind": "Device", "key": "d2", "valid_from": DAY2}, key)
    assert confirmed["status"] == "confirmed"
    rejected = lighthouse.result(
        "reject", {"kind": "Device", "key": "d1", "valid_from": DAY2, "why": "it never left berlin"}, key
    )
    assert rejected["status"] == "rejected"
    assert lighthouse.result("candidates", {"kinds": ["Device"]}, key) == []
    history = lighthouse.result("history", {"kind": "Device", "key": "d1"}, key)["items"]
    assert history[1]["trust"] == "rejected" and history[1]["review"]["by"] == "planner"  # the key's agent
    assert history[1]["review"]["why"] == "it never left berlin"
    facts = lighthouse.result("recall", {"question": "pump"}, key)["facts"]
    assert sorted((one["key"], one["state"]["note"], one["trust"]) for one in facts) == [
        ("d1", "pump in berlin", "confirmed"),
        ("d2", "pump in rome", "confirmed"),
    ]
    with_rejected = lighthouse.result("recall", {"question": "paris", "rejected": True}, key)["facts"]
    # d1 by its words and its note; d2 only as drawn from the same note (the graph around the note)
    assert [(one["key"], one["trust"]) for one in with_rejected] == [("d1", "rejected"), ("d2", "confirmed")]
    assert set(with_rejected[0]["places"]) == {"words", "notes"} and set(with_rejected[1]["places"]) == {
        "notes"
    }
    assert with_rejected[0]["evidence"]["text"] == "d1 moved to paris; d2 sits in rome"


def test_recall_gives_the_notes_that_matched(drawn):
    lighthouse, _tenant, key, said = drawn
    answer = lighthouse.result("recall", {"question": "rome", "limit": 5}, key)
    assert [one["id"] for one in answer["notes"]] == [said["id"]]
    # d2 by its words and its note first; d1's candidate (paris) only as drawn from the same note
    assert [(one["key"], one["state"]["note"]) for one in answer["facts"]] == [
        ("d2", "pump in rome"),
        ("d1", "pump in paris"),
    ]
    assert all(one["evidence"]["id"] == said["id"] for one in answer["facts"])


def test_review_needs_the_review_scope(drawn):
    lighthouse, tenant, _key, _said = drawn
    reader = lighthouse.key(tenant, "reader", ["read", "write"])
    for name, body in (
        ("confirm", {"kind": "Device", "key": "d1", "valid_from": DAY2}),
        ("reject", {"kind": "Device", "key": "d1", "valid_from": DAY2, "why": "no"}),
    ):
        answer = lighthouse.post(name, body, reader)
        assert answer.status_code == 403 and answer.json()["error"]["code"] == "forbidden", answer.text
    assert len(lighthouse.result("candidates", {}, reader)) == 2  # nothing changed


def test_the_reviewer_is_the_key_s_agent_whatever_the_request_says(drawn):
    lighthouse, _tenant, key, _said = drawn
    answer = lighthouse.post(
        "confirm", {"kind": "Device", "key": "d1", "valid_from": DAY2, "by": "mallory"}, key
    )
    assert answer.status_code == 400 and "agent of the key" in answer.json()["error"]["message"]


@pytest.mark.parametrize(
    "name, body, code",
    [
        ("reject", {"kind": "Device", "key": "d1", "valid_from": DAY2}, "invalid_argument"),  # no reason
        ("reject", {"kind": "Device", "key": "d1", "valid_from": DAY2, "why": " "}, "invalid_argument"),
        ("confirm", {"kind": "Device", "key": "d1", "valid_from": "soon"}, "invalid_argument"),
        ("confirm", {"kind": "Boat", "key": "d1", "valid_from": DAY2}, "not_found"),
        ("confirm", {"kind": "Device", "key": "d1", "valid_from": 5}, "invalid_argument"),
        ("candidates", {"limit": 0}, "invalid_argument"),
        ("candidates", {"kinds": ["Boat"]}, "not_found"),
        ("recall", {}, "invalid_argument"),
        ("recall", {"question": "x", "past": "yes"}, "invalid_argument"),
        ("recall", {"question": "x", "when": "not a time"}, "invalid_argument"),
    ],
)
def test_bad_arguments_are_refused_and_change_nothing(drawn, name, body, code):
    lighthouse, _tenant, key, _said = drawn
    answer = lighthouse.post(name, body, key)
    assert answer.status_code in (400, 404, 422) and answer.json()["error"]["code"] == code, answer.text
    assert len(lighthouse.result("candidates", {}, key)) == 2


def test_a_state_that_does_not_exist_is_an_unknown_receipt(drawn):
    lighthouse, _tenant, key, _said = drawn
    receipt = lighthouse.result("confirm", {"kind": "Device", "key": "d9", "valid_from": DAY2}, key)
    assert receipt["status"] == "unknown" and receipt["reason"]


def test_every_state_the_service_gives_says_its_trust(drawn):
    lighthouse, _tenant, key, _said = drawn
    first, second = lighthouse.result("history", {"kind": "Device", "key": "d1"}, key)["items"]
    assert first["trust"] == "confirmed" and "review" not in first  # a structured row
    assert second["trust"] == "candidate"
    assert (
        lighthouse.result("as_of", {"kind": "Device", "key": "d1", "when": DAY1}, key)["trust"] == "confirmed"
    )
    assert (
        lighthouse.result("entity", {"kind": "Device", "key": "d1"}, key)["current"]["trust"] == "candidate"
    )
    found = lighthouse.result("search_history", {"kind": "Device", "question": "berlin"}, key)
    assert [hit["state"]["trust"] for hit in found] == ["confirmed"]
    assert (
        lighthouse.result("as_of", {"kind": "Device", "key": "d1", "when": "2025-01-01T00:00:00Z"}, key)
        is None
    )


def test_a_rejected_state_is_no_longer_current(drawn):
    lighthouse, _tenant, key, _said = drawn
    lighthouse.result("reject", {"kind": "Device", "key": "d1", "valid_from": DAY2, "why": "no"}, key)
    current = lighthouse.result("entity", {"kind": "Device", "key": "d1"}, key)["current"]
    assert current["note"] == "pump in berlin" and current["trust"] == "confirmed"
    stored = lighthouse.result("as_of", {"kind": "Device", "key": "d1", "when": DAY2}, key)
    assert stored["trust"] == "rejected"  # the stored window, as the published as_of reads it
    assert lighthouse.result("recall", {"question": "pump"}, key)["meaning"] == "used"  # the bundled embedder


def test_recall_without_a_working_embedder_ranks_by_words_and_says_why(serves, tmp_path):
    running = Lighthouse(
        tmp_path / "data", embedder="http", embeddings_url="http://127.0.0.1:9", embeddings_model="gone"
    )
    serves.append(running.start())
    _tenant, key = running.tenant("dead")
    row = {"key": "d1", "t": DAY1, "values": {"note": "pump in berlin"}}
    running.result("remember", {"kind": "Device", "rows": [row]}, key)
    answer = running.result("recall", {"question": "pump"}, key)
    assert [fact["key"] for fact in answer["facts"]] == ["d1"]
    assert answer["meaning"].startswith("failing:") and "embeddings" in answer["meaning"]
    again = running.result("recall", {"question": "pump"}, key)  # while the embedder rests, the same
    assert again["facts"] == answer["facts"] and again["meaning"].startswith("failing:")
    assert running.stop() == 0
