"""forget_session() and forget_user(): what a session held is gone from every property of the graph."""

from __future__ import annotations

import pytest
from chats import PUMP, ready
from hostile import hostile_params
from lighthouse.conversation import forgetting
from lighthouse.conversation.forgetting import forget_session, forget_user
from lighthouse.conversation.recall import said, said_about
from lighthouse.conversation.talk import (
    context,
    messages,
    say,
    session_key,
    sessions,
    summarize,
    user_word,
)
from lighthouse.errors import Refused


@pytest.fixture
def chat(graph):
    return ready(graph, [PUMP])


def every_property(graph) -> list[str]:
    """Each label, type, property name and value of each node and edge, as text: what an erasure must
    leave nothing of."""
    nodes = graph.query("MATCH (n) RETURN labels(n), properties(n)").result_set
    edges = graph.query("MATCH ()-[e]->() RETURN [type(e)], properties(e)").result_set
    found: list[str] = []
    for names, props in nodes + edges:
        found += names
        for name, item in props.items():
            found.append(name)
            found += [str(one) for one in item] if isinstance(item, list) else [str(item)]
    return found


def holds(graph, marker: str) -> bool:
    return any(marker in text for text in every_property(graph))


def stamp_of(graph) -> str:
    return graph.query("MATCH (st:Stamp) RETURN st.id").result_set[0][0]


def count(graph, label: str) -> int:
    return graph.query(f"MATCH (n:{label}) RETURN count(n)").result_set[0][0]


# --- erasure ------------------------------------------------------------------------------------


@pytest.mark.parametrize("user", ["erin-zq", "Zoë-日本 quote'\"#"])
def test_after_forget_user_no_property_holds_what_the_user_said(chat, user):
    secrets = {
        "text": "alpha-secret-text",
        "value": "beta-secret-value",
        "summary": "gamma-secret-summary",
        "mention": "delta-secret-pump",
        "refused text": "epsilon-secret-refused",
        "refused value": "zeta-secret-refused-value",
        "refused summary": "eta-secret-refused-summary",
    }
    say(chat, user, "s1", "user", f"{secrets['text']} one", by=user, mentions=[(PUMP, secrets["mention"])])
    say(chat, user, "s1", "helper", "two", by="desk", values={"note": secrets["value"], "n": [1, 2]})
    say(chat, user, "s2", "user", "three", by=user, mentions=[(PUMP, "shared")])
    summarize(chat, user, "s1", secrets["summary"], upto=2, by="desk")
    # refused writes of the user: each kept as a WriteFailure until the user is forgotten
    assert (
        say(chat, user, "s1", "user", secrets["refused text"] + "x" * 100_000, by=user)["status"] == "invalid"
    )
    assert say(chat, user, "s3", "user", "t", by=user, values={"text": secrets["refused value"]})[
        "status"
    ] == ("invalid")
    with pytest.raises(Refused):  # an identity that is not a name raises and keeps nothing
        say(chat, user, "bad\x00id", "user", "theta-never-kept", by=user)
    assert say(chat, user, "s4", "user", "t", by=user, mentions=None)["status"] == "invalid"
    assert summarize(chat, user, "s1", secrets["refused summary"], upto=99, by="desk")["status"] == "invalid"
    # another user, who keeps everything
    say(chat, "other", "main", "user", "other keeps this", by="other", mentions=[(PUMP, "shared")])
    say(chat, "other", "main", "user", "t", by="other", at="2999-01-01T00:00:00Z")
    for marker in [*secrets.values(), user, user_word(user)]:
        assert holds(chat, marker), marker  # the scan sees them before
    before = stamp_of(chat)

    gone = forget_user(chat, user)

    assert gone == {"user": user, "sessions": 2, "messages": 3}
    for marker in [*secrets.values(), user, user_word(user), "theta-never-kept"]:
        assert not holds(chat, marker), marker
    assert stamp_of(chat) != before
    assert [m["text"] for m in messages(chat, "other", "main")] == ["other keeps this"]
    mentioned = "MATCH (r:Reference) OPTIONAL MATCH (r)<-[m:MENTIONS]-() RETURN r.target, count(m)"
    assert chat.query(mentioned).result_set == [["shared", 1]]
    assert count(chat, "WriteFailure") == 1  # the other user's refusal stays
    assert sessions(chat, user) == []


