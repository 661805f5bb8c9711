"""Episodes and handoffs: open_episode(), record(), close_episode(), hand_off() and accept(), each timed alone.

200 episodes are opened, each about a device; 10 entries are recorded in each, every entry citing the one
before and the device; each episode is closed with an outcome citing its last entry; one handoff per
episode points at it and its device, and its receiver accepts it. Every receipt is checked, every
episode is read back with episode() and compared with what was recorded, and the graph is counted.

What limits them: each call is one query, its checks and its write, and most of the time is FalkorDB's
(`bench/run.py shapes` runs each function, its blind shape and the floor in turns, call for call: the
figure to judge a single write by). record() and close_episode() miss 60 % of the floor with no Python
at all: the blind write of an entry (its node, HAS, WROTE, CITES and NEXT edges, its counters) took 0.53
to 0.65 ms inside FalkorDB where 60 % of the floor leaves about 0.23, and the counters the design names
on the Episode and the Stamp cost the blind write some 0.17 ms more than on a loop edge (record() is 1.8
times its shape either way). open_episode() and hand_off() pay for their checks of what must exist, which
make a refused write write nothing.
"""

from __future__ import annotations

from breakdown import unwatched
from fleet import AGENT, DEVICE
from lighthouse import accept, close_episode, episode, hand_off, handoffs_for, open_episode, record
from registry import Context, Measured, expect, timed_calls, workload

EPISODES = 200
ENTRIES = 10  # per episode
ENTRY_TYPE = "observation"


def _episode_id(number: int) -> str:
    return f"bench-ep-{number:04d}"


def _values(seq: int, key: str) -> dict:
    return {"note": f"reading {seq} of {key}: fan {seq * 7 % 11} steady", "reading": 20.0 + seq / 4}


def _cites(episode_id: str, seq: int, key: str) -> list:
    """The entry before (none for the first) and the device."""
    before = [f"{episode_id}/{seq - 1}"] if seq > 1 else []
    return [*before, (DEVICE, key)]


def _cited(episode_id: str, seq: int, key: str) -> list:
    """What episode() gives back for _cites(): reference pairs sorted by str() of the pair."""
    return sorted([("Entry", f"{episode_id}/{seq - 1}")] * (seq > 1) + [("Device", key)], key=str)


