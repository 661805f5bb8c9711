"""leases.py: the one compare-and-set lease that tasks' claims and the note extraction's hold share, on a
real graph: taken when free, own, lapsed or gone; renewed; given back only by its owner; one winner of a
race."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from lighthouse import ensure_schema, hold_extraction
from lighthouse.leases import Lease
from racing import at_once

UNTIL = Lease(time="until", until=True)
LOOKED = Lease(time="seen_at", until=False)
NOW = datetime(2026, 6, 1, 12, 0, 0, tzinfo=UTC)


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S")


def _node(graph, lease: Lease, owner=None, time=None) -> None:
    graph.query(
        "CREATE (:Held {name: 'w', owner: $owner, "
        f"`{lease.time}`: CASE WHEN $time IS NULL THEN null ELSE localdatetime($time) END}})",
        {"owner": owner, "time": None if time is None else _stamp(time)},
    )


def _take(graph, lease: Lease, owner: str, seconds, *, own=True, gone=(), at=NOW) -> str | None:
    """The take as the library writes it: the owner after the query, or None when it did not take."""
    found = graph.query(
        f"MATCH (n:Held {{name: 'w'}}) WHERE {lease.free('n', own=own)} SET {lease.taking('n')} RETURN n.owner",
        lease.params(owner, seconds, list(gone), present=at),
    ).result_set
    return found[0][0] if found else None


def _kept(graph, lease: Lease) -> list:
    return graph.query(f"MATCH (n:Held) RETURN n.owner, n.`{lease.time}`").result_set[0]


def _give_back(graph, lease: Lease, owner: str) -> bool:
    found = graph.query(
        f"MATCH (n:Held) WHERE {lease.held('n')} SET {lease.giving_back('n')} RETURN n",
        {"owner": owner},
    ).result_set
    return bool(found)


def test_a_claim_until_a_time_is_taken_when_free_or_lapsed_and_never_renewed_by_its_owner(graph):
    _node(graph, UNTIL)
    assert _take(graph, UNTIL, "ann", 60, own=False) == "ann"
    assert _kept(graph, UNTIL)[1] == (NOW + timedelta(seconds=60))
    assert _take(graph, UNTIL, "ann", 60, own=False) is None  # its own claim is not free for it
    assert _take(graph, UNTIL, "bob", 60, own=False, at=NOW + timedelta(seconds=60)) is None  # at the end
    assert _take(graph, UNTIL, "bob", None, own=False, at=NOW + timedelta(seconds=61)) == "bob"  # lapsed
    assert _kept(graph, UNTIL) == ["bob", None]  # a claim without a lease never lapses
    assert _take(graph, UNTIL, "carl", 60, own=False, at=NOW + timedelta(days=3650)) is None
    assert _take(graph, UNTIL, "carl", 60, own=False, gone=["bob"]) == "carl"  # an owner known gone


def test_a_look_is_renewed_by_its_owner_and_lapses_the_lease_after_it(graph):
    _node(graph, LOOKED)
    assert _take(graph, LOOKED, "ann", 300) == "ann"  # never looked at: free
    assert _take(graph, LOOKED, "ann", 300, at=NOW + timedelta(seconds=200)) == "ann"  # renewed
    assert _kept(graph, LOOKED)[1] == (NOW + timedelta(seconds=200))
    later = NOW + timedelta(seconds=500)
    assert _take(graph, LOOKED, "bob", 300, at=later) is None  # quiet 300 s: not past the lease
    assert _take(graph, LOOKED, "bob", 299.5, at=later) == "bob"  # quiet more than 299.5 s: lapsed


def test_a_fraction_of_a_second_counts_as_the_old_rule_did(graph):
    _node(graph, LOOKED, "ann", NOW)
    assert _take(graph, LOOKED, "bob", 300.5, at=NOW + timedelta(seconds=300)) is None
    assert _take(graph, LOOKED, "bob", 300.5, at=NOW + timedelta(seconds=301)) == "bob"  # 301 > 300.5


def test_only_the_owner_gives_back_and_a_look_stays_for_the_record(graph):
    _node(graph, LOOKED, "ann", NOW)
    assert _give_back(graph, LOOKED, "bob") is False and _kept(graph, LOOKED)[0] == "ann"
    assert _give_back(graph, LOOKED, "ann") is True
    assert _kept(graph, LOOKED) == [None, NOW]
    assert _take(graph, LOOKED, "bob", 300, at=NOW) == "bob"  # free at once


def test_a_claim_given_back_loses_its_end_too(graph):
    _node(graph, UNTIL, "ann", NOW)
    assert _give_back(graph, UNTIL, "ann") is True and _kept(graph, UNTIL) == [None, None]


@pytest.mark.parametrize(
    "round_", range(3)
)  # a label new to the graph: unregistered, racers each made a node
def test_of_eight_workers_that_take_one_graph_at_once_one_wins(db, graph, round_):
    ensure_schema(graph)
    answers = at_once(db, graph, lambda number, own: hold_extraction(own, f"w{number}:1:x"))
    winners = [number for number, held in enumerate(answers) if held is None]
    assert len(winners) == 1
    assert {held for held in answers if held is not None} == {f"w{winners[0]}:1:x"}


@pytest.mark.parametrize("lease", [UNTIL, LOOKED])
def test_names_that_are_not_plain_stay_parameters(graph, lease):
    _node(graph, lease)
    hostile = "x') RETURN 1 //"
    assert _take(graph, lease, hostile, 60, gone=[hostile]) == hostile
    assert _give_back(graph, lease, hostile) is True
