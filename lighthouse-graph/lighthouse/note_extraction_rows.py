"""write_note_rows(): the facts a model drew from one note, written by the write rule as candidates with
the note as their evidence, each bad one kept as a WriteFailure with its content.

The write rule checks what a row holds (its key, time, values, relations, sizes) and refuses a bad row
itself with an `invalid` receipt and a WriteFailure. What never becomes a row (an item that is not an
object, without a kind, or of a kind not given) is kept here as a WriteFailure "invalid".

remember() takes each row as the whole picture of its entity, but a model that saw a known entity cut
short names only what the note says changes. So each row of an entity that exists is completed first
from what the entity held at the row's time (its own values and its relations then, a rejected State
not counting), the item's values and relations on top. Writing the same facts again is a replay: its
rows come back `unchanged`.

The rule: the arguments are checked before anything is written: kinds that are not Kinds, facts that
are not a list of at most 1,000 items, a note id or by that is not a name raise WrongType (a TypeError)
or Refused (a ValueError), and Refused ("unknown") for an id that names no note.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime

from . import clock, values
from .errors import Refused, WrongType
from .kinds import Kind
from .notes_waiting import notes_by_id
from .read import as_of, related, state_values
from .write.batches import remember
from .write.failures import record_failure

MAX_FACTS = 1_000  # facts one note's answer may hold
WRITTEN = frozenset({"created", "changed", "inserted", "unchanged"})
AGAIN = frozenset({"failed", "busy"})  # the database refused or other writers won: the row may go next time
REFUSED_ITEM = "invalid"  # the reason of a WriteFailure for an item that never became a row


def _own_values(kind: Kind, state: dict) -> dict:
    return {
        name: clock.stamp(item) if isinstance(item, datetime) else item
        for name, item in state_values(kind, state).items()
    }


def _completed(graph, kind: Kind, row: dict) -> dict:
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
    return {**row, "values": _own_values(kind, state) | given_values, "relations": held | given_relations}


def _refuse(graph, note_id: str, by: str, item: object, why: str, label: object = None) -> None:
    key = item.get("key") if isinstance(item, dict) else None
    detail = {"note": note_id, "by": by, "why": why, "item": item}
    record_failure(
        graph, REFUSED_ITEM, kind=label if isinstance(label, str) else None, key=key, detail=detail
    )


def _rows_by_kind(graph, kinds: dict[str, Kind], note: dict, by: str, facts: list) -> tuple[dict, int]:
    """{label: [row, ...]} of the items that name a given kind, each row from the note (entry) and true
    from its said-time unless it says otherwise; and how many items were refused here."""
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
            row["t"] = clock.stamp(note["at"])
        grouped.setdefault(label, []).append(_completed(graph, kinds[label], row))
    return grouped, refused


def checked_kinds(kinds: object) -> dict[str, Kind]:
    listed = list(kinds.values()) if type(kinds) is dict else kinds
    if type(listed) not in (list, tuple) or not all(type(kind) is Kind for kind in listed):
        raise WrongType("kinds must be a list, tuple or dict (by label) of Kind")
    return {kind.label: kind for kind in listed}


def write_note_rows(graph, kinds, note_id, facts, by) -> dict:
    """Writes the facts drawn from a note: each good item a row of its kind by remember(...,
    candidate=True), with the note as its entry and the note's said-time as its time unless it gives
    "t"; each bad item kept as a WriteFailure. Returns {"rows": {status: count}, "refused", "again"}:
    refused counts the items refused here or by the write, again the rows the database refused or lost
    to other writers (write the same facts again later: what was written comes back unchanged).

    facts: a list of at most 1,000 items, each {"kind": <a given Kind's label>, "key", "t", "values",
    "relations"}; kinds: the Kinds the items may name; by: who drew them (the model).
    """
    given = checked_kinds(kinds)
    if type(facts) is not list:
        raise WrongType(f"facts must be a list of items, not {values.sort_of(facts)}")
    if len(facts) > MAX_FACTS:
        raise Refused(f"facts holds more than {MAX_FACTS:,} items")
    by = values.name(by, "by")
    note_id = values.entry_id(note_id, "a note id")
    found = notes_by_id(graph, [note_id])
    if not found:
        raise Refused(f"no note {note_id!r}", "unknown")
    rows: Counter = Counter()
    grouped, refused = _rows_by_kind(graph, given, found[0], by, facts)
    for label, listed in grouped.items():
        for receipt in remember(graph, given[label], listed, by, candidate=True):
            rows[receipt["status"]] += 1
            if receipt["status"] not in WRITTEN:
                refused += 1
    return {"rows": dict(rows), "refused": refused, "again": sum(rows[status] for status in AGAIN)}
