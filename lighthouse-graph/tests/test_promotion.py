"""promote(): what repeats in ended episodes becomes lessons and playbooks, each episode counted once."""

from __future__ import annotations

import lighthouse.lessons as lessons_module
import pytest
from devices import DEVICE, KINDS
from graph_contents import snapshot
from hostile import HostileList, HostileMap, HostileText
from lighthouse import Kind, close_episode, ensure_schema, episode, open_episode, record, remember
from lighthouse.errors import Refused, WrongType
from lighthouse.graphs import read
from lighthouse.lessons import learn, lesson, retire
from lighthouse.playbooks import playbook, switch
from lighthouse.promotion import promote
from test_lessons import kept


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


def opened(graph, name: str) -> str:
    assert open_episode(graph, name, by="watcher", about=[(DEVICE, "d1")])["status"] == "opened"
    assert record(graph, name, "observation", by="watcher", values={"status": "hot"})["status"] == "recorded"
    return name


def close(graph, name: str, cause="fan", step="clean the fan", fixed=True) -> str:
    outcome = {"cause": cause, "step": step, "fixed": fixed}
    assert close_episode(graph, name, by="reviewer", outcome=outcome)["status"] == "recorded"
    return name


def ended(graph, name: str, cause="fan", step="clean the fan", fixed=True) -> str:
    """An episode about d1: an observation, then its outcome."""
    return close(graph, opened(graph, name), cause, step, fixed)


def statuses(receipts: list[dict]) -> list[str]:
    return [one["status"] for one in receipts]


def test_the_seed_example(world):
    for n in range(12):
        ended(world, f"e{n:02d}")
    result = promote(world, "reviewer", rule, at_least=3)
    assert set(result) == {"episodes", "lessons", "playbooks", "runs"} and result["episodes"] == 12
    assert result["lessons"] == [{"id": "d1-fan", "status": "learned", "new": 0}]
    assert result["playbooks"] == [{"id": "cool-d1#1", "version": 1, "status": "written"}]
    # runs are recorded first, on the versions there were: none yet, and the name is put back
    assert statuses(result["runs"]) == ["unknown"] * 12 and {one["id"] for one in result["runs"]} == {
        "cool-d1"
    }
    learned = lesson(world, "d1-fan")
    assert learned["weight"] == 12 and learned["about"] == [("Device", "d1")] and learned["by"] == "reviewer"
    written = playbook(world, "cool-d1")
    assert written["trigger"] == {"status": "hot", "device": "d1"} and written["steps"] == [
        {"do": "clean the fan"}
    ]
    assert written["supported_by"] == [f"e{n:02d}" for n in range(12)]


def test_runs_are_judged_with_ran(world):
    for n in range(3):
        ended(world, f"e{n}")
    promote(world, "reviewer", rule)
    ended(world, "e3", fixed=False)
    result = promote(world, "reviewer", rule)  # every episode's run, now that the playbook exists
    assert result["runs"] == [{"id": "cool-d1#1", "status": "recorded", "enabled": True}] * 4
    found = playbook(world, "cool-d1")
    assert (found["runs"], found["succeeded"], found["failed"], found["failed_in_a_row"]) == (4, 3, 1, 1)
    assert statuses(promote(world, "reviewer", rule)["runs"]) == ["exists"] * 4


def test_promote_writes_nothing_twice_and_answers_again_for_everything_the_rule_names(world):
    for n in range(4):
        ended(world, f"e{n}")
    promote(world, "reviewer", rule)
    promote(world, "reviewer", rule)  # the runs, now that cool-d1#1 exists
    before, failures = snapshot(world), kept(world)
    again = promote(world, "reviewer", rule)
    assert again == {
        "episodes": 4,
        "lessons": [{"id": "d1-fan", "status": "unchanged", "new": 0}],
        "playbooks": [{"id": "cool-d1#1", "status": "unchanged"}],
        "runs": [{"id": "cool-d1#1", "status": "exists", "enabled": True}] * 4,
    }
    assert snapshot(world) == before and kept(world) == failures


def test_a_rule_that_changed_reads_the_episodes_an_earlier_call_read(world):
    for n in range(3):
        ended(world, f"e{n}")
    assert promote(world, "reviewer", lambda episode: [])["episodes"] == 3
    result = promote(world, "reviewer", without_runs)
    assert result["lessons"] == [{"id": "d1-fan", "status": "learned", "new": 0}]
    assert result["playbooks"] == [{"id": "cool-d1#1", "version": 1, "status": "written"}]
    assert lesson(world, "d1-fan")["supported_by"] == ["e0", "e1", "e2"]


