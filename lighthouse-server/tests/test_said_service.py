"""said through the real `lighthouse serve`: the worker gives each message its vector as it gives the
notes theirs, and `said` finds a user's messages by meaning as the library does, never another user's."""

from __future__ import annotations

import json

import pytest
from lighthouse import said, tenant
from lighthouse_server.encoding import jsonable

SAID = [
    ("ann", "trip", "user", "we finally sold the old car to a neighbour"),
    ("ann", "trip", "user", "the weather was grey all week"),
    ("ann", "home", "user", "my sister moved to Munich"),
    ("bob", "talk", "user", "we finally sold the old car to a neighbour"),  # the same words, another user
    ("bob", "talk", "user", "my vehicle broke down on the motorway"),
]


def _library(lighthouse, tenant_id: str, user: str, question: str) -> list:
    from lighthouse_server.embedders import local_embedder

    embedder, model, _ = local_embedder()
    found = said(tenant(lighthouse.db(), tenant_id), user, question, embedder=embedder, model=model)
    return json.loads(json.dumps(jsonable(found)))


def test_said_finds_a_users_messages_by_meaning_and_never_anothers(lighthouse):
    tenant_id, key = lighthouse.tenant()
    for user, session, role, text in SAID:
        receipt = lighthouse.result(
            "say", {"user": user, "session_id": session, "role": role, "text": text}, key
        )
        assert receipt["status"] == "said"
    assert lighthouse.settled(key)["embedding"]["waiting"] == 0  # the messages' vectors too
    # No word of the question is in the message that answers it: only its meaning finds it.
    asked = {"user": "ann", "question": "what happened to my automobile?"}
    found = lighthouse.result("said", asked, key)
    assert found[0]["text"] == "we finally sold the old car to a neighbour"
    assert found[0]["places"].keys() == {"meaning"}
    assert {one["session"] for one in found} <= {"trip", "home"} and len(found) <= 3
    assert found == _library(lighthouse, tenant_id, "ann", asked["question"])
    for_bob = lighthouse.result("said", {"user": "bob", "question": "what happened to my automobile?"}, key)
    assert {one["session"] for one in for_bob} == {"talk"} and len(for_bob) == 2
    assert lighthouse.result("said", {"user": "carol", "question": "my automobile"}, key) == []
    # By words, as said_about's siblings: every word must occur unless match is "any".
    words = lighthouse.result("said", {"user": "ann", "question": "sister Munich", "limit": 1}, key)
    assert [one["text"] for one in words] == ["my sister moved to Munich"]


@pytest.mark.parametrize(
    ("asked", "said_in_error"),
    [
        ({"user": "ann", "question": "car", "limit": 0}, "limit"),
        ({"user": "ann", "question": "car", "match": "some"}, "match"),
        ({"user": "", "question": "car"}, "user"),
        ({"user": "ann"}, "question"),
    ],
)
def test_said_refuses_bad_arguments(lighthouse, asked, said_in_error):
    _tenant_id, key = lighthouse.tenant()
    refused = lighthouse.post("said", asked, key)
    assert refused.status_code == 400 and said_in_error in refused.json()["error"]["message"]
