"""A batch of new entities goes straight to the write query (creating.py): it sends what decide() and
apply_plans() would send for the same rows, and a row another writer made meanwhile is decided again."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from devices import DEVICE, MANUAL, PERSON
from lighthouse import Kind, history, remember
from lighthouse.write import batches
from lighthouse.write.applying import MAX_NAMED_VALUES, _listed_content, _needs, positional_query
from lighthouse.write.creating import created_needs, created_rows
from lighthouse.write.current import ABSENT
from lighthouse.write.plans import decide
from lighthouse.write.rows import prepare

NOW = datetime(2026, 6, 1, tzinfo=UTC)
WIDE = Kind("Wide", key="code", times=("checked",), text=("note",), dimensions=4)


def _prepared(kind: Kind, raws: list[dict]):
    return [prepare(kind, index, raw, NOW) for index, raw in enumerate(raws)]


def _general(kind: Kind, rows, trust):
    """What the general path sends for the same rows: their plans' needs and lists."""
    plans = []
    for row in rows:
        status, plan = decide(kind, row, ABSENT)
        assert status == "created"
        if trust is not None:
            plan["trust"] = trust
        plans.append(plan)
    needs = _needs(plans)
    query, layout = positional_query(kind, needs)
    _listed_content(kind, needs, plans)
    return needs, [list(map(plan.get, layout)) for plan in plans]


BATCHES = [
    (
        DEVICE,
        [
            {"key": "d1", "t": "2026-01-01T00:00:00Z", "values": {"status": "ok", "note": "pump A"}},
            {
                "key": "d2",
                "t": "2026-01-02T00:00:00Z",
                "values": {"level": 2, "last_seen": "2026-01-01T00:00:00Z"},
                "relations": {"USED_BY": ["t1", "t2"], "LOCATED_IN": "r1"},
            },
            {"key": 7, "t": "2026-01-03T00:00:00Z", "values": {"ratio": 0.5, "tags": ["a", "b"]}},
        ],
    ),
    (DEVICE, [{"key": "d3", "t": "2026-01-01T00:00:00Z"}]),  # no value, no time, no target
    (MANUAL, [{"key": "m1", "t": "2026-01-01T00:00:00Z", "values": {"title": "Seal"}}]),  # all embed
    (
        MANUAL,  # some wait for a vector and some do not: the mark by row
        [
            {"key": "m2", "t": "2026-01-01T00:00:00Z", "values": {"title": "Seal"}},
            {"key": "m3", "t": "2026-01-01T00:00:00Z", "values": {"level": 3}},
        ],
    ),
    (MANUAL, [{"key": "m4", "t": "2026-01-01T00:00:00Z", "values": {"level": 4}}]),  # none embeds
    (PERSON, [{"key": "ann", "t": "2026-01-01T00:00:00Z", "relations": {"KNOWS": ["bob", "cy"]}}]),
    (
        WIDE,  # more value names than a CREATE names one by one: the values go as a map
        [
            {
                "key": f"w{number}",
                "t": "2026-01-01T00:00:00Z",
                "values": {f"v{number}_{name}": name for name in range(40)} | {"checked": "2026-01-01"},
            }
            for number in range(2)
        ],
    ),
]


@pytest.mark.parametrize("trust", [None, "candidate"])
@pytest.mark.parametrize("number", range(len(BATCHES)))
def test_a_batch_of_new_entities_sends_what_their_plans_would(number, trust):
    kind, raws = BATCHES[number]
    rows = _prepared(kind, raws)
    needs, sent = _general(kind, rows, trust)
    assert created_needs(kind, rows, trust) == needs
    layout = positional_query(kind, needs)[1]
    assert [list(one) for one in created_rows(kind, rows, needs, layout, trust)] == sent
    if kind is WIDE:
        assert "values_as_map" in needs and len({n for r in raws for n in r["values"]}) > MAX_NAMED_VALUES


def test_rows_that_name_an_entry_ask_for_its_link(graph):
    rows = _prepared(DEVICE, [{"key": "d1", "t": "2026-01-01T00:00:00Z", "entry": "look/1"}])
    needs, sent = _general(DEVICE, rows, None)
    assert "source" in needs and created_needs(DEVICE, rows, None) == needs
    assert [
        list(one) for one in created_rows(DEVICE, rows, needs, positional_query(DEVICE, needs)[1], None)
    ] == sent


def test_a_new_entity_another_writer_made_meanwhile_is_read_and_decided_again(graph, monkeypatch):
    sent = []
    writes = batches.apply_created

    def rival_first(graph, kind, by, rows, trust):
        sent.append([row.key for row in rows])
        if len(sent) == 1:  # once, between this call's read and its write (the rival's own write is 2)
            rival = {"key": "d1", "t": "2026-01-01T00:00:00Z", "values": {"status": "ok"}}
            assert remember(graph, DEVICE, [rival], "rival") == [{"key": "d1", "status": "created"}]
        return writes(graph, kind, by, rows, trust)

    monkeypatch.setattr(batches, "apply_created", rival_first)
    given = [
        {"key": "d1", "t": "2026-01-01T01:00:00Z", "values": {"status": "hot"}},
        {"key": "d2", "t": "2026-01-01T01:00:00Z", "values": {"status": "ok"}},
    ]
    receipts = remember(graph, DEVICE, given, "feed")
    assert receipts == [{"key": "d1", "status": "changed"}, {"key": "d2", "status": "created"}]
    # this call's two went as new, then the rival's own; d1, not written, went again the general way
    assert sent == [["d1", "d2"], ["d1"]]
    assert [(s["status"], s["by"]) for s in history(graph, DEVICE, "d1")] == [
        ("ok", "rival"),
        ("hot", "feed"),
    ]
    assert [s["status"] for s in history(graph, DEVICE, "d2")] == ["ok"]
