"""Kinds, writes and reads of the published API (lighthouse-graph 0.1.1, sections 1.2, 2.1, 2.3, 2.4), each
behaviour from its words: what code written for that package may do, and what it gets back."""

from __future__ import annotations

from datetime import UTC, datetime

import lighthouse
import pytest
from lighthouse import SELF, Kind
from test_published_api import DEVICE, ROOM

T0, T1, T2 = (f"2026-01-0{day}T00:00:00Z" for day in range(1, 4))


@pytest.fixture
def placed(graph):
    """d1 in r1 from T0, with a declared time seen."""
    lighthouse.ensure_schema(graph, [DEVICE, ROOM])
    row = {"key": "d1", "t": T0, "values": {"note": "hot", "seen": T0}, "relations": {"LOCATED_IN": "r1"}}
    assert lighthouse.remember(graph, DEVICE, [row], "feed") == [{"key": "d1", "status": "created"}]
    return graph


# 2.1: a label is refused only when it is one of the sixteen the API lists, or ends in Vector or ToEmbed.


def test_a_kind_takes_every_label_the_api_does_not_reserve(graph):
    candidate = Kind("Candidate", key="email")
    lighthouse.ensure_schema(graph, [candidate])
    rows = [{"key": "ann@example.org", "t": T0, "values": {"stage": "interview"}}]
    assert lighthouse.remember(graph, candidate, rows, "hr")[0]["status"] == "created"
    assert lighthouse.history(graph, candidate, "ann@example.org")[0]["stage"] == "interview"


# 2.4 with 1.2: `when` is a time input, whatever stamp() accepts; a time before anything was stored finds the
# State that held then (none), and the edges valid then (none).


@pytest.mark.parametrize(
    "when",
    ["1999-12-31T23:59:59Z", "1900-01-01", "0001-01-01T00:00:00", datetime(1970, 1, 1, tzinfo=UTC)],
    ids=["a second before 2000", "1900", "year 1", "the epoch"],
)
def test_a_read_before_every_stored_time_finds_nothing(placed, when):
    assert lighthouse.stamp(when) is not None  # a time input, as stamp() takes it
    assert lighthouse.as_of(placed, DEVICE, "d1", when) is None
    assert lighthouse.related(placed, DEVICE, "d1", "LOCATED_IN", when) == []
    # The same calls at a time that holds the State and the edge.
    assert lighthouse.as_of(placed, DEVICE, "d1", T1)["note"] == "hot"
    assert lighthouse.related(placed, DEVICE, "d1", "LOCATED_IN", T1) == ["r1"]


def test_a_read_before_every_stored_time_still_checks_its_arguments(placed):
    early = "1999-01-01"
    with pytest.raises(ValueError):
        lighthouse.as_of(placed, DEVICE, 1.5, early)
    with pytest.raises(ValueError, match="no relation 'OWNS'"):
        lighthouse.related(placed, DEVICE, "d1", "OWNS", early)
    with pytest.raises(ValueError, match="^when: "):
        lighthouse.as_of(placed, DEVICE, "d1", "0001-01-01T00:00:00+01:00")  # before year 1 in UTC


# 1.2: "None or a blank string counts as 'not given'" for a time input, a declared time among the values
# included: given blank, it is absent, as None is (2.3: None means no value).


@pytest.mark.parametrize("blank", ["", "   "], ids=["empty", "spaces"])
def test_a_declared_time_given_blank_is_not_given(placed, blank):
    row = {"key": "d2", "t": T0, "values": {"note": "cold", "seen": blank}}
    assert lighthouse.remember(placed, DEVICE, [row], "feed") == [{"key": "d2", "status": "created"}]
    [state] = lighthouse.history(placed, DEVICE, "d2")
    assert state["note"] == "cold" and "seen" not in state
    # The same row with None is the same State.
    again = {"key": "d2", "t": T0, "values": {"note": "cold", "seen": None}}
    assert lighthouse.remember(placed, DEVICE, [again], "feed") == [{"key": "d2", "status": "unchanged"}]
    # In an update, a time not given is removed, as a value None is; the rest is kept.
    assert lighthouse.update(placed, DEVICE, "d1", T1, "feed", {"seen": blank}) == {
        "key": "d1",
        "status": "changed",
    }
    current = lighthouse.as_of(placed, DEVICE, "d1", T2)
    assert current["note"] == "hot" and "seen" not in current
    # A value that is not a declared time keeps blank text as text.
    assert lighthouse.update(placed, DEVICE, "d1", T2, "feed", {"note": blank})["status"] == "changed"
    assert lighthouse.as_of(placed, DEVICE, "d1", T2)["note"] == blank


