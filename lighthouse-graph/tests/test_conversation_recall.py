"""said_about() and said(): a user's messages by what they mention and by their words, and no one else's."""

from __future__ import annotations

import pytest
from chats import PUMP, VALVE, Counting, ready
from hostile import hostile_params
from lighthouse.conversation.recall import _SAID_ABOUT, said, said_about
from lighthouse.conversation.talk import messages, reference_key, say, user_word
from lighthouse.errors import Refused, WrongType
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
    assert [m["text"] for m in said_about(chat, "ann", (VALVE, 2))] == ["and v2?"]
    assert said_about(chat, "ann", (VALVE, "2")) == []  # the key 2, not the text "2"


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
    for bad in (0, -1, 1_001, True, "2", None):
        with pytest.raises(Refused, match="limit must be a whole number from 1 to 1000"):
            said_about(chat, "ann", (PUMP, "p1"), limit=bad)


def test_said_about_is_newest_first_then_by_session_then_seq_descending(chat):
    same = "2026-01-01T00:00:00Z"
    for session in ("b", "a"):
        for text in ("first", "second"):
            say(chat, "ann", session, "user", f"{session} {text}", "ann", mentions=[(PUMP, "p1")], at=same)
    say(chat, "ann", "c", "user", "newest", "ann", mentions=[(PUMP, "p1")], at="2026-01-02T00:00:00Z")
    found = said_about(chat, "ann", (PUMP, "p1"))
    assert [m["text"] for m in found] == ["newest", "a second", "a first", "b second", "b first"]
    assert found[0] == messages(chat, "ann", "c")[0]  # the shape of messages()


@pytest.mark.parametrize(
    "bad",
    [
        (PUMP, None),
        ("Entity", "x"),
        ("bad label", 1),
        "x" * 206,  # an entry id: a name of 200, "/" and at most 5,000
        5,
        None,
        (PUMP, "p1", 2),
        *hostile_params(),
    ],
    ids=lambda one: type(one).__name__,
)
def test_said_about_refuses_what_is_not_a_reference(chat, bad):
    with pytest.raises(Refused, match="^reference: not a reference"):
        said_about(chat, "ann", bad)


@pytest.mark.parametrize("hostile", hostile_params())
def test_recall_refuses_a_hostile_argument(chat, hostile):
    for call in (
        lambda: said_about(chat, hostile, (PUMP, "p1")),
        lambda: said_about(chat, "ann", (PUMP, hostile)),
        lambda: said_about(chat, "ann", (PUMP, "p1"), limit=hostile),
        lambda: said(chat, hostile, "pump"),
        lambda: said(chat, "ann", "pump", limit=hostile),
        lambda: said(chat, "ann", "pump", match=hostile),
    ):
        with pytest.raises(Refused):
            call()
    with pytest.raises(WrongType):
        said(chat, "ann", hostile)


# --- said() -------------------------------------------------------------------------------------


def test_said_finds_the_words_of_messages(chat):
    say(chat, "ann", "main", "user", "The SEAL of pump p1 leaks", by="ann", values={"note": "gasket"})
    say(chat, "ann", "other", "user", "fan noise in room r2", by="ann")
    found = said(chat, "ann", "seal leaks?")
    assert said(chat, "ann", "which seal leaks?") == []  # every word, by default
    assert [m["text"] for m in said(chat, "ann", "which seal leaks?", match="any")] == [found[0]["text"]]
    assert [m["text"] for m in found] == ["The SEAL of pump p1 leaks"]
    assert found[0]["session"] == "main" and found[0]["note"] == "gasket"
    assert type(found[0]["score"]) is float and found[0]["score"] > 0
    assert {name: one for name, one in found[0].items() if name != "score"} == messages(chat, "ann", "main")[
        0
    ]
    assert [m["session"] for m in said(chat, "ann", "noise")] == ["other"]
    assert said(chat, "ann", "gasket") == []  # values are not searched


def test_said_any_and_all(chat):
    say(chat, "ann", "main", "user", "seal leaks", by="ann")
    say(chat, "ann", "main", "user", "seal holds", by="ann")
    assert len(said(chat, "ann", "seal leaks", match="any")) == 2
    assert [m["text"] for m in said(chat, "ann", "seal leaks")] == ["seal leaks"]  # "all" by default
    assert said(chat, "ann", "seal leaks", 10, "any")[0]["text"] == "seal leaks"  # more words rank first
    for bad in ("some", "ALL", None, 1):
        with pytest.raises(Refused):
            said(chat, "ann", "seal", match=bad)


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
    assert [m["text"] for m in said(chat, "ann", "@words:plain", match="any")] == ["plain text"]


def test_said_summaries_are_not_messages(chat):
    from lighthouse.conversation.talk import summarize

    say(chat, "ann", "main", "user", "hello", by="ann")
    summarize(chat, "ann", "main", "zeppelin summary", upto=1, by="desk")
    assert said(chat, "ann", "zeppelin") == []


def test_said_limit(chat):
    for i in range(5):
        say(chat, "ann", "main", "user", f"pump {i}", by="ann")
    assert len(said(chat, "ann", "pump", limit=3)) == 3
    assert len(said(chat, "ann", "pump")) == 5
    for _ in range(12):
        say(chat, "ann", "main", "user", "pump again", by="ann")
    assert len(said(chat, "ann", "pump")) == 10  # 10 by default
    for bad in (0, 1_001, None, 2.5, True):
        with pytest.raises(Refused, match="limit must be a whole number from 1 to 1000"):
            said(chat, "ann", "pump", limit=bad)
        with pytest.raises(Refused, match="limit must be a whole number from 1 to 1000"):
            said(chat, "ann", "?!", limit=bad)  # checked even when nothing is searched


@pytest.mark.parametrize("bad", [None, 5, b"bytes", ["pump"]])
def test_said_refuses_a_question_that_is_not_text(chat, bad):
    with pytest.raises(WrongType):
        said(chat, "ann", bad)


def test_a_question_without_letters_or_digits_sends_no_query(chat):
    counted = Counting(chat)
    assert said(counted, "ann", " ?! -- ") == []
    assert counted.sent == []
    with pytest.raises(Refused):
        said(counted, "ann", "?!", match="some")
    assert said(counted, "ann", "pump") == [] and len(counted.sent) == 1


def test_said_reads_a_long_question_only_in_part(chat):
    say(chat, "ann", "main", "user", "pump", by="ann")
    assert len(said(chat, "ann", "pump " + "x " * 100_000, match="any")) == 1
    assert said(chat, "ann", "x " * 30 + "pump", match="any") == []  # only the first 20 words are used


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
    params = {"reference_key": reference_key("Pump", "p1"), "user": "ann", "limit": 5}
    assert scans(chat.explain(_SAID_ABOUT, params)) == ["Node By Index Scan | (r:Reference)"]
    assert [one["text"] for one in said_about(chat, "ann", (PUMP, "p1"))] == ["p1?"]
