"""agent_trust(): four kinds of evidence for and against an agent, smoothed, and their mean."""

from __future__ import annotations

from datetime import timedelta

import pytest
from devices import DEVICE, KINDS
from lighthouse import close_episode, ensure_schema, hand_off, open_episode, record, remember
from lighthouse.clock import present as now
from lighthouse.clock import stamp_of
from lighthouse.graphs import read
from lighthouse.impact import invalidate_entry
from lighthouse.lessons import learn, weigh
from lighthouse.playbooks import ran, write_playbook
from lighthouse.trust import agent_trust
from lighthouse.values import MAX_NAME, Refused
from lighthouse.write.failures import failures
from oracle import sent

NONE = (0, 0)
COUNTS = (
    "entries_written",
    "entries_invalidated",
    "closed_episodes",
    "corroborated_episodes",
    "contradicted_episodes",
    "playbook_runs",
    "runs_succeeded",
    "runs_failed",
    "states_written",
    "states_short_lived",
)


def pair(found: dict, evidence: str) -> tuple[int, int]:
    """(for, against) of one kind of evidence, from the counts agent_trust() gives."""
    if evidence == "entries":
        return found["entries_written"] - found["entries_invalidated"], found["entries_invalidated"]
    if evidence == "episodes":
        return found["corroborated_episodes"], found["contradicted_episodes"]
    if evidence == "runs":
        return found["runs_succeeded"], found["runs_failed"]
    raise AssertionError(evidence)


def iso(moment) -> str:
    return stamp_of(moment) + "Z"


def closed(graph, name: str, writers: list[str]) -> None:
    """A closed episode in which each writer wrote an entry, closed by a reviewer."""
    open_episode(graph, name, by="watcher")
    for writer in writers:
        assert record(graph, name, "note", by=writer, values={"n": 1})["status"] == "recorded"
    assert close_episode(graph, name, by="reviewer")["status"] == "recorded"


def snapshot(graph) -> tuple[list, list]:
    nodes = read(graph, "MATCH (n) RETURN labels(n), properties(n)")
    edges = read(graph, "MATCH (a)-[r]->(b) RETURN id(a), type(r), properties(r), id(b)")
    return sorted(map(repr, nodes)), sorted(map(repr, edges))


def test_no_evidence_gives_no_score(graph):
    ensure_schema(graph, KINDS)
    found = agent_trust(graph, "stranger")
    assert found == {"agent": "stranger", "score": None, **dict.fromkeys(COUNTS, 0)}
    assert all(type(found[name]) is int for name in COUNTS)


def test_a_graph_that_does_not_exist(graph):
    assert agent_trust(graph, "anyone")["score"] is None


def test_an_agent_node_alone_is_no_evidence(graph):
    ensure_schema(graph, KINDS)
    remember(graph, DEVICE, by="inventory", rows=[{"key": "d1", "t": "2026-01-01T00:00:00Z"}])
    hand_off(graph, "h1", by="giver", to="taker", points_to=[(DEVICE, "d1")])
    assert agent_trust(graph, "giver")["score"] is None
    assert agent_trust(graph, "taker")["score"] is None


def test_entries_it_wrote_against_those_marked_wrong(graph):
    ensure_schema(graph, KINDS)
    open_episode(graph, "open", by="watcher")
    for _ in range(3):
        record(graph, "open", "note", by="sensor", values={"n": 1})
    record(graph, "open", "note", by="other", values={"n": 1})
    assert pair(agent_trust(graph, "sensor"), "entries") == (3, 0)
    invalidate_entry(graph, "open/2", by="auditor", reason="wrong")
    invalidate_entry(graph, "open/4", by="auditor", reason="wrong")  # another agent's entry
    found = agent_trust(graph, "sensor")
    assert pair(found, "entries") == (2, 1)
    assert pair(found, "episodes") == NONE  # the episode is open
    assert found["score"] == round(3 / 5, 4)
    assert pair(agent_trust(graph, "other"), "entries") == (0, 1)
    assert agent_trust(graph, "auditor")["score"] is None  # marking is not writing