def test_counts_carry_over_from_call_to_call(world):
    ended(world, "e1")
    first = promote(world, "reviewer", without_runs)
    assert first["lessons"] == [{"id": "d1-fan", "status": "waiting", "for": 1}]
    assert first["playbooks"] == [{"id": "cool-d1", "status": "waiting", "for": 1}]
    ended(world, "e2")
    second = promote(world, "reviewer", without_runs)
    assert second["lessons"] == [{"id": "d1-fan", "status": "waiting", "for": 2}]
    assert lesson(world, "d1-fan") is None and playbook(world, "cool-d1") is None
    ended(world, "e3")
    third = promote(world, "reviewer", without_runs)
    assert third["lessons"] == [{"id": "d1-fan", "status": "learned", "new": 0}]
    assert third["playbooks"] == [{"id": "cool-d1#1", "version": 1, "status": "written"}]
    assert lesson(world, "d1-fan")["supported_by"] == ["e1", "e2", "e3"]
    ended(world, "e4")
    ended(world, "e5", cause="dust")
    fourth = promote(world, "reviewer", without_runs)
    assert fourth["lessons"] == [{"id": "d1-fan", "status": "weighed", "new": 2}]
    assert fourth["playbooks"] == [{"id": "cool-d1#1", "status": "unchanged"}]
    found = lesson(world, "d1-fan")
    assert (found["support"], found["against"], found["weight"]) == (4, 1, 3)


def test_a_learned_lesson_also_weighs_the_episodes_against_it(world):
    ended(world, "e1", cause="dust")
    ended(world, "e2", cause="fan")
    assert promote(world, "reviewer", without_runs)["lessons"] == [
        {"id": "d1-fan", "status": "waiting", "for": 1}
    ]
    ended(world, "e3")
    ended(world, "e4")
    ended(world, "e5", cause="dust")
    assert promote(world, "reviewer", without_runs)["lessons"] == [
        {"id": "d1-fan", "status": "learned", "new": 2}
    ]
    found = lesson(world, "d1-fan")
    assert found["supported_by"] == ["e2", "e3", "e4"] and found["contradicted_by"] == ["e1", "e5"]


def test_a_lesson_rests_on_at_most_200_episodes_at_first(world):
    names = [ended(world, f"e{n:03d}") for n in range(203)]
    result = promote(world, "reviewer", without_runs, at_least=1)
    assert result["lessons"] == [{"id": "d1-fan", "status": "learned", "new": 3}]
    found = lesson(world, "d1-fan")
    assert found["support"] == 203 and found["supported_by"] == names
    rested = read(
        world, "MATCH (:Lesson)-[s:SUPPORTED_BY]->(ep:Episode) WHERE s.by = 'reviewer' RETURN count(s)"
    )
    assert rested == [[203]]


def test_lessons_are_listed_in_the_order_first_claimed_and_episodes_read_in_the_order_they_ended(world):
    for name in ("first-opened", "second-opened", "third-opened"):
        opened(world, name)
    for name in ("third-opened", "first-opened", "second-opened"):
        close(world, name)
    seen = []

    def naming(episode):
        seen.append(episode["id"])
        return [
            {"lesson": f"from-{episode['id']}", "statement": "s", "agrees": True},
            {"lesson": "shared", "statement": "s", "agrees": True},
        ]

    result = promote(world, "reviewer", naming)
    assert seen == ["third-opened", "first-opened", "second-opened"]
    ids = [one["id"] for one in result["lessons"]]
    assert ids == ["from-third-opened", "shared", "from-first-opened", "from-second-opened"]
    assert result["lessons"][1] == {"id": "shared", "status": "learned", "new": 0}
    assert result["lessons"][0] == {"id": "from-third-opened", "status": "waiting", "for": 1}


def test_a_repeat_call_weighs_only_what_is_new(world, monkeypatch):
    for n in range(3):
        ended(world, f"e{n}")
    promote(world, "reviewer", without_runs)
    ended(world, "e3", cause="dust")
    weighed = []
    original = lessons_module.weigh

    def counting(graph, lesson_id, by, episode_id, agrees, at=None):
        weighed.append(episode_id)
        return original(graph, lesson_id, by, episode_id, agrees, at)

    monkeypatch.setattr(lessons_module, "weigh", counting)
    result = promote(world, "reviewer", without_runs)
    assert result["lessons"] == [{"id": "d1-fan", "status": "weighed", "new": 1}] and weighed == ["e3"]
    assert promote(world, "reviewer", without_runs)["lessons"][0]["status"] == "unchanged"
    assert weighed == ["e3"]


