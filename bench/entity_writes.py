"""Writes of entities with lighthouse.remember(): create, change, replay, and late rows, in batches of 500.

What limits them (FalkorDB 4.22.1, the 2-core machine; `--breakdown` and GRAPH.PROFILE):

- create: its write takes FalkorDB about what `unwind_shape`, the blind write of the same graph, takes
  (create at 77 to 89 % of it); the rest is Python, 31 to 40 % of a call of 500 rows (the target of 25 %
  is missed). Counted in instructions (`bench/run.py instructions --stages`), a created row is some
  316,000, of which its checks 109,000 and its two fingerprints 61,000: every part is one the write rule
  asks for. A call of 1,000 rows or more checks its later rows while the server writes (create_one_call:
  17 to 21 % Python).
- change: the read that decides the rows and the write, inside FalkorDB alone, take about the whole 8 %
  budget at these floors (`change_shape`, its blind write, is 11 to 14 % of `unwind_create`); the same
  code misses the target in a slow hour and meets it in a quiet one (8.7 and 9.2 %).
- replay: one light read a batch and no write: an entity whose fingerprint is the row's gets back only
  times and fingerprints.
- stall: a query carries at most 500 rows, 1,000,000 characters and 2,000 targets. With 2,000,000 and
  5,000, the longest PING another client waited was 260 to 420 ms; with these bounds under 100 ms.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections import Counter
from datetime import timedelta

from breakdown import unwatched
from fleet import AGENT, DEVICE
from lighthouse import ensure_schema, open_episode, record, remember, say
from lighthouse.references import parse_all
from lighthouse.values import MAX_ROW, MAX_TEXT
from registry import Context, Measured, expect, workload


def _remember(ctx: Context, rows: list[dict]) -> tuple[list[dict], float]:
    """All rows through remember() in batches; the receipts in order and the seconds the calls took."""
    batches = [rows[start : start + ctx.batch] for start in range(0, len(rows), ctx.batch)]
    receipts: list[dict] = []
    began = time.perf_counter()
    for batch in batches:
        receipts += remember(ctx.graph, DEVICE, batch, AGENT)
    return receipts, time.perf_counter() - began


def _all(name: str, rows: list[dict], receipts: list[dict], status: str) -> int:
    """Checks that every receipt is for its row and has the status; the number checked."""
    expect(len(receipts) == len(rows), f"{name}: {len(receipts)} receipts for {len(rows)} rows")
    wrong = [
        receipt
        for row, receipt in zip(rows, receipts, strict=True)
        if receipt.get("key") != row["key"] or receipt.get("status") != status
    ]
    counted = dict(Counter(receipt.get("status") for receipt in receipts))
    expect(not wrong, f"{name}: expected every receipt {status!r}, got {counted}; first wrong: {wrong[:1]}")
    return len(receipts)


def _count(ctx: Context, query: str) -> int:
    return unwatched(ctx.graph).ro_query(query).result_set[0][0]


def _states(ctx: Context) -> int:
    return _count(ctx, "MATCH (s:State) RETURN count(s)")


@workload(
    "create",
    "rows",
    floor="unwind_create",
    target=0.10,
    about="new entities: 5 values (one text, one time), LOCATED_IN 1 room, USED_BY 3 teams",
)
def create(ctx: Context) -> Measured:
    """Every device's first row: each receipt must be created."""
    rows = ctx.fleet.create_rows()
    receipts, seconds = _remember(ctx, rows)
    checked = _all("create", rows, receipts, "created")
    ctx.fleet.accepted(rows)
    devices = _count(ctx, f"MATCH (e:{DEVICE.label}) RETURN count(e)")
    expect(devices == len(rows), f"create: {devices} devices in the graph, not {len(rows)}")
    edges = _count(ctx, f"MATCH (:{DEVICE.label})-[r]->(:Entity) RETURN count(r)")
    expect(edges == 4 * len(rows), f"create: {edges} relation edges, not {4 * len(rows)}")
    return Measured(len(rows), seconds, checked)