def _subjects(ctx: Context) -> list[str]:
    """The device of each episode: spread over the fleet, and distinct while the fleet is large enough."""
    step = max(1, ctx.fleet.count // EPISODES)
    return [ctx.fleet.keys[(number * step) % ctx.fleet.count] for number in range(EPISODES)]


@workload(
    "open_episode",
    "calls",
    needs=("create",),
    floor="indexed_match",
    target=0.60,
    about="open_episode() of 200 episodes, each about a device that exists",
)
def open_calls(ctx: Context) -> Measured:
    """200 open_episode() calls: each receipt opened."""
    subjects = _subjects(ctx)
    receipts, seconds = timed_calls(
        lambda number: open_episode(ctx.graph, _episode_id(number), AGENT, [(DEVICE, subjects[number])]),
        range(EPISODES),
    )
    for number, receipt in enumerate(receipts):
        wanted = {"id": _episode_id(number), "status": "opened"}
        expect(receipt == wanted, f"open_episode({_episode_id(number)}) gave {receipt}, not {wanted}")
    return Measured(EPISODES, seconds, len(receipts))


@workload(
    "record",
    "calls",
    needs=("open_episode",),
    floor="indexed_match",
    target=0.60,
    about="record() of 200 episodes x 10 entries, each citing the entry before and a device",
)
def record_calls(ctx: Context) -> Measured:
    """2,000 record() calls; every receipt recorded with the next number, every episode read back."""
    subjects = _subjects(ctx)
    calls = [
        (_episode_id(number), seq, key)
        for number, key in enumerate(subjects)
        for seq in range(1, ENTRIES + 1)
    ]

    def record_one(call: tuple[str, int, str]) -> dict:
        episode_id, seq, key = call
        return record(
            ctx.graph,
            episode_id,
            ENTRY_TYPE,
            AGENT,
            values=_values(seq, key),
            cites=_cites(episode_id, seq, key),
        )

    receipts, seconds = timed_calls(record_one, calls)
    for (episode_id, seq, _key), receipt in zip(calls, receipts, strict=True):
        wanted = {"id": f"{episode_id}/{seq}", "seq": seq, "status": "recorded"}
        expect(receipt == wanted, f"record({episode_id}, entry {seq}) gave {receipt}, not {wanted}")
    _check_episodes(ctx, subjects)
    _check_counts(ctx)
    return Measured(len(calls), seconds, len(receipts))


def _check_episodes(ctx: Context, subjects: list[str]) -> None:
    """Each episode read back: about its device, its entries in order, each citing what it was given."""
    for number, key in enumerate(subjects):
        episode_id = _episode_id(number)
        found = episode(unwatched(ctx.graph), episode_id)
        expect(found is not None, f"episode({episode_id}) is None after its entries were recorded")
        expect(found["about"] == [("Device", key)], f"episode({episode_id}) is about {found['about']}")
        expect("closed_at" not in found, f"episode({episode_id}) closed: {found.get('closed_at')}")
        entries = found["entries"]
        expect(len(entries) == ENTRIES, f"episode({episode_id}) has {len(entries)} entries, not {ENTRIES}")
        for seq, entry in enumerate(entries, start=1):
            where = f"episode({episode_id}) entry {seq}"
            expect(entry["id"] == f"{episode_id}/{seq}" and entry["seq"] == seq, f"{where}: {entry['id']}")
            expect(entry["type"] == ENTRY_TYPE and entry["by"] == AGENT, f"{where}: {entry}")
            given = _values(seq, key)
            expect({name: entry.get(name) for name in given} == given, f"{where}: values {entry}")
            expect(entry["cites"] == _cited(episode_id, seq, key), f"{where}: cites {entry['cites']}")


_COUNTS = (
    "MATCH (ep:Episode) WHERE ep.id STARTS WITH 'bench-ep-' "
    "MATCH (ep)-[:HAS]->(n:Entry) "
    "OPTIONAL MATCH (n)-[c:CITES]->(cited) "
    "WITH n, count(c) AS cites, sum(CASE WHEN cited:Entry THEN 1 ELSE 0 END) AS entries_cited "
    "OPTIONAL MATCH (n)-[:NEXT]->(later:Entry) "
    "RETURN count(n), sum(cites), sum(entries_cited), count(later)"
)


def _check_counts(ctx: Context) -> None:
    """The graph holds the entries and edges the calls claim, and no more."""
    entries, cites, entries_cited, nexts = unwatched(ctx.graph).ro_query(_COUNTS).result_set[0]
    total = EPISODES * ENTRIES
    chained = EPISODES * (ENTRIES - 1)
    expect(entries == total, f"record: {entries} entries in the graph, not {total}")
    expect(cites == total + chained, f"record: {cites} CITES edges, not {total + chained}")
    expect(entries_cited == chained, f"record: {entries_cited} entries cited, not {chained}")
    expect(nexts == chained, f"record: {nexts} NEXT edges between entries, not {chained}")


@workload(
    "close_episode",
    "calls",
    needs=("record",),
    floor="indexed_match",
    target=0.60,
    about="close_episode() of the 200 episodes, each outcome citing the episode's last entry",
)
def close_calls(ctx: Context) -> Measured:
    """200 close_episode() calls: each receipt the outcome entry, number 11; every episode closed."""
    receipts, seconds = timed_calls(
        lambda number: close_episode(
            ctx.graph,
            _episode_id(number),
            AGENT,
            {"failed": number % 3 == 0},
            [f"{_episode_id(number)}/{ENTRIES}"],
        ),
        range(EPISODES),
    )
    for number, receipt in enumerate(receipts):
        wanted = {"id": f"{_episode_id(number)}/{ENTRIES + 1}", "seq": ENTRIES + 1, "status": "recorded"}
        expect(receipt == wanted, f"close_episode({_episode_id(number)}) gave {receipt}, not {wanted}")
        found = episode(unwatched(ctx.graph), _episode_id(number))
        expect("closed_at" in found and found["entries"][-1]["failed"] == (number % 3 == 0), f"{found['id']}")
    return Measured(EPISODES, seconds, len(receipts))


RECEIVER = "bench-receiver"


@workload(
    "hand_off",
    "calls",
    needs=("close_episode",),
    floor="indexed_match",
    target=0.60,
    about="hand_off() of 200 handoffs, each pointing at an episode and its device",
)
def hand_off_calls(ctx: Context) -> Measured:
    """200 hand_off() calls: each receipt given, and the receiver has them all, oldest first."""
    subjects = _subjects(ctx)
    receipts, seconds = timed_calls(
        lambda number: hand_off(
            ctx.graph,
            f"bench-h-{number:04d}",
            AGENT,
            RECEIVER,
            [("Episode", _episode_id(number)), (DEVICE, subjects[number])],
            {"note": f"look at {subjects[number]}"},
        ),
        range(EPISODES),
    )
    for number, receipt in enumerate(receipts):
        wanted = {"id": f"bench-h-{number:04d}", "status": "given"}
        expect(receipt == wanted, f"hand_off(bench-h-{number:04d}) gave {receipt}, not {wanted}")
    waiting = handoffs_for(unwatched(ctx.graph), RECEIVER)
    expect(len(waiting) == EPISODES, f"hand_off: {len(waiting)} handoffs wait, not {EPISODES}")
    for number, found in enumerate(sorted(waiting, key=lambda one: one["id"])):
        wanted = sorted([("Episode", _episode_id(number)), ("Device", subjects[number])], key=str)
        expect(found["points_to"] == wanted, f"{found['id']} points to {found['points_to']}")
    return Measured(EPISODES, seconds, len(receipts))


@workload(
    "accept",
    "calls",
    needs=("hand_off",),
    floor="indexed_match",
    target=0.60,
    about="accept() of the 200 handoffs by their receiver",
)
def accept_calls(ctx: Context) -> Measured:
    """200 accept() calls: each receipt accepted, and none waits after."""
    receipts, seconds = timed_calls(
        lambda number: accept(ctx.graph, f"bench-h-{number:04d}", RECEIVER), range(EPISODES)
    )
    for number, receipt in enumerate(receipts):
        wanted = {"id": f"bench-h-{number:04d}", "status": "accepted"}
        expect(receipt == wanted, f"accept(bench-h-{number:04d}) gave {receipt}, not {wanted}")
    expect(
        handoffs_for(unwatched(ctx.graph), RECEIVER) == [],
        "accept: handoffs still wait after each was accepted",
    )
    return Measured(EPISODES, seconds, len(receipts))