# 2.1: of the relation types, only HAS_STATE and NEXT are refused. A kind's ABOUT, CITES or HAS between its
# entities is its own: the episodes, entries and lessons that use those names are not read as its targets,
# and its edges are not read as theirs.

TOPIC = Kind("Topic", key="name")
PAPER = Kind("Paper", key="doi", relations={"ABOUT": TOPIC, "CITES": SELF, "HAS": TOPIC, "FROM": TOPIC})


def test_a_kind_may_name_its_relations_as_the_library_s_records_do(graph):
    for relation in ("HAS_STATE", "NEXT"):
        with pytest.raises(ValueError, match="belongs to the library"):
            Kind("Paper", relations={relation: TOPIC})
    lighthouse.ensure_schema(graph, [PAPER])
    rows = [
        {"key": "p0", "t": T0},
        {"key": "p1", "t": T0, "relations": {"ABOUT": "graphs", "CITES": "p0", "HAS": ["time"], "FROM": "x"}},
    ]
    assert [one["status"] for one in lighthouse.remember(graph, PAPER, rows, "feed")] == ["created"] * 2
    assert lighthouse.open_episode(graph, "e1", "reader", [(TOPIC, "graphs")], T0)["status"] == "opened"
    look = lighthouse.record(graph, "e1", "look", "reader", {"n": 1}, [(PAPER, "p0")], T0)
    assert look["status"] == "recorded"
    assert lighthouse.related(graph, PAPER, "p1", "ABOUT") == ["graphs"]
    assert lighthouse.related(graph, PAPER, "p1", "CITES") == ["p0"]
    assert lighthouse.related(graph, PAPER, "p1", "HAS") == ["time"]
    assert lighthouse.pointing_at(graph, PAPER, "ABOUT", "graphs") == ["p1"]  # not the episode
    assert lighthouse.pointing_at(graph, PAPER, "CITES", "p0") == ["p1"]  # not the entry
    assert [found["id"] for found in lighthouse.episodes_about(graph, TOPIC, "graphs")] == ["e1"]
    # A later row closes the edges it leaves out, as for any relation.
    later = [{"key": "p1", "t": T1, "relations": {"ABOUT": "graphs"}}]
    assert lighthouse.remember(graph, PAPER, later, "feed") == [{"key": "p1", "status": "changed"}]
    assert lighthouse.related(graph, PAPER, "p1", "CITES") == []
    assert lighthouse.related(graph, PAPER, "p1", "CITES", T0) == ["p0"]
    assert [state["valid_from"].day for state in lighthouse.history(graph, PAPER, "p1")] == [1, 2]
    # The questions about the graph follow the kind's own edges, at a time too, and the records' only
    # when asked for them.
    ever = [
        {
            "size": 5,
            "members": [
                ("Paper", "p0"),
                ("Paper", "p1"),
                ("Topic", "graphs"),
                ("Topic", "time"),
                ("Topic", "x"),
            ],
        }
    ]
    assert lighthouse.groups(graph, [PAPER]) == ever
    assert lighthouse.groups(graph, [PAPER], at=T0) == ever
    assert lighthouse.groups(graph, [PAPER], at=T1) == [
        {"size": 2, "members": [("Paper", "p1"), ("Topic", "graphs")]}
    ]
    with_records = lighthouse.groups(graph, [PAPER], records=["Episode", "Entry"])
    assert [m for m in with_records[0]["members"] if m[0] in ("Entry", "Episode")] == [
        ("Entry", "e1/1"),
        ("Episode", "e1"),
    ]
    with pytest.raises(ValueError, match="records have no time"):
        lighthouse.groups(graph, [PAPER], records=["Episode"], at=T1)


# 2.14: record_failure() keeps detail cut to 2,000 characters with NUL escaped; the rest stays as given.


def test_a_failure_s_detail_escapes_only_nul(graph):
    lighthouse.record_failure(graph, "bad-feed", DEVICE, "d1", "Zoë\x00 said: ünïcode " + "x" * 3_000)
    [kept] = lighthouse.failures(graph, DEVICE)
    assert kept["detail"].startswith("Zoë\\x00 said: ünïcode x") and len(kept["detail"]) == 2_000
    lighthouse.record_failure(graph, "lone", None, None, "a\ud800b")  # a lone surrogate cannot be stored
    assert lighthouse.failures(graph, None, "lone")[0]["detail"] == "a\\ud800b"