def test_forget_session_leaves_the_users_other_sessions(chat):
    say(chat, "ann", "a", "user", "forget me", by="ann", mentions=[(PUMP, "p1")])
    say(chat, "ann", "b", "user", "keep me", by="ann", mentions=[(PUMP, "p1")])
    say(chat, "ann", "a", "user", "t", by="ann", at="2999-01-01T00:00:00Z")  # refused in a
    say(chat, "ann", "b", "user", "t", by="ann", at="2998-01-01T00:00:00Z")  # refused in b
    summarize(chat, "ann", "a", "summary 2997", upto=5, by="desk")  # a refused summary of a
    gone = forget_session(chat, "ann", "a")
    assert gone == {"id": "a", "status": "forgotten", "messages": 1}
    assert not holds(chat, "2997")
    assert messages(chat, "ann", "a") == []
    assert [m["text"] for m in messages(chat, "ann", "b")] == ["keep me"]
    assert [m["text"] for m in said_about(chat, "ann", (PUMP, "p1"))] == ["keep me"]
    assert [s["id"] for s in sessions(chat, "ann")] == ["b"]
    assert not holds(chat, "forget me") and not holds(chat, "2999")
    assert holds(chat, "2998")
    assert chat.query("MATCH (r:Reference)<-[m:MENTIONS]-() RETURN count(m)").result_set == [[1]]


def test_forgetting_one_user_leaves_another_users_session_of_the_same_name(chat):
    say(chat, "ann", "main", "user", "ann text", by="ann")
    say(chat, "bob", "main", "user", "bob text", by="bob")
    assert forget_session(chat, "ann", "main")["messages"] == 1
    assert [m["text"] for m in messages(chat, "bob", "main")] == ["bob text"]
    assert [m["text"] for m in said(chat, "bob", "text")] == ["bob text"]
    assert forget_user(chat, "ann") == {"user": "ann", "sessions": 0, "messages": 0}
    assert [m["text"] for m in messages(chat, "bob", "main")] == ["bob text"]


def test_forget_user_does_not_reach_users_whose_names_are_alike(chat):
    for user in ("an", "ann", "ann2", "anna", "Ann", "ANN", "änn", "Zoe"):
        say(chat, user, "main", "user", f"{user} said", by=user)
    forget_user(chat, "ann")
    assert messages(chat, "ann", "main") == []
    for user in ("an", "ann2", "anna", "Ann", "ANN", "änn", "Zoe"):
        assert [m["text"] for m in messages(chat, user, "main")] == [f"{user} said"]


# --- steps --------------------------------------------------------------------------------------


def test_a_session_goes_in_steps_of_200_the_last_first(chat, monkeypatch):
    for i in range(1, 451):
        say(chat, "ann", "main", "user", f"m{i}", by="ann", mentions=[(PUMP, f"p{i % 3}")])
    summarize(chat, "ann", "main", "up to 300", upto=300, by="desk")
    key = session_key("ann", "main")
    seen: list[tuple[int, list[int], int]] = []
    real = chat.query
    stamps: list[str] = []

    def watched(query, params=None, *args, **kwargs):
        result = real(query, params, *args, **kwargs)
        if query == forgetting._STEP:
            left = real(
                "MATCH (s:Session {key: $k}) OPTIONAL MATCH (s)-[t:LH_TALLY]->(s) RETURN t.count, s.upto",
                {"k": key},
            ).result_set
            shown = [m["seq"] for m in messages(chat, "ann", "main", last=1000)]
            seen.append((left[0][0] if left else None, shown, left[0][1] if left else None))
            stamps.append(stamp_of(chat))
        return result

    monkeypatch.setattr(chat, "query", watched)
    gone = forget_session(chat, "ann", "main")
    assert gone == {"id": "main", "status": "forgotten", "messages": 450}
    assert count(chat, "Reference") == 0  # p0, p1 and p2 were mentioned by nothing else
    counts = [step[0] for step in seen]
    assert counts == [250, 50, None]  # 200, 200, then the last 50 with the session
    assert seen[0][1] == list(range(1, 251)) and seen[1][1] == list(range(1, 51)) and seen[2][1] == []
    assert seen[0][2] == 0  # the summary of messages that went goes with them
    assert len(set(stamps)) == 3  # each query that deleted gave the graph a new stamp


