"""What relied on a wrong fact: the chain from an entry or a State to entries, States, lessons, playbooks."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import lighthouse.impact as impact
import pytest
from devices import DEVICE, KINDS, ROOM
from graph_contents import assert_one_refusal, snapshot
from lighthouse import close_episode, ensure_schema, open_episode, record, remember
from lighthouse.clock import now
from lighthouse.graphs import read
from lighthouse.impact import impact_of_entry, impact_of_state, invalidate_entry
from lighthouse.lessons import learn
from lighthouse.playbooks import write_playbook
from lighthouse.values import MAX_NAME, MAX_TEXT, Refused
from lighthouse.write.failures import failures
from oracle import sent
from query_plans import scans
from racing import at_once

T0, T1, T2, T3 = (f"2026-01-01T0{hour}:00:00Z" for hour in (0, 1, 2, 3))


def moment(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def episode_of(graph, name: str, entries: list[tuple[str, str, list]], at: str = T1) -> None:
    """An episode with entries (type, by, cites) written at `at`, closed by its last entry."""
    assert open_episode(graph, name, by="watcher", at=at)["status"] == "opened"
    for entry_type, by, cites in entries:
        receipt = record(graph, name, entry_type, by=by, values={"note": name}, cites=cites, at=at)
        assert receipt["status"] in ("recorded", "closed"), receipt


@pytest.fixture
def chain(graph):
    """A sensor's observation a/1 that turns out wrong, and what rests on it.

    a/2 cites a/1, a/3 closes a citing a/2; b/1 (another episode) cites a/2, b/2 closes b citing b/1.
    d1's State from T2 came from a/1; d2's State came from b/1. c, d, e are episodes that a/1 is not in.
    """
    ensure_schema(graph, KINDS)
    remember(graph, DEVICE, by="inventory", rows=[{"key": "d1", "t": T0, "values": {"status": "ok"}}])
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
        receipt = learn(graph, name, by="reviewer", statement=name, supported_by=pro, against=con)
        assert receipt["status"] == "learned", receipt
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
    return graph


# impact_of_entry()


def test_the_chain_from_an_entry_to_what_rests_on_it(chain):
    found = impact_of_entry(chain, "a/1")
    assert found["entry"] == {
        "id": "a/1",
        "episode": "a",
        "type": "observation",
        "by": "sensor",
        "at": moment(T1),
        "invalidated": False,
    }
    assert [entry["id"] for entry in found["entries"]] == ["a/2", "a/3", "b/1", "b/2"]
    assert [entry["by"] for entry in found["entries"]] == ["forecaster", "reviewer", "planner", "reviewer"]
    assert found["episodes"] == ["a", "b"]
    assert [(s["key"], s["entry"], s["valid_from"], s["valid_to"], s["by"]) for s in found["states"]] == [
        ("d1", "a/1", moment(T2), None, "reader"),
        ("d2", "b/1", moment(T2), None, "reader"),
    ]
    assert {s["kind"] for s in found["states"]} == {"Device"}
    lessons = {item["id"]: item for item in found["lessons"]}
    assert sorted(lessons) == ["contested", "fragile", "sturdy"]
    assert {name: (item["affected"], item["left"], item["at_risk"]) for name, item in lessons.items()} == {
        "contested": (1, 1, True),
        "fragile": (1, 0, True),
        "sturdy": (1, 2, False),
    }
    assert (lessons["contested"]["support"], lessons["contested"]["against"]) == (2, 1)
    assert lessons["fragile"]["statement"] == "fragile" and not lessons["fragile"]["retired"]
    books = {item["name"]: item for item in found["playbooks"]}
    assert sorted(books) == ["cool", "tiny", "warm"]
    assert {
        name: (b["drawn_from"], b["affected"], b["left"], b["needs"], b["at_risk"])
        for name, b in books.items()
    } == {
        "cool": (4, 1, 3, 3, False),
        "warm": (3, 2, 1, 3, True),
        "tiny": (1, 1, 0, 1, True),
    }
    assert books["warm"]["id"] == "warm#1" and books["warm"]["version"] == 1 and books["warm"]["enabled"]
    assert found["truncated"] is False


def test_an_entry_further_down_carries_less(chain):
    found = impact_of_entry(chain, "b/1")
    assert [entry["id"] for entry in found["entries"]] == ["b/2"]
    assert found["episodes"] == ["b"]
    assert [s["key"] for s in found["states"]] == ["d2"]
    assert found["lessons"] == []
    # warm keeps a and c of its three: fewer than the three it needs.
    assert {b["name"]: (b["left"], b["at_risk"]) for b in found["playbooks"]} == {
        "tiny": (0, True),
        "warm": (2, True),
    }


def test_an_entry_that_nothing_cites(chain):
    found = impact_of_entry(chain, "e/2")
    assert found["entries"] == [] and found["states"] == [] and found["episodes"] == ["e"]
    assert found["lessons"] == []
    assert [(b["name"], b["left"], b["at_risk"]) for b in found["playbooks"]] == [
        ("cool", 3, False),
        ("far", 2, True),
    ]


def test_an_unknown_entry_has_no_impact(chain):
    assert impact_of_entry(chain, "a/9") is None
    assert impact_of_entry(chain, "nowhere") is None


def test_a_graph_that_does_not_exist(graph):
    assert impact_of_entry(graph, "a/1") is None
    assert impact_of_state(graph, DEVICE, "d1", T1) is None


def test_a_lattice_of_citations_costs_its_edges_not_its_paths(graph):
    """Each entry cites the two before it: 2**30 paths lead from the first to the last, 3 levels a query."""
    ensure_schema(graph, KINDS)
    open_episode(graph, "long", by="watcher", at=T1)
    record(graph, "long", "note", by="w", at=T1)
    record(graph, "long", "note", by="w", cites=["long/1"], at=T1)
    for seq in range(3, 61):
        record(graph, "long", "note", by="w", cites=[f"long/{seq - 1}", f"long/{seq - 2}"], at=T1)
    found = impact_of_entry(graph, "long/1")
    assert [entry["id"] for entry in found["entries"]] == [f"long/{seq}" for seq in range(2, 61)]
    assert found["truncated"] is False


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
    assert len(found["entries"]) == 19
    # 19 levels of citation: five reads of up to four levels each, then one read of what rests on them.
    assert len(seen) == 5 + 1
    assert all(command == "GRAPH.RO_QUERY" for command, _text in seen)


def test_a_chain_past_the_limit_is_cut_at_the_nearest(graph, monkeypatch):
    line_of(graph, 12)
    monkeypatch.setattr(impact, "MAX_REACH", 5)
    found = impact_of_entry(graph, "line/1")
    assert found["truncated"] is True
    assert [entry["id"] for entry in found["entries"]] == [f"line/{seq}" for seq in range(2, 7)]


def test_many_states_are_cut(chain, monkeypatch):
    monkeypatch.setattr(impact, "MAX_STATES", 1)
    found = impact_of_entry(chain, "a/1")
    assert len(found["states"]) == 1 and found["truncated"] is True


@pytest.mark.parametrize("bad", [None, 7, "", " a/1", "a\x00/1", "a/1\n", "x" * (MAX_NAME + 1), ["a/1"]])
def test_impact_of_entry_refuses_what_cannot_be_an_id(chain, bad):
    before = snapshot(chain)
    with pytest.raises(Refused):
        impact_of_entry(chain, bad)
    assert snapshot(chain) == before and failures(chain) == []


def test_hostile_text_is_only_an_id(chain):
    before = snapshot(chain)
    for hostile in ["a/1' OR 1=1 //", "a/1}) MATCH (n) DETACH DELETE n //", "*", "a/%", "a/.*"]:
        assert impact_of_entry(chain, hostile) is None
    assert snapshot(chain) == before
    assert impact_of_entry(chain, "a/1")["entries"]


# impact_of_state()


def test_what_rested_on_a_state(chain):
    """d1 was ok from T0 to T2: a/1 cited it at T1, and all that rests on a/1 rests on that State."""
    found = impact_of_state(chain, DEVICE, "d1", T0)
    assert found["state"] == {
        "kind": "Device",
        "key": "d1",
        "valid_from": moment(T0),
        "valid_to": moment(T2),
        "by": "inventory",
        "entry": None,
    }
    assert [entry["id"] for entry in found["entries"]] == ["a/1", "a/2", "a/3", "b/1", "b/2"]
    by_entry = impact_of_entry(chain, "a/1")
    assert found["episodes"] == by_entry["episodes"]
    assert found["states"] == by_entry["states"]
    assert found["lessons"] == by_entry["lessons"]
    assert found["playbooks"] == by_entry["playbooks"]
    assert impact_of_state(chain, "Device", "d1", "2026-01-01T01:59:59Z")["state"] == found["state"]


def test_only_entries_that_cite_inside_the_state(chain):
    """The State from T2 on came from a/1; an entry that cites d1 at T3 rests on it, a/1 at T1 does not."""
    episode_of(chain, "late", [("observation", "watcher", [(DEVICE, "d1")])], at=T3)
    found = impact_of_state(chain, DEVICE, "d1", T3)
    assert found["state"]["entry"] == "a/1" and found["state"]["valid_from"] == moment(T2)
    assert [entry["id"] for entry in found["entries"]] == ["late/1"]
    assert found["episodes"] == ["late"] and found["states"] == []
    assert found["lessons"] == [] and found["playbooks"] == []
    before = impact_of_state(chain, DEVICE, "d1", T1)
    assert "late/1" not in [entry["id"] for entry in before["entries"]]


def test_a_state_that_nothing_cites(chain):
    found = impact_of_state(chain, DEVICE, "d2", None)
    assert found["state"]["entry"] == "b/1"
    assert found["entries"] == [] and found["episodes"] == [] and found["lessons"] == []


def test_no_state_held_then(chain):
    assert impact_of_state(chain, DEVICE, "d1", "2025-12-31T23:59:59Z") is None
    assert impact_of_state(chain, DEVICE, "d9", T1) is None
    assert impact_of_state(chain, ROOM, "r1", T1) is None


@pytest.mark.parametrize(
    ("kind", "key", "at"),
    [
        ("Episode", "a", T1),
        ("Entry", "a/1", T1),
        ("WriteFailure", "x", T1),
        ("Device') DETACH DELETE n //", "d1", T1),
        (DEVICE, None, T1),
        (DEVICE, True, T1),
        (DEVICE, "d1\x00", T1),
        (DEVICE, 2**64, T1),
        (DEVICE, "d1", "2026-01-01T01:00:00"),  # no zone
        (DEVICE, "d1", "2026-01-01T01:00:00.5Z"),
        (DEVICE, "d1", "yesterday"),
        (DEVICE, "d1", 1767225600),
        (DEVICE, "d1", "1900-01-01T00:00:00Z"),
    ],
)
def test_impact_of_state_refuses_what_it_cannot_use(chain, kind, key, at):
    before = snapshot(chain)
    with pytest.raises(Refused):
        impact_of_state(chain, kind, key, at)
    assert snapshot(chain) == before and failures(chain) == []


# invalidate_entry()


def test_invalidate_marks_the_entry_and_gives_the_impact(chain):
    expected = impact_of_entry(chain, "a/1")
    before = snapshot(chain)
    receipt = invalidate_entry(chain, "a/1", by="auditor", reason="the sensor was unplugged")
    assert receipt == {"id": "a/1", "status": "invalidated", "impact": expected}
    props = read(chain, "MATCH (n:Entry {id: 'a/1'}) RETURN properties(n)")[0][0]
    assert props["invalidated_by"] == "auditor"
    assert props["invalidated_reason"] == "the sensor was unplugged"
    assert abs(props["invalidated_at"] - now()) < timedelta(seconds=5)
    # Nothing but the three marks changed.
    assert snapshot(chain) != before
    assert snapshot(chain, without="invalidated_") == before
    assert failures(chain) == []
    assert impact_of_entry(chain, "a/1")["entry"]["invalidated"] is True
    assert impact_of_state(chain, DEVICE, "d1", T0)["entries"][0]["invalidated"] is True


def test_invalidate_twice_gives_exists_and_changes_nothing(chain):
    assert invalidate_entry(chain, "a/2", by="auditor", reason="wrong")["status"] == "invalidated"
    before = snapshot(chain)
    assert invalidate_entry(chain, "a/2", by="someone", reason="also wrong") == {
        "id": "a/2",
        "status": "exists",
    }
    assert snapshot(chain) == before
    assert failures(chain) == []
    props = read(chain, "MATCH (n:Entry {id: 'a/2'}) RETURN n.invalidated_by, n.invalidated_reason")[0]
    assert props == ["auditor", "wrong"]


def test_eight_callers_mark_an_entry_once(chain, db):
    receipts = at_once(
        db, chain, lambda number, mine: invalidate_entry(mine, "a/1", by=f"auditor-{number}", reason="wrong")
    )
    assert sorted(receipt["status"] for receipt in receipts) == ["exists"] * 7 + ["invalidated"]
    winner = next(receipt for receipt in receipts if receipt["status"] == "invalidated")
    assert winner["impact"]["entry"]["id"] == "a/1"
    assert read(chain, "MATCH (n:Entry {id: 'a/1'}) RETURN n.invalidated_by")[0][0].startswith("auditor-")


def test_an_unknown_entry_is_refused_and_stored(chain):
    before = snapshot(chain)
    receipt = invalidate_entry(chain, "a/9", by="auditor", reason="wrong")
    assert receipt["status"] == "unknown" and receipt["id"] == "a/9" and "a/9" in receipt["reason"]
    assert snapshot(chain) == before
    stored = failures(chain)
    assert [(f["reason"], f["kind"], f["key"], f["by"], f["times"]) for f in stored] == [
        ("unknown", "Entry", "a/9", "auditor", 1)
    ]
    assert "wrong" in stored[0]["content"]
    invalidate_entry(chain, "a/9", by="auditor", reason="wrong")
    assert [f["times"] for f in failures(chain)] == [2]


def test_an_entry_in_a_graph_that_does_not_exist_is_unknown(graph):
    assert invalidate_entry(graph, "a/1", by="auditor", reason="wrong")["status"] == "unknown"
    assert [f["reason"] for f in failures(graph)] == ["unknown"]


@pytest.mark.parametrize(
    ("entry_id", "by", "reason"),
    [
        (None, "auditor", "wrong"),
        (7, "auditor", "wrong"),
        ("", "auditor", "wrong"),
        ("a/1\x00", "auditor", "wrong"),
        ("\u202ea/1", "auditor", "wrong"),
        ("a/1\n", "auditor", "wrong"),
        ("x" * (MAX_NAME + 1), "auditor", "wrong"),
        (["a/1"], "auditor", "wrong"),
        ({"id": "a/1"}, "auditor", "wrong"),
        ("a/1", None, "wrong"),
        ("a/1", "", "wrong"),
        ("a/1", "aud\x00itor", "wrong"),
        ("a/1", "x" * (MAX_NAME + 1), "wrong"),
        ("a/1", "auditor", None),
        ("a/1", "auditor", ""),
        ("a/1", "auditor", "   "),
        ("a/1", "auditor", 42),
        ("a/1", "auditor", "bad\x00reason"),
        ("a/1", "auditor", "\ud800"),
        ("a/1", "auditor", "x" * (MAX_TEXT + 1)),
    ],
)
def test_an_attack_costs_one_failure_and_nothing_else(chain, entry_id, by, reason):
    before = snapshot(chain)
    assert_one_refusal(chain, before, invalidate_entry(chain, entry_id, by=by, reason=reason), kind="Entry")


def test_hostile_text_in_a_reason_is_stored_as_given(chain):
    reason = '\'); MATCH (n) DETACH DELETE n //\u202e ünïcode "quotes"\nnew line'
    count = read(chain, "MATCH (n) RETURN count(n)")[0][0]
    assert invalidate_entry(chain, "b/2", by="o'brien", reason=reason)["status"] == "invalidated"
    stored = read(chain, "MATCH (n:Entry {id: 'b/2'}) RETURN n.invalidated_reason, n.invalidated_by")[0]
    assert stored == [reason, "o'brien"]
    assert read(chain, "MATCH (n) RETURN count(n)")[0][0] == count


def test_the_time_of_the_mark_is_now_in_whole_seconds(chain):
    invalidate_entry(chain, "c/1", by="auditor", reason="wrong")
    marked = read(chain, "MATCH (n:Entry {id: 'c/1'}) RETURN n.invalidated_at")[0][0]
    assert isinstance(marked, datetime) and marked.microsecond == 0
    assert abs(marked.replace(tzinfo=UTC) - now()) < timedelta(seconds=5)


def test_the_state_that_held_is_found_from_its_entity(chain):
    # With (held:State) in one MATCH with the entity and one filter more, FalkorDB 4.22 starts from the
    # index on State.valid_from and reads every State before the time.
    params = {"key": "d1", "at": "2026-01-01T02:30:00", "cap": 10}
    assert scans(chain.explain(impact._held_query("Device"), params)) == [
        "Node By Index Scan | (thing:Device)"
    ]
    assert impact_of_state(chain, DEVICE, "d1", "2026-01-01T02:30:00Z")["state"]["valid_from"] == moment(T2)
