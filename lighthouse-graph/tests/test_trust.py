"""agent_trust(): four kinds of evidence for and against an agent, smoothed, and their mean."""

from __future__ import annotations

from datetime import timedelta

import pytest
from devices import DEVICE, KINDS
from lighthouse import close_episode, ensure_schema, hand_off, open_episode, record, remember
from lighthouse.clock import now, stamp_of
from lighthouse.graphs import read
from lighthouse.impact import invalidate_entry
from lighthouse.lessons import learn
from lighthouse.playbooks import ran, write_playbook
from lighthouse.trust import agent_trust
from lighthouse.values import MAX_NAME, Refused
from lighthouse.write.failures import failures
from oracle import sent

NONE = {"for": 0, "against": 0, "rate": None}


def iso(moment) -> str:
    return stamp_of(moment) + "Z"


def closed(graph, name: str, writers: list[str]) -> None:
    """A closed episode in which each writer wrote an entry, closed by a reviewer."""
    open_episode(graph, name, by="watcher")
    for writer in writers:
        assert record(graph, name, "note", by=writer, values={"n": 1})["status"] == "recorded"
    assert close_episode(graph, name, by="reviewer")["status"] == "closed"


def snapshot(graph) -> tuple[list, list]:
    nodes = read(graph, "MATCH (n) RETURN labels(n), properties(n)")
    edges = read(graph, "MATCH (a)-[r]->(b) RETURN id(a), type(r), properties(r), id(b)")
    return sorted(map(repr, nodes)), sorted(map(repr, edges))


def test_no_evidence_gives_no_score(graph):
    ensure_schema(graph, KINDS)
    assert agent_trust(graph, "stranger") == {
        "agent": "stranger",
        "score": None,
        "entries": NONE,
        "episodes": NONE,
        "runs": NONE,
        "versions": NONE,
    }


def test_a_graph_that_does_not_exist(graph):
    assert agent_trust(graph, "anyone")["score"] is None


def test_an_agent_node_alone_is_no_evidence(graph):
    ensure_schema(graph, KINDS)
    remember(graph, DEVICE, "inventory", [{"key": "d1", "t": "2026-01-01T00:00:00Z"}])
    hand_off(graph, "h1", by="giver", to="taker", points_to=[(DEVICE, "d1")])
    assert agent_trust(graph, "giver")["score"] is None
    assert agent_trust(graph, "taker")["score"] is None


def test_entries_it_wrote_against_those_marked_wrong(graph):
    ensure_schema(graph, KINDS)
    open_episode(graph, "open", by="watcher")
    for _ in range(3):
        record(graph, "open", "note", by="sensor", values={"n": 1})
    record(graph, "open", "note", by="other", values={"n": 1})
    assert agent_trust(graph, "sensor")["entries"] == {"for": 3, "against": 0, "rate": 4 / 5}
    invalidate_entry(graph, "open/2", by="auditor", reason="wrong")
    invalidate_entry(graph, "open/4", by="auditor", reason="wrong")  # another agent's entry
    found = agent_trust(graph, "sensor")
    assert found["entries"] == {"for": 2, "against": 1, "rate": 3 / 5}
    assert found["episodes"] == NONE  # the episode is open
    assert found["score"] == pytest.approx(3 / 5)
    assert agent_trust(graph, "other")["entries"] == {"for": 0, "against": 1, "rate": 1 / 3}
    assert agent_trust(graph, "auditor")["score"] is None  # marking is not writing


