"""The model's answer for one note, item by item: each good item a row written by the write rule as a
candidate drawn by the model, each bad one refused and kept as a WriteFailure with its content.

The library checks what a row holds (its key, time, values, relations, sizes) and refuses a bad row
itself with an `invalid` receipt and a WriteFailure. What never reaches it (an item that is not an
object, without a kind, or of a kind the tenant did not declare) is kept here by record_failure().
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from lighthouse import Kind, record_failure, remember, stamp

from .model import ModelFailure

MAX_FACTS = 1_000  # facts one answer may hold
WRITTEN = frozenset({"created", "changed", "inserted", "unchanged"})
REFUSED_ITEM = "invalid"  # the reason of a WriteFailure for an item that never became a row


def facts_of(answer: object) -> list:
    """The facts of an answer of the asked shape, {"facts": [...]}; ModelFailure "malformed" otherwise."""
    if not isinstance(answer, dict) or set(answer) != {"facts"} or not isinstance(answer["facts"], list):
        shown = str(answer)[:300]
        raise ModelFailure("malformed", f'the answer is not {{"facts": [...]}}: {shown}')
    if len(answer["facts"]) > MAX_FACTS:
        raise ModelFailure("malformed", f"the answer holds more than {MAX_FACTS:,} facts")
    return answer["facts"]


@dataclass
class Applied:
    """What one answer did: receipts by status, and how many items were refused (before or by the write)."""

    rows: Counter = field(default_factory=Counter)
    refused: int = 0


def _refuse(graph, note_id: str, by: str, item: object, why: str, label: object = None) -> None:
    key = item.get("key") if isinstance(item, dict) else None
    detail = {"note": note_id, "by": by, "why": why, "item": item}
    record_failure(
        graph, REFUSED_ITEM, kind=label if isinstance(label, str) else None, key=key, detail=detail
    )


def rows_by_kind(graph, kinds: dict[str, Kind], note: dict, by: str, facts: list) -> tuple[dict, int]:
    """{label: [row, ...]} of the items that name a declared kind, each row from the note (entry) and
    true from its said-time unless it says otherwise; and how many items were refused here."""
    grouped: dict[str, list] = {}
    refused = 0
    for item in facts:
        if not isinstance(item, dict):
            _refuse(graph, note["id"], by, item, f"a fact is an object, not {type(item).__name__}")
            refused += 1
            continue
        label = item.get("kind")
        if not isinstance(label, str) or not label:
            _refuse(graph, note["id"], by, item, "a fact needs its kind: the label of a declared kind")
            refused += 1
            continue
        if label not in kinds:
            _refuse(graph, note["id"], by, item, f"no kind {label[:200]!r} is declared", label)
            refused += 1
            continue
        row = {name: value for name, value in item.items() if name != "kind"}
        row["entry"] = note["id"]  # whatever entry the model named: the note it read
        if row.get("t") is None:
            row["t"] = stamp(note["at"])
        grouped.setdefault(label, []).append(row)
    return grouped, refused


def apply(graph, kinds: dict[str, Kind], note: dict, by: str, facts: list) -> Applied:
    """Writes the good items of an answer (remember(..., candidate=True)) and keeps each bad one as a
    WriteFailure. Applying the same answer again is a replay: its rows are `unchanged`."""
    done = Applied()
    grouped, done.refused = rows_by_kind(graph, kinds, note, by, facts)
    for label, listed in grouped.items():
        receipts = remember(graph, kinds[label], listed, by, candidate=True)
        for receipt in receipts:
            done.rows[receipt["status"]] += 1
            if receipt["status"] not in WRITTEN:
                done.refused += 1
    return done
