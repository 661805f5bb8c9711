"""say(), messages(), sessions(), context(), summarize(): behaviour, refusals and limits, on a real FalkorDB."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import pytest
from chats import PUMP, VALVE, Counting, ready
from hostile import Hostile, hostile_params
from lighthouse import clock
from lighthouse.conversation import talk
from lighthouse.conversation.talk import context, messages, say, sessions, summarize
from lighthouse.errors import Refused
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
    assert set(found[0]) == {"session", "seq", "role", "text", "at", "recorded_at", "by", "mentions"}
    assert found[0]["session"] == "main" and found[0]["mentions"] == [("Pump", "p1")]
    assert isinstance(found[0]["recorded_at"], datetime) and found[0]["recorded_at"].tzinfo is not None


def test_message_node_has_its_model(chat):
    say(chat, "ann", "main", "user", "Hello, Wörld", by="ann", at="2026-01-01T10:00:00Z")
    props = chat.query("MATCH (m:Message) RETURN properties(m)").result_set[0][0]
    assert props["key"] == "ann\x1fmain#1"
    assert props["session"] == "main" and props["user"] == "ann" and props["seq"] == 1
    assert props["words"] == f"hello wörld {talk.user_word('ann')}"
    assert clock.from_store(props["at"]) == datetime(2026, 1, 1, 10, tzinfo=UTC)
    assert abs((clock.from_store(props["recorded_at"]) - clock.present()).total_seconds()) < 10
    found = chat.query("MATCH (s:Session)-[t:LH_TALLY]->(s) RETURN properties(s), properties(t)").result_set
    session, tally = found[0]
    assert session["key"] == "ann\x1fmain" and session["user"] == "ann" and session["id"] == "main"
    assert session["upto"] == 0 and "count" not in session and "active_at" not in session
    assert tally["count"] == 1  # on a loop edge: a node SET beside a CREATE costs time per node of the graph
    stored = clock.from_store(tally["active_at"])
    assert abs((stored - clock.present()).total_seconds()) < 10  # the library's time, not at
    assert session["opened_at"] == tally["active_at"]
    assert props["mentions"] == "[]"  # the references, under a name no value can take
    say(chat, "ann", "main", "user", "again", by="ann")
    counted = "MATCH (s:Session)-[t:LH_TALLY]->(s) RETURN count(t), max(t.count)"
    assert chat.query(counted).result_set == [[1, 2]]


def test_a_message_keeps_its_values_beside_its_own_fields(chat):
    values = {"mood": "calm", "score_given": 3, "tags": ["a", "b"], "at_home": True}
    say(chat, "ann", "main", "user", "with values", by="ann", values=values)
    props = chat.query("MATCH (m:Message) RETURN properties(m)").result_set[0][0]
    assert {name: props[name] for name in values} == values
    assert {name: messages(chat, "ann", "main")[0][name] for name in values} == values


def test_a_session_kept_before_the_tally_reads_and_goes_on(chat):
    """A session written by an earlier version kept its count and last activity on the node."""
    for seq in (1, 2):
        say(chat, "ann", "old", "user", f"message {seq}", by="ann")
    chat.query(
        "MATCH (s:Session)-[t:LH_TALLY]->(s) SET s.count = t.count, s.active_at = t.active_at DELETE t"
    )
    assert [m["text"] for m in messages(chat, "ann", "old")] == ["message 1", "message 2"]
    assert sessions(chat, "ann")[0]["messages"] == 2
    assert context(chat, "ann", "old")["messages"][-1]["seq"] == 2
    assert say(chat, "ann", "old", "user", "message 3", by="ann")["seq"] == 3
    assert [m["seq"] for m in messages(chat, "ann", "old")] == [1, 2, 3]
    assert sessions(chat, "ann")[0]["messages"] == 3
    assert summarize(chat, "ann", "old", "three said", 3, by="ann")["status"] == "summed"


def test_two_tallies_never_double_a_message(chat):
    """Were two first messages to make a tally each (LH_TALLY not registered), each later message is
    still one message with the next number."""
    say(chat, "ann", "main", "user", "one", by="ann")
    chat.query("MATCH (s:Session)-[t:LH_TALLY]->(s) CREATE (s)-[:LH_TALLY {count: t.count}]->(s)")
    assert say(chat, "ann", "main", "user", "two", by="ann", mentions=[(PUMP, "p1")])["seq"] == 2
    assert [m["seq"] for m in messages(chat, "ann", "main")] == [1, 2]
    assert chat.query("MATCH (m:Message) RETURN count(m)").result_set == [[2]]
    assert sessions(chat, "ann")[0]["messages"] == 2
    # The mention is made once, and both tallies take the number.
    assert chat.query("MATCH (:Message)-[r:MENTIONS]->(x:Reference) RETURN count(r)").result_set == [[1]]
    tallies = "MATCH (s:Session)-[t:LH_TALLY]->(s) RETURN count(t), min(t.count), max(t.count)"
    assert chat.query(tallies).result_set == [[2, 2, 2]]


def test_a_session_with_a_count_on_the_node_and_a_tally_takes_the_higher_number(chat):
    """A session an earlier version kept with its count on the node, and a tally beside it: the next
    message takes the number after the higher, and both are moved on."""
    for text in ("one", "two"):
        say(chat, "ann", "main", "user", text, by="ann")
    chat.query("MATCH (s:Session)-[t:LH_TALLY]->(s) SET s.count = 5, t.count = 2")
    assert say(chat, "ann", "main", "user", "three", by="ann")["seq"] == 6
    assert chat.query("MATCH (m:Message) RETURN count(m)").result_set == [[3]]
    found = "MATCH (s:Session)-[t:LH_TALLY]->(s) RETURN s.count, t.count"
    assert chat.query(found).result_set == [[6, 6]]
    assert say(chat, "ann", "main", "user", "four", by="ann")["seq"] == 7


def test_a_message_after_one_that_is_gone_takes_the_next_number_and_links_to_nothing(chat):
    for text in ("one", "two"):
        say(chat, "ann", "main", "user", text, by="ann")
    chat.query("MATCH (m:Message {seq: 2}) DETACH DELETE m")
    assert say(chat, "ann", "main", "user", "three", by="ann", mentions=[(PUMP, "p1")])["seq"] == 3
    assert chat.query("MATCH (m:Message) RETURN m.seq ORDER BY m.seq").result_set == [[1], [3]]
    assert chat.query("MATCH (:Message)-[r:NEXT]->(:Message) RETURN count(r)").result_set == [[0]]
    assert chat.query("MATCH (:Message)-[r:MENTIONS]->(:Reference) RETURN count(r)").result_set == [[1]]
    assert say(chat, "ann", "main", "user", "four", by="ann")["seq"] == 4
    linked = "MATCH (a:Message)-[:NEXT]->(b:Message) RETURN a.seq, b.seq"
    assert chat.query(linked).result_set == [[3, 4]]


def test_the_words_of_a_text_are_those_values_words_gives():
    import random

    from lighthouse import values

    rng = random.Random(8)
    alphabet = "aZ09 _-.,;:'\"!?@#$%^&*()[]{}<>/\\|`~+=\t\n\x1f\x7f" + "ÉéßİıﬁǅΣς日本\u0301"
    texts = ["", " ", "Hello, World", "a_b-c.d", "ÉLAN e\u0301lan", "ﬁne Straße", "İstanbul"]
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randrange(40))) for _ in range(2000)]
    for text in texts:
        assert talk.text_words(text) == values.words(text), ascii(text)


def test_a_message_is_a_plain_dict(chat):
    say(chat, "ann", "main", "user", "hi", by="ann", values={"tags": [], "pair": ("a", "b")})
    (found,) = messages(chat, "ann", "main")
    assert type(found) is dict
    assert found["tags"] == [] and found["pair"] == ["a", "b"]


def test_user_word_is_a_stable_hash():
    # The same in every process: a fixed function of the name, not Python's salted hash().
    import hashlib
    import os
    import subprocess
    import sys

    ask = "from lighthouse.conversation import talk; print(talk.user_word('ann'))"
    elsewhere = {
        subprocess.run(
            [sys.executable, "-c", ask],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        for seed in ("1", "2")
    }
    assert elsewhere == {talk.user_word("ann")}
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
    given = {"mood": "calm", "points": 1, "ratio": 1.5, "ok": True, "tags": ["a", "b"]}
    say(chat, "ann", "main", "user", "hi", by="ann", values=given)
    found = messages(chat, "ann", "main")[0]
    assert {name: found[name] for name in given} == given
    assert type(found["points"]) is int and type(found["ratio"]) is float and found["ok"] is True


def test_mentions_are_references_by_name_with_no_edge_to_the_thing(chat):
    chat.query("CREATE (:Entity:Pump {key: 'p1', tag: 'p1'})")
    say(
        chat,
        "ann",
        "main",
        "user",
        "p1 and entry",
        by="ann",
        mentions=[(PUMP, "p1"), "ep/3", ("Entry", "ep/3")],
    )
    say(chat, "bob", "main", "user", "p1 again", by="bob", mentions=[(PUMP, "p1")])
    refs = chat.query(
        "MATCH (r:Reference)<-[m:MENTIONS]-() RETURN r.label, r.target, count(m), r.mentions ORDER BY r.label"
    ).result_set
    # one per name, MERGEd, mentioned by each message that names it; no count kept on it (forgetting counts)
    assert refs == [["Entry", "ep/3", 1, None], ["Pump", "p1", 2, None]]
    assert messages(chat, "ann", "main")[0]["mentions"] == [("Entry", "ep/3"), ("Pump", "p1")]  # by str()
    edges = chat.query("MATCH (:Message)-[r]->(:Entity) RETURN count(r)").result_set[0][0]
    assert edges == 0


def test_a_key_and_its_text_are_different_references(chat):
    say(chat, "ann", "main", "user", "x", by="ann", mentions=[(VALVE, 1), (VALVE, "1")])
    assert messages(chat, "ann", "main")[0]["mentions"] == [("Valve", "1"), ("Valve", 1)]  # by str()
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
    found = messages(chat, "ann", "main", last=1000)
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
    assert len(messages(chat, "ann", "main", last=1000)) == 10


def test_messages_gives_20_by_default(chat):
    say_many(chat, "ann", "main", 25)
    assert [m["seq"] for m in messages(chat, "ann", "main")] == list(range(6, 26))
    assert [m["seq"] for m in context(chat, "ann", "main")["messages"]] == list(range(6, 26))


def test_before_at_the_end_of_the_range(chat):
    say_many(chat, "ann", "main", 3)
    huge = 2**63 - 1
    assert [m["seq"] for m in messages(chat, "ann", "main", last=1000, before=huge)] == [1, 2, 3]
    with pytest.raises(Refused, match="before must be a whole number from 1 to"):
        messages(chat, "ann", "main", before=2**63)


@pytest.mark.parametrize("bad", [0, -1, 1001, True, 1.5, "3", [3], None])
def test_last_must_be_a_whole_number_from_1_to_1000(chat, bad):
    say_many(chat, "ann", "main", 1)
    with pytest.raises(Refused, match="last must be a whole number from 1 to 1000"):
        messages(chat, "ann", "main", last=bad)
    with pytest.raises(Refused, match="last must be a whole number from 1 to 1000"):
        context(chat, "ann", "main", last=bad)
    with pytest.raises(Refused, match="last must be a whole number from 1 to 1000"):
        context(chat, "bob", "never", last=bad)  # checked even for an unknown session
    assert failure_count(chat) == 0  # a read that is refused writes nothing


@pytest.mark.parametrize("bad", [0, -1, True, 1.5, "3", [3]])
def test_before_must_be_a_whole_number_from_1(chat, bad):
    with pytest.raises(Refused, match="before must be a whole number from 1"):
        messages(chat, "ann", "main", before=bad)


def test_messages_reads_each_message_by_its_key(chat):
    say_many(chat, "ann", "main", 600)
    params = {"session_key": talk.session_key("ann", "main"), "last": 20, "before": None}
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
    assert sessions(chat, "ann")[0]["messages"] == 1
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
    assert sessions(chat, "ann")[0]["messages"] == 1
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
    assert [s["messages"] for s in found] == [2, 1]
    assert found[0]["active_at"] > found[1]["active_at"]
    assert found[0]["opened_at"] < found[1]["opened_at"]  # a was opened first
    assert set(found[0]) == {"id", "opened_at", "active_at", "messages"}


def test_sessions_stored_in_the_same_second_are_ordered_by_id(chat):
    for name in ("c", "a", "b"):
        say(chat, "ann", name, "user", name, by="ann")
    found = sessions(chat, "ann")
    assert sorted(s["id"] for s in found) == ["a", "b", "c"]
    if len({s["active_at"] for s in found}) == 1:  # the three writes fell in one second
        assert [s["id"] for s in found] == ["a", "b", "c"]
    else:
        wanted = sorted(found, key=lambda s: (-s["active_at"].timestamp(), s["id"]))
        assert found == wanted


@pytest.mark.parametrize("bad", [0, -1, 1001, True, "5", 2.0, None])
def test_sessions_limit(chat, bad):
    with pytest.raises(Refused, match="limit must be a whole number from 1 to 1000"):
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
    found = context(chat, "ann", "main", last=1)
    assert [m["seq"] for m in found["messages"]] == [57] and found["waiting"] == 6
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


def failure_of(graph) -> list:
    return graph.query("MATCH (f:WriteFailure) RETURN f.owner, f.kind, f.key, f.`lh.by`, f.reason").result_set


@pytest.mark.parametrize(
    ("upto", "text", "reason"),
    [
        (4, "too far", "upto is past the last message of the session"),
        (0, "zero", "upto must be a whole number from 1 to"),
        (-1, "negative", "upto must be a whole number"),
        (True, "bool", "upto must be a whole number"),
        ("2", "text upto", "upto must be a whole number"),
        (2.0, "float upto", "upto must be a whole number"),
        (None, "no upto", "upto must be a whole number"),
        (2, "x" * 100_001, "text must be text of at most 100000 characters"),
        (2, b"bytes", "text holds a bytes"),
        (2, None, "text must be text"),
        (2, "nul\x00", "text must be text without a NUL"),
        (2, "", "text must not be blank"),
        (2, " \n\t", "text must not be blank"),
    ],
)
def test_summarize_refusals_leave_one_failure_and_the_summary_before(chat, upto, text, reason):
    say_many(chat, "ann", "main", 3)
    summarize(chat, "ann", "main", "kept", upto=1, by="desk")
    receipt = summarize(chat, "ann", "main", text, upto=upto, by="desk")
    assert receipt["id"] is None and receipt["status"] == "invalid"
    assert receipt["reason"].startswith(reason)
    if reason.startswith(("upto is", "text must be text of")):
        assert receipt["reason"] == reason  # the exact reasons the API pins
    assert failure_of(chat) == [["ann", "Summary", "main", "desk", "invalid"]]
    assert context(chat, "ann", "main")["summary"] == "kept"
    assert context(chat, "ann", "main")["upto"] == 1


def test_summarize_a_session_the_user_does_not_have(chat):
    say_many(chat, "ann", "main", 3)
    receipt = summarize(chat, "bob", "main", "not yours", upto=1, by="bob")
    assert receipt == {"id": None, "status": "unknown", "reason": "the user has no such session"}
    assert failure_of(chat) == [["bob", "Summary", "main", "bob", "unknown"]]
    assert context(chat, "ann", "main")["summary"] is None


def test_a_summary_that_reaches_less_far_is_stale_and_an_equal_one_replaces(chat):
    say_many(chat, "ann", "main", 5)
    assert summarize(chat, "ann", "main", "to four", upto=4, by="desk")["status"] == "summed"
    receipt = summarize(chat, "ann", "main", "to three", upto=3, by="desk")
    assert receipt == {"id": None, "status": "stale", "reason": "the summary that is there reaches further"}
    assert context(chat, "ann", "main")["summary"] == "to four"
    assert summarize(chat, "ann", "main", "four again", upto=4, by="desk") == {
        "id": "main",
        "upto": 4,
        "status": "summed",
    }
    assert context(chat, "ann", "main")["summary"] == "four again"
    assert failure_of(chat) == [["ann", "Summary", "main", "desk", "stale"]]


def test_summarize_and_say_are_one_query_each(chat):
    counted = Counting(chat)
    assert say(counted, "ann", "main", "user", "hello", by="ann", mentions=[(PUMP, "p1")])["seq"] == 1
    assert say(counted, "ann", "main", "user", "again", by="ann", values={"mood": "calm"})["seq"] == 2
    # The first message: the query for a session with its tally wrote nothing, the one that makes it did;
    # the next message in one query.
    assert len(counted.sent) == 3
    assert summarize(counted, "ann", "main", "a greeting", upto=2, by="desk")["status"] == "summed"
    assert len(counted.sent) == 4
    assert len(messages(counted, "ann", "main")) == 2 and len(counted.sent) == 5
    assert context(counted, "ann", "main")["upto"] == 2 and len(counted.sent) == 6
    assert len(sessions(counted, "ann")) == 1 and len(counted.sent) == 7


# --- refusals of say() --------------------------------------------------------------------------


CALL = {
    "user": "ann",
    "session_id": "main",
    "role": "user",
    "text": "hello",
    "by": "ann",
    "mentions": (),
    "values": None,
    "at": None,
}


class Shifty(str):
    """A str that prints as something else."""

    def __str__(self):
        return "other"


@pytest.mark.parametrize(
    "change",
    [
        {"text": "x" * 100_001},
        {"text": b"bytes"},
        {"text": None},
        {"text": "nul \x00"},
        {"text": "surrogate \ud800"},
        {"text": Shifty("looks fine")},
        {"mentions": None},
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
        *[{"values": {name: "mine"}} for name in ["key", "session", "user", "seq", "role", "text"]],
        {"values": {"at": 1}},
        {"values": {"recorded_at": 1}},
        {"values": {"by": "bob"}},
        {"values": {"mentions": "[]"}},
        {"values": {"score": 1.0}},
        {"values": {"words": "u0000"}},
        {"values": {"bad name": 1}},
        {"values": {"lh.rev": 1}},
        {"values": {"x": float("nan")}},
        {"values": {"x": {"nested": 1}}},
        {"values": {"x": list(range(1_001))}},
        {"values": {f"v{i}": i for i in range(201)}},
        {"values": "not a dict"},
        {"values": []},
        {"at": "2999-01-01T00:00:00Z"},
        {"at": "1999-12-31T23:59:59Z"},
        {"at": "2026-01-01T00:00:00.5Zjunk"},
        {"at": "yesterday"},
        {"at": 1_700_000_000},
        {"text": "x" * 100_000, "values": {"more": "y" * 100_000}},  # the whole message over 200,000
        {"mentions": [Hostile()]},
        {"mentions": [(PUMP, Hostile())]},
        {"values": {"x": Hostile()}},
        {"values": {Hostile(): 1}},
        {"at": Hostile()},
    ],
)
def test_a_refused_message_leaves_one_failure_and_uses_no_number(chat, change):
    assert say(chat, "ann", "main", "user", "first", by="ann")["seq"] == 1
    receipt = say(chat, **(CALL | change))
    assert receipt["id"] is None and receipt["status"] == "invalid", receipt
    assert isinstance(receipt["reason"], str) and receipt["reason"]
    assert set(receipt) == {"id", "status", "reason"}
    (kind, owner, key, content), *more = chat.query(
        "MATCH (f:WriteFailure) RETURN f.kind, f.owner, f.key, f.detail"
    ).result_set
    assert not more
    assert (kind, owner, key) == ("Message", "ann", "main")
    assert len(content) <= 2_000
    assert message_count(chat) == 1
    assert say(chat, "ann", "main", "user", "next", by="ann")["seq"] == 2  # no number was used


def test_the_text_reason_is_the_one_the_api_pins(chat):
    receipt = say(chat, "ann", "main", "user", "x" * 100_001, "ann")
    assert receipt == {
        "id": None,
        "status": "invalid",
        "reason": "text must be text of at most 100000 characters",
    }


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
        {"user": Shifty("ann")},
        {"session_id": ""},
        {"session_id": "main\x1fx"},
        {"session_id": "s" * 201},
        {"session_id": ["main"]},
        {"role": ""},
        {"role": None},
        {"by": None},
        {"by": "desk\n"},
    ],
)
def test_identity_that_is_not_a_name_raises_and_writes_nothing(chat, change):
    with pytest.raises(Refused, match="must be text"):
        say(chat, **(CALL | change))
    with pytest.raises(Refused, match="must be text"):
        summarize(
            chat,
            **(
                {"user": "ann", "session_id": "main", "text": "t", "upto": 1, "by": "d"}
                | {name: given for name, given in change.items() if name != "role"}
                | ({"by": change["role"]} if "role" in change else {})
            ),
        )
    assert failure_count(chat) == 0 and message_count(chat) == 0


def test_an_empty_text_is_a_message_and_values_of_other_writes_are_storable(chat):
    # valid_from, fp, entry and the rest belong to States, not to messages: a message may use them.
    names = {"valid_from": "x", "valid_to": 2, "fp": "f", "entry": "e", "seen_last": True, "count": 3}
    assert say(chat, "ann", "main", "user", "", "ann", values={**names, "dropped": None})["status"] == "said"
    (found,) = messages(chat, "ann", "main")
    assert found["text"] == "" and {name: found[name] for name in names} == names
    assert "dropped" not in found
    assert said_nothing_in_words(chat)


def said_nothing_in_words(graph) -> bool:
    (words,) = graph.query("MATCH (m:Message) RETURN m.words").result_set[0]
    return words == talk.user_word("ann")


def test_say_takes_every_argument_by_position(chat):
    receipt = say(chat, "ann", "main", "user", "hi", "ann", [(PUMP, "p1")], {"mood": "calm"}, "2026-01-01")
    assert receipt == {"id": "main", "seq": 1, "status": "said"}
    (found,) = messages(chat, "ann", "main", 20, None)
    assert found["mood"] == "calm" and found["mentions"] == [("Pump", "p1")]
    assert found["at"] == datetime(2026, 1, 1, tzinfo=UTC)


def test_a_blank_at_means_now(chat):
    assert say(chat, "ann", "main", "user", "hi", "ann", at="  ")["status"] == "said"
    found = messages(chat, "ann", "main")[0]["at"]
    assert abs((found - clock.present()).total_seconds()) < 10


def test_a_database_error_is_a_failed_receipt(chat):
    # The server refuses the query as sent (a time it cannot read): what a ResponseError does to a write.
    broken = Counting(chat)

    def refusing(query, *args, **kwargs):
        if query.startswith(("OPTIONAL MATCH (found:Session", "MATCH (s:Session")):
            query = query.replace("localdatetime($now)", "localdatetime('not a time')")
        return chat.query(query, *args, **kwargs)

    broken.query = refusing
    receipt = say(broken, "ann", "main", "user", "hello", by="ann")
    assert receipt["id"] is None and receipt["status"] == "failed" and receipt["reason"]
    say_many(chat, "ann", "main", 1)
    summed = summarize(broken, "ann", "main", "a summary", upto=1, by="desk")
    assert summed["id"] is None and summed["status"] == "failed"
    assert sorted(row[1] for row in failure_of(chat)) == ["Message", "Summary"]


# --- hostile objects -----------------------------------------------------------------------------


@pytest.mark.parametrize("hostile", hostile_params())
@pytest.mark.parametrize("where", ["text", "mentions", "values", "at", "in_mentions", "in_values"])
def test_a_hostile_object_in_a_message_costs_one_refusal(chat, hostile, where):
    content = {
        "in_mentions": {"mentions": [(PUMP, "p1"), hostile]},
        "in_values": {"values": {"fine": 1, "bad": hostile}},
    }.get(where, {where: hostile})
    receipt = say(chat, **(CALL | content))
    assert receipt["id"] is None and receipt["status"] == "invalid" and isinstance(receipt["reason"], str)
    assert len(failure_of(chat)) == 1
    assert message_count(chat) == 0
    assert (
        chat.query("MATCH (n) WHERE NOT n:WriteFailure AND NOT n:Stamp RETURN count(n)").result_set[0][0] == 0
    )


@pytest.mark.parametrize("hostile", hostile_params())
@pytest.mark.parametrize("where", ["text", "upto"])
def test_a_hostile_object_in_a_summary_costs_one_refusal(chat, hostile, where):
    say_many(chat, "ann", "main", 2)
    receipt = summarize(
        chat, **({"user": "ann", "session_id": "main", "text": "t", "upto": 1, "by": "d"} | {where: hostile})
    )
    assert receipt["id"] is None and receipt["status"] == "invalid"
    assert failure_of(chat) == [["ann", "Summary", "main", "d", "invalid"]]
    assert context(chat, "ann", "main")["summary"] is None


@pytest.mark.parametrize("hostile", hostile_params())
@pytest.mark.parametrize("where", ["user", "session_id", "role", "by"])
def test_a_hostile_identity_raises_must_be_text_and_writes_nothing(chat, hostile, where):
    with pytest.raises(Refused, match="must be text"):
        say(chat, **(CALL | {where: hostile}))
    if where != "role":
        with pytest.raises(Refused, match="must be text"):
            summarize(
                chat,
                **(
                    {"user": "ann", "session_id": "main", "text": "t", "upto": 1, "by": "d"}
                    | {where: hostile}
                ),
            )
    assert chat.query("MATCH (n) WHERE NOT n:Stamp RETURN count(n)").result_set[0][0] == 0


@pytest.mark.parametrize("hostile", hostile_params())
def test_reads_refuse_a_hostile_argument(chat, hostile):
    say_many(chat, "ann", "main", 1)
    for call in (
        lambda: messages(chat, hostile, "main"),
        lambda: messages(chat, "ann", hostile),
        lambda: messages(chat, "ann", "main", last=hostile),
        lambda: messages(chat, "ann", "main", before=hostile),
        lambda: sessions(chat, hostile),
        lambda: sessions(chat, "ann", limit=hostile),
        lambda: context(chat, hostile, "main"),
        lambda: context(chat, "ann", "main", last=hostile),
    ):
        with pytest.raises(Refused):
            call()
    assert failure_count(chat) == 0


def test_the_same_refusal_again_is_counted_on_one_failure(chat):
    for _ in range(3):
        assert say(chat, "ann", "main", "user", "x" * 100_001, by="ann")["status"] == "invalid"
    assert chat.query("MATCH (f:WriteFailure) RETURN count(f), max(f.times)").result_set[0] == [1, 3]


def test_a_refused_message_keeps_what_it_held(chat):
    say(chat, "ann", "main", "user", "secret plan", by="ann", at="2999-01-01T00:00:00Z")
    content = chat.query("MATCH (f:WriteFailure) RETURN f.detail, f.key").result_set[0]
    assert "secret plan" in content[0] and content[1] == "main"


@pytest.mark.parametrize("user", ["", "a" * 201, "x\x00", 7])
def test_reads_refuse_names_that_cannot_be_names(chat, user):
    with pytest.raises(Refused, match="must be text"):
        messages(chat, user, "main")
    with pytest.raises(Refused, match="must be text"):
        sessions(chat, user)
    with pytest.raises(Refused, match="must be text"):
        context(chat, user, "main")
    with pytest.raises(Refused, match="must be text"):
        context(chat, "ann", user)


# --- floats -----------------------------------------------------------------------------------------------


def test_a_float_value_is_stored_as_it_reads_back(chat):
    given = {"ratio": 0.1 + 0.2, "thirds": [1 / 3], "tiny": 5e-324, "minus_zero": -0.0}
    assert say(chat, "ann", "main", "user", "hi", by="ann", values=given)["status"] == "said"
    (found,) = messages(chat, "ann", "main")
    assert {name: found[name] for name in given} == {
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
    assert messages(chat, "ann", "main")[0]["m"] == 1.79769313486231e308


def test_a_database_error_of_a_read_propagates(chat):
    from redis.exceptions import ResponseError

    say_many(chat, "ann", "main", 1)
    broken = Counting(chat)

    def refusing(query, *args, **kwargs):
        raise ResponseError("the server said no")

    broken.ro_query = refusing
    for call in (
        lambda: messages(broken, "ann", "main"),
        lambda: sessions(broken, "ann"),
        lambda: context(broken, "ann", "main"),
    ):
        with pytest.raises(ResponseError, match="the server said no"):
            call()
    assert failure_count(chat) == 0