def test_a_shorter_session_reads_right_after_a_step(chat):
    for i in range(1, 6):
        say(chat, "ann", "main", "user", f"m{i}", by="ann")
    summarize(chat, "ann", "main", "first two", upto=2, by="desk")
    rows = chat.query(
        forgetting._STEP, {"session_key": session_key("ann", "main"), "step": 2, "stamp": "x"}
    ).result_set
    assert rows == [[2, 0, False]]
    assert [m["seq"] for m in messages(chat, "ann", "main")] == [1, 2, 3]
    assert context(chat, "ann", "main") == {
        "summary": "first two",
        "upto": 2,
        "messages": context(chat, "ann", "main")["messages"],
        "waiting": 0,
    }
    assert [m["seq"] for m in context(chat, "ann", "main")["messages"]] == [3]
    assert say(chat, "ann", "main", "user", "again", by="ann")["seq"] == 4  # the count went down
    assert [m["text"] for m in messages(chat, "ann", "main")][-1] == "again"
    chain = chat.query("MATCH (a:Message)-[:NEXT]->(b:Message) RETURN a.seq, b.seq ORDER BY a.seq")
    assert chain.result_set == [[1, 2], [2, 3], [3, 4]]


def test_a_message_said_after_forgetting_opens_the_session_again_at_1(chat):
    say(chat, "ann", "main", "user", "old", by="ann")
    say(chat, "ann", "main", "user", "old 2", by="ann")
    forget_session(chat, "ann", "main")
    assert say(chat, "ann", "main", "user", "new", by="ann") == {"id": "main", "seq": 1, "status": "said"}
    assert [m["text"] for m in messages(chat, "ann", "main")] == ["new"]
    assert chat.query("MATCH ()-[n:NEXT]->() RETURN count(n)").result_set == [[0]]


def test_a_message_said_while_forgetting_runs_goes_too(chat, monkeypatch):
    for i in range(1, 251):
        say(chat, "ann", "main", "user", f"m{i}", by="ann")
    real = chat.query
    said_during: list[dict] = []

    def watched(query, params=None, *args, **kwargs):
        result = real(query, params, *args, **kwargs)
        if query == forgetting._STEP and not said_during:
            said_during.append(say(chat, "ann", "main", "user", "during", by="ann"))
        return result

    monkeypatch.setattr(chat, "query", watched)
    gone = forget_session(chat, "ann", "main")
    assert said_during[0]["seq"] == 51  # after the first step, the session had 50
    assert gone == {"id": "main", "status": "forgotten", "messages": 251}
    monkeypatch.undo()
    assert count(chat, "Message") == 0 and count(chat, "Session") == 0


def test_forgetting_what_does_not_exist_changes_nothing(chat):
    say(chat, "ann", "main", "user", "stays", by="ann")
    before = stamp_of(chat)
    assert forget_session(chat, "ann", "nothing") == {"id": "nothing", "status": "unknown", "messages": 0}
    assert forget_user(chat, "nobody") == {"user": "nobody", "sessions": 0, "messages": 0}
    assert stamp_of(chat) == before  # nothing was deleted: the graph keeps its stamp
    assert [m["text"] for m in messages(chat, "ann", "main")] == ["stays"]


def test_forgetting_in_a_graph_without_a_stamp_still_deletes(graph):
    say(graph, "ann", "main", "user", "no schema", by="ann")
    assert forget_user(graph, "ann")["messages"] == 1
    assert count(graph, "Message") == 0


def test_failures_go_in_steps(chat):
    for i in range(205):
        say(chat, "ann", f"s{i}", "user", "t", by="ann", at="2999-01-01T00:00:00Z")
    assert count(chat, "WriteFailure") == 205
    assert forget_user(chat, "ann") == {"user": "ann", "sessions": 0, "messages": 0}
    assert count(chat, "WriteFailure") == 0


