"""say(), messages(), sessions(), context(), summarize(): behaviour, refusals and limits, on a real FalkorDB."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import pytest
from chats import PUMP, VALVE, ready
from lighthouse import clock
from lighthouse.conversation import talk
from lighthouse.conversation.talk import context, messages, say, sessions, summarize
from lighthouse.values import Refused
from lighthouse.write.failures import stored_text
from racing import at_once


@pytest.fixture
def chat(graph):
    return ready(graph, [PUMP, VALVE])


def failure_count(graph) -> int:
    return graph.query("MATCH (f:WriteFailure) RETURN count(f)").result_set[0][0]


def message_count(graph) -> int:
    return graph.query("MATCH (m:Message) RETURN count(m)").result_set[0][0]


def say_many(graph, user, session, n, start=1):
    for i in range(start, start + n):
        receipt = say(graph, user, session, "user", f"line {i}", by=user)
        assert receipt["status"] == "said", receipt


class Hostile:
    """An object that fails whenever it is printed or compared."""

    def __str__(self):
        raise RuntimeError("printed")

    __repr__ = __str__

    def __eq__(self, other):
        raise RuntimeError("compared")

    __hash__ = object.__hash__  # a dict key must hash


# --- say() and messages() -------------------------------------------------------------------------


def test_say_numbers_messages_and_messages_reads_them_in_order(chat):
    first = say(chat, "ann", "main", "user", "why is p1 hot?", by="ann", mentions=[(PUMP, "p1")])
    second = say(
        chat, "ann", "main", "helper", "the fan stopped", by="desk", mentions=[(PUMP, "p1"), (VALVE, 7)]
    )
    assert first == {"id": "main", "seq": 1, "status": "said"}
    assert second == {"id": "main", "seq": 2, "status": "said"}
    found = messages(chat, "ann", "main")
    assert [m["text"] for m in found] == ["why is p1 hot?", "the fan stopped"]
    assert [m["seq"] for m in found] == [1, 2]
    assert [m["role"] for m in found] == ["user", "helper"]
    assert [m["by"] for m in found] == ["ann", "desk"]
    assert found[1]["mentions"] == [("Pump", "p1"), ("Valve", 7)]
    assert found[0]["values"] == {}
    assert "words" not in found[0] and "words" not in found[0]["values"]


def test_message_node_has_its_model(chat):
    say(chat, "ann", "main", "user", "Hello, Wörld", by="ann", at="2026-01-01T10:00:00Z")
    props = chat.query("MATCH (m:Message) RETURN properties(m)").result_set[0][0]
    assert props["key"] == "ann\x1fmain#1"
    assert props["session"] == "main" and props["user"] == "ann" and props["seq"] == 1
    assert props["words"] == f"hello wörld {talk.user_word('ann')}"
    assert clock.from_store(props["at"]) == datetime(2026, 1, 1, 10, tzinfo=UTC)
    assert abs((clock.from_store(props["recorded_at"]) - clock.now()).total_seconds()) < 10
    session = chat.query("MATCH (s:Session) RETURN properties(s)").result_set[0][0]
    assert session["key"] == "ann\x1fmain" and session["user"] == "ann" and session["id"] == "main"
    assert session["count"] == 1 and session["upto"] == 0
    stored = clock.from_store(session["last_stored_at"])
    assert abs((stored - clock.now()).total_seconds()) < 10  # the library's time, not at


def test_user_word_is_a_stable_hash():
    # The same in every process: a fixed function of the name, not Python's salted hash().
    import hashlib

    assert talk.user_word("ann") == talk.user_word("ann")
    assert talk.user_word("ann") != talk.user_word("bob")
    assert talk.user_word("ann").isalnum() and talk.user_word("ann").startswith("u")
    assert talk.user_word("Zoë") == "u" + hashlib.sha256("Zoë".encode()).hexdigest()[:16]


def test_messages_are_chained_by_next_and_held_by_the_session(chat):
    say_many(chat, "ann", "main", 4)
    chain = chat.query("MATCH (a:Message)-[:NEXT]->(b:Message) RETURN a.seq, b.seq ORDER BY a.seq").result_set
    assert chain == [[1, 2], [2, 3], [3, 4]]
    held = chat.query("MATCH (:Session {key: 'ann\x1fmain'})-[:HAS]->(m:Message) RETURN count(m)")
    assert held.result_set[0][0] == 4


def test_values_are_kept_with_their_types(chat):
    given = {"mood": "calm", "score": 1, "ratio": 1.5, "ok": True, "tags": ["a", "b"]}
    say(chat, "ann", "main", "user", "hi", by="ann", values=given)
    found = messages(chat, "ann", "main")[0]["values"]
    assert found == given
    assert type(found["score"]) is int and type(found["ratio"]) is float and found["ok"] is True


def test_mentions_are_references_by_name_with_no_edge_to_the_thing(chat):
    chat.query("CREATE (:Entity:Pump {key: 'p1', tag: 'p1'})")
    say(
        chat, "ann", "main", "user", "p1 and entry", by="ann", mentions=[(PUMP, "p1"), "ep/3", ("Pump", "p1")]
    )
    say(chat, "bob", "main", "user", "p1 again", by="bob", mentions=[(PUMP, "p1")])
    refs = chat.query("MATCH (r:Reference) RETURN r.label, r.target, r.mentions ORDER BY r.label").result_set
    assert refs == [["Entry", "ep/3", 1], ["Pump", "p1", 2]]  # one per name, MERGEd, counted
    assert messages(chat, "ann", "main")[0]["mentions"] == [("Pump", "p1"), ("Entry", "ep/3")]
    edges = chat.query("MATCH (:Message)-[r]->(:Entity) RETURN count(r)").result_set[0][0]
    assert edges == 0


def test_a_key_and_its_text_are_different_references(chat):
    say(chat, "ann", "main", "user", "x", by="ann", mentions=[(VALVE, 1), (VALVE, "1")])
    assert messages(chat, "ann", "main")[0]["mentions"] == [("Valve", 1), ("Valve", "1")]
    assert chat.query("MATCH (r:Reference) RETURN count(r)").result_set[0][0] == 2


def test_at_is_when_it_was_said_and_may_be_in_the_past(chat):
    say(chat, "ann", "main", "user", "old", by="ann", at="2020-05-01T08:00:00+02:00")
    assert messages(chat, "ann", "main")[0]["at"] == datetime(2020, 5, 1, 6, tzinfo=UTC)


def test_at_up_to_five_minutes_ahead_is_accepted_and_no_more(chat):
    present = datetime.now(UTC).replace(microsecond=0)
    assert say(chat, "ann", "main", "user", "soon", by="ann", at=present + timedelta(minutes=4))["seq"] == 1
    late = say(chat, "ann", "main", "user", "later", by="ann", at=present + timedelta(minutes=6))
    assert late["status"] == "invalid" and "future" in late["reason"]
    assert [m["text"] for m in messages(chat, "ann", "main")] == ["soon"]


def test_eight_threads_saying_at_once_get_distinct_gapless_numbers(chat, db):
    def speaker(who: int, own) -> list[int]:
        return [say(own, "ann", "main", "user", f"t{who} m{i}", by=f"agent{who}")["seq"] for i in range(25)]

    numbers = [seq for said in at_once(db, chat, speaker) for seq in said]
    assert sorted(numbers) == list(range(1, 201))
    found = messages(chat, "ann", "main")
    assert [m["seq"] for m in found] == list(range(1, 201))
    chain = chat.query("MATCH (a:Message)-[:NEXT]->(b:Message) RETURN a.seq, b.seq").result_set
    assert sorted(chain) == [[n, n + 1] for n in range(1, 200)]
    # each thread's messages are in the order it said them
    for who in range(8):
        mine = [m["text"] for m in found if m["by"] == f"agent{who}"]
        assert mine == [f"t{who} m{i}" for i in range(25)]


def test_last_and_before(chat):
    say_many(chat, "ann", "main", 10)
    assert [m["seq"] for m in messages(chat, "ann", "main", last=3)] == [8, 9, 10]
    assert [m["seq"] for m in messages(chat, "ann", "main", last=3, before=5)] == [2, 3, 4]
    assert [m["seq"] for m in messages(chat, "ann", "main", before=3)] == [1, 2]
    assert [m["seq"] for m in messages(chat, "ann", "main", last=50)] == list(range(1, 11))
    assert [m["seq"] for m in messages(chat, "ann", "main", before=99)] == list(range(1, 11))
    assert messages(chat, "ann", "main", before=1) == []
    assert messages(chat, "ann", "main", last=0) == []


def test_last_and_before_at_the_end_of_the_range(chat):
    say_many(chat, "ann", "main", 3)
    huge = 2**63 - 1
    assert [m["seq"] for m in messages(chat, "ann", "main", last=huge, before=huge)] == [1, 2, 3]
    assert [m["seq"] for m in context(chat, "ann", "main", last=huge)["messages"]] == [1, 2, 3]
    with pytest.raises(Refused):
        messages(chat, "ann", "main", last=2**63)


@pytest.mark.parametrize("bad", [-1, True, 1.5, "3", [3]])
def test_last_and_before_must_be_whole_numbers(chat, bad):
    say_many(chat, "ann", "main", 1)
    with pytest.raises(Refused):
        messages(chat, "ann", "main", last=bad)
    with pytest.raises(Refused):
        messages(chat, "ann", "main", before=bad)
    assert failure_count(chat) == 0  # a read that is refused writes nothing


def test_messages_reads_each_message_by_its_key(chat):
    say_many(chat, "ann", "main", 600)
    params = {"session_key": talk.session_key("ann", "main"), "last": 20, "before": None, "own": []}
    plan = str(chat.explain(talk._MESSAGES, params))
    assert "Node By Index Scan | (m:Message)" in plan
    assert "Label Scan" not in plan and "All Node Scan" not in plan
    profile = chat.profile(talk._MESSAGES, params)

    def produced(operation):
        yield f"{operation.name} {operation.args}", operation.records_produced
        for child in operation.children:
            yield from produced(child)

    counts = dict(produced(profile.structured_plan))
    assert counts["Node By Index Scan (m:Message)"] == 20  # 20 looked up, not 600 scanned
    assert max(counts.values()) <= 20


def test_a_session_the_user_does_not_have_reads_as_empty(chat):
    say_many(chat, "ann", "main", 2)
    assert messages(chat, "ann", "other") == []
    assert messages(chat, "bob", "main") == []
    assert context(chat, "bob", "main") == {"summary": None, "upto": 0, "messages": [], "waiting": 0}


def test_reads_of_a_graph_that_does_not_exist_are_empty(db):
    never = db.select_graph("test_conversation_never_written")
    assert messages(never, "ann", "main") == []
    assert sessions(never, "ann") == []
    assert context(never, "ann", "main")["messages"] == []


# --- isolation --------------------------------------------------------------------------------


def test_two_users_with_a_session_main_never_see_each_other(chat):
    say(chat, "ann", "main", "user", "ann private", by="ann")
    say(chat, "bob", "main", "user", "bob private", by="bob")
    say(chat, "bob", "main", "user", "bob second", by="bob")
    assert [m["text"] for m in messages(chat, "ann", "main")] == ["ann private"]
    assert [m["text"] for m in messages(chat, "bob", "main")] == ["bob private", "bob second"]
    assert [s["id"] for s in sessions(chat, "ann")] == ["main"]
    assert sessions(chat, "ann")[0]["count"] == 1
    assert [m["text"] for m in context(chat, "ann", "main")["messages"]] == ["ann private"]
    assert summarize(chat, "ann", "main", "sum", upto=2, by="desk")["status"] == "invalid"
    assert context(chat, "bob", "main")["summary"] is None


@pytest.mark.parametrize(
    ("user", "session"),
    [
        ("ann#1", "main"),  # a user name with the separator of message numbers
        ("ann", "main#1"),
        ("a'; MATCH (n) DETACH DELETE n //", "main"),
        ("ann", 'x") RETURN 1 //'),
        ("Zoë 🚀", "日本"),
        ("ann", "main\u00a0two"),
    ],
)
def test_names_that_look_hostile_are_stored_as_given_and_kept_apart(chat, user, session):
    say(chat, "ann", "main", "user", "ann plain", by="ann")
    receipt = say(chat, user, session, "user", "tricky", by="x")
    assert receipt == {"id": session, "seq": 1, "status": "said"}
    assert [m["text"] for m in messages(chat, user, session)] == ["tricky"]
    assert [m["text"] for m in messages(chat, "ann", "main")] == ["ann plain"]
    assert message_count(chat) == 2


def test_sessions_of_a_user_are_not_those_of_a_user_whose_name_starts_alike(chat):
    for user in ("an", "ann", "ann2", "ann main", "anna"):
        say(chat, user, "main", "user", user, by=user)
    assert [s["id"] for s in sessions(chat, "ann")] == ["main"]
    assert sessions(chat, "ann")[0]["count"] == 1
    assert [m["text"] for m in messages(chat, "ann", "main")] == ["ann"]


def test_names_that_differ_in_case_or_accent_are_other_users(chat):
    for user in ("ann", "Ann", "ANN", "änn", "Zoë", "zoë", "Zoe"):
        say(chat, user, "Main", "user", f"{user} said", by=user)
        say(chat, user, "main", "user", f"{user} said lower", by=user)
    for user in ("ann", "Ann", "ANN", "änn", "Zoë", "zoë", "Zoe"):
        assert sorted(s["id"] for s in sessions(chat, user)) == ["Main", "main"]
        assert [m["text"] for m in messages(chat, user, "Main")] == [f"{user} said"]
        assert [m["text"] for m in messages(chat, user, "main")] == [f"{user} said lower"]


def test_sessions_query_uses_the_index_on_the_user(chat):
    plan = str(chat.explain(talk._SESSIONS, {"user": "ann", "limit": 10}))
    assert "Node By Index Scan | (s:Session)" in plan


# --- sessions() ---------------------------------------------------------------------------------


def test_sessions_most_recently_stored_first(chat):
    say(chat, "ann", "a", "user", "1", by="ann")
    time.sleep(1.1)
    say(chat, "ann", "b", "user", "2", by="ann")
    assert [s["id"] for s in sessions(chat, "ann")] == ["b", "a"]
    time.sleep(1.1)
    # at says when it was said; the order is the library's time, which the caller cannot set
    say(chat, "ann", "a", "user", "3", by="ann", at="2001-01-01T00:00:00Z")
    found = sessions(chat, "ann")
    assert [s["id"] for s in found] == ["a", "b"]
    assert [s["count"] for s in found] == [2, 1]
    assert found[0]["last_stored_at"] > found[1]["last_stored_at"]


@pytest.mark.parametrize("bad", [0, -1, 10_001, True, "5"])
def test_sessions_limit(chat, bad):
    with pytest.raises(Refused):
        sessions(chat, "ann", limit=bad)


def test_sessions_limit_cuts(chat):
    for name in ("a", "b", "c"):
        say(chat, "ann", name, "user", name, by="ann")
    assert len(sessions(chat, "ann", limit=2)) == 2


# --- context() and summarize() ------------------------------------------------------------------


def test_context_gives_the_summary_the_last_messages_and_how_many_wait(chat):
    say_many(chat, "ann", "main", 57)
    found = context(chat, "ann", "main", last=20)
    assert found["summary"] is None and found["upto"] == 0
    assert [m["seq"] for m in found["messages"]] == list(range(38, 58))
    assert found["waiting"] == 37
    earlier = messages(chat, "ann", "main", last=37, before=found["messages"][0]["seq"])
    assert [m["seq"] for m in earlier] == list(range(1, 38))
    assert summarize(chat, "ann", "main", "the first 37", upto=37, by="desk") == {
        "id": "main",
        "upto": 37,
        "status": "summed",
    }
    found = context(chat, "ann", "main")
    assert found["summary"] == "the first 37" and found["upto"] == 37
    assert [m["seq"] for m in found["messages"]] == list(range(38, 58))
    assert found["waiting"] == 0
    summarize(chat, "ann", "main", "the first 50", upto=50, by="desk")
    found = context(chat, "ann", "main", last=20)
    assert [m["seq"] for m in found["messages"]] == list(range(51, 58)) and found["waiting"] == 0
    found = context(chat, "ann", "main", last=3)
    assert [m["seq"] for m in found["messages"]] == [55, 56, 57] and found["waiting"] == 4
    found = context(chat, "ann", "main", last=0)
    assert found["messages"] == [] and found["waiting"] == 7
    summarize(chat, "ann", "main", "all of it", upto=57, by="desk")
    assert context(chat, "ann", "main") == {"summary": "all of it", "upto": 57, "messages": [], "waiting": 0}


def test_a_short_session_has_nothing_waiting(chat):
    say_many(chat, "ann", "main", 5)
    found = context(chat, "ann", "main")
    assert len(found["messages"]) == 5 and found["waiting"] == 0


def test_a_summary_is_not_a_message_and_replaces_the_one_before(chat):
    say_many(chat, "ann", "main", 3)
    summarize(chat, "ann", "main", "first summary zebra", upto=2, by="desk")
    summarize(chat, "ann", "main", "second summary", upto=3, by="desk")
    assert [m["text"] for m in messages(chat, "ann", "main")] == ["line 1", "line 2", "line 3"]
    props = chat.query("MATCH (n) RETURN properties(n)").result_set
    assert not any("zebra" in str(row[0]) for row in props)  # the one before is not kept
    session = chat.query("MATCH (s:Session) RETURN s.summary, s.upto, s.summary_by").result_set[0]
    assert session == ["second summary", 3, "desk"]
    assert context(chat, "ann", "main", last=20)["summary"] == "second summary"


@pytest.mark.parametrize(
    ("upto", "text", "by", "status"),
    [
        (4, "too far", "desk", "invalid"),  # past the last message
        (0, "zero", "desk", "invalid"),
        (-1, "negative", "desk", "invalid"),
        (True, "bool", "desk", "invalid"),
        ("2", "text upto", "desk", "invalid"),
        (2, "x" * 100_001, "desk", "invalid"),
        (2, b"bytes", "desk", "invalid"),
        (2, "nul\x00", "desk", "invalid"),
        (2, "no by", "", "invalid"),
        (2, "bad by", "desk\n", "invalid"),
        (Hostile(), "hostile upto", "desk", "invalid"),
        (2, Hostile(), "desk", "invalid"),
        (2, "hostile by", Hostile(), "invalid"),
    ],
)
def test_summarize_refusals_leave_one_failure_and_the_summary_before(chat, upto, text, by, status):
    say_many(chat, "ann", "main", 3)
    summarize(chat, "ann", "main", "kept", upto=1, by="desk")
    receipt = summarize(chat, "ann", "main", text, upto=upto, by=by)
    assert receipt["status"] == status and receipt["reason"]
    assert failure_count(chat) == 1
    owner, kind = chat.query("MATCH (f:WriteFailure) RETURN f.owner, f.kind").result_set[0]
    assert (owner, kind) == ("ann", "Summary")
    assert context(chat, "ann", "main")["summary"] == "kept"
    assert context(chat, "ann", "main")["upto"] == 1


def test_summarize_a_session_the_user_does_not_have(chat):
    say_many(chat, "ann", "main", 3)
    receipt = summarize(chat, "bob", "main", "not yours", upto=1, by="bob")
    assert receipt["status"] == "unknown" and receipt["reason"]
    assert failure_count(chat) == 1
    assert context(chat, "ann", "main")["summary"] is None


# --- refusals of say() --------------------------------------------------------------------------


class Shifty(str):
    """A str that prints as something else."""

    def __str__(self):
        return "other"


@pytest.mark.parametrize(
    "change",
    [
        {"user": ""},
        {"user": " ann"},
        {"user": "a" * 201},
        {"user": "ann\x1fmain"},  # would forge another session's key
        {"user": "ann\n"},
        {"user": "a\u202eb"},  # a bidi override
        {"user": 5},
        {"user": None},
        {"session": ""},
        {"session": "main\x1fx"},
        {"session": "s" * 201},
        {"session": ["main"]},
        {"role": ""},
        {"by": None},
        {"text": "x" * 100_001},
        {"text": b"bytes"},
        {"text": None},
        {"text": "nul \x00"},
        {"text": "surrogate \ud800"},
        {"mentions": [(PUMP, f"p{i}") for i in range(201)]},
        {"mentions": [(PUMP, None)]},
        {"mentions": [("Entity", "x")]},
        {"mentions": [("Session", "ann\x1fmain")]},
        {"mentions": [("bad label", "x")]},
        {"mentions": [(PUMP, True)]},
        {"mentions": [(PUMP, "a" * 201)]},
        {"mentions": ["\x00"]},
        {"mentions": "p1"},
        {"mentions": [(PUMP,)]},
        {"values": {"text": "mine"}},
        {"values": {"seq": 9}},
        {"values": {"words": "u0000"}},
        {"values": {"user": "bob"}},
        {"values": {"bad name": 1}},
        {"values": {"x": float("nan")}},
        {"values": {"x": {"nested": 1}}},
        {"values": {"x": list(range(1_001))}},
        {"values": {f"v{i}": i for i in range(201)}},
        {"values": "not a dict"},
        {"at": "2999-01-01T00:00:00Z"},
        {"at": "2026-01-01T00:00:00"},  # no zone
        {"at": "2026-01-01T00:00:00.5Z"},
        {"at": "yesterday"},
        {"at": 1_700_000_000},
        {"text": "x" * 100_000, "values": {"more": "y" * 100_000}},  # the whole message over 200,000
        {"user": Hostile()},
        {"session": Hostile()},
        {"by": Hostile()},
        {"text": Hostile()},
        {"mentions": [Hostile()]},
        {"mentions": [(PUMP, Hostile())]},
        {"values": {"x": Hostile()}},
        {"values": {Hostile(): 1}},
        {"at": Hostile()},
        {"user": Shifty("ann\x00")},
    ],
)
def test_a_refused_message_leaves_one_failure_and_uses_no_number(chat, change):
    assert say(chat, "ann", "main", "user", "first", by="ann")["seq"] == 1
    call = {
        "user": "ann",
        "session": "main",
        "role": "user",
        "text": "hello",
        "by": "ann",
        "mentions": None,
        "values": None,
        "at": None,
    } | change
    receipt = say(chat, **call)
    assert receipt["status"] == "invalid", receipt
    assert isinstance(receipt["reason"], str) and receipt["reason"]
    assert failure_count(chat) == 1
    kind, owner, content = chat.query("MATCH (f:WriteFailure) RETURN f.kind, f.owner, f.content").result_set[
        0
    ]
    assert kind == "Message"
    given = call["user"]  # kept as given when it can be stored, else as ASCII with escapes
    if isinstance(given, str):
        assert owner == stored_text(str.__str__(given), 400)
    else:
        assert owner is None
    assert len(content) <= 2_000
    assert message_count(chat) == 1
    assert say(chat, "ann", "main", "user", "next", by="ann")["seq"] == 2  # no number was used


def test_the_same_refusal_again_is_counted_on_one_failure(chat):
    for _ in range(3):
        assert say(chat, "ann", "main", "user", "x" * 100_001, by="ann")["status"] == "invalid"
    assert chat.query("MATCH (f:WriteFailure) RETURN count(f), max(f.times)").result_set[0] == [1, 3]


def test_a_refused_message_keeps_what_it_held(chat):
    say(chat, "ann", "main", "user", "secret plan", by="ann", at="2999-01-01T00:00:00Z")
    content = chat.query("MATCH (f:WriteFailure) RETURN f.content, f.key").result_set[0]
    assert "secret plan" in content[0] and content[1] == "main"


@pytest.mark.parametrize("user", ["", "a" * 201, "x\x00", 7])
def test_reads_refuse_names_that_cannot_be_names(chat, user):
    with pytest.raises(Refused):
        messages(chat, user, "main")
    with pytest.raises(Refused):
        sessions(chat, user)
    with pytest.raises(Refused):
        context(chat, user, "main")
    with pytest.raises(Refused):
        context(chat, "ann", user)


# --- floats -----------------------------------------------------------------------------------------------


def test_a_float_value_is_stored_as_it_reads_back(chat):
    given = {"ratio": 0.1 + 0.2, "thirds": [1 / 3], "tiny": 5e-324, "minus_zero": -0.0}
    assert say(chat, "ann", "main", "user", "hi", by="ann", values=given)["status"] == "said"
    (found,) = messages(chat, "ann", "main")
    assert found["values"] == {
        "ratio": 0.3,
        "thirds": [0.333333333333333],
        "tiny": 5e-324,
        "minus_zero": -0.0,
    }
    # what a query compares is what reads give: the message is found by the value it reads back with
    query = "MATCH (m:Message) WHERE m.ratio = $ratio AND m.thirds = $thirds RETURN m.seq"
    found_again = chat.query(query, {"ratio": 0.3, "thirds": [0.333333333333333]}).result_set
    assert found_again == [[1]]


@pytest.mark.parametrize(
    "huge", [1.7976931348623157e308, -1.7976931348623157e308, [0.5, 1.7976931348623157e308]]
)
def test_a_float_that_would_read_back_as_infinity_is_refused(chat, huge):
    receipt = say(chat, "ann", "main", "user", "hi", by="ann", values={"m": huge})
    assert receipt["status"] == "invalid" and "too large to be read back" in receipt["reason"]
    assert message_count(chat) == 0 and failure_count(chat) == 1
    assert (
        say(chat, "ann", "main", "user", "hi", by="ann", values={"m": 1.79769313486231e308})["status"]
        == "said"
    )
    assert messages(chat, "ann", "main")[0]["values"] == {"m": 1.79769313486231e308}
