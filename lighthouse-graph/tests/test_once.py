"""once(): a call made again for the same request gives the first answer and writes nothing more."""

from __future__ import annotations

import pytest
from lighthouse import (
    Kind,
    accept,
    add_task,
    claim,
    close_episode,
    complete,
    confirm,
    forget_session,
    forget_user,
    hand_off,
    invalidate_entry,
    learn,
    note,
    notes,
    open_episode,
    record,
    reject,
    release,
    remember,
    say,
    summarize,
    update,
    weigh,
    write_playbook,
)
from lighthouse.errors import Refused
from lighthouse.graphs import read
from lighthouse.once import StepMismatch, _keeping, _without_header, once, once_settled
from test_episodes import schema_ready

PUMP = Kind("Pump", key="tag")
T0 = "2026-01-01T00:00:00Z"


@pytest.fixture
def world(graph):
    return made_world(graph)


def made_world(graph):
    schema_ready(graph, [PUMP])
    remember(graph, PUMP, [{"key": "p1", "t": T0, "values": {"status": "ok"}}], "setup")
    remember(graph, PUMP, [{"key": "p3", "t": T0, "values": {"status": "x"}}], "setup", candidate=True)
    remember(graph, PUMP, [{"key": "p4", "t": T0, "values": {"status": "y"}}], "setup", candidate=True)
    open_episode(graph, "e1", "setup", [(PUMP, "p1")])
    record(graph, "e1", "observation", "setup", {"seen": 1})
    open_episode(graph, "e2", "setup", [(PUMP, "p1")])
    close_episode(graph, "e2", "setup", {"ok": True})
    hand_off(graph, "h0", "setup", "alice", [(PUMP, "p1")])
    add_task(graph, "t1", "fix")
    add_task(graph, "t2", "fix")
    say(graph, "u1", "s1", "user", "hello", "setup")
    say(graph, "u2", "s2", "user", "bye", "setup")
    learn(graph, "l1", "setup", "pumps run hot", ["e2"])
    return graph


WRITES = {
    "remember": lambda g: remember(g, PUMP, [{"key": "p2", "t": T0, "values": {"status": "new"}}], "bob"),
    "update": lambda g: update(g, PUMP, "p1", "2026-01-02T00:00:00Z", "bob", {"status": "hot"}),
    "confirm": lambda g: confirm(g, PUMP, "p3", T0, "bob"),
    "reject": lambda g: reject(g, PUMP, "p4", T0, "bob", "wrong"),
    "open_episode": lambda g: open_episode(g, "e3", "bob", [(PUMP, "p1")]),
    "record": lambda g: record(g, "e1", "observation", "bob", {"temp": 80}, ["e1/1"]),
    "close_episode": lambda g: close_episode(g, "e1", "bob", {"fixed": True}),
    "invalidate_entry": lambda g: invalidate_entry(g, "e1/1", "bob", "misread"),
    "hand_off": lambda g: hand_off(g, "h1", "bob", "carol", [(PUMP, "p1")], {"note": "watch"}),
    "accept": lambda g: accept(g, "h0", "alice"),
    "add_task": lambda g: add_task(g, "t3", "fix", None, ["t1"]),
    "claim": lambda g: claim(g, "bob", "fix", 60),
    "complete": lambda g: [claim(g, "bob", "fix", 60), complete(g, "bob", "t1")],
    "release": lambda g: [claim(g, "bob", "fix", 60), release(g, "bob", "t1")],
    "say": lambda g: say(g, "u1", "s1", "assistant", "hi there", "bob", [(PUMP, "p1")]),
    "summarize": lambda g: summarize(g, "u1", "s1", "greetings", 1, "bob"),
    "forget_session": lambda g: forget_session(g, "u2", "s2"),
    "forget_user": lambda g: forget_user(g, "u2"),
    "learn": lambda g: learn(g, "l2", "bob", "pumps need oil", ["e2"], [(PUMP, "p1")]),
    "weigh": lambda g: weigh(g, "l1", "bob", "e2", True),
    "write_playbook": lambda g: write_playbook(g, "cool", "bob", {"status": "hot"}, ["stop"], ["e2"], 1),
    "note": lambda g: note(g, "p1 is loud", "bob"),
    "notes": lambda g: notes(
        g, [{"text": "a", "episode": "n1"}, {"text": "b", "episode": "n2"}, {"text": ""}], "bob"
    ),
}

_NODES = "MATCH (n) WHERE NOT n:`lh.Reply` RETURN labels(n), properties(n)"
_EDGES = "MATCH (a)-[r]->(b) RETURN type(r), properties(r), a.id, b.id"


def contents(graph) -> tuple[list, list]:
    def shown(rows):
        return sorted(repr(row) for row in rows)

    return shown(read(graph, _NODES)), shown(read(graph, _EDGES))


@pytest.mark.parametrize("name", sorted(WRITES))
def test_a_call_made_again_gives_the_first_answer_and_writes_nothing(world, name):
    reading = once(world, "req-1")
    assert not reading.keeps  # nothing kept yet
    first = WRITES[name](reading)
    assert reading.keeps
    after_first = contents(world)
    again = WRITES[name](once(world, "req-1"))
    assert again == first
    assert contents(world) == after_first
    assert read(world, "MATCH (r:`lh.Reply` {request: 'req-1'}) RETURN count(r)")[0][0] >= 1
    assert once_settled(world, "req-1") >= 1
    assert read(world, "MATCH (r:`lh.Reply`) RETURN count(r)")[0][0] == 0