@workload(
    "change",
    "rows",
    needs=("create",),
    floor="unwind_create",
    target=0.08,
    about="a later row for every entity with one value changed",
)
def change(ctx: Context) -> Measured:
    """Every device's row ten days later, status changed: each receipt must be changed."""
    rows = ctx.fleet.change_rows()
    receipts, seconds = _remember(ctx, rows)
    checked = _all("change", rows, receipts, "changed")
    ctx.fleet.accepted(rows)
    states = _states(ctx)
    expect(states == 2 * len(rows), f"change: {states} States in the graph, not {2 * len(rows)}")
    return Measured(len(rows), seconds, checked)


@workload(
    "replay",
    "rows",
    needs=("create", "change"),
    floor="unwind_create",
    target=0.15,
    about="the create rows sent again: already recorded, so nothing is written",
)
def replay(ctx: Context) -> Measured:
    """The create rows again (now older than the current State): each receipt must be unchanged."""
    before = _states(ctx)
    rows = ctx.fleet.create_rows()
    receipts, seconds = _remember(ctx, rows)
    checked = _all("replay", rows, receipts, "unchanged")
    after = _states(ctx)
    expect(after == before, f"replay: the States went from {before} to {after}")
    return Measured(len(rows), seconds, checked)


@workload(
    "late",
    "rows",
    needs=("create", "change"),
    floor="unwind_create",
    target=0.03,
    about="rows of distinct entities at a time between two States, another value and another room",
)
def late(ctx: Context) -> Measured:
    """Late rows between the create and the change, with other content: each receipt must be inserted."""
    count = min(ctx.late, ctx.fleet.count)
    indexes = ctx.rng.sample(range(ctx.fleet.count), count)
    span = int((ctx.fleet.changed - ctx.fleet.created).total_seconds())
    times = [ctx.fleet.created + timedelta(seconds=ctx.rng.randint(1, span - 1)) for _ in indexes]
    rows = ctx.fleet.late_rows(indexes, times)
    before = _states(ctx)
    receipts, seconds = _remember(ctx, rows)
    checked = _all("late", rows, receipts, "inserted")
    ctx.fleet.accepted(rows)
    after = _states(ctx)
    expect(after == before + count, f"late: the States went from {before} to {after}, not +{count}")
    return Measured(count, seconds, checked)


@workload(
    "create_one_call",
    "rows",
    floor="unwind_create",
    about="the create rows in one call of remember(), in a graph of its own: checked ahead while it writes",
)
def create_one_call(ctx: Context) -> Measured:
    """Every device's first row in one call (a call of 1,000 rows or more has its rows checked in a thread
    of their own while the server writes the queries before them): each receipt must be created."""
    graph = ctx.new_graph("one_call")
    ensure_schema(unwatched(graph), [DEVICE])
    rows = ctx.fleet.create_rows()
    began = time.perf_counter()
    receipts = remember(graph, DEVICE, rows, AGENT)
    seconds = time.perf_counter() - began
    checked = _all("create_one_call", rows, receipts, "created")
    devices = unwatched(graph).ro_query(f"MATCH (e:{DEVICE.label}) RETURN count(e)").result_set[0][0]
    expect(devices == len(rows), f"create_one_call: {devices} devices in the graph, not {len(rows)}")
    return Measured(len(rows), seconds, checked)


# --- what the other clients see while the largest legal batches are written ----------------------------------

STALL_TARGET = 0.250  # seconds: the longest wait another client may see while a batch is written


def _heaviest_rows(tag: str, at: str) -> list[list[dict]]:
    """The batches that load the server most per row: rows of almost 200,000 characters (two values of
    99,000, one of them text), and rows whose two relations each name 200 targets that do not exist yet."""
    text = [
        {
            "key": f"{tag}-text-{i}",
            "t": at,
            "values": {"note": "w" * 98_990 + f" {i:08d}", "spare": "s" * 99_000},
        }
        for i in range(100)
    ]
    wide = [
        {
            "key": f"{tag}-wide-{i}",
            "t": at,
            "relations": {
                "LOCATED_IN": [f"{tag}-room-{i}-{n}" for n in range(200)],
                "USED_BY": [f"{tag}-team-{i}-{n}" for n in range(200)],
            },
        }
        for i in range(100)
    ]
    return [text, wide]


