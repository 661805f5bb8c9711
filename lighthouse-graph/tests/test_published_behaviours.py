"""Behaviours of the published API (lighthouse-graph 0.1.1) that its specification pins, each from its words.

Where a message is pinned, the specification's words are written here as data, with the section they come
from: a message the specification says "contains" a phrase, "starts" with one, or "names" an argument, and
the exact reasons of its section 3. Each is checked against what the library raises or answers.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import lighthouse
import pytest
from lighthouse import Kind
from test_published_api import BARE, DEVICE, ROOM

T0, T1, T2, T3 = (f"2026-01-0{day}T00:00:00Z" for day in range(1, 5))


def embedder(texts: list[str]) -> list[list[float]]:
    return [[1.0, float(len(text) % 7), 2.0] for text in texts]


@pytest.fixture
def world(graph):
    """r1; d1 in r1; two closed episodes e1, e2 about d1, each citing its look; a session of ann."""
    lighthouse.ensure_schema(graph, [DEVICE, ROOM])
    assert lighthouse.remember(
        graph, ROOM, [{"key": "r1", "t": T0, "values": {"title": "pump room"}}], "feed"
    )
    rows = [{"key": "d1", "t": T0, "values": {"note": "hot pump"}, "relations": {"LOCATED_IN": "r1"}}]
    assert lighthouse.remember(graph, DEVICE, rows, "feed") == [{"key": "d1", "status": "created"}]
    for episode_id in ("e1", "e2"):
        assert (
            lighthouse.open_episode(graph, episode_id, "watcher", [(DEVICE, "d1")], T1)["status"] == "opened"
        )
        look = lighthouse.record(graph, episode_id, "look", "watcher", {"temp": 91}, (), T1)
        closed = lighthouse.close_episode(graph, episode_id, "watcher", {"fixed": True}, [look["id"]], T1)
        assert closed["status"] == "recorded"
    assert lighthouse.say(graph, "ann", "s1", "user", "the pump is hot", "desk")["status"] == "said"
    return graph


# 1. A declared time is a time input (API 1.2: "whatever stamp() accepts"), a datetime included.


@pytest.mark.parametrize(
    "given",
    [
        datetime(2026, 1, 1, 12, 30, 5, tzinfo=UTC),
        datetime(2026, 1, 1, 12, 30, 5, 943_000),  # naive: taken as UTC; the fraction is cut off
        datetime(2026, 1, 1, 14, 30, 5, tzinfo=timezone(timedelta(hours=2))),  # converted to UTC
        "2026-01-01T12:30:05Z",
    ],
    ids=["aware", "naive", "offset", "text"],
)
def test_a_declared_time_given_as_a_datetime_is_stored_as_a_time(world, given):
    expected = datetime(2026, 1, 1, 12, 30, 5, tzinfo=UTC)
    assert lighthouse.stamp(given) == "2026-01-01T12:30:05"
    rows = [{"key": "d2", "t": T1, "values": {"seen": given}}]
    assert lighthouse.remember(world, DEVICE, rows, "feed") == [{"key": "d2", "status": "created"}]
    assert lighthouse.history(world, DEVICE, "d2")[0]["seen"] == expected
    receipt = lighthouse.update(world, DEVICE, "d1", T2, "feed", {"seen": given})
    assert receipt == {"key": "d1", "status": "changed"}
    assert lighthouse.as_of(world, DEVICE, "d1", T2)["seen"] == expected
    # The same time again, in another form, is the same State.
    again = lighthouse.remember(
        world, DEVICE, [{"key": "d2", "t": T1, "values": {"seen": "2026-01-01T12:30:05"}}], "feed"
    )
    assert again == [{"key": "d2", "status": "unchanged"}]


def test_a_datetime_is_a_time_only_where_a_time_is_declared(world):
    # Storable values (API 1.2) hold no datetime: a value that is not a declared time is refused.
    rows = [{"key": "d2", "t": T1, "values": {"note": datetime(2026, 1, 1, tzinfo=UTC)}}]
    [receipt] = lighthouse.remember(world, DEVICE, rows, "feed")
    assert receipt["status"] == "invalid" and "datetime" in receipt["reason"]
    receipt = lighthouse.update(world, DEVICE, "d1", T2, "feed", {"seen": datetime(1990, 1, 1, tzinfo=UTC)})
    assert receipt["status"] == "invalid"  # outside the times FalkorDB compares right
    assert lighthouse.history(world, DEVICE, "d1")[-1].get("seen") is None


# 4. A handoff to its own giver is given (API 2.6 lists no such refusal); given again, it exists.


def test_an_agent_hands_work_to_itself(world):
    first = lighthouse.hand_off(world, "h1", "watcher", "watcher", [(DEVICE, "d1")])
    assert first == {"id": "h1", "status": "given"}
    assert lighthouse.hand_off(world, "h1", "watcher", "watcher", [(DEVICE, "d1")]) == {
        "id": "h1",
        "status": "exists",
    }
    assert [found["id"] for found in lighthouse.handoffs_for(world, "watcher")] == ["h1"]


# 5. Impact lists the handoffs not yet accepted; invalidate_entry() gives the impact read after its mark.


def test_impact_lists_only_handoffs_not_yet_accepted(world):
    for handoff_id in ("h1", "h2"):
        assert lighthouse.hand_off(world, handoff_id, "watcher", "fixer", ["e1/1"])["status"] == "given"
    assert lighthouse.accept(world, "h1", "fixer")["status"] == "accepted"
    assert lighthouse.impact_of_entry(world, "e1/1")["handoffs"] == ["h2"]
    # A handoff that points at the episode that holds the entry rests on it too.
    assert lighthouse.hand_off(world, "h3", "watcher", "fixer", [("Episode", "e1")])["status"] == "given"
    receipt = lighthouse.invalidate_entry(world, "e1/1", "auditor", "the sensor was off")
    assert receipt["status"] == "invalidated"
    assert receipt["impact"]["invalidated"] is True
    assert receipt["impact"]["handoffs"] == ["h2", "h3"]
    assert receipt["impact"] == lighthouse.impact_of_entry(world, "e1/1")


def test_impact_of_state_lists_only_handoffs_not_yet_accepted(world):
    assert lighthouse.open_episode(world, "e3", "watcher", [(DEVICE, "d1")], T1)["status"] == "opened"
    assert lighthouse.record(world, "e3", "look", "watcher", {}, [(DEVICE, "d1")], T1)["id"] == "e3/1"
    for handoff_id in ("h1", "h2"):
        assert lighthouse.hand_off(world, handoff_id, "watcher", "fixer", ["e3/1"])["status"] == "given"
    assert lighthouse.impact_of_state(world, DEVICE, "d1", T0, T3)["handoffs"] == ["h1", "h2"]
    assert lighthouse.accept(world, "h2", "fixer")["status"] == "accepted"
    assert lighthouse.impact_of_state(world, DEVICE, "d1", T0, T3)["handoffs"] == ["h1"]


# 6. fuse(): "A key listed twice counts once, at its best place" (API section 3).


def test_a_key_listed_twice_takes_one_place():
    found = lighthouse.fuse({"one": [{"key": "a"}, {"key": "b"}, {"key": "a"}, {"key": "c"}]})
    assert [(item["key"], item["places"]) for item in found] == [
        ("a", {"one": 1}),
        ("b", {"one": 2}),
        ("c", {"one": 3}),
    ]
    assert found[2]["score"] == 1 / 63


# 7. References (API 1.2): (Kind, key) for an entity; (label, id) for a record, label one of Entry,
# Episode, Lesson, Playbook; a bare entry id.


def test_a_text_label_of_an_entity_is_not_a_reference(world):
    for receipt in (
        lighthouse.open_episode(world, "e9", "watcher", [("Device", "d1")]),
        lighthouse.record(world, "e1", "look", "watcher", {}, [("Device", "d1")]),
        lighthouse.hand_off(world, "h1", "watcher", "fixer", [("Device", "d1")]),
        lighthouse.say(world, "ann", "s1", "user", "x", "desk", [("Device", "d1")]),
    ):
        assert receipt["status"] == "invalid" and receipt["id"] is None, receipt
    with pytest.raises(ValueError, match="^reference: not a reference"):
        lighthouse.said_about(world, "ann", ("Device", "d1"))
    # The records by their label, and an entry by its id alone.
    about = [(DEVICE, "d1"), ("Episode", "e2"), "e2/1", ("Entry", "e1/1")]
    assert lighthouse.hand_off(world, "h2", "watcher", "fixer", about)["status"] == "given"


def test_a_text_label_of_an_entity_is_not_an_about_of_a_lesson(world):
    receipt = lighthouse.learn(world, "l1", "watcher", "pumps run hot", ["e1"], [("Device", "d1")])
    assert receipt["status"] == "invalid" and receipt["id"] is None, receipt


def test_one_label_with_two_keys_is_invalid(world):
    other = Kind("Device", key="tag")
    for receipt in (
        lighthouse.open_episode(world, "e9", "watcher", [(DEVICE, "d1"), (other, "d2")]),
        lighthouse.record(world, "e1", "look", "watcher", {}, [(DEVICE, "d1"), (other, "d9")]),
        lighthouse.hand_off(world, "h1", "watcher", "fixer", [(DEVICE, "d1"), (other, "d9")]),
        lighthouse.learn(world, "l1", "watcher", "pumps run hot", ["e1"], [(DEVICE, "d1"), (other, "d9")]),
        lighthouse.say(world, "ann", "s1", "user", "x", "desk", [(DEVICE, "d1"), (other, "d9")]),
    ):
        assert receipt["status"] == "invalid", receipt


# 8. The words the API pins.

EXACT = "is"
STARTS = "starts"
CONTAINS = "contains"


def _pinned_raises(world) -> list[tuple[str, type, object, str, str]]:
    """(where the API says it, error, call, how, words): what a call raises, as the API words it."""
    graph = world
    claims = [{"lesson": "x", "statement": "s", "agrees": True, "extra": 1}]
    wider = Kind("Device", key="serial", text=("note",), dimensions=4)  # its vector index has 3
    # fmt: off
    return [
        # 1.4: an identity that is not a name
        ("1.4", ValueError, lambda: lighthouse.open_episode(graph, "", "watcher"), CONTAINS, "must be text"),
        ("1.4", ValueError, lambda: lighthouse.say(graph, 5, "s1", "user", "x", "desk"), CONTAINS, "must be text"),
        # 1.2: "<param> must be a whole number from 1 to N"
        ("1.2", ValueError, lambda: lighthouse.search(graph, DEVICE, "x", 0), STARTS, "limit must be a whole number from 1 to 1000"),
        ("1.2", ValueError, lambda: lighthouse.messages(graph, "ann", "s1", 1001), STARTS, "last must be a whole number from 1 to 1000"),
        ("1.2", ValueError, lambda: lighthouse.messages(graph, "ann", "s1", 5, 0), STARTS, "before must be a whole number from 1 to"),
        ("1.2", ValueError, lambda: lighthouse.sessions(graph, "ann", True), STARTS, "limit must be a whole number from 1 to 1000"),
        ("1.2", ValueError, lambda: lighthouse.fuse({}, 2.0), STARTS, "limit must be a whole number from 1 to 1000"),
        ("1.2", ValueError, lambda: lighthouse.groups(graph, [DEVICE], None, (), 2, 0), STARTS, "limit must be a whole number from 1 to 1000"),
        ("1.2", ValueError, lambda: lighthouse.groups(graph, [DEVICE], None, (), 0), STARTS, "at_least must be a whole number from 1 to 1000000"),
        ("1.2", ValueError, lambda: lighthouse.groups(graph, [DEVICE], None, (), 2, 10, 0), STARTS, "show must be a whole number from 1 to 1000"),
        ("1.2", ValueError, lambda: lighthouse.between(graph, [DEVICE], None, 10, 0), STARTS, "sample must be a whole number from 1 to 1000"),
        ("1.2", ValueError, lambda: lighthouse.between(graph, [DEVICE], None, 10, None, 0), STARTS, "seed must be a whole number from 1 to 2147483647"),
        ("1.2", ValueError, lambda: lighthouse.connection(graph, (DEVICE, "d1"), (ROOM, "r1"), (), None, 11), STARTS, "max_hops must be a whole number from 1 to 10"),
        ("1.2", ValueError, lambda: lighthouse.promote(graph, "reviewer", lambda episode: [], 0), STARTS, "at_least must be a whole number from 1 to 200"),
        ("2.7", ValueError, lambda: lighthouse.claim(graph, "worker", "check", 0), STARTS, "lease must be a whole number from 1 to 604800"),
        # 2.2: "the message names entry_dimensions"; 1.4: "schema not ready"
        ("2.2", ValueError, lambda: lighthouse.ensure_schema(graph, [], 10.0, -1), CONTAINS, "entry_dimensions"),
        ("1.4", RuntimeError, lambda: lighthouse.ensure_schema(graph, [wider]), STARTS, "schema not ready"),
        # 2.4, and section 3: "a blank when/since/t in a read or a row is refused"
        ("2.4", ValueError, lambda: lighthouse.related(graph, DEVICE, "d1", "OWNS"), CONTAINS, "no relation 'OWNS'"),
        ("2.4", ValueError, lambda: lighthouse.as_of(graph, DEVICE, "d1", None), STARTS, "when is missing"),
        ("2.4", ValueError, lambda: lighthouse.as_of(graph, DEVICE, "d1", " "), STARTS, "when is missing"),
        ("2.4", ValueError, lambda: lighthouse.as_of(graph, DEVICE, "d1", "yesterday"), STARTS, "when: "),
        ("2.4", TypeError, lambda: lighthouse.as_of(graph, DEVICE, "d1", 5), STARTS, "when: "),
        ("2.4", ValueError, lambda: lighthouse.related(graph, DEVICE, "d1", "LOCATED_IN", " "), STARTS, "when is missing"),
        ("2.4", ValueError, lambda: lighthouse.related(graph, DEVICE, "d1", "LOCATED_IN", "soon"), STARTS, "when: "),
        # 2.8
        ("2.8", ValueError, lambda: lighthouse.said_about(graph, "ann", 5), STARTS, "reference: not a reference"),
        # 2.9
        ("2.9", ValueError, lambda: lighthouse.pointing_at(graph, DEVICE, "OWNS", "r1"), CONTAINS, "no relation"),
        ("2.9", ValueError, lambda: lighthouse.pointing_at(graph, DEVICE, "LOCATED_IN", "r1", " "), STARTS, "when is missing"),
        ("2.9", ValueError, lambda: lighthouse.search(graph, BARE, "pump"), CONTAINS, "no text"),
        ("2.9", ValueError, lambda: lighthouse.search_history(graph, BARE, "pump"), CONTAINS, "no text"),
        ("2.9", ValueError, lambda: lighthouse.embed(graph, ROOM, embedder, "m"), CONTAINS, "no vectors"),
        ("2.9", ValueError, lambda: lighthouse.embed(graph, DEVICE, lambda texts: "no", "m"), CONTAINS, "embedder"),
        ("2.9", ValueError, lambda: lighthouse.embed_entries(graph, embedder, "m"), CONTAINS, "entry_dimensions"),
        ("2.9", ValueError, lambda: lighthouse.nearest_entries(graph, "pump", embedder, "m"), CONTAINS, "entry_dimensions"),
        ("2.9", TypeError, lambda: lighthouse.fuse({"one": "a"}), CONTAINS, "must be a list"),
        # 2.10: types that is not None nor a list or tuple of names
        ("2.10", ValueError, lambda: lighthouse.extract(graph, DEVICE, lambda entry: [], "reader", "look"), CONTAINS, "types"),
        ("2.10", ValueError, lambda: lighthouse.extract(graph, DEVICE, lambda entry: [], "reader", [""]), CONTAINS, "types"),
        # 2.11
        ("2.11", ValueError, lambda: lighthouse.lessons_about(graph, DEVICE, "d1", 1, " "), CONTAINS, "since"),
        ("2.11", TypeError, lambda: lighthouse.promote(graph, "reviewer", lambda episode: "no"), CONTAINS, "claim"),
        ("2.11", ValueError, lambda: lighthouse.promote(graph, "reviewer", lambda episode: claims), CONTAINS, "claim"),
        # 2.12
        ("2.12", ValueError, lambda: lighthouse.impact_of_state(graph, DEVICE, "d1", T2, T1), CONTAINS, "earlier"),
        ("2.12", ValueError, lambda: lighthouse.impact_of_state(graph, DEVICE, "d1", None, T1), STARTS, "since is missing"),
        ("2.12", ValueError, lambda: lighthouse.impact_of_state(graph, DEVICE, "d1", T1, " "), STARTS, "until is missing"),
        ("2.12", ValueError, lambda: lighthouse.diff_between(graph, [], T0, T1), CONTAINS, "at least one kind"),
        ("2.12", ValueError, lambda: lighthouse.diff_between(graph, [DEVICE], T1, T0), CONTAINS, "not be later"),
        ("2.12", TypeError, lambda: lighthouse.what_if(graph, [DEVICE], {DEVICE: []}), CONTAINS, "hypothetical_rows"),
        # 2.13
        ("2.13", TypeError, lambda: lighthouse.groups(graph, DEVICE), CONTAINS, "kinds must be a list of Kind"),
        ("2.13", TypeError, lambda: lighthouse.important(graph, "Device"), CONTAINS, "kinds must be a list of Kind"),
        ("2.13", ValueError, lambda: lighthouse.groups(graph, []), CONTAINS, "at least one kind"),
        ("2.13", ValueError, lambda: lighthouse.important(graph, []), CONTAINS, "at least one kind"),
        ("2.13", ValueError, lambda: lighthouse.between(graph, []), CONTAINS, "at least one kind"),
        ("2.13", ValueError, lambda: lighthouse.groups(graph, [DEVICE], ["OWNS"]), CONTAINS, "not a relation of these kinds"),
        ("2.13", ValueError, lambda: lighthouse.groups(graph, [DEVICE], "LOCATED_IN"), CONTAINS, "relations must be a list"),
        ("2.13", ValueError, lambda: lighthouse.groups(graph, [DEVICE], ["LOCATED_IN"] * 201), CONTAINS, "relations must be a list"),
        ("2.13", ValueError, lambda: lighthouse.groups(graph, [DEVICE], []), CONTAINS, "no relation to follow"),
        ("2.13", ValueError, lambda: lighthouse.groups(graph, [BARE]), CONTAINS, "no relation to follow"),
        ("2.13", ValueError, lambda: lighthouse.groups(graph, [DEVICE], ["ABOUT"], ["Episode"], 2, 100, 100, T1), CONTAINS, "records"),
        ("2.13", ValueError, lambda: lighthouse.groups(graph, [DEVICE], ["ABOUT"], ["Handoff"]), CONTAINS, "not a record"),
        ("2.13", ValueError, lambda: lighthouse.connection(graph, ("Device", "d1"), (ROOM, "r1")), STARTS, "start: not a reference"),
        ("2.13", ValueError, lambda: lighthouse.connection(graph, (DEVICE, "d1"), 5), STARTS, "end: not a reference"),
    ]
    # fmt: on


def _check(how: str, words: str, said: str) -> None:
    if how == EXACT:
        assert said == words
    elif how == STARTS:
        assert said.startswith(words), f"{said!r} does not start with {words!r}"
    else:
        assert words in said, f"{said!r} does not contain {words!r}"


def test_each_pinned_message_of_an_error_is_the_api_s(world):
    wrong = []
    for section, error, call, how, words in _pinned_raises(world):
        try:
            call()
        except error as raised:
            try:
                _check(how, words, str(raised))
            except AssertionError as why:
                wrong.append(f"{section}: {why}")
        except Exception as other:  # noqa: BLE001 - a wrong type is listed with the rest
            wrong.append(f"{section}: {words!r}: raised {type(other).__name__}: {other}")
        else:
            wrong.append(f"{section}: {words!r}: nothing raised")
    assert wrong == [], "\n".join(wrong)


def _pinned_reasons(world) -> list[tuple[str, object, str, str]]:
    """(status, receipt, how, words): the reasons of refusals, as the API's section 3 words them."""
    graph = world
    assert lighthouse.open_episode(graph, "open", "watcher", [], T1)["status"] == "opened"
    rests_on = "an episode it rests on does not exist or has not ended"
    # fmt: off
    return [
        ("missing", lighthouse.record(graph, "open", "look", "watcher", {}, ["e1/9"]), EXACT, "something it refers to does not exist"),
        ("missing", lighthouse.open_episode(graph, "e9", "watcher", [(DEVICE, "d9")]), EXACT, "something it refers to does not exist"),
        ("missing", lighthouse.close_episode(graph, "open", "watcher", None, ["e1/9"]), EXACT, "something it refers to does not exist"),
        ("closed", lighthouse.record(graph, "e1", "look", "watcher"), EXACT, "the episode is closed"),
        ("closed", lighthouse.close_episode(graph, "e1", "watcher"), EXACT, "the episode is closed"),
        ("unknown", lighthouse.record(graph, "e7", "look", "watcher"), EXACT, "the episode does not exist"),
        ("missing", lighthouse.hand_off(graph, "h1", "watcher", "fixer", ["e1/9"]), EXACT, "something it points at does not exist"),
        ("invalid", lighthouse.say(graph, "ann", "s1", "user", "x" * 100_001, "desk"), EXACT, "text must be text of at most 100000 characters"),
        ("unknown", lighthouse.summarize(graph, "ann", "s9", "sum", 1, "desk"), EXACT, "the user has no such session"),
        ("invalid", lighthouse.summarize(graph, "ann", "s1", "sum", 2, "desk"), EXACT, "upto is past the last message of the session"),
        ("missing", lighthouse.learn(graph, "l1", "watcher", "pumps run hot", ["e9"]), EXACT, rests_on),
        ("missing", lighthouse.learn(graph, "l1", "watcher", "pumps run hot", ["open"]), EXACT, rests_on),
        ("missing", lighthouse.write_playbook(graph, "cool", "watcher", {"a": 1}, [{"do": "x"}], ["e1", "e9"], 1), EXACT, rests_on),
    ]
    # fmt: on


