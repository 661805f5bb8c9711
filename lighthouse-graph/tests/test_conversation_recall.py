"""said_about() and said(): a user's messages by what they mention and by their words, and no one else's."""

from __future__ import annotations

import pytest
from chats import PUMP, VALVE, ready
from lighthouse.conversation.recall import _SAID_ABOUT, said, said_about
from lighthouse.conversation.talk import reference_key, say, user_word
from lighthouse.values import Refused
from query_plans import scans


@pytest.fixture
def chat(graph):
    return ready(graph, [PUMP, VALVE])


# --- said_about() -------------------------------------------------------------------------------


def test_said_about_gives_the_newest_first(chat):
    say(chat, "ann", "main", "user", "why is p1 hot?", by="ann", mentions=[(PUMP, "p1")])
    say(chat, "ann", "main", "helper", "the fan stopped", by="desk", mentions=[(PUMP, "p1")])
    say(chat, "ann", "main", "user", "and v2?", by="ann", mentions=[(VALVE, 2)])
    found = said_about(chat, "ann", (PUMP, "p1"))
    assert [m["text"] for m in found] == ["the fan stopped", "why is p1 hot?"]
    assert found[0]["session"] == "main" and found[0]["seq"] == 2
    assert found[0]["mentions"] == [("Pump", "p1")]
    assert [m["text"] for m in said_about(chat, "ann", ("Valve", 2))] == ["and v2?"]
    assert said_about(chat, "ann", ("Valve", "2")) == []  # the key 2, not the text "2"


def test_said_about_tells_keys_apart_by_case(chat):
    say(chat, "ann", "main", "user", "upper", by="ann", mentions=[(PUMP, "P1")])
    say(chat, "ann", "main", "user", "lower", by="ann", mentions=[(PUMP, "p1")])
    assert [m["text"] for m in said_about(chat, "ann", (PUMP, "P1"))] == ["upper"]
    assert [m["text"] for m in said_about(chat, "ann", (PUMP, "p1"))] == ["lower"]
    assert said_about(chat, "Ann", (PUMP, "p1")) == []


def test_said_about_orders_by_when_it_was_said(chat):
    say(chat, "ann", "a", "user", "later", by="ann", mentions=[(PUMP, "p1")], at="2026-01-02T00:00:00Z")
    say(chat, "ann", "b", "user", "earlier", by="ann", mentions=[(PUMP, "p1")], at="2026-01-01T00:00:00Z")
    assert [m["text"] for m in said_about(chat, "ann", (PUMP, "p1"))] == ["later", "earlier"]
    assert [m["session"] for m in said_about(chat, "ann", (PUMP, "p1"))] == ["a", "b"]


def test_said_about_an_entry_and_a_record(chat):
    say(chat, "ann", "main", "user", "see the entry", by="ann", mentions=["look/3", ("Episode", "ep1")])
    assert [m["text"] for m in said_about(chat, "ann", "look/3")] == ["see the entry"]
    assert [m["text"] for m in said_about(chat, "ann", ("Episode", "ep1"))] == ["see the entry"]
    assert said_about(chat, "ann", ("Episode", "ep2")) == []


def test_said_about_limit(chat):
    for i in range(5):
        say(chat, "ann", "main", "user", f"m{i}", by="ann", mentions=[(PUMP, "p1")])
    assert [m["text"] for m in said_about(chat, "ann", (PUMP, "p1"), limit=2)] == ["m4", "m3"]
    for bad in (0, -1, 1_001, True, "2"):
        with pytest.raises(Refused):
            said_about(chat, "ann", (PUMP, "p1"), limit=bad)


class Hostile:
    """An object that fails whenever it is printed."""

    def __str__(self):
        raise RuntimeError("printed")

    __repr__ = __str__


@pytest.mark.parametrize(
    "bad", [(PUMP, None), ("Entity", "x"), ("bad label", 1), "x" * 201, 5, None, Hostile(), (PUMP, Hostile())]
)
def test_said_about_refuses_what_is_not_a_reference(chat, bad):
    with pytest.raises(Refused):
        said_about(chat, "ann", bad)


# --- said() -------------------------------------------------------------------------------------


def test_said_finds_the_words_of_messages(chat):
    say(chat, "ann", "main", "user", "The SEAL of pump p1 leaks", by="ann", values={"note": "gasket"})
    say(chat, "ann", "other", "user", "fan noise in room r2", by="ann")
    found = said(chat, "ann", "which seal leaks?")
    assert [m["text"] for m in found] == ["The SEAL of pump p1 leaks"]
    assert found[0]["session"] == "main" and found[0]["values"] == {"note": "gasket"}
    assert found[0]["score"] > 0
    assert [m["session"] for m in said(chat, "ann", "noise")] == ["other"]
    assert said(chat, "ann", "gasket") == []  # values are not searched


def test_said_any_and_all(chat):
    say(chat, "ann", "main", "user", "seal leaks", by="ann")
    say(chat, "ann", "main", "user", "seal holds", by="ann")
    assert len(said(chat, "ann", "seal leaks")) == 2
    assert [m["text"] for m in said(chat, "ann", "seal leaks", match="all")] == ["seal leaks"]
    assert said(chat, "ann", "seal leaks")[0]["text"] == "seal leaks"  # more words found rank first
    with pytest.raises(Refused):
        said(chat, "ann", "seal", match="some")