def test_each_promoter_counts_each_episode_once(world):
    for n in range(3):
        ended(world, f"e{n}")
    promote(world, "reviewer", without_runs)
    again = promote(world, "auditor", without_runs)
    assert again["episodes"] == 3 and again["lessons"] == [{"id": "d1-fan", "status": "unchanged", "new": 0}]
    assert again["playbooks"] == [{"id": "cool-d1#1", "status": "unchanged"}]
    assert lesson(world, "d1-fan")["support"] == 3


def test_a_new_version_when_more_episodes_show_other_steps(world):
    for n in range(3):
        ended(world, f"e{n}")
    promote(world, "reviewer", without_runs)
    for n in range(3, 6):
        ended(world, f"e{n}", step="replace the fan")
    waiting = promote(world, "reviewer", without_runs)["playbooks"]
    assert waiting == [{"id": "cool-d1#1", "status": "unchanged"}]  # as many as the newest has
    ended(world, "e6", step="replace the fan")
    written = promote(world, "reviewer", without_runs)["playbooks"]
    assert written == [{"id": "cool-d1#2", "version": 2, "status": "written"}]
    assert playbook(world, "cool-d1")["steps"] == [{"do": "replace the fan"}]
    assert playbook(world, "cool-d1", 1)["enabled"] is False


def test_steps_that_were_switched_off_are_not_written_again(world):
    for n in range(3):
        ended(world, f"e{n}")
    promote(world, "reviewer", without_runs)
    switch(world, "cool-d1", "operator", False)
    for n in range(3, 7):
        ended(world, f"e{n}")
    assert promote(world, "reviewer", without_runs)["playbooks"] == [
        {"id": "cool-d1#1", "status": "unchanged"}
    ]
    for n in range(7, 10):
        ended(world, f"e{n}", step="replace the fan")
    written = promote(world, "reviewer", without_runs)["playbooks"]
    assert written == [{"id": "cool-d1#2", "version": 2, "status": "written"}]


def test_a_refusal_of_the_library_names_what_it_was_for(world):
    for n in range(3):
        ended(world, f"e{n}")

    def about_nobody(episode):
        return [{"lesson": "ghost", "statement": "s", "about": [(DEVICE, "nobody")], "agrees": True}]

    result = promote(world, "reviewer", about_nobody)
    assert result["lessons"] == [
        {"id": "ghost", "status": "missing", "reason": "something it refers to does not exist"}
    ]
    learn(world, "retired-one", "reviewer", "s", ["e0"])
    retire(world, "retired-one", "reviewer", "wrong")
    ended(world, "e3")
    found = promote(
        world, "auditor", lambda episode: [{"lesson": "retired-one", "statement": "s", "agrees": True}]
    )
    assert [(one["id"], one["status"]) for one in found["lessons"]] == [("retired-one", "retired")]


@pytest.mark.parametrize(
    "answer",
    [
        lambda: [{"lesson": "x", "statement": "s"}],
        lambda: [{"lesson": "x", "statement": "", "agrees": True}],
        lambda: [{"lesson": "x", "statement": "s", "agrees": 1}],
        lambda: [{"lesson": "x", "statement": "s", "agrees": True, "extra": 1}],
        lambda: [{"lesson": "x", "playbook": "y", "statement": "s", "agrees": True}],
        lambda: [{"lesson": "x", "statement": "s", "agrees": True, "about": [("Episode", "e0")]}],
        lambda: [{"lesson": "x", "statement": "s", "agrees": True, "about": [("Device", "d1")]}],
        lambda: [{"playbook": "p", "trigger": {}, "steps": [{"do": 1}]}],
        lambda: [{"playbook": "p", "trigger": {"a": 1}, "steps": [{}] * 51}],
        lambda: [{"ran": "p"}],
        lambda: [{"ran": "p", "succeeded": None}],
        lambda: [{"ran": "", "succeeded": True}],
        lambda: [{"ran": "p", "succeeded": "yes"}],
        lambda: ["not a claim"],
        lambda: [HostileMap({"lesson": "x", "statement": "s", "agrees": True})],
        lambda: [{"lesson": HostileText("x"), "statement": "s", "agrees": True}],
        lambda: [
            {"ran": "p", "succeeded": True},
            {"lesson": "x", "statement": HostileText("s"), "agrees": True},
        ],
    ],
)
def test_a_malformed_claim_stops_before_anything_is_written(world, answer):
    ended(world, "e0")
    ended(world, "e1")
    before, failures = snapshot(world), kept(world)
    calls = []

    def bad_on_the_second(episode):
        calls.append(episode["id"])
        return without_runs(episode) if len(calls) == 1 else answer()

    with pytest.raises(Refused, match="claim"):
        promote(world, "reviewer", bad_on_the_second, at_least=1)
    assert snapshot(world) == before and kept(world) == failures


