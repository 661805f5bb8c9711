"""promote(): what repeats in ended episodes becomes lessons and playbooks, each episode counted once."""

from __future__ import annotations

import pytest
from devices import DEVICE, KINDS
from ended_episodes import ended as ended_episode
from graph_contents import snapshot
from lighthouse import close_episode, ensure_schema, open_episode, record, remember
from lighthouse.graphs import read
from lighthouse.lessons import learn, lesson
from lighthouse.playbooks import playbook, switch
from lighthouse.promotion import _ENDED, OUTCOME, promote
from lighthouse.values import Refused
from lighthouse.write.failures import failures
from query_plans import scans


def rule(episode):  # the seed's rule: what one episode that ended shows
    outcome = episode["entries"][-1]
    return [
        {
            "lesson": "d1-fan",
            "statement": "d1 gets hot because of its fan",
            "about": [(DEVICE, "d1")],
            "agrees": outcome["cause"] == "fan",
        },
        {
            "playbook": "cool-d1",
            "trigger": {"status": "hot", "device": "d1"},
            "steps": [{"do": outcome["step"]}],  # what fixed it
        },
        {"ran": "cool-d1", "succeeded": outcome["fixed"]},  # a playbook that ran in it
    ]


def without_runs(episode):
    return [claim for claim in rule(episode) if "ran" not in claim]


@pytest.fixture
def world(graph):
    ensure_schema(graph, KINDS)
    remember(
        graph,
        DEVICE,
        by="inventory",
        rows=[{"key": "d1", "t": "2026-01-02T00:00:00Z", "values": {"status": "hot"}}],
    )
    return graph


def ended(graph, name: str, cause="fan", step="clean the fan", fixed=True) -> str:
    """An episode about d1: an observation, then its outcome."""
    return ended_episode(graph, name, {"cause": cause, "step": step, "fixed": fixed}, {"status": "hot"})


def statuses(receipts: list[dict]) -> list[str]:
    return [one["status"] for one in receipts]


# The seed's example


def test_the_seed_example(world):
    for n in range(12):
        ended(world, f"e{n:02d}")
    result = promote(world, "reviewer", rule, at_least=3)
    assert result["episodes"] == 12
    assert result["lessons"] == [{"id": "d1-fan", "status": "learned", "agree": 12, "against": 0}]
    assert result["playbooks"] == [{"id": "cool-d1#1", "version": 1, "status": "written", "agree": 12}]
    # runs are judged first, against the versions there were: none yet
    assert statuses(result["runs"]) == ["unknown"] * 12
    assert [one["episode"] for one in result["runs"]] == [f"e{n:02d}" for n in range(12)]
    learned = lesson(world, "d1-fan")
    assert learned["weight"] == 12 and learned["about"] == [("Device", "d1")] and learned["by"] == "reviewer"
    written = playbook(world, "cool-d1")
    assert written["trigger"] == {"status": "hot", "device": "d1"} and written["steps"] == [
        {"do": "clean the fan"}
    ]
    assert len(written["drawn_from"]) == 12 and written["needs"] == 3


# Each episode once


def test_promote_writes_nothing_twice(world):
    for n in range(4):
        ended(world, f"e{n}")
    promote(world, "reviewer", rule)
    before, kept = snapshot(world), failures(world)
    assert promote(world, "reviewer", rule) == {"episodes": 0, "lessons": [], "playbooks": [], "runs": []}
    assert snapshot(world) == before and failures(world) == kept
    marked = read(
        world, "MATCH (ep:Episode)-[:PROMOTED_BY]->(:Agent {name: 'reviewer'}) RETURN ep.id ORDER BY ep.id"
    )
    assert marked == [["e0"], ["e1"], ["e2"], ["e3"]]
    shown = read(world, "MATCH (:Candidate)-[s:SHOWN_IN]->(:Episode) RETURN count(s)")
    assert shown == [[8]]  # one lesson and one playbook, four episodes each


