"""embed_said(), said_like() and said(..., embedder=): a user's messages by meaning, never another's."""

from __future__ import annotations

import pytest
from chats import PUMP, ready
from lighthouse.conversation import (
    embed_said,
    forget_session,
    forget_user,
    said,
    said_like,
    said_waiting,
    say,
)
from lighthouse.errors import Refused, WrongType
from lighthouse.recall.vector import EmbedderError
from meaning import BAD_ANSWERS, Answer, Counting, bag

VECTORS = "MATCH (v:MessageVector) RETURN count(v)"


@pytest.fixture
def chat(graph):
    return ready(graph, [PUMP])


def test_one_users_messages_never_appear_in_anothers_recall(chat):
    say(chat, "ann", "main", "user", "my pump secret is the blue valve", by="ann")
    say(chat, "bob", "main", "user", "my pump secret is the blue valve", by="bob")
    say(chat, "bob", "other", "user", "pump pump pump secret valve blue", by="bob")
    assert embed_said(chat, bag, "bag") == {"embedded": 3, "waiting": 0}
    for user, count in (("ann", 1), ("bob", 2)):
        found = said_like(chat, user, "pump secret blue valve", bag, "bag", limit=10)
        assert len(found) == count and {one["by"] for one in found} == {user}
        fused = said(chat, user, "pump secret", embedder=bag, model="bag")
        assert len(fused) == count and {one["by"] for one in fused} == {user}
    assert said_like(chat, "carol", "pump secret", bag, "bag") == []


def test_meaning_finds_what_words_do_not(chat):
    def topics(texts):  # two topics: cars, and food
        return [[1.0 if "car" in t or "vehicle" in t else 0.0, 1.0 if "lunch" in t else 0.1] for t in texts]

    say(chat, "ann", "main", "user", "I sold my car", by="ann")
    say(chat, "ann", "main", "user", "lunch was good", by="ann")
    embed_said(chat, topics, "topics")
    assert said(chat, "ann", "vehicle", match="any") == []  # no word in common
    found = said(chat, "ann", "vehicle", embedder=topics, model="topics", match="any")
    assert found[0]["text"] == "I sold my car" and found[0]["places"] == {"meaning": 1}
    assert set(found[0]) >= {"session", "seq", "text", "score", "places"} and "lh.vector" not in found[0]
    assert said_like(chat, "ann", "vehicle", topics, "topics", limit=1)[0]["score"] == pytest.approx(1.0)


def test_embed_said_goes_on_where_it_stopped_and_follows_a_new_model(chat):
    for n in range(5):
        say(chat, "ann", "main", "user", f"message {n}", by="ann")
    counting = Counting()
    assert embed_said(chat, counting, "bag", limit=2) == {"embedded": 2, "waiting": 3}
    assert embed_said(chat, counting, "bag", limit=10) == {"embedded": 3, "waiting": 0}
    assert embed_said(chat, counting, "bag") == {"embedded": 0, "waiting": 0}
    assert counting.texts == 5  # none asked twice
    assert said_waiting(chat, "bag") == 0 and said_waiting(chat, "bag-2") == 5  # counted, nothing written
    assert embed_said(chat, bag, "bag-2") == {"embedded": 5, "waiting": 0}
    assert chat.query(VECTORS).result_set[0][0] == 5  # the new model's replace the old ones
    assert said_waiting(chat, "bag-2") == 0
    with pytest.raises(Refused):
        said_waiting(chat, "")


def test_forgetting_takes_the_vectors_with_the_messages(chat):
    say(chat, "ann", "a", "user", "one", by="ann")
    say(chat, "ann", "b", "user", "two", by="ann")
    say(chat, "bob", "a", "user", "three", by="bob")
    embed_said(chat, bag, "bag")
    forget_session(chat, "ann", "a")
    assert chat.query(VECTORS).result_set[0][0] == 2
    forget_user(chat, "ann")
    assert chat.query(VECTORS).result_set[0][0] == 1
    assert [one["text"] for one in said_like(chat, "bob", "three", bag, "bag")] == ["three"]


# Messages have no index of a fixed size: vectors one size shorter or longer than the bag's are good ones.
@pytest.mark.parametrize("name", sorted(set(BAD_ANSWERS) - {"too short", "too long"}))
def test_a_bad_answer_stores_nothing(chat, name):
    say(chat, "ann", "main", "user", "one", by="ann")
    say(chat, "ann", "main", "user", "two", by="ann")
    with pytest.raises(EmbedderError, match="embedder"):
        embed_said(chat, Answer(BAD_ANSWERS[name]), "bag")
    assert chat.query(VECTORS).result_set[0][0] == 0


def test_the_arguments_are_checked_first(chat):
    say(chat, "ann", "main", "user", "one", by="ann")
    with pytest.raises(WrongType):
        embed_said(chat, "not a function", "bag")
    for limit in (0, 1_001, None, True):
        with pytest.raises(Refused):
            embed_said(chat, bag, "bag", limit=limit)
    with pytest.raises(Refused):
        embed_said(chat, bag, "")
    with pytest.raises(WrongType):
        said_like(chat, "ann", 5, bag, "bag")
    with pytest.raises(Refused):
        said_like(chat, "", "one", bag, "bag")
    with pytest.raises(Refused):
        said_like(chat, "ann", "one", bag, "bag", limit=0)
    with pytest.raises(WrongType):
        said_like(chat, "ann", "one", None, "bag")
    assert chat.query(VECTORS).result_set[0][0] == 0
    assert said_like(chat, "ann", "   ", bag, "bag") == []