def test_closed_episodes_that_lessons_rest_on_or_contradict(graph):
    ensure_schema(graph, KINDS)
    for name in ("a", "b", "c", "d"):
        closed(graph, name, ["analyst"])
    closed(graph, "e", ["someone-else"])
    learn(graph, "for-a", by="reviewer", statement="s", supported_by=["a", "c", "e"])
    learn(graph, "also-a", by="reviewer", statement="s", supported_by=["a"])  # a counts once
    learn(graph, "against", by="reviewer", statement="s", supported_by=["e"], against=["b", "c"])
    found = agent_trust(graph, "analyst")
    # a and c rest under a lesson, b and c contradict one; d has no lesson.
    assert found["episodes"] == {"for": 2, "against": 2, "rate": 3 / 6}
    assert found["entries"] == {"for": 4, "against": 0, "rate": 5 / 6}
    assert found["score"] == pytest.approx((3 / 6 + 5 / 6) / 2)
    # The reviewer closed every episode: its outcome entries count it in each.
    assert agent_trust(graph, "reviewer")["episodes"] == {"for": 3, "against": 2, "rate": 4 / 7}


def test_an_open_episode_does_not_count(graph):
    ensure_schema(graph, KINDS)
    closed(graph, "done", ["analyst"])
    learn(graph, "lesson", by="reviewer", statement="s", supported_by=["done"])
    open_episode(graph, "still", by="watcher")
    record(graph, "still", "note", by="analyst")
    assert agent_trust(graph, "analyst")["episodes"] == {"for": 1, "against": 0, "rate": 2 / 3}


def test_playbook_runs_it_recorded(graph):
    ensure_schema(graph, KINDS)
    for name in ("a", "b", "c", "d", "e", "f"):
        closed(graph, name, ["worker"])
    write_playbook(
        graph, "cool", by="reviewer", trigger={"s": "hot"}, steps=[{"do": "x"}], supported_by=["a", "b", "c"]
    )
    assert ran(graph, "cool#1", "d", True, by="operator")["status"] == "judged"
    assert ran(graph, "cool#1", "e", True, by="operator")["status"] == "judged"
    assert ran(graph, "cool#1", "f", False, by="operator")["status"] == "judged"
    assert ran(graph, "cool#1", "a", False, by="someone-else")["status"] == "judged"
    found = agent_trust(graph, "operator")
    assert found["runs"] == {"for": 2, "against": 1, "rate": 3 / 5}
    assert found["entries"] == NONE and found["episodes"] == NONE and found["versions"] == NONE
    assert found["score"] == pytest.approx(3 / 5)
    assert agent_trust(graph, "someone-else")["runs"] == {"for": 0, "against": 1, "rate": 1 / 3}


def test_versions_that_held_a_minute_against_those_replaced_sooner(graph):
    ensure_schema(graph, KINDS)
    base = now() - timedelta(hours=2)

    def row(key: str, after: timedelta, n: int) -> dict:
        return {"key": key, "t": iso(base + after), "values": {"n": n}}

    rows = [
        row("d1", timedelta(0), 1),  # replaced after 30 s: against
        row("d1", timedelta(seconds=30), 2),  # replaced after a minute exactly: for
        row("d1", timedelta(seconds=90), 3),  # replaced after 59 s: against
        row("d1", timedelta(seconds=149), 4),  # holds now, for two hours: for
    ]
    assert [r["status"] for r in remember(graph, DEVICE, "feeder", rows)] == ["created"] + ["changed"] * 3
    remember(graph, DEVICE, "other", [row("d2", timedelta(0), 1)])
    fresh = iso(now() - timedelta(seconds=10))
    remember(graph, DEVICE, "feeder", [{"key": "d3", "t": fresh, "values": {"n": 1}}])  # not a minute yet
    found = agent_trust(graph, "feeder")
    assert found["versions"] == {"for": 2, "against": 2, "rate": 3 / 6}
    assert found["score"] == pytest.approx(1 / 2)
    assert agent_trust(graph, "other")["versions"] == {"for": 1, "against": 0, "rate": 2 / 3}