# Another client in a process of its own, so that what it waits for is the server, not this process's GIL.
_PROBE = """
import sys, time
from falkordb import FalkorDB
client = FalkorDB(host=sys.argv[1], port=int(sys.argv[2]))
other = client.select_graph(sys.argv[3])
other.query("MERGE (:Probe {key: 1})")
print("ready", flush=True)
ping = read = 0.0
probes = 0
while not sys.stdin.closed:
    began = time.perf_counter()
    client.connection.ping()
    ping = max(ping, time.perf_counter() - began)
    began = time.perf_counter()
    other.ro_query("MATCH (p:Probe {key: 1}) RETURN p.key")
    read = max(read, time.perf_counter() - began)
    probes += 1
    time.sleep(0.005)
    if probes % 20 == 0:
        print(ping, read, probes, flush=True)
"""


def _prober(ctx: Context) -> subprocess.Popen:
    settings = ctx.client.connection.connection_pool.connection_kwargs
    other = f"{ctx.floor_graph.name}_probe"
    ctx.extra_graphs.append(ctx.client.select_graph(other))
    child = subprocess.Popen(
        [sys.executable, "-c", _PROBE, str(settings["host"]), str(settings["port"]), other],
        stdout=subprocess.PIPE,
        stdin=subprocess.PIPE,
        text=True,
    )
    expect(child.stdout.readline().strip() == "ready", "stall: the probing client did not start")
    return child


# The worst legal call of record() and of say(), each repeated: one alone is over before a probe sees it.
STALL_CALLS = 50
STALL_REFERENCES = 200  # cites of an entry, mentions of a message: the most one call may carry


