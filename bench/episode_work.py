"""Episodes with lighthouse.record(): 200 episodes of 10 entries, each entry citing the one before and a device.

The episodes are opened first (not timed), each about the device its entries cite; record() is timed
alone. Every receipt is checked, then every episode is read back with episode() and compared with what
was recorded, and the graph is counted: entries, NEXT and CITES edges.
"""

from __future__ import annotations

from fleet import AGENT, DEVICE
from lighthouse import episode, open_episode, record
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


def _subjects(ctx: Context) -> list[str]:
    """The device of each episode: spread over the fleet, and distinct while the fleet is large enough."""
    step = max(1, ctx.fleet.count // EPISODES)
    return [ctx.fleet.keys[(number * step) % ctx.fleet.count] for number in range(EPISODES)]


@workload(
    "record",
    "calls",
    needs=("create",),
    floor="indexed_match",
    target=0.50,
    about="record() of 200 episodes x 10 entries, each citing the entry before and a device",
)
def record_calls(ctx: Context) -> Measured:
    """2,000 record() calls; every receipt recorded with the next number, every episode read back."""
    subjects = _subjects(ctx)
    for number, key in enumerate(subjects):
        opened = open_episode(ctx.graph, _episode_id(number), AGENT, about=[(DEVICE, key)])
        expect(opened.get("status") == "opened", f"open_episode({_episode_id(number)}) gave {opened}")
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
        found = episode(ctx.graph, episode_id)
        expect(found is not None, f"episode({episode_id}) is None after its entries were recorded")
        expect(found["about"] == [("Device", key)], f"episode({episode_id}) is about {found['about']}")
        expect(found["closed_at"] is None, f"episode({episode_id}) closed: {found['closed_at']}")
        entries = found["entries"]
        expect(len(entries) == ENTRIES, f"episode({episode_id}) has {len(entries)} entries, not {ENTRIES}")
        for seq, entry in enumerate(entries, start=1):
            where = f"episode({episode_id}) entry {seq}"
            expect(entry["id"] == f"{episode_id}/{seq}" and entry["seq"] == seq, f"{where}: {entry['id']}")
            expect(entry["type"] == ENTRY_TYPE and entry["by"] == AGENT, f"{where}: {entry}")
            expect(entry["values"] == _values(seq, key), f"{where}: values {entry['values']}")
            wanted = [("Entry", f"{episode_id}/{seq - 1}")] if seq > 1 else []
            wanted.append(("Device", key))
            expect([tuple(cited) for cited in entry["cites"]] == wanted, f"{where}: cites {entry['cites']}")


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
    entries, cites, entries_cited, nexts = ctx.graph.ro_query(_COUNTS).result_set[0]
    total = EPISODES * ENTRIES
    chained = EPISODES * (ENTRIES - 1)
    expect(entries == total, f"record: {entries} entries in the graph, not {total}")
    expect(cites == total + chained, f"record: {cites} CITES edges, not {total + chained}")
    expect(entries_cited == chained, f"record: {entries_cited} entries cited, not {chained}")
    expect(nexts == chained, f"record: {nexts} NEXT edges between entries, not {chained}")