def test_said_folds_case_and_accents_as_words_does(chat):
    say(chat, "ann", "main", "user", "Élan of the line\nsecond_part", by="ann")
    assert len(said(chat, "ann", "élan")) == 1
    assert len(said(chat, "ann", "LINE")) == 1
    assert len(said(chat, "ann", "second")) == 1


@pytest.mark.parametrize("question", ["*", "", "   ", "-", "@words:*", "|", '""', "%%"])
def test_said_sends_no_query_language(chat, question):
    say(chat, "ann", "main", "user", "anything at all", by="ann")
    assert said(chat, "ann", question) == []


def test_said_field_syntax_is_only_words(chat):
    say(chat, "ann", "main", "user", "plain text", by="ann")
    # "@words:plain" is the words "words" and "plain": found by "plain", not read as a field
    assert [m["text"] for m in said(chat, "ann", "@words:plain")] == ["plain text"]


def test_said_summaries_are_not_messages(chat):
    from lighthouse.conversation.talk import summarize

    say(chat, "ann", "main", "user", "hello", by="ann")
    summarize(chat, "ann", "main", "zeppelin summary", upto=1, by="desk")
    assert said(chat, "ann", "zeppelin") == []


def test_said_limit(chat):
    for i in range(5):
        say(chat, "ann", "main", "user", f"pump {i}", by="ann")
    assert len(said(chat, "ann", "pump", limit=3)) == 3
    for bad in (0, 1_001, None, 2.5):
        with pytest.raises(Refused):
            said(chat, "ann", "pump", limit=bad)


@pytest.mark.parametrize("bad", [None, 5, b"bytes", ["pump"], Hostile()])
def test_said_refuses_a_question_that_is_not_text(chat, bad):
    with pytest.raises(Refused):
        said(chat, "ann", bad)


def test_said_reads_a_long_question_only_in_part(chat):
    say(chat, "ann", "main", "user", "pump", by="ann")
    assert len(said(chat, "ann", "pump " + "x " * 100_000)) == 1
    assert said(chat, "ann", "x " * 30 + "pump") == []  # only the first 20 words are used


# --- isolation ----------------------------------------------------------------------------------


def test_two_users_never_read_each_other_through_recall(chat):
    say(chat, "ann", "main", "user", "ann pump secret", by="ann", mentions=[(PUMP, "p1")])
    say(chat, "bob", "main", "user", "bob pump secret", by="bob", mentions=[(PUMP, "p1")])
    assert [m["text"] for m in said_about(chat, "ann", (PUMP, "p1"))] == ["ann pump secret"]
    assert [m["text"] for m in said_about(chat, "bob", (PUMP, "p1"))] == ["bob pump secret"]
    assert [m["text"] for m in said(chat, "ann", "pump secret")] == ["ann pump secret"]
    assert [m["text"] for m in said(chat, "bob", "bob")] == ["bob pump secret"]
    assert said(chat, "ann", "bob") == []
    assert said(chat, "carol", "pump") == []


def test_another_users_word_in_a_text_does_not_reach_their_messages(chat):
    ann_word = user_word("ann")
    say(chat, "ann", "main", "user", "ann says pump", by="ann")
    say(chat, "bob", "main", "user", f"bob says pump {ann_word}", by="bob")
    # The index alone would give bob's message to a question of ann: the check of the user stops it.
    raw = chat.ro_query(
        "CALL db.idx.fulltext.queryNodes('Message', $q) YIELD node RETURN node.user",
        {"q": f"{ann_word} (pump)"},
    ).result_set
    assert sorted(row[0] for row in raw) == ["ann", "bob"]
    assert [m["text"] for m in said(chat, "ann", "pump")] == ["ann says pump"]
    assert [m["text"] for m in said(chat, "ann", f"pump {ann_word}")] == ["ann says pump"]
    assert [m["text"] for m in said(chat, "bob", "pump")] == [f"bob says pump {ann_word}"]


def test_the_question_cannot_name_another_users_word(chat):
    say(chat, "bob", "main", "user", "bob only", by="bob")
    assert said(chat, "ann", user_word("bob")) == []
    assert said(chat, "ann", f"only | {user_word('bob')}") == []


@pytest.mark.parametrize("user", ["", "a" * 201, "x\x00", 7, None, "ann\x1fmain"])
def test_recall_refuses_names_that_cannot_be_names(chat, user):
    with pytest.raises(Refused):
        said(chat, user, "pump")
    with pytest.raises(Refused):
        said_about(chat, user, (PUMP, "p1"))


def test_said_about_starts_from_the_reference(chat):
    # With the filter on m in the MATCH that found the reference, FalkorDB 4.22 read every Message.
    say(chat, "ann", "main", "user", "p1?", by="ann", mentions=[(PUMP, "p1")])
    say(chat, "bob", "main", "user", "p1!", by="bob", mentions=[(PUMP, "p1")])
    params = {"reference_key": reference_key("Pump", "p1"), "user": "ann", "limit": 5, "own": []}
    assert scans(chat.explain(_SAID_ABOUT, params)) == ["Node By Index Scan | (r:Reference)"]
    assert [one["text"] for one in said_about(chat, "ann", (PUMP, "p1"))] == ["p1?"]