def test_counts_carry_over_from_call_to_call(world):
    ended(world, "e1")
    first = promote(world, "reviewer", without_runs)
    assert first["lessons"] == [{"id": "d1-fan", "status": "waiting", "agree": 1, "against": 0}]
    assert first["playbooks"] == [{"id": "cool-d1", "version": None, "status": "waiting", "agree": 1}]
    ended(world, "e2")
    second = promote(world, "reviewer", without_runs)
    assert second["lessons"][0]["agree"] == 2 and statuses(second["lessons"]) == ["waiting"]
    assert statuses(second["playbooks"]) == ["waiting"] and lesson(world, "d1-fan") is None
    assert playbook(world, "cool-d1") is None
    ended(world, "e3")
    third = promote(world, "reviewer", without_runs)
    assert third["lessons"] == [{"id": "d1-fan", "status": "learned", "agree": 3, "against": 0}]
    assert third["playbooks"] == [{"id": "cool-d1#1", "version": 1, "status": "written", "agree": 3}]
    assert lesson(world, "d1-fan")["supported_by"] == ["e1", "e2", "e3"]
    ended(world, "e4")
    ended(world, "e5", cause="dust")
    fourth = promote(world, "reviewer", without_runs)
    assert fourth["lessons"] == [{"id": "d1-fan", "status": "weighed", "agree": 4, "against": 1}]
    assert fourth["playbooks"] == [{"id": "cool-d1#1", "version": 1, "status": "unchanged", "agree": 5}]
    found = lesson(world, "d1-fan")
    assert (found["support"], found["against"], found["weight"]) == (4, 1, 3)


def test_episodes_against_a_lesson_before_it_is_learned_count_when_it_is(world):
    ended(world, "e1", cause="dust")
    ended(world, "e2", cause="fan")
    assert statuses(promote(world, "reviewer", without_runs)["lessons"]) == ["waiting"]
    ended(world, "e3")
    ended(world, "e4")
    assert promote(world, "reviewer", without_runs)["lessons"][0]["status"] == "learned"
    found = lesson(world, "d1-fan")
    assert found["supported_by"] == ["e2", "e3", "e4"] and found["against_episodes"] == ["e1"]
    assert found["weight"] == 2


def test_at_least_sets_how_many_episodes_must_agree(world):
    ended(world, "e1")
    result = promote(world, "reviewer", without_runs, at_least=1)
    assert statuses(result["lessons"]) == ["learned"] and statuses(result["playbooks"]) == ["written"]
    assert playbook(world, "cool-d1#1")["needs"] == 1


def test_each_promoter_keeps_its_own_mark_and_counts_nothing_twice(world):
    for n in range(3):
        ended(world, f"e{n}")
    promote(world, "reviewer", without_runs)
    again = promote(world, "auditor", without_runs)
    assert again["episodes"] == 3
    assert statuses(again["lessons"]) == ["unchanged"] and statuses(again["playbooks"]) == ["unchanged"]
    assert lesson(world, "d1-fan")["weight"] == 3
    assert read(
        world, "MATCH (:Episode)-[p:PROMOTED_BY]->(a:Agent) RETURN a.name, count(p) ORDER BY a.name"
    ) == [
        ["auditor", 3],
        ["reviewer", 3],
    ]


def test_limit_reads_episodes_in_the_order_they_ended(world):
    seen: list[str] = []

    def watching(episode):
        seen.append(episode["id"])
        return without_runs(episode)

    for name in ("c", "a", "e", "b", "d"):
        ended(world, name)
    open_episode(world, "still-open", by="watcher")
    assert promote(world, "reviewer", watching, limit=2)["episodes"] == 2
    assert promote(world, "reviewer", watching, limit=2)["episodes"] == 2
    assert promote(world, "reviewer", watching, limit=2)["episodes"] == 1
    assert promote(world, "reviewer", watching, limit=2)["episodes"] == 0
    assert seen == ["c", "a", "e", "b", "d"]
    close_episode(
        world, "still-open", by="reviewer", outcome={"cause": "fan", "step": "clean the fan", "fixed": True}
    )
    assert promote(world, "reviewer", watching)["episodes"] == 1 and seen[-1] == "still-open"


def test_the_rule_sees_each_entry_with_its_values(world):
    open_episode(world, "e1", by="watcher", about=[(DEVICE, "d1")])
    record(world, "e1", "observation", by="watcher", values={"type": "reading", "id": "own", "level": 7})
    close_episode(world, "e1", by="reviewer", outcome={"cause": "fan"})
    given: list[dict] = []
    promote(world, "reviewer", lambda episode: given.append(episode) or [])
    entries = given[0]["entries"]
    assert entries[0]["level"] == 7 and entries[1]["cause"] == "fan"
    # the entry's own fields win; the value stays under values
    assert entries[0]["type"] == "observation" and entries[0]["values"]["type"] == "reading"
    assert entries[0]["id"] == "e1/1" and entries[0]["values"]["id"] == "own"
    assert given[0]["outcome"] == {"cause": "fan"} and given[0]["about"] == [("Device", "d1")]