def test_the_score_is_the_mean_of_the_kinds_it_has(graph):
    """A busy writer's many versions count as one kind of evidence, not as many votes."""
    ensure_schema(graph, KINDS)
    start = now() - timedelta(days=1)
    rows = [
        {"key": "d1", "t": iso(start + timedelta(minutes=minute)), "values": {"n": minute}}
        for minute in range(40)
    ]
    remember(graph, DEVICE, "busy", rows)
    closed(graph, "a", ["busy"])
    invalidate_entry(graph, "a/1", by="auditor", reason="wrong")
    found = agent_trust(graph, "busy")
    assert found["versions"] == {"for": 40, "against": 0, "rate": 41 / 42}
    assert found["entries"] == {"for": 0, "against": 1, "rate": 1 / 3}
    assert found["episodes"] == NONE and found["runs"] == NONE
    assert found["score"] == pytest.approx((41 / 42 + 1 / 3) / 2)


def test_smoothing_keeps_one_piece_of_evidence_from_deciding(graph):
    ensure_schema(graph, KINDS)
    open_episode(graph, "one", by="watcher")
    record(graph, "one", "note", by="lucky")
    record(graph, "one", "note", by="unlucky")
    invalidate_entry(graph, "one/2", by="auditor", reason="wrong")
    assert agent_trust(graph, "lucky")["score"] == pytest.approx(2 / 3)
    assert agent_trust(graph, "unlucky")["score"] == pytest.approx(1 / 3)


def test_every_kind_at_once_in_one_query(graph, db):
    ensure_schema(graph, KINDS)
    for name in ("a", "b", "c", "d"):
        closed(graph, name, ["all-rounder"])
    learn(graph, "lesson", by="reviewer", statement="s", supported_by=["a"], against=["b"])
    write_playbook(
        graph, "p", by="reviewer", trigger={"s": 1}, steps=[{"do": 1}], supported_by=["a"], needs=1
    )
    ran(graph, "p#1", "c", True, by="all-rounder")
    remember(graph, DEVICE, "all-rounder", [{"key": "d1", "t": iso(now() - timedelta(hours=1))}])
    invalidate_entry(graph, "a/1", by="auditor", reason="wrong")
    with sent(db, graph.name) as seen:
        found = agent_trust(graph, "all-rounder")
    assert [command for command, _text in seen] == ["GRAPH.RO_QUERY"]
    assert found["entries"] == {"for": 3, "against": 1, "rate": 4 / 6}
    assert found["episodes"] == {"for": 1, "against": 1, "rate": 2 / 4}
    assert found["runs"] == {"for": 1, "against": 0, "rate": 2 / 3}
    assert found["versions"] == {"for": 1, "against": 0, "rate": 2 / 3}
    assert found["score"] == pytest.approx((4 / 6 + 2 / 4 + 2 / 3 + 2 / 3) / 4)


def test_versions_are_found_through_the_index(graph):
    ensure_schema(graph, KINDS)
    plan = "\n".join(graph.explain("MATCH (s:State {by: $agent}) RETURN count(s)", {"agent": "x"}).plan)
    assert "Node By Index Scan | (s:State)" in plan
    from lighthouse.trust import _TRUST

    plan = "\n".join(graph.explain(_TRUST, {"agent": "x", "now": "2026-01-01T00:00:00", "held": "PT1M"}).plan)
    assert "Node By Index Scan | (version:State)" in plan


@pytest.mark.parametrize(
    "agent", [None, 7, "", " padded", "nul\x00", "\u202eevil", "line\nbreak", "x" * (MAX_NAME + 1), ["a"]]
)
def test_agent_trust_refuses_what_cannot_be_a_name(graph, agent):
    ensure_schema(graph, KINDS)
    closed(graph, "a", ["analyst"])
    before = snapshot(graph)
    with pytest.raises(Refused):
        agent_trust(graph, agent)
    assert snapshot(graph) == before and failures(graph) == []


def test_hostile_names_are_only_names(graph):
    ensure_schema(graph, KINDS)
    closed(graph, "a", ["o'brien\"}) MATCH (n) DETACH DELETE n //"])
    found = agent_trust(graph, "o'brien\"}) MATCH (n) DETACH DELETE n //")
    assert found["entries"] == {"for": 1, "against": 0, "rate": 2 / 3}
    assert agent_trust(graph, "o'brien")["score"] is None
