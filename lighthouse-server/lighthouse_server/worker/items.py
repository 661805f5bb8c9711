"""The model's answer for one note, item by item: each good item a row written by the write rule as a
candidate drawn by the model, each bad one refused and kept as a WriteFailure with its content.

The library checks what a row holds (its key, time, values, relations, sizes) and refuses a bad row
itself with an `invalid` receipt and a WriteFailure. What never reaches it (an item that is not an
object, without a kind, or of a kind the tenant did not declare) is kept here by record_failure().

remember() takes each row as the whole picture of its entity, but the model saw a known entity cut
short (text to 500 characters, no relations) and names only what the note says changes. So each row
of an entity that exists is completed first from what the entity held at the row's time (its own
values and its relations then, a rejected State not counting), the item's values and relations on top.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime

from lighthouse import Kind, as_of, record_failure, related, remember, stamp, state_values

from .model import ModelFailure

MAX_FACTS = 1_000  # facts one answer may hold
WRITTEN = frozenset({"created", "changed", "inserted", "unchanged"})
AGAIN = frozenset({"failed", "busy"})  # the database refused or other writers won: the row may go next time
REFUSED_ITEM = "invalid"  # the reason of a WriteFailure for an item that never became a row


def facts_of(answer: object) -> list:
    """The facts of an answer of the asked shape, {"facts": [...]}; ModelFailure "malformed" otherwise."""
    if not isinstance(answer, dict) or set(answer) != {"facts"} or not isinstance(answer["facts"], list):
        shown = str(answer)[:300]
        raise ModelFailure("malformed", f'the answer is not {{"facts": [...]}}: {shown}')
    if len(answer["facts"]) > MAX_FACTS:
        raise ModelFailure("malformed", f"the answer holds more than {MAX_FACTS:,} facts")
    return answer["facts"]


def own_values(kind: Kind, state: dict) -> dict:
    """The entity's own values in a State as the reads give it (lighthouse.state_values()), times as text."""
    return {
        name: stamp(item) if isinstance(item, datetime) else item
        for name, item in state_values(kind, state).items()
    }


def completed(graph, kind: Kind, row: dict) -> dict:
    """The row with what its entity held at the row's time beneath the item's values and relations.
    A row that cannot be read as one (a bad key or time, values or relations that are not objects) is
    given back as it is, for remember() to refuse; so is the row of an entity that holds nothing then."""
    given_values = {} if row.get("values") is None else row["values"]
    given_relations = {} if row.get("relations") is None else row["relations"]
    if not isinstance(given_values, dict) or not isinstance(given_relations, dict):
        return row
    try:
        state = as_of(graph, kind, row.get("key"), row["t"], rejected=False)
        if state is None:
            return row
        linked = {
            relation: related(graph, kind, row["key"], relation, when=row["t"]) for relation in kind.relations
        }
    except (ValueError, TypeError):  # Refused or WrongType: the write refuses the row with its reason
        return row
    held = {relation: targets for relation, targets in linked.items() if targets}
    return {**row, "values": own_values(kind, state) | given_values, "relations": held | given_relations}


@dataclass
class Applied:
    """What one answer did: receipts by status, and how many items were refused (before or by the write)."""

    rows: Counter = field(default_factory=Counter)
    refused: int = 0

    @property
    def to_try_again(self) -> int:
        """Rows the database refused or lost to other writers: the answer is to be applied again."""
        return sum(self.rows[status] for status in AGAIN)


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
        grouped.setdefault(label, []).append(completed(graph, kinds[label], row))
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
