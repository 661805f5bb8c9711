"""waiting_messages.py: the messages that wait for a vector are labelled, so embed_said() and
said_waiting() read only them; a change of model, or a graph said before the label, marks them once."""

from __future__ import annotations

import pytest
from chats import PUMP, ready
from lighthouse.conversation import embed_said, forget_session, messages, said_like, said_waiting, say
from lighthouse.conversation.waiting_messages import COUNT_WAITING
from meaning import Counting, bag
from query_plans import scans

VECTORS = "MATCH (v:MessageVector) RETURN count(v)"


@pytest.fixture
def chat(graph):
    return ready(graph, [PUMP])


def _waiting_label(graph) -> int:
    return graph.query("MATCH (m:MessageToEmbed) RETURN count(m)").result_set[0][0]


def test_a_round_reads_only_the_messages_that_wait(chat):
    for n in range(3):
        say(chat, "ann", f"s{n % 2}", "user", f"message {n}", by="ann")
    assert _waiting_label(chat) == 3
    counting = Counting()
    assert embed_said(chat, counting, "bag") == {"embedded": 3, "waiting": 0}
    assert _waiting_label(chat) == 0
    say(chat, "bob", "main", "user", "one more", by="bob")
    assert said_waiting(chat, "bag") == 1
    plan = chat.explain(COUNT_WAITING, {"model": "bag"})
    assert [step for step in scans(plan) if "Scan" in step] == ["Node By Label Scan | (m:MessageToEmbed)"]
    assert embed_said(chat, counting, "bag") == {"embedded": 1, "waiting": 0}
    assert counting.texts == 4  # the one that waited only
    assert embed_said(chat, counting, "bag") == {"embedded": 0, "waiting": 0} and counting.texts == 4
    assert "MessageToEmbed" not in str(messages(chat, "bob", "main"))


def test_messages_said_before_the_label_are_marked_once_then_read_by_it(chat):
    for n in range(3):
        say(chat, "ann", "old", "user", f"said before {n}", by="ann")
    chat.query("MATCH (m:Message) REMOVE m:MessageToEmbed")  # as a graph written before kept them
    assert said_waiting(chat, "bag") == 3  # every message read while the label stands for no model
    assert embed_said(chat, bag, "bag", limit=1) == {"embedded": 1, "waiting": 2}
    assert _waiting_label(chat) == 2  # marked once
    assert embed_said(chat, bag, "bag") == {"embedded": 2, "waiting": 0}
    assert len(said_like(chat, "ann", "said", bag, "bag")) == 3


def test_a_graph_without_a_stamp_is_read_whole_each_time(graph):
    say(graph, "ann", "a", "user", "no stamp here", by="ann")
    assert said_waiting(graph, "bag") == 1
    assert embed_said(graph, bag, "bag") == {"embedded": 1, "waiting": 0}
    assert embed_said(graph, bag, "bag") == {"embedded": 0, "waiting": 0}
    assert _waiting_label(graph) == 0


def test_a_model_whose_vectors_another_replaced_gives_them_again(chat):
    for n in range(4):
        say(chat, "ann", "main", "user", f"message {n}", by="ann")
    embed_said(chat, bag, "bag")
    assert embed_said(chat, bag, "bag-2", limit=3) == {"embedded": 3, "waiting": 1}
    assert said_waiting(chat, "bag") == 3  # the label stands for bag-2: bag's are counted one by one
    counting = Counting()
    assert embed_said(chat, counting, "bag") == {"embedded": 3, "waiting": 0}
    assert counting.texts == 3  # the one that kept its vector is not asked again
    assert chat.query(VECTORS).result_set[0][0] == 4
    assert said_waiting(chat, "bag-2") == 4  # each message holds one vector: bag's again


def test_a_forgotten_message_that_waited_is_counted_no_more(chat):
    say(chat, "ann", "a", "user", "one", by="ann")
    say(chat, "bob", "b", "user", "two", by="bob")
    embed_said(chat, bag, "bag")
    say(chat, "ann", "a", "user", "three", by="ann")
    say(chat, "bob", "b", "user", "four", by="bob")
    forget_session(chat, "ann", "a")
    assert said_waiting(chat, "bag") == 1
    assert embed_said(chat, bag, "bag") == {"embedded": 1, "waiting": 0}
    assert [one["text"] for one in said_like(chat, "bob", "four", bag, "bag", limit=1)] == ["four"]


def test_a_call_whose_messages_another_gave_vectors_meanwhile_stores_nothing_twice(chat):
    for n in range(3):
        say(chat, "ann", "main", "user", f"message {n}", by="ann")
    inner = Counting()

    def racing(texts):  # another process's call runs while this one waits on its embedder
        embed_said(chat, inner, "bag")
        return bag(texts)

    assert embed_said(chat, racing, "bag") == {"embedded": 0, "waiting": 0}
    assert inner.texts == 3 and chat.query(VECTORS).result_set[0][0] == 3
