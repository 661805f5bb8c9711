"""What relied on a wrong fact: the chain from an entry or a State to entries, States, lessons, playbooks."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import lighthouse.impact as impact
import pytest
from devices import DEVICE, KINDS, ROOM
from graph_contents import assert_one_refusal, snapshot
from hostile import HostileList, HostileMap, HostileText
from lighthouse import (
    WrongType,
    accept,
    close_episode,
    ensure_schema,
    episode,
    extract,
    hand_off,
    open_episode,
    record,
    remember,
    search_entries,
)
from lighthouse.clock import present as now
from lighthouse.graphs import read
from lighthouse.impact import impact_of_entry, impact_of_state, invalidate_entry
from lighthouse.lessons import learn, weigh
from lighthouse.playbooks import write_playbook
from lighthouse.values import MAX_ENTRY_ID, MAX_NAME, Refused
from lighthouse.write.failures import failures
from oracle import sent
from racing import at_once
from redis.exceptions import ResponseError
from test_episodes import CountingGraph

T0, T1, T2, T3 = (f"2026-01-01T0{hour}:00:00Z" for hour in (0, 1, 2, 3))


def moment(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def episode_of(graph, name: str, entries: list[tuple[str, str, list]], at: str = T1) -> None:
    """An episode with entries (type, by, cites) written at `at`; an "outcome" closes it."""
    assert open_episode(graph, name, by="watcher", at=at)["status"] == "opened"
    for entry_type, by, cites in entries:
        if entry_type == "outcome":
            receipt = close_episode(graph, name, by=by, outcome={"note": name}, cites=cites, at=at)
        else:
            receipt = record(graph, name, entry_type, by=by, values={"note": name}, cites=cites, at=at)
        assert receipt["status"] == "recorded", receipt


@pytest.fixture
def chain(graph):
    """A sensor's observation a/1 that turns out wrong, and what rests on it.

    a/2 cites a/1, a/3 closes a citing a/2; b/1 (another episode) cites a/2, b/2 closes b citing b/1.
    d1's State from T2 came from a/1; d2's State came from b/1. c, d, e are episodes that a/1 is not in.
    """
    ensure_schema(graph, KINDS)
    remember(graph, DEVICE, by="inventory", rows=[{"key": "d1", "t": T0, "values": {"status": "ok"}}])
    remember(graph, DEVICE, by="inventory", rows=[{"key": "d3", "t": T0, "values": {"status": "ok"}}])
    episode_of(graph, "a", [("observation", "sensor", [(DEVICE, "d1")])])
    record(graph, "a", "forecast", by="forecaster", values={"fails": True}, cites=["a/1"], at=T1)
    close_episode(graph, "a", by="reviewer", outcome={"failed": True}, cites=["a/2"], at=T1)
    episode_of(graph, "b", [("plan", "planner", ["a/2"]), ("outcome", "reviewer", ["b/1"])])
    for name in "cde":
        episode_of(graph, name, [("observation", "sensor", []), ("outcome", "reviewer", [])])
    rows = [{"key": "d1", "t": T2, "values": {"status": "hot"}, "entry": "a/1"}]
    assert remember(graph, DEVICE, by="reader", rows=rows)[0]["status"] == "changed"
    rows = [{"key": "d2", "t": T2, "values": {"status": "moved"}, "entry": "b/1"}]
    assert remember(graph, DEVICE, by="reader", rows=rows)[0]["status"] == "created"
    lessons = {
        "fragile": (["a"], []),  # left with nothing
        "sturdy": (["a", "c", "d"], []),  # two left, none against
        "contested": (["a", "c"], ["d"]),  # one left, one against: no longer above it
        "unrelated": (["c"], []),
        "denied-by-a": (["c"], ["a"]),  # a contradicts it: it does not rest on a
    }
    for name, (pro, con) in lessons.items():
        receipt = learn(graph, name, by="reviewer", statement=name, supported_by=pro)
        assert receipt["status"] == "learned", receipt
        for episode_id in con:
            assert weigh(graph, name, "reviewer", episode_id, False)["status"] == "weighed"
    books = {
        "cool": (["a", "c", "d", "e"], 3),  # three left
        "warm": (["a", "b", "c"], 3),  # one left
        "tiny": (["b"], 1),  # none left
        "far": (["c", "d", "e"], 3),
    }
    for name, (drawn, needs) in books.items():
        receipt = write_playbook(
            graph,
            name,
            by="reviewer",
            trigger={"room": name},
            steps=[{"do": name}],
            supported_by=drawn,
            needs=needs,
        )
        assert receipt["status"] == "written", receipt
    for name, points_to in (
        ("about-a2", ["a/2"]),
        ("about-b", [("Episode", "b")]),
        ("about-c", [("Episode", "c")]),
    ):
        assert hand_off(graph, name, by="planner", to="doer", points_to=points_to)["status"] == "given"
    return graph


# impact_of_entry()

SHAPE = {
    "id",
    "invalidated",
    "downstream_entries",
    "derived_states",
    "episodes",
    "handoffs",
    "lessons",
    "playbooks",
}
DERIVED = [
    {"label": "Device", "valid_from": moment(T2), "from_entry": "a/1"},
    {"label": "Device", "valid_from": moment(T2), "from_entry": "b/1"},
]


def test_the_chain_from_an_entry_to_what_rests_on_it(chain):
    found = impact_of_entry(chain, "a/1")
    assert set(found) == SHAPE
    assert (found["id"], found["invalidated"]) == ("a/1", False)
    assert found["downstream_entries"] == ["a/2", "a/3", "b/1", "b/2"]
    assert found["episodes"] == ["a", "b"]
    assert found["handoffs"] == ["about-a2", "about-b"]
    assert found["derived_states"] == DERIVED
    assert found["lessons"] == [
        {"id": "contested", "support": 2, "tainted_support": 1, "at_risk": True},  # one left, one against
        {"id": "fragile", "support": 1, "tainted_support": 1, "at_risk": True},
        {"id": "sturdy", "support": 3, "tainted_support": 1, "at_risk": False},
    ]
    assert found["playbooks"] == [
        {"id": "cool#1", "name": "cool", "version": 1, "support": 4, "tainted_support": 1, "at_risk": False},
        {"id": "tiny#1", "name": "tiny", "version": 1, "support": 1, "tainted_support": 1, "at_risk": True},
        {"id": "warm#1", "name": "warm", "version": 1, "support": 3, "tainted_support": 2, "at_risk": True},
    ]


def test_an_entry_further_down_carries_less(chain):
    found = impact_of_entry(chain, "b/1")
    assert found["downstream_entries"] == ["b/2"]
    assert found["episodes"] == ["b"] and found["handoffs"] == ["about-b"]
    assert found["derived_states"] == DERIVED[1:]
    assert found["lessons"] == []
    # warm keeps a and c of its three: fewer than the three it needs.
    assert [(b["name"], b["tainted_support"], b["at_risk"]) for b in found["playbooks"]] == [
        ("tiny", 1, True),
        ("warm", 1, True),
    ]


def test_an_entry_that_nothing_cites(chain):
    found = impact_of_entry(chain, "e/2")
    assert found["downstream_entries"] == [] and found["derived_states"] == [] and found["episodes"] == ["e"]
    assert found["lessons"] == [] and found["handoffs"] == []
    assert [(b["name"], b["support"] - b["tainted_support"], b["at_risk"]) for b in found["playbooks"]] == [
        ("cool", 3, False),
        ("far", 2, True),
    ]


def test_an_unknown_entry_has_no_impact(chain):
    assert impact_of_entry(chain, "a/9") is None
    assert impact_of_entry(chain, "nowhere") is None


def test_a_graph_that_does_not_exist(graph):
    assert impact_of_entry(graph, "a/1") is None
    assert impact_of_state(graph, DEVICE, "d1", T0, T1) == {
        "entity": ("Device", "d1"),
        "direct_entries": [],
        "downstream_entries": [],
        "derived_states": [],
        "episodes": [],
        "handoffs": [],
        "lessons": [],
        "playbooks": [],
    }


def test_a_lattice_of_citations_costs_its_edges_not_its_paths(graph):
    """Each entry cites the two before it: 2**30 paths lead from the first to the last, 3 levels a query."""
    ensure_schema(graph, KINDS)
    open_episode(graph, "long", by="watcher", at=T1)
    record(graph, "long", "note", by="w", at=T1)
    record(graph, "long", "note", by="w", cites=["long/1"], at=T1)
    for seq in range(3, 61):
        record(graph, "long", "note", by="w", cites=[f"long/{seq - 1}", f"long/{seq - 2}"], at=T1)
    found = impact_of_entry(graph, "long/1")
    assert found["downstream_entries"] == sorted(f"long/{seq}" for seq in range(2, 61))


def line_of(graph, length: int) -> None:
    """The episode "line" of `length` notes, each but the first citing the one before it."""
    ensure_schema(graph, KINDS)
    open_episode(graph, "line", by="watcher", at=T1)
    record(graph, "line", "note", by="w", at=T1)
    for seq in range(2, length + 1):
        record(graph, "line", "note", by="w", cites=[f"line/{seq - 1}"], at=T1)


def test_the_levels_are_read_a_few_at_a_time(graph, db, monkeypatch):
    line_of(graph, 20)
    monkeypatch.setattr(impact, "LEVELS", 4)
    with sent(db, graph.name) as seen:
        found = impact_of_entry(graph, "line/1")
    assert len(found["downstream_entries"]) == 19
    # 19 levels of citation: five reads of up to four levels each, then one read of what rests on them.
    assert len(seen) == 5 + 1
    assert all(command == "GRAPH.RO_QUERY" for command, _text in seen)


def test_a_chain_past_the_limit_is_cut_at_the_nearest(graph, monkeypatch):
    line_of(graph, 12)
    monkeypatch.setattr(impact, "MAX_REACH", 5)
    found = impact_of_entry(graph, "line/1")
    assert found["downstream_entries"] == sorted(f"line/{seq}" for seq in range(2, 7))


def test_many_states_are_cut(chain, monkeypatch):
    monkeypatch.setattr(impact, "MAX_DERIVED", 1)
    assert impact_of_entry(chain, "a/1")["derived_states"] == DERIVED[:1]


@pytest.mark.parametrize(
    "bad",
    [None, 7, "", " a/1", "a\x00/1", "a/1\n", "x" * (MAX_ENTRY_ID + 1), ["a/1"], HostileText("a/1")],
    ids=lambda value: type(value).__name__,
)
def test_impact_of_entry_refuses_what_cannot_be_an_id(chain, bad):
    before = snapshot(chain)
    with pytest.raises(Refused, match="must be text"):
        impact_of_entry(chain, bad)
    assert snapshot(chain) == before and failures(chain) == []


def test_hostile_text_is_only_an_id(chain):
    before = snapshot(chain)
    for hostile in ["a/1' OR 1=1 //", "a/1}) MATCH (n) DETACH DELETE n //", "*", "a/%", "a/.*"]:
        assert impact_of_entry(chain, hostile) is None
    assert snapshot(chain) == before
    assert impact_of_entry(chain, "a/1")["downstream_entries"]


# impact_of_state()


def test_what_rested_on_what_an_entity_held(chain):
    """d1 was ok from T0 to T2: a/1 cited it at T1, and all that rests on a/1 rests on that."""
    found = impact_of_state(chain, DEVICE, "d1", T0, T2)
    assert found["entity"] == ("Device", "d1")
    assert found["direct_entries"] == ["a/1"]
    by_entry = impact_of_entry(chain, "a/1")
    for name in ("downstream_entries", "derived_states", "episodes", "handoffs", "lessons", "playbooks"):
        assert found[name] == by_entry[name], name
    # The window is [since, until): a citation at T1 is in [T1, T2), not in [T0, T1).
    assert impact_of_state(chain, DEVICE, "d1", T1, T2)["direct_entries"] == ["a/1"]
    assert impact_of_state(chain, DEVICE, "d1", T0, T1)["direct_entries"] == []


def test_only_entries_that_cite_inside_the_window(chain):
    episode_of(chain, "late", [("observation", "watcher", [(DEVICE, "d1")])], at=T3)
    found = impact_of_state(chain, DEVICE, "d1", T2, "2026-01-01T04:00:00Z")
    assert found["direct_entries"] == ["late/1"] and found["downstream_entries"] == []
    assert found["episodes"] == ["late"] and found["derived_states"] == []
    assert found["lessons"] == [] and found["playbooks"] == [] and found["handoffs"] == []
    assert "late/1" not in impact_of_state(chain, DEVICE, "d1", T0, T2)["direct_entries"]


def test_what_nothing_cites_and_what_does_not_exist_give_empty_lists(chain):
    for found in (impact_of_state(chain, DEVICE, "d3", T0, T3), impact_of_state(chain, DEVICE, "d9", T0, T3)):
        assert found["direct_entries"] == [] and found["episodes"] == [] and found["lessons"] == []
    assert impact_of_state(chain, ROOM, "r1", T0, T3)["entity"] == ("Room", "r1")
    assert impact_of_state(chain, DEVICE, 7, T0, T3)["entity"] == ("Device", 7)


@pytest.mark.parametrize(
    ("key", "since", "until", "says"),
    [
        (None, T0, T1, "must be text"),
        (True, T0, T1, "must be text"),
        ("d1\x00", T0, T1, "must be text"),
        (2**64, T0, T1, "64-bit"),
        (HostileText("d1"), T0, T1, "must be text"),
        ("d1", None, T1, "a time is needed"),
        ("d1", T0, "", "a time is needed"),
        ("d1", T1, T1, "earlier"),
        ("d1", T2, T1, "earlier"),
        ("d1", "yesterday", T1, "ISO 8601"),
        ("d1", "1900-01-01T00:00:00Z", T1, "FalkorDB"),
    ],
    ids=lambda value: type(value).__name__,
)
def test_impact_of_state_refuses_a_bad_value(chain, key, since, until, says):
    before = snapshot(chain)
    with pytest.raises(Refused, match=says) as raised:
        impact_of_state(chain, DEVICE, key, since, until)
    assert isinstance(raised.value, ValueError)
    assert snapshot(chain) == before and failures(chain) == []


@pytest.mark.parametrize(
    ("kind", "since"),
    [
        ("Device", T0),
        ("Episode", T0),
        (None, T0),
        ([DEVICE], T0),
        (DEVICE, 1767225600),
        (DEVICE, HostileList()),
    ],
    ids=lambda value: type(value).__name__,
)
def test_impact_of_state_refuses_the_wrong_sort_of_argument(chain, kind, since):
    with pytest.raises(WrongType) as raised:
        impact_of_state(chain, kind, "d1", since, T1)
    assert isinstance(raised.value, TypeError)


# invalidate_entry()


def test_invalidate_marks_the_entry_and_gives_the_impact(chain):
    expected = impact_of_entry(chain, "a/1")
    before = snapshot(chain)
    receipt = invalidate_entry(chain, "a/1", by="auditor", reason="the sensor was unplugged")
    # The impact is read after the mark (API 2.12): it says the entry is invalidated.
    assert receipt == {"id": "a/1", "status": "invalidated", "impact": {**expected, "invalidated": True}}
    props = read(chain, "MATCH (n:Entry {id: 'a/1'}) RETURN properties(n)")[0][0]
    assert props["invalidated_by"] == "auditor"
    assert props["invalidated_why"] == "the sensor was unplugged"
    assert abs(props["invalidated_at"] - now()) < timedelta(seconds=5)
    # Nothing but the three marks changed.
    assert snapshot(chain) != before
    assert snapshot(chain, without="invalidated_") == before
    assert failures(chain) == []
    assert impact_of_entry(chain, "a/1")["invalidated"] is True


def test_the_mark_takes_the_time_given(chain):
    assert invalidate_entry(chain, "c/1", "auditor", "wrong", T3)["status"] == "invalidated"
    assert read(chain, "MATCH (n:Entry {id: 'c/1'}) RETURN n.invalidated_at")[0][0] == moment(T3)
    invalidate_entry(chain, "c/2", by="auditor", reason="wrong", at="  ")  # blank: now
    marked = read(chain, "MATCH (n:Entry {id: 'c/2'}) RETURN n.invalidated_at")[0][0]
    assert isinstance(marked, datetime) and marked.microsecond == 0
    assert abs(marked.replace(tzinfo=UTC) - now()) < timedelta(seconds=5)


def test_invalidate_twice_gives_exists_and_changes_nothing(chain):
    assert invalidate_entry(chain, "a/2", by="auditor", reason="wrong")["status"] == "invalidated"
    before = snapshot(chain)
    assert invalidate_entry(chain, "a/2", by="someone", reason="also wrong") == {
        "id": "a/2",
        "status": "exists",
    }
    assert snapshot(chain) == before
    assert failures(chain) == []
    props = read(chain, "MATCH (n:Entry {id: 'a/2'}) RETURN n.invalidated_by, n.invalidated_why")[0]
    assert props == ["auditor", "wrong"]


def test_eight_callers_mark_an_entry_once(chain, db):
    receipts = at_once(
        db, chain, lambda number, mine: invalidate_entry(mine, "a/1", by=f"auditor-{number}", reason="wrong")
    )
    assert sorted(receipt["status"] for receipt in receipts) == ["exists"] * 7 + ["invalidated"]
    winner = next(receipt for receipt in receipts if receipt["status"] == "invalidated")
    assert winner["impact"]["id"] == "a/1"
    assert read(chain, "MATCH (n:Entry {id: 'a/1'}) RETURN n.invalidated_by")[0][0].startswith("auditor-")


class FailingAfterTheMark(CountingGraph):
    """The real graph, whose reads the server refuses once a write query has gone (a ResponseError)."""

    def ro_query(self, *args, **kwargs):
        if impact._MARK in self.sent:
            raise ResponseError("the server refused the read")
        return super().ro_query(*args, **kwargs)


def test_a_failed_read_after_the_mark_says_the_entry_is_marked(chain):
    failing = FailingAfterTheMark(chain)
    receipt = invalidate_entry(failing, "a/1", by="auditor", reason="wrong")
    assert receipt["status"] == "failed" and receipt["id"] is None
    assert receipt["reason"].startswith("the entry is marked, but what rests on it could not be read")
    assert [f["reason"] for f in failures(chain)] == ["failed"]
    assert impact_of_entry(chain, "a/1")["invalidated"] is True
    assert invalidate_entry(chain, "a/1", by="auditor", reason="wrong") == {"id": "a/1", "status": "exists"}


def test_an_accepted_handoff_is_no_longer_at_stake(chain):
    assert impact_of_entry(chain, "a/1")["handoffs"] == ["about-a2", "about-b"]
    assert accept(chain, "about-b", "doer")["status"] == "accepted"
    assert impact_of_entry(chain, "a/1")["handoffs"] == ["about-a2"]
    assert impact_of_state(chain, DEVICE, "d1", T0, T2)["handoffs"] == ["about-a2"]
    assert accept(chain, "about-a2", "doer")["status"] == "accepted"
    assert impact_of_entry(chain, "a/1")["handoffs"] == []
    assert impact_of_state(chain, DEVICE, "d1", T0, T2)["handoffs"] == []
    assert invalidate_entry(chain, "a/1", by="auditor", reason="wrong")["impact"]["handoffs"] == []


def test_an_unknown_entry_is_refused_and_stored(chain):
    before = snapshot(chain)
    receipt = invalidate_entry(chain, "a/9", by="auditor", reason="wrong")
    assert receipt["status"] == "unknown" and receipt["id"] is None and "a/9" in receipt["reason"]
    assert snapshot(chain) == before
    stored = failures(chain)
    assert [(f["reason"], f["kind"], f["key"], f["by"], f["times"]) for f in stored] == [
        ("unknown", "Entry", "a/9", "auditor", 1)
    ]
    assert "wrong" in stored[0]["detail"]
    invalidate_entry(chain, "a/9", by="auditor", reason="wrong")
    assert [f["times"] for f in failures(chain)] == [2]


def test_an_entry_in_a_graph_that_does_not_exist_is_unknown(graph):
    assert invalidate_entry(graph, "a/1", by="auditor", reason="wrong")["status"] == "unknown"
    assert [f["reason"] for f in failures(graph)] == ["unknown"]


def test_a_database_error_is_a_failed_receipt(db):
    db.connection.set("not-a-graph-impact", "text")
    try:
        receipt = invalidate_entry(db.select_graph("not-a-graph-impact"), "a/1", by="auditor", reason="wrong")
        assert receipt["status"] == "failed" and receipt["id"] is None and receipt["reason"]
    finally:
        db.connection.delete("not-a-graph-impact")


@pytest.mark.parametrize(
    ("entry_id", "by"),
    [
        (None, "auditor"),
        (7, "auditor"),
        ("", "auditor"),
        ("a/1\x00", "auditor"),
        ("\u202ea/1", "auditor"),
        ("a/1\n", "auditor"),
        ("x" * (MAX_ENTRY_ID + 1), "auditor"),
        (["a/1"], "auditor"),
        ({"id": "a/1"}, "auditor"),
        (HostileText("a/1"), "auditor"),
        ("a/1", None),
        ("a/1", ""),
        ("a/1", "aud\x00itor"),
        ("a/1", "x" * (MAX_NAME + 1)),
        ("a/1", HostileText("auditor")),
    ],
    ids=lambda value: type(value).__name__,
)
def test_an_identity_that_is_not_a_name_raises_and_writes_nothing(chain, entry_id, by):
    before = snapshot(chain)
    with pytest.raises(Refused, match="must be text"):
        invalidate_entry(chain, entry_id, by=by, reason="wrong")
    assert snapshot(chain) == before and failures(chain) == []


@pytest.mark.parametrize(
    ("reason", "at"),
    [
        (None, None),
        ("", None),
        ("   ", None),
        (42, None),
        (["wrong"], None),
        ("bad\x00reason", None),
        ("\ud800", None),
        ("x" * 2_001, None),
        ("\u202e" + "wrong", None),  # its start is not a name
        ("\x07bell", None),
        ("a line\nand another", None),  # a line break in its first 200 characters: not a name
        (HostileText("wrong"), None),
        (HostileText("wrong"), None),
        (HostileMap(why="wrong"), None),
        ("wrong", "yesterday"),
        ("wrong", "2099-01-01T00:00:00Z"),
        ("wrong", 1767225600),
        ("wrong", HostileList()),
        ("wrong", HostileText(T1)),
    ],
    ids=lambda value: type(value).__name__,
)
def test_an_attack_in_the_content_costs_one_failure_and_nothing_else(chain, reason, at):
    before = snapshot(chain)
    receipt = invalidate_entry(chain, "a/1", by="auditor", reason=reason, at=at)
    assert receipt["id"] is None and set(receipt) == {"id", "status", "reason"}
    assert_one_refusal(chain, before, receipt, kind="Entry")


def test_a_long_reason_that_starts_with_a_name_is_taken(chain):
    reason = "the sensor was unplugged; " + "details " * 240
    assert (
        len(reason) <= 2_000
        and invalidate_entry(chain, "a/3", by="auditor", reason=reason)["status"] == "invalidated"
    )
    assert read(chain, "MATCH (n:Entry {id: 'a/3'}) RETURN n.invalidated_why")[0][0] == reason


def test_hostile_text_in_a_reason_is_stored_as_given(chain):
    reason = '\'); MATCH (n) DETACH DELETE n // ünïcode "quotes"'
    count = read(chain, "MATCH (n) RETURN count(n)")[0][0]
    assert invalidate_entry(chain, "b/2", by="o'brien", reason=reason)["status"] == "invalidated"
    stored = read(chain, "MATCH (n:Entry {id: 'b/2'}) RETURN n.invalidated_why, n.invalidated_by")[0]
    assert stored == [reason, "o'brien"]
    assert read(chain, "MATCH (n) RETURN count(n)")[0][0] == count


def test_every_reader_of_an_entry_shows_the_marks_invalidate_entry_writes(graph):
    ensure_schema(graph, KINDS)
    open_episode(graph, "talk", by="watcher", at=T0)
    record(graph, "talk", "observation", "watcher", {"note": "the pump vibrates loudly"}, at=T1)
    assert (
        invalidate_entry(graph, "talk/1", "auditor", "the microphone was loose", at=T2)["status"]
        == "invalidated"
    )
    marks = {
        "invalidated_at": moment(T2),
        "invalidated_by": "auditor",
        "invalidated_why": "the microphone was loose",
    }
    [shown] = episode(graph, "talk")["entries"]
    [found] = search_entries(graph, "vibrates")
    given = []
    extract(graph, DEVICE, lambda entry: given.append(entry) or [], "reader")
    for entry in (shown, found["entry"], given[0]):
        assert {name: entry.get(name) for name in marks} == marks
        assert entry["note"] == "the pump vibrates loudly" and "invalidated_reason" not in entry