def test_closed_episodes_that_lessons_rest_on_or_contradict(graph):
    ensure_schema(graph, KINDS)
    for name in ("a", "b", "c", "d"):
        closed(graph, name, ["analyst"])
    closed(graph, "e", ["someone-else"])
    learn(graph, "for-a", by="reviewer", statement="s", supported_by=["a", "c", "e"])
    learn(graph, "also-a", by="reviewer", statement="s", supported_by=["a"])  # a counts once
    learn(graph, "against", by="reviewer", statement="s", supported_by=["e"])
    for episode_id in ("b", "c"):
        assert weigh(graph, "against", "reviewer", episode_id, False)["status"] == "weighed"
    found = agent_trust(graph, "analyst")
    # a and c rest under a lesson, b and c contradict one; d has no lesson.
    assert pair(found, "episodes") == (2, 2)
    assert pair(found, "entries") == (4, 0)
    assert found["score"] == round((3 / 6 + 5 / 6) / 2, 4)
    # The reviewer closed every episode: its outcome entries count it in each.
    assert pair(agent_trust(graph, "reviewer"), "episodes") == (3, 2)


def test_an_open_episode_does_not_count(graph):
    ensure_schema(graph, KINDS)
    closed(graph, "done", ["analyst"])
    learn(graph, "lesson", by="reviewer", statement="s", supported_by=["done"])
    open_episode(graph, "still", by="watcher")
    record(graph, "still", "note", by="analyst")
    assert pair(agent_trust(graph, "analyst"), "episodes") == (1, 0)


def test_playbook_runs_it_recorded(graph):
    ensure_schema(graph, KINDS)
    for name in ("a", "b", "c", "d", "e", "f"):
        closed(graph, name, ["worker"])
    write_playbook(
        graph, "cool", by="reviewer", trigger={"s": "hot"}, steps=[{"do": "x"}], supported_by=["a", "b", "c"]
    )
    assert ran(graph, "cool", "operator", "d", True)["status"] in ("recorded", "judged")
    assert ran(graph, "cool", "operator", "e", True)["status"] in ("recorded", "judged")
    assert ran(graph, "cool", "operator", "f", False)["status"] in ("recorded", "judged")
    assert ran(graph, "cool", "someone-else", "a", False)["status"] in ("recorded", "judged")
    found = agent_trust(graph, "operator")
    assert pair(found, "runs") == (2, 1)
    assert pair(found, "entries") == NONE and pair(found, "episodes") == NONE and found["states_written"] == 0
    assert found["playbook_runs"] == 3
    assert found["score"] == round(3 / 5, 4)
    assert pair(agent_trust(graph, "someone-else"), "runs") == (0, 1)


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
    assert [r["status"] for r in remember(graph, DEVICE, rows, "feeder")] == ["created"] + ["changed"] * 3
    remember(graph, DEVICE, [row("d2", timedelta(0), 1)], "other")
    fresh = iso(now() - timedelta(seconds=10))
    remember(graph, DEVICE, [{"key": "d3", "t": fresh, "values": {"n": 1}}], "feeder")  # not a minute yet
    found = agent_trust(graph, "feeder")
    assert (found["states_written"], found["states_short_lived"]) == (5, 2)
    assert found["score"] == pytest.approx(3 / 6)  # 2 held a minute, 2 did not; the fresh one not yet
    other = agent_trust(graph, "other")
    assert (other["states_written"], other["states_short_lived"], other["score"]) == (1, 0, round(2 / 3, 4))


def test_the_score_is_the_mean_of_the_kinds_it_has(graph):
    """A busy writer's many versions count as one kind of evidence, not as many votes."""
    ensure_schema(graph, KINDS)
    start = now() - timedelta(days=1)
    rows = [
        {"key": "d1", "t": iso(start + timedelta(minutes=minute)), "values": {"n": minute}}
        for minute in range(40)
    ]
    remember(graph, DEVICE, rows, "busy")
    closed(graph, "a", ["busy"])
    invalidate_entry(graph, "a/1", by="auditor", reason="wrong")
    found = agent_trust(graph, "busy")
    assert (found["states_written"], found["states_short_lived"]) == (40, 0)
    assert pair(found, "entries") == (0, 1)
    assert pair(found, "episodes") == NONE and pair(found, "runs") == NONE
    assert found["score"] == round((41 / 42 + 1 / 3) / 2, 4)