@pytest.mark.parametrize("user", ["", "a" * 201, "x\x00", 7, None, "ann\x1fmain"])
def test_forgetting_refuses_names_that_cannot_be_names(chat, user):
    say(chat, "ann", "main", "user", "stays", by="ann")
    with pytest.raises(Refused, match="must be text"):
        forget_user(chat, user)
    with pytest.raises(Refused, match="must be text"):
        forget_session(chat, user, "main")
    with pytest.raises(Refused, match="must be text"):
        forget_session(chat, "ann", user)
    assert count(chat, "Message") == 1


@pytest.mark.parametrize("hostile", hostile_params())
def test_forgetting_refuses_a_hostile_name_and_deletes_nothing(chat, hostile):
    say(chat, "ann", "main", "user", "stays", by="ann")
    assert say(chat, "ann", "main", "user", "t", by="ann", mentions=None)["status"] == "invalid"
    before = stamp_of(chat)
    for call in (
        lambda: forget_user(chat, hostile),
        lambda: forget_session(chat, hostile, "main"),
        lambda: forget_session(chat, "ann", hostile),
    ):
        with pytest.raises(Refused, match="must be text"):
            call()
    assert count(chat, "Message") == 1 and count(chat, "WriteFailure") == 1
    assert stamp_of(chat) == before


def test_forget_session_of_an_unknown_session_still_deletes_its_refusals(chat):
    say(chat, "ann", "main", "user", "stays", by="ann")
    assert say(chat, "ann", "never", "user", "t", by="ann", mentions=None)["status"] == "invalid"
    assert say(chat, "ann", "main", "user", "t", by="ann", mentions=None)["status"] == "invalid"
    assert say(chat, "bob", "never", "user", "t", by="bob", mentions=None)["status"] == "invalid"
    assert summarize(chat, "ann", "never", "s", upto=1, by="desk")["status"] == "unknown"
    assert forget_session(chat, "ann", "never") == {"id": "never", "status": "unknown", "messages": 0}
    left = chat.query("MATCH (f:WriteFailure) RETURN f.owner, f.key ORDER BY f.owner").result_set
    assert left == [["ann", "main"], ["bob", "never"]]
    assert [m["text"] for m in messages(chat, "ann", "main")] == ["stays"]


def test_forgetting_passes_a_database_error_on(chat):
    from redis.exceptions import ResponseError

    say(chat, "ann", "main", "user", "stays", by="ann")
    real = chat.query

    def refusing(query, *args, **kwargs):
        raise ResponseError("the server said no")

    chat.query = refusing
    try:
        with pytest.raises(ResponseError):
            forget_session(chat, "ann", "main")
        with pytest.raises(ResponseError):
            forget_user(chat, "ann")
    finally:
        chat.query = real
    assert count(chat, "Message") == 1


def test_forgetting_a_user_keeps_the_refusals_of_a_user_whose_name_looks_the_same_escaped(chat):
    # "Zoë" and the six characters "Zo\xeb" are two users: their refused messages are kept apart.
    for user in ("Zoë", "Zo\\xeb"):
        assert say(chat, user, "main", "user", "x" * 100_001, by=user)["status"] == "invalid"
    forget_user(chat, "Zoë")
    owners = [row[0] for row in chat.query("MATCH (f:WriteFailure) RETURN f.owner").result_set]
    assert owners == ["Zo\\xeb"]


def test_a_reference_goes_with_the_last_message_that_mentions_it_whatever_count_it_kept(chat):
    say(chat, "ann", "a", "user", "one", by="ann", mentions=[(PUMP, "p1"), (PUMP, "p2")])
    say(chat, "ann", "a", "user", "two", by="ann", mentions=[(PUMP, "p1")])
    say(chat, "bob", "b", "user", "three", by="bob", mentions=[(PUMP, "p2")])
    # a Reference kept before counted its messages on itself: the count is not what forgetting reads
    chat.query("MATCH (r:Reference) SET r.mentions = 99")
    forget_session(chat, "ann", "a")
    left = "MATCH (r:Reference) OPTIONAL MATCH (r)<-[m:MENTIONS]-() RETURN r.target, count(m)"
    assert chat.query(left).result_set == [["p2", 1]]  # p1 had only ann's messages; p2 has bob's
    forget_user(chat, "bob")
    assert chat.query("MATCH (r:Reference) RETURN count(r)").result_set == [[0]]
