"""What a full-picture row ended: the values and relations its entity held just before the row's time
that the row left out, said on the row's receipt.

The library's receipt is {"key", "status"} (its published shape); what ended is read after the write,
with diff_between() over the second that ends at the row's time, once per distinct time of the rows
that changed something (a feed's rows often share one).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from lighthouse import Once, diff_between, stamp

CHANGING = ("changed", "inserted")  # receipts of a row that opened a version after another one


def with_ended(graph, kind, rows: list, receipts: list[dict]) -> list[dict]:
    """The receipts, each of a row that ended something given "ended": {"values": [names],
    "relations": {type: [keys]}} (only what did end is named)."""
    reading = graph.graph if isinstance(graph, Once) else graph  # reads need no replay
    times: dict = {}
    for index, receipt in enumerate(receipts):
        if receipt.get("status") in CHANGING and index < len(rows) and isinstance(rows[index], dict):
            at = datetime.fromisoformat(stamp(rows[index]["t"])).replace(tzinfo=UTC)
            times.setdefault(at, []).append(index)
    shown = list(receipts)
    for at, indexes in times.items():
        diff = diff_between(reading, [kind], at - timedelta(seconds=1), at)
        for index in indexes:
            ended = _ended(diff, (kind.label, receipts[index]["key"]), at)
            if ended:
                shown[index] = {**receipts[index], "ended": ended}
    return shown


def _ended(diff: dict, entity: tuple, at) -> dict:
    ended: dict = {}
    for change in diff["values_changed"]:
        if tuple(change["entity"]) == entity:
            gone = [name for name in change["changed_keys"] if change["after"].get(name) is None]
            if gone:
                ended["values"] = gone
    closed: dict[str, list] = {}
    for relation in diff["relations_closed"]:
        if tuple(relation["from"]) == entity and relation["until"] == at:
            closed.setdefault(relation["relation"], []).append(relation["to"][1])
    if closed:
        ended["relations"] = {name: sorted(keys, key=str) for name, keys in sorted(closed.items())}
    return ended