def test_smoothing_keeps_one_piece_of_evidence_from_deciding(graph):
    ensure_schema(graph, KINDS)
    open_episode(graph, "one", by="watcher")
    record(graph, "one", "note", by="lucky")
    record(graph, "one", "note", by="unlucky")
    invalidate_entry(graph, "one/2", by="auditor", reason="wrong")
    assert agent_trust(graph, "lucky")["score"] == round(2 / 3, 4)
    assert agent_trust(graph, "unlucky")["score"] == round(1 / 3, 4)


def test_every_kind_at_once_in_one_query(graph, db):
    ensure_schema(graph, KINDS)
    for name in ("a", "b", "c", "d"):
        closed(graph, name, ["all-rounder"])
    learn(graph, "lesson", by="reviewer", statement="s", supported_by=["a"])
    assert weigh(graph, "lesson", "reviewer", "b", False)["status"] == "weighed"
    write_playbook(
        graph, "p", by="reviewer", trigger={"s": 1}, steps=[{"do": 1}], supported_by=["a"], needs=1
    )
    ran(graph, "p", "all-rounder", "c", True)
    remember(graph, DEVICE, [{"key": "d1", "t": iso(now() - timedelta(hours=1))}], "all-rounder")
    invalidate_entry(graph, "a/1", by="auditor", reason="wrong")
    with sent(db, graph.name) as seen:
        found = agent_trust(graph, "all-rounder")
    assert [command for command, _text in seen] == ["GRAPH.RO_QUERY"]
    assert pair(found, "entries") == (3, 1)
    assert pair(found, "episodes") == (1, 1)
    assert pair(found, "runs") == (1, 0)
    assert (found["states_written"], found["states_short_lived"]) == (1, 0)
    assert (found["closed_episodes"], found["playbook_runs"]) == (4, 1)
    assert found["score"] == round((4 / 6 + 2 / 4 + 2 / 3 + 2 / 3) / 4, 4)


def test_versions_are_found_through_the_index(graph):
    ensure_schema(graph, KINDS)
    plan = "\n".join(graph.explain("MATCH (s:State {by: $agent}) RETURN count(s)", {"agent": "x"}).plan)
    assert "Node By Index Scan | (s:State)" in plan
    from lighthouse.trust import _TRUST

    plan = "\n".join(graph.explain(_TRUST, {"agent": "x", "now": "2026-01-01T00:00:00", "held": "PT1M"}).plan)
    assert "Node By Index Scan | (version:State)" in plan


class HostileText(str):
    def __len__(self):
        raise RuntimeError("no")

    def __hash__(self):
        raise RuntimeError("no")


@pytest.mark.parametrize(
    "agent",
    [
        None,
        7,
        "",
        " padded",
        "nul\x00",
        "\u202eevil",
        "line\nbreak",
        "x" * (MAX_NAME + 1),
        ["a"],
        HostileText("a"),
    ],
    ids=lambda value: type(value).__name__,
)
def test_agent_trust_refuses_what_cannot_be_a_name(graph, agent):
    ensure_schema(graph, KINDS)
    closed(graph, "a", ["analyst"])
    before = snapshot(graph)
    with pytest.raises(Refused, match="must be text"):
        agent_trust(graph, agent)
    assert snapshot(graph) == before and failures(graph) == []


def test_hostile_names_are_only_names(graph):
    ensure_schema(graph, KINDS)
    closed(graph, "a", ["o'brien\"}) MATCH (n) DETACH DELETE n //"])
    found = agent_trust(graph, "o'brien\"}) MATCH (n) DETACH DELETE n //")
    assert pair(found, "entries") == (1, 0)
    assert agent_trust(graph, "o'brien")["score"] is None