def test_each_pinned_reason_of_a_refusal_is_the_api_s(world):
    wrong = []
    for status, receipt, how, words in _pinned_reasons(world):
        if receipt.get("status") != status:
            wrong.append(f"{words!r}: {receipt}")
            continue
        try:
            _check(how, words, receipt["reason"])
        except AssertionError as why:
            wrong.append(str(why))
    assert wrong == [], "\n".join(wrong)


def test_the_summary_that_reaches_further_is_stale(world):
    assert lighthouse.say(world, "ann", "s1", "user", "and now?", "desk")["status"] == "said"
    assert lighthouse.summarize(world, "ann", "s1", "both", 2, "desk")["status"] == "summed"
    receipt = lighthouse.summarize(world, "ann", "s1", "one", 1, "desk")
    assert receipt == {"id": None, "status": "stale", "reason": "the summary that is there reaches further"}


def test_a_row_without_its_time_says_it_is_missing(world):
    # API section 3: a blank t in a row is refused; the reason says the time is missing.
    for rows in ([{"key": "d3"}], [{"key": "d3", "t": None}], [{"key": "d3", "t": "  "}]):
        [receipt] = lighthouse.remember(world, DEVICE, rows, "feed")
        assert receipt["status"] == "invalid" and "is missing" in receipt["reason"], receipt
    receipt = lighthouse.update(world, DEVICE, "d1", None, "feed", {"note": "x"})
    assert receipt["status"] == "invalid" and "is missing" in receipt["reason"], receipt


def test_stale_names_the_start_of_the_current_state(world):
    assert lighthouse.update(world, DEVICE, "d1", T2, "feed", {"note": "cold"})["status"] == "changed"
    receipt = lighthouse.update(world, DEVICE, "d1", T1, "feed", {"note": "warm"})
    assert receipt["status"] == "stale" and "2026-01-03T00:00:00" in receipt["reason"]