def test_the_same_answer_in_a_fresh_world_plain_and_through_once(db):
    """Every write, in two equal worlds: plain in one, through once() in the other: equal answers."""
    from lighthouse.graphs import tenant

    answers = []
    for made in ("plain", "once"):
        graph = tenant(db, f"once-{made}-{id(answers)}")
        try:
            setup = made_world(graph)
            answers.append(
                {
                    name: _comparable(call(setup if made == "plain" else once(setup, f"r-{name}")))
                    for name, call in WRITES.items()
                }
            )
        finally:
            graph.delete()
    assert answers[0] == answers[1]


def _comparable(answer):
    """An answer without the times of now, which two calls a second apart may not share."""
    if isinstance(answer, dict):
        return {key: _comparable(value) for key, value in answer.items() if key not in ("until", "at")}
    if isinstance(answer, list):
        return [_comparable(item) for item in answer]
    return answer


def test_a_call_cut_between_its_steps_makes_the_rest_once(world):
    """A call that wrote its first episode's notes and was cut before the second writes only the second."""
    items = [{"text": "a", "episode": "n1"}, {"text": "b", "episode": "n2"}]
    cut = once(world, "req-2")
    original = cut.query
    sent = []

    def dying(q, params=None, timeout=None):
        if sent:
            raise ConnectionError("the caller died here")
        sent.append(q)
        return original(q, params, timeout)

    cut.query = dying
    with pytest.raises(ConnectionError):
        notes(cut, items, "bob")
    answer = notes(once(world, "req-2"), items, "bob")
    assert [receipt["id"] for receipt in answer] == ["n1/1", "n2/1"]
    counted = read(world, "MATCH (n:Entry) WHERE n.episode IN ['n1', 'n2'] RETURN count(n)")
    assert counted == [[2]]


def test_another_call_on_a_kept_request_is_refused_and_sends_nothing(world):
    WRITES["note"](once(world, "req-3"))
    before = contents(world)
    with pytest.raises(StepMismatch):
        WRITES["say"](once(world, "req-3"))
    assert contents(world) == before


def test_a_settled_request_writes_again(world):
    first = WRITES["note"](once(world, "req-4"))
    once_settled(world, "req-4")
    second = WRITES["note"](once(world, "req-4"))
    assert second["seq"] == first["seq"] + 1


@pytest.mark.parametrize("bad", ["", " x", "x" * 201, None, 7])
def test_a_request_that_is_not_a_name_is_refused(graph, bad):
    with pytest.raises(Refused):
        once(graph, bad)
    with pytest.raises(Refused):
        once_settled(graph, bad)


@pytest.mark.parametrize(
    ("query", "kept_return"),
    [
        ("MATCH (n) RETURN n.x, count(*) AS c", "RETURN lh_row[0] AS lh_c0, lh_row[1] AS c"),
        ("MATCH (n) RETURN DISTINCT n.x LIMIT 1", "RETURN lh_row[0] AS lh_c0"),
        ("CALL { MATCH (a) RETURN a } RETURN 'RETURN, x'", "RETURN lh_row[0] AS lh_c0"),
    ],
)
def test_the_reply_clause_reads_the_last_return_at_the_top(query, kept_return):
    assert _keeping(query).endswith(kept_return)


def test_a_header_is_not_part_of_what_a_step_is():
    assert (
        _without_header('CYPHER a="x y" b=[1, "RETURN"] c={k:1} MATCH (n) RETURN n') == "MATCH (n) RETURN n"
    )
    assert _without_header("MATCH (n) RETURN n") == "MATCH (n) RETURN n"


def test_every_kind_of_value_a_write_answers_is_replayed_as_it_was(graph):
    """A node (with a time among its properties), a time, a list and a map holding times, and plain
    values, in two rows: the replay gives what the write gave."""
    q = (
        "CREATE (n:Probe {x: 1, t: localdatetime('2026-01-01T00:00:00')}) "
        "WITH n UNWIND [1, 2] AS k "
        "RETURN n, localdatetime('2026-01-02T00:00:00') AS at, [k, localdatetime('2026-01-03T00:00:00')], "
        "{a: localdatetime('2026-01-04T00:00:00'), b: 'x'} AS m, null, 'text', 2.5, true, k ORDER BY k"
    )
    first = once(graph, "req-values").query(q).result_set
    again = once(graph, "req-values").query(q).result_set
    assert read(graph, "MATCH (n:Probe) RETURN count(n)") == [[1]]
    assert [row[1:] for row in again] == [row[1:] for row in first]
    assert [(n.id, n.labels, n.properties) for n, *_ in again] == [
        (n.id, n.labels, n.properties) for n, *_ in first
    ]
    assert first[1][2][1].year == 2026 and first[1][3]["b"] == "x" and first[1][-1] == 2


def test_the_reply_clause_does_not_grow_with_the_columns():
    """FalkorDB compiles each query text once per graph, in time that grows fast with the text: the
    clause that keeps a reply is written once per query, not once per column."""
    one, five = "MATCH (n) RETURN n.a", "MATCH (n) RETURN n.a, n.b, n.c, n.d, n.e"
    added_to_one, added_to_five = len(_keeping(one)) - len(one), len(_keeping(five)) - len(five)
    assert added_to_one < 1500
    assert added_to_five - added_to_one < 4 * 50  # each column named three times, no more
