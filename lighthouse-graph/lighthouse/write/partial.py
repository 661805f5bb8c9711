"""update(): some values or relations change from time t on, and the rest stays as the current State says."""

from __future__ import annotations

from .. import clock
from .. import values as limits
from ..kinds import Kind
from ..values import Refused
from .batches import check_call, check_entries, write_ready
from .failures import Failure, record_failures
from .plans import Around
from .rows import Row, checked_values, targets


def _completed(kind: Kind, row: Row, changes: dict, relations: dict):
    """A function that makes the full row from the State that a read found current."""

    def complete(_pending: Row, around: Around) -> Row:
        if around.current is None:
            raise Refused(
                f"{kind.label} {row.key!r} has no State to update: write it with remember()", "unknown"
            )
        merged = {name: item for name, item in around.current.values.items()}
        for name, item in changes.items():
            if item is None:
                merged.pop(name, None)
            else:
                merged[name] = item
        linked = dict(around.current.relations)
        linked.update(relations)
        # The full row obeys the limits of a row: what the update adds to the current State may not.
        if len(merged) > limits.MAX_VALUES:
            raise Refused(f"the row this update makes holds more than {limits.MAX_VALUES} values")
        shown = {rel: sorted(map(str, targets)) for rel, targets in linked.items()}
        limits.measured({"key": row.key, "t": clock.stamp_of(row.t), "values": merged, "relations": shown})
        return Row(row.index, row.key, row.t, merged, linked, row.entry, row.raw)

    return complete


def update(
    graph,
    kind: Kind,
    key: object,
    t: object,
    by: str,
    values: dict | None = None,
    relations: dict | None = None,
    entry: str | None = None,
) -> dict:
    """Changes what it names from t on and keeps the rest; one receipt, as remember() gives."""
    given = values
    raw = {"key": key, "t": t, "values": given, "relations": relations, "entry": entry}
    by = check_call(graph, kind, by, [])
    try:
        checked_key = limits.key(key)
        moment = clock.checked(t) if t is not None else None
        if moment is None:
            raise Refused("update() needs its time t")
        if given is not None and not isinstance(given, dict):
            raise Refused("values must be a dict")
        if given is not None and len(given) > limits.MAX_VALUES:
            raise Refused(f"values holds more than {limits.MAX_VALUES} values")
        changes = {name: item for name, item in (given or {}).items() if item is not None}
        removed = {name for name, item in (given or {}).items() if item is None}
        plain = checked_values(kind, changes)
        for name in removed:
            limits.property_name(name)
        plain.update({name: None for name in removed})
        if relations is not None and not isinstance(relations, dict):
            raise Refused("relations must be a dict of relation type -> target or list of targets")
        linked = {relation: targets(kind, relation, listed) for relation, listed in (relations or {}).items()}
        if entry is not None:
            limits.name(entry, "an entry id")
        limits.measured(raw)
    except (Refused, clock.TimeError) as error:
        reason = getattr(error, "reason", "invalid")
        record_failures(graph, [Failure(reason, kind.label, key, raw, str(error), by)])
        return {"key": key, "status": reason, "reason": str(error)}
    row = Row(0, checked_key, moment, {}, {}, entry, raw)
    statuses: dict[int, str] = {}
    refusals: list[Failure] = []
    if entry is not None and entry not in check_entries(graph, [row]):
        record_failures(
            graph, [Failure("missing", kind.label, key, raw, f"the entry {entry!r} does not exist", by)]
        )
        return {"key": key, "status": "missing", "reason": f"the entry {entry!r} does not exist"}
    write_ready(graph, kind, by, [row], statuses, refusals, partial=_completed(kind, row, plain, linked))
    record_failures(graph, refusals)
    receipt = {"key": key, "status": statuses[0]}
    if refusals:
        receipt["reason"] = refusals[0].message
    return receipt