# Playbooks: versions and runs


def test_a_new_version_when_more_episodes_show_other_steps(world):
    for n in range(3):
        ended(world, f"a{n}")
    promote(world, "reviewer", without_runs)
    for n in range(3):
        ended(world, f"b{n}", step="replace the fan")
    waiting = promote(world, "reviewer", without_runs)["playbooks"]
    assert waiting == [{"id": "cool-d1#1", "version": 1, "status": "waiting", "agree": 3}]
    ended(world, "b3", step="replace the fan")
    written = promote(world, "reviewer", without_runs)["playbooks"]
    assert written == [{"id": "cool-d1#2", "version": 2, "status": "written", "agree": 4}]
    newest = playbook(world, "cool-d1")
    assert newest["steps"] == [{"do": "replace the fan"}] and newest["replaces"] == "cool-d1#1"
    assert newest["drawn_from"] == ["b0", "b1", "b2", "b3"]
    # episodes showing the first steps again must outnumber the four behind the second to come back
    ended(world, "a3")
    assert promote(world, "reviewer", without_runs)["playbooks"] == [
        {"id": "cool-d1#2", "version": 2, "status": "waiting", "agree": 4}
    ]
    ended(world, "a4")
    assert promote(world, "reviewer", without_runs)["playbooks"][0]["id"] == "cool-d1#3"
    assert playbook(world, "cool-d1")["steps"] == [{"do": "clean the fan"}]


def test_runs_are_judged_once_and_three_failures_switch_a_playbook_off(world):
    for n in range(3):
        ended(world, f"a{n}")
    promote(world, "reviewer", without_runs)
    ended(world, "r0", fixed=True)
    runs = promote(world, "reviewer", rule)["runs"]
    assert runs == [{"id": "cool-d1#1", "status": "judged", "enabled": True, "episode": "r0"}]
    for n in range(1, 4):
        ended(world, f"r{n}", step="replace the fan", fixed=False)
    result = promote(world, "reviewer", rule)
    assert [one["enabled"] for one in result["runs"]] == [True, True, False]
    found = playbook(world, "cool-d1#1")
    assert (found["runs"], found["failed"], found["switched_by"]) == (4, 3, "library")
    # the newest version is switched off: three episodes with other steps are enough for the next
    assert result["playbooks"] == [{"id": "cool-d1#2", "version": 2, "status": "written", "agree": 3}]


def test_steps_that_were_switched_off_are_not_written_again(world):
    for n in range(3):
        ended(world, f"a{n}")
    promote(world, "reviewer", without_runs)
    switch(world, "cool-d1#1", False, "operator")
    for n in range(3, 8):
        ended(world, f"a{n}")
    result = promote(world, "reviewer", without_runs)["playbooks"]
    assert result == [
        {
            "id": "cool-d1#1",
            "version": 1,
            "status": "unchanged",
            "agree": 8,
            "reason": "the episodes show steps that were switched off",
        }
    ]
    assert playbook(world, "cool-d1")["version"] == 1 and failures(world) == []


def test_a_run_can_name_its_version(world):
    for n in range(3):
        ended(world, f"a{n}")
    promote(world, "reviewer", without_runs)
    ended(world, "b0", step="other")

    def exact(episode):
        return [{"ran": "cool-d1#1", "succeeded": False}]

    assert promote(world, "reviewer", exact)["runs"][0]["id"] == "cool-d1#1"
    assert playbook(world, "cool-d1#1")["failed"] == 1


# Refusals


def test_the_library_refusal_is_the_receipt_of_its_claim(world):
    learn(world, "d1-fan", by="someone", statement="another statement", supported_by=[ended(world, "x0")])
    for n in range(3):
        ended(world, f"e{n}")

    def about_nothing(episode):
        return [
            {"lesson": "d1-fan", "statement": "d1 gets hot because of its fan", "agrees": True},
            {
                "lesson": "ghost",
                "statement": "about a device that is not there",
                "about": [(DEVICE, "d9")],
                "agrees": True,
            },
        ]

    result = promote(world, "reviewer", about_nothing)
    conflict, missing = result["lessons"]
    assert (conflict["id"], conflict["status"]) == ("d1-fan", "conflict")
    assert (missing["id"], missing["status"]) == ("ghost", "missing") and "Device 'd9'" in missing["reason"]
    assert lesson(world, "ghost") is None and lesson(world, "d1-fan")["statement"] == "another statement"
    assert sorted(f["reason"] for f in failures(world)) == ["conflict", "missing"]


