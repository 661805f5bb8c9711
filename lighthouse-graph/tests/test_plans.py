"""decide(): the write rule as a decision on what is stored around a row."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from devices import DEVICE, MANUAL
from hypothesis import given, settings
from hypothesis import strategies as st
from lighthouse.values import words
from lighthouse.write.plans import Around, Edge, StateView, decide, words_of
from lighthouse.write.rows import Row, fingerprints, prepare

T0 = datetime(2026, 1, 1, tzinfo=UTC)
NO_RELATIONS = {"LOCATED_IN": frozenset(), "USED_BY": frozenset()}


def hours(n: float) -> datetime:
    return T0 + timedelta(hours=n)


def row(hour, values=None, relations=None, entry=None) -> Row:
    linked = {**NO_RELATIONS, **(relations or {})}
    return Row(0, "d1", hours(hour), values if values is not None else {"status": "ok"}, linked, entry)


def state(sid, start, end=None, seen=None, values=None, relations=None) -> StateView:
    linked = {**NO_RELATIONS, **(relations or {})}
    return StateView(
        sid,
        hours(start),
        None if end is None else hours(end),
        seen and hours(seen),
        values if values is not None else {"status": "ok"},
        linked,
    )


def current(view: StateView, rev=3, edges=None) -> Around:
    return Around(rev=rev, props=dict(view.values), current=view, prev=view, edges_prev=edges or {})


def test_the_first_row_creates():
    status, plan = decide(DEVICE, row(0), Around())
    assert status == "created"
    assert plan == {
        "i": 0,
        "key": "d1",
        "rev": 0,
        "t": "2026-01-01T00:00:00",
        "values": {"status": "ok"},
        "times": {},
        "words": "",
        "fp": plan["fp"],
        "links_fp": fingerprints({}, {})[1],  # no targets
        "current": True,
        "clear": {},
        "entity_times": ["2026-01-01T00:00:00", None],
        "new": True,
        "until": None,
        "held": None,
        "next": None,
        "source": None,
    }


def test_the_same_time_is_unchanged_or_a_conflict():
    now = current(state(1, 0))
    assert decide(DEVICE, row(0), now) == ("unchanged", None)
    assert decide(DEVICE, row(0, {"status": "hot"}), now) == ("conflict", None)
    assert (
        decide(DEVICE, row(0, {"status": 1}), current(state(1, 0, values={"status": 1.0})))[0] == "conflict"
    )


def test_a_repeat_moves_seen_last_only_forward():
    now = current(state(1, 0, seen=4))
    assert decide(DEVICE, row(3), now) == ("unchanged", None)
    status, plan = decide(DEVICE, row(5), now)
    assert status == "unchanged"
    assert plan == {
        "i": 0,
        "key": "d1",
        "rev": 3,
        "t": "2026-01-01T05:00:00",
        "held": 1,
        "seen_held": True,
        "entity_times": ["2026-01-01T00:00:00", "2026-01-01T05:00:00"],
    }


def test_a_change_before_seen_last_is_stale_and_at_it_a_conflict():
    now = current(state(1, 0, seen=4))
    assert decide(DEVICE, row(3, {"status": "hot"}), now) == ("stale", None)
    assert decide(DEVICE, row(4, {"status": "hot"}), now) == ("conflict", None)
    assert decide(DEVICE, row(5, {"status": "hot"}), now)[0] == "changed"


def test_a_change_ends_the_current_state_and_keeps_the_edges_that_stay():
    edges = {
        ("LOCATED_IN", ("str", "r1")): Edge(7, "LOCATED_IN", "r1", hours(0), None, 70),
        ("USED_BY", ("str", "red")): Edge(8, "USED_BY", "red", hours(0), None, 80),
    }
    view = state(1, 0, relations={"LOCATED_IN": frozenset({"r1"}), "USED_BY": frozenset({"red"})})
    status, plan = decide(
        DEVICE,
        row(2, {"note": "new"}, {"LOCATED_IN": frozenset({"r1"}), "USED_BY": frozenset({"blue"})}),
        current(view, edges=edges),
    )
    assert status == "changed"
    assert (plan["held"], plan["end_held"], plan["new"], plan["until"]) == (1, True, True, None)
    assert plan["moves"] == {"USED_BY": [[8, True, 80]]}  # red ends (the edge to node 80); r1 keeps its edge
    assert plan["open"] == {"USED_BY": ["blue"]} and "reopen" not in plan
    assert plan["values"] == {"note": "new"} and plan["clear"] == {"status": None} and plan["words"] == "new"
    assert "retext" not in plan  # the kind has no dimensions


def test_a_value_equal_across_types_is_cleared_before_it_is_set():
    view = state(1, 0, values={"a": 1, "b": True, "c": [1], "d": 2})
    plan = decide(DEVICE, row(1, {"a": 1.0, "b": 1, "c": [1.0], "d": 2}), current(view))[1]
    assert plan["clear"] == {"a": None, "b": None, "c": None} and plan["values"]["a"] == 1.0


def test_a_text_change_of_a_kind_with_dimensions_waits_for_a_vector():
    view = state(1, 0, values={"title": "a"}, relations={})
    around = Around(rev=1, props={"title": "a"}, current=view, prev=view)
    blank = {"values": {"title": "a", "level": 2}}
    assert decide(MANUAL, Row(0, "m", hours(1), blank["values"], {}, None), around)[1]["retext"] is False
    changed = decide(MANUAL, Row(0, "m", hours(1), {"title": "b"}, {}, None), around)[1]
    assert changed["retext"] is True and changed["embed"] is True
    gone = decide(MANUAL, Row(0, "m", hours(1), {"level": 2}, {}, None), around)[1]
    assert gone["retext"] is True and gone["embed"] is False


def test_a_late_row_between_two_states_replaces_their_link():
    before, after = state(1, 0, 6), state(2, 6, values={"status": "hot"})
    around = Around(rev=2, props={"status": "hot"}, current=after, prev=before, next=after)
    status, plan = decide(DEVICE, row(3, {"status": "cold"}), around)
    assert status == "inserted" and plan["restamp"] is True
    assert (plan["held"], plan["next"], plan["new"]) == (1, 2, True)
    assert plan["until"] == "2026-01-01T06:00:00" and "current" not in plan and "entity_times" not in plan


def test_a_late_row_equal_to_the_next_state_moves_its_start():
    before, after = state(1, 0, 6), state(2, 6, values={"status": "hot"})
    around = Around(rev=2, props={"status": "hot"}, current=after, prev=before, next=after)
    status, plan = decide(DEVICE, row(3, {"status": "hot"}), around)
    assert status == "inserted" and "new" not in plan and "restamp" not in plan
    assert (plan["held"], plan["end_held"], plan["next"], plan["start_next"]) == (1, True, 2, True)
    assert plan["next_seen"] == "2026-01-01T06:00:00"  # its old start
    assert plan["entity_times"] == ["2026-01-01T03:00:00", "2026-01-01T06:00:00"]


def test_an_update_before_the_current_state_is_stale():
    now = current(state(1, 4))
    assert decide(DEVICE, row(3, {"status": "hot"}), now, partial=True) == ("stale", None)
    assert decide(DEVICE, row(4, {"status": "hot"}), now, partial=True) == ("conflict", None)


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet=st.characters(max_codepoint=127), max_size=60) | st.text(max_size=30))
def test_the_words_of_a_text_are_what_the_index_reads(text):
    assert words_of(text) == words(text)


@pytest.mark.parametrize("kind", [DEVICE, MANUAL])
def test_the_plan_of_an_entity_not_found_is_the_general_plan_of_a_new_entity(kind):
    given = (
        {"status": "ok", "level": 2, "since": "2026-01-01T00:00:00Z"} if kind is DEVICE else {"title": "Seal"}
    )
    relations = {"LOCATED_IN": "r1", "USED_BY": ["t1", "t2"]} if kind is DEVICE else {}
    for entry in (None, "ep/1"):
        raw = {
            "key": "k1",
            "t": "2026-01-01T00:00:00Z",
            "values": given,
            "relations": relations,
            "entry": entry,
        }
        ready = prepare(kind, 3, raw, datetime(2026, 1, 2, tzinfo=UTC))
        status, direct = decide(kind, ready, Around(absent=True))
        general = decide(kind, ready, Around())[1]  # a node with no State and no values: compared
        assert status == "created" and direct.pop("absent") is True and "absent" not in general
        for plan in (direct, general):
            plan["open"] = {relation: sorted(targets) for relation, targets in plan.get("open", {}).items()}
        assert direct == general