def _word_text(tag: str, length: int) -> str:
    """A text of distinct short words, exactly `length` characters: the most the text index is given."""
    spoken = " ".join(f"{tag}{n:06d}" for n in range(length // (len(tag) + 7) + 1))
    return spoken[:length]


def _filled(budget: int, tag: str) -> dict:
    """Values of text that take `budget` characters as JSON, each text value within the 100,000 limit."""
    values, left, number = {}, budget, 0
    while left > 20:
        name = f"{tag}{number}"
        size = min(99_000, left - len(name) - 8)  # "name": "...", as JSON writes it in a dict
        values[name] = _word_text(tag, size)
        left -= len(json.dumps({name: values[name]}, ensure_ascii=False))
        number += 1
    return values


def _heaviest_entry(cites: list) -> dict:
    """Values that bring an entry of 200 cites to just under 200,000 characters, as record() measures it."""
    return _filled(MAX_ROW - _entry_size({}, cites) - 100, "e")


def _probed(ctx: Context, name: str, calls, count: int, unit: str) -> float:
    """Runs `calls()` while another process probes the server; prints the line of the longest waits and
    gives the seconds the calls took."""
    prober = _prober(ctx)
    time.sleep(0.2)
    began = time.perf_counter()
    try:
        calls()
    finally:
        seconds = time.perf_counter() - began
        time.sleep(0.2)
        prober.kill()
        lines = prober.stdout.read().split("\n")
    last = [line.split() for line in lines if line.strip()][-1]
    waits = {"ping": float(last[0]), "read": float(last[1]), "probes": int(last[2])}
    verdict = "PASS" if max(waits["ping"], waits["read"]) < STALL_TARGET else "MISS"
    print(
        f"stall {name}: {count} {unit} in {seconds:.2f} s; longest PING wait {waits['ping'] * 1000:.0f} ms, "
        f"longest small read of another graph {waits['read'] * 1000:.0f} ms over {waits['probes']} probes "
        f"(target < {STALL_TARGET * 1000:.0f} ms)  {verdict}",
        flush=True,
    )
    return seconds


def _stall_record(ctx: Context, graph, devices: list[str]) -> int:
    """STALL_CALLS entries of almost 200,000 characters of values, each citing 100 earlier entries and 100
    entities; the number of receipts checked."""
    expect(open_episode(graph, "stall-cited", AGENT)["status"] == "opened", "stall: the cited episode")
    for n in range(STALL_REFERENCES // 2):  # the entries cited, small and not timed
        receipt = record(graph, "stall-cited", "note", AGENT, {"n": n})
        expect(receipt.get("status") == "recorded", f"stall: a cited entry gave {receipt}")
    cites = [f"stall-cited/{n + 1}" for n in range(STALL_REFERENCES // 2)]
    cites += [(DEVICE, key) for key in devices[: STALL_REFERENCES - len(cites)]]
    values = _heaviest_entry(cites)
    expect(open_episode(graph, "stall-heavy", AGENT)["status"] == "opened", "stall: the heavy episode")
    receipts: list[dict] = []

    def calls() -> None:
        for _ in range(STALL_CALLS):
            receipts.append(record(graph, "stall-heavy", "observation", AGENT, values, cites))

    _probed(ctx, "record()", calls, STALL_CALLS, f"entries of {_entry_size(values, cites):,} characters")
    for seq, receipt in enumerate(receipts, 1):
        expected = {"id": f"stall-heavy/{seq}", "seq": seq, "status": "recorded"}
        expect(receipt == expected, f"stall: record() gave {receipt}, not {expected}")
    cited = graph.ro_query(
        "MATCH (:Entry {episode: 'stall-heavy'})-[c:CITES]->() RETURN count(c)"
    ).result_set[0][0]
    expect(cited == STALL_CALLS * len(cites), f"stall: {cited} CITES, not {STALL_CALLS * len(cites)}")
    return len(receipts)


def _entry_size(values: dict, cites: list) -> int:
    """The size of an entry as record() measures it: its JSON with the cites as the library reads them."""
    whole = {"type": "observation", "values": values, "cites": parse_all(cites, "cites")}
    return len(json.dumps(whole, ensure_ascii=False, default=str))


def _stall_say(ctx: Context, graph, devices: list[str]) -> int:
    """STALL_CALLS messages of 100,000 characters of text and values to 200,000 in all, 200 mentions
    each; the number of receipts checked."""
    text = _word_text("m", MAX_TEXT)
    values = _filled(MAX_ROW - len(text) - 100, "v")
    mentions = [(DEVICE, key) for key in devices[:STALL_REFERENCES]]
    receipts: list[dict] = []

    def calls() -> None:
        for _ in range(STALL_CALLS):
            receipts.append(say(graph, "stall-user", "stall-session", "user", text, AGENT, mentions, values))

    size = len(text) + len(json.dumps(values, ensure_ascii=False))
    _probed(ctx, "say()", calls, STALL_CALLS, f"messages of {size:,} characters")
    for seq, receipt in enumerate(receipts, 1):
        expected = {"id": "stall-session", "seq": seq, "status": "said"}
        expect(receipt == expected, f"stall: say() gave {receipt}, not {expected}")
    kept = graph.ro_query("MATCH (:Message)-[m:MENTIONS]->() RETURN count(m)").result_set[0][0]
    expect(kept == STALL_CALLS * len(mentions), f"stall: {kept} MENTIONS, not {STALL_CALLS * len(mentions)}")
    return len(receipts)


@workload(
    "stall",
    "rows",
    floor="unwind_create",
    about="the heaviest legal calls of remember(), record() and say() while another client PINGs and reads",
)
def stall(ctx: Context) -> Measured:
    """The longest PING wait and small-read latency another client sees while the heaviest legal calls
    of remember(), record() and say() run (target: under 250 ms), one line each; the rate is of the rows
    of remember()."""
    graph = ctx.new_graph("stall")
    ensure_schema(graph, [DEVICE])
    batches = _heaviest_rows("stall", "2026-01-01T00:00:00Z")
    receipts: list[list[dict]] = []

    def calls() -> None:
        for batch in batches:
            receipts.append(remember(graph, DEVICE, batch, AGENT))

    rows = sum(len(batch) for batch in batches)
    seconds = _probed(ctx, "remember()", calls, rows, "rows of 200,000 characters or 2 x 200 new targets")
    checked = sum(_all("stall", batch, got, "created") for batch, got in zip(batches, receipts, strict=True))
    expect(len(receipts) == len(batches), f"stall: {len(receipts)} calls of remember() answered")
    devices = [row["key"] for batch in batches for row in batch]
    _stall_record(ctx, graph, devices)
    _stall_say(ctx, graph, devices)
    return Measured(rows, seconds, checked)