def claims(*given):
    return lambda episode: list(given)


GOOD = {"lesson": "l", "statement": "s", "agrees": True}
BAD_RULES = {
    "not a list": lambda episode: {"lesson": "l", "statement": "s", "agrees": True},
    "None": lambda episode: None,
    "a claim that is text": claims("l"),
    "no agrees": claims({"lesson": "l", "statement": "s"}),
    "agrees not a bool": claims({**GOOD, "agrees": "yes"}),
    "an unknown key": claims({**GOOD, "weight": 3}),
    "a key that is not text": claims({**GOOD, 7: "seven", (1, 2): "pair"}),
    "two kinds in one": claims({**GOOD, "playbook": "p", "trigger": {"a": 1}, "steps": [{"do": 1}]}),
    "no kind": claims({"statement": "s"}),
    "a hostile id": claims({**GOOD, "lesson": "bad\x00id"}),
    "an empty statement": claims({**GOOD, "statement": ""}),
    "about a record": claims({**GOOD, "about": [("Episode", "e1")]}),
    "a nested trigger": claims({"playbook": "p", "trigger": {"a": {"b": 1}}, "steps": [{"do": 1}]}),
    "steps not a list": claims({"playbook": "p", "trigger": {"a": 1}, "steps": {"do": 1}}),
    "a name with #": claims({"playbook": "p#1", "trigger": {"a": 1}, "steps": [{"do": 1}]}),
    "succeeded not a bool": claims({"ran": "p", "succeeded": None}),
    "two different claims for one lesson": claims(GOOD, {**GOOD, "agrees": False}),
    "too many claims": claims(*[{**GOOD, "lesson": f"l{n}"} for n in range(201)]),
}


@pytest.mark.parametrize("bad", list(BAD_RULES), ids=list(BAD_RULES))
def test_a_rule_that_gives_what_is_not_a_claim_stops_before_anything_is_written(world, bad):
    for n in range(4):
        ended(world, f"e{n}")
    calls: list[str] = []

    def mostly_good(episode):
        calls.append(episode["id"])
        return BAD_RULES[bad](episode) if episode["id"] == "e2" else without_runs(episode)

    before = snapshot(world)
    with pytest.raises(Refused, match="'e2'"):
        promote(world, "reviewer", mostly_good, at_least=1)
    assert calls == ["e0", "e1", "e2"]
    assert snapshot(world) == before and failures(world) == []
    assert promote(world, "reviewer", without_runs)["episodes"] == 4  # nothing was marked


def test_a_rule_that_raises_stops_before_anything_is_written(world):
    for n in range(3):
        ended(world, f"e{n}")

    def broken(episode):
        if episode["id"] == "e1":
            raise KeyError("cause")
        return without_runs(episode)

    before = snapshot(world)
    with pytest.raises(Refused, match="raised on episode 'e1'"):
        promote(world, "reviewer", broken, at_least=1)
    assert snapshot(world) == before and failures(world) == []


@pytest.mark.parametrize(
    "arguments",
    [
        {"by": ""},
        {"by": "a\x00b"},
        {"rule": "not a function"},
        {"at_least": 0},
        {"at_least": 201},
        {"at_least": True},
        {"limit": 0},
        {"limit": 1_001},
    ],
)
def test_promote_refuses_bad_arguments(world, arguments):
    ended(world, "e1")
    before = snapshot(world)
    given = {"by": "reviewer", "rule": rule, **arguments}
    with pytest.raises(Refused):
        promote(world, given.pop("by"), given.pop("rule"), **given)
    assert snapshot(world) == before


def test_promote_on_a_graph_with_nothing_in_it(graph):
    assert promote(graph, "reviewer", rule) == {"episodes": 0, "lessons": [], "playbooks": [], "runs": []}


def test_ended_episodes_are_found_by_their_id_not_joined_with_every_episode(world):
    # Written as MATCH (ep:Episode {id: n.episode}) after the entries, FalkorDB 4.22 joined them with
    # a scan of every Episode of the graph.
    ended(world, "a")
    ended(world, "b")
    params = {"after": 0, "upto": 100, "outcome": OUTCOME, "by": "promoter"}
    assert scans(world.explain(_ENDED, params)) == [
        "Node By Index Scan | (ep:Episode)",
        "Node By Index Scan | (n:Entry)",
    ]
    assert [row[0] for row in read(world, _ENDED, params)] == ["a", "b"]