@pytest.mark.parametrize(
    "answer", [lambda: None, lambda: ({"ran": "p"},), lambda: {"ran": "p"}, lambda: HostileList([])]
)
def test_an_answer_that_is_not_a_list_raises_wrong_type_before_anything_is_written(world, answer):
    ended(world, "e0")
    before = snapshot(world)
    with pytest.raises(WrongType, match="claim"):
        promote(world, "reviewer", lambda episode: answer())
    assert snapshot(world) == before


def test_what_the_rule_raises_passes_unchanged_and_nothing_is_written(world):
    class RuleBroke(Exception):
        pass

    ended(world, "e0")
    ended(world, "e1")
    before = snapshot(world)

    def breaks(episode):
        if episode["id"] == "e1":
            raise RuleBroke("no")
        return without_runs(episode)

    with pytest.raises(RuleBroke):
        promote(world, "reviewer", breaks, at_least=1)
    assert snapshot(world) == before


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        ({"by": ""}, Refused),
        ({"by": HostileText("reviewer")}, Refused),
        ({"rule": "not callable"}, WrongType),
        ({"at_least": 0}, Refused),
        ({"at_least": 201}, Refused),
        ({"at_least": True}, Refused),
        ({"at_least": 2.0}, Refused),
    ],
)
def test_promote_refuses_bad_arguments(world, arguments, error):
    ended(world, "e0")
    before = snapshot(world)
    with pytest.raises(error):
        promote(world, **{"by": "reviewer", "rule": rule, **arguments})
    assert snapshot(world) == before


def test_a_playbook_claim_without_steps_is_refused_under_its_name_and_the_rest_goes_on(world):
    for n in range(3):
        ended(world, f"e{n}")

    def no_steps(episode):
        return [{"playbook": "empty", "trigger": {"status": "hot"}, "steps": []}, *without_runs(episode)]

    result = promote(world, "reviewer", no_steps)
    assert result["playbooks"][0] == {
        "id": "empty",
        "status": "invalid",
        "reason": "a playbook has 1 to 50 steps, not 0",
    }
    assert result["playbooks"][1] == {"id": "cool-d1#1", "version": 1, "status": "written"}
    assert result["lessons"] == [{"id": "d1-fan", "status": "learned", "new": 0}]
    assert playbook(world, "empty") is None
    stored = read(world, "MATCH (f:WriteFailure {kind: 'Playbook'}) RETURN f.key, f.reason")
    assert stored == [["empty", "invalid"]]


def test_learn_gets_each_entity_once_as_the_rule_named_it(world):
    for n in range(3):
        ended(world, f"e{n}")
    twin = Kind("Device", key="serial")  # another Kind object of the same label and key

    def naming(episode):
        about = [(DEVICE, "d1"), (twin, "d1"), (DEVICE, "d2")] if episode["id"] == "e0" else [(twin, "d2")]
        return [{"lesson": "pair", "statement": "s", "agrees": True, "about": about}]

    remember(world, DEVICE, [{"key": "d2", "t": "2026-01-02T00:00:00Z", "values": {"status": "ok"}}], "inv")
    assert promote(world, "reviewer", naming)["lessons"] == [{"id": "pair", "status": "learned", "new": 0}]
    assert lesson(world, "pair")["about"] == [("Device", "d1"), ("Device", "d2")]


def test_promote_on_a_graph_with_nothing_in_it(graph):
    assert promote(graph, "reviewer", rule) == {"episodes": 0, "lessons": [], "playbooks": [], "runs": []}


def test_the_rule_gets_each_episode_exactly_as_episode_gives_it(world):
    close(world, opened(world, "e1"))
    record(world, opened(world, "e2"), "observation", by="watcher", values={"values": "a value like another"})
    close(world, "e2", cause="dust")
    given = []
    promote(world, "promoter", lambda one: given.append(one) or [])
    assert given == [episode(world, "e1"), episode(world, "e2")]
    assert given[1]["entries"][1]["values"] == "a value like another"
