"""update(): some values or relations change from time t on, and the rest stays as the current State says."""

from __future__ import annotations

from redis.exceptions import ResponseError

from .. import clock
from .. import values as limits
from ..values import Refused, WrongType
from .batches import check_call, check_entries, receipt, why, write_ready
from .failures import Failure, keep_failures
from .plans import Around
from .rows import Row, checked_values, targets


def _completed(kind, row: Row, changes: dict, relations: dict):
    """A function that makes the full row from the State that a read found current (none: only what
    the update names)."""

    def complete(_pending: Row, around: Around) -> Row:
        if around.current is not None and row.t < around.current.valid_from:
            start = clock.stamp_of(around.current.valid_from)
            raise Refused(f"the time is before the start of the current State, {start}", "stale")
        merged = dict(around.current.values) if around.current is not None else {}
        for name, item in changes.items():
            if item is None:
                merged.pop(name, None)
            else:
                merged[name] = item
        linked = dict(around.current.relations) if around.current is not None else {}
        for relation in kind.relations:
            linked.setdefault(relation, frozenset())
        linked.update(relations)
        # The full row obeys the limits of a row: what the update adds to the current State may not.
        if len(merged) > limits.MAX_VALUES:
            raise Refused(f"the row this update makes holds more than {limits.MAX_VALUES} values")
        shown = {rel: sorted(map(str, listed)) for rel, listed in linked.items()}
        size = limits.measured(
            {"key": row.key, "t": clock.stamp_of(row.t), "values": merged, "relations": shown}
        )
        return Row(row.index, row.key, row.t, merged, linked, row.entry, row.raw, size)

    return complete


def _checked(kind, given: dict) -> tuple:
    """The key, time, changes, relations and entry of an update, from the plain copy of its arguments."""
    checked_key = limits.written_key(given["key"])
    if not clock.given(given["t"]):
        raise Refused("the time t of an update is missing")
    try:
        moment = clock.checked(given["t"])
    except (Refused, WrongType) as error:
        raise Refused(str(error)) from None
    changes = given["values"]
    if changes is not None and type(changes) is not dict:
        raise Refused("values must be a dict")
    if changes is not None and len(changes) > limits.MAX_VALUES:
        raise Refused(f"values holds more than {limits.MAX_VALUES} values")
    # A declared time given as blank text is not given (API 1.2), as None is: the update removes it.
    removed = [
        name
        for name, item in (changes or {}).items()
        if item is None or (name in kind.times and not clock.given(item))
    ]
    kept = {name: item for name, item in (changes or {}).items() if name not in removed}
    plain = checked_values(kind, kept)
    for name in removed:
        limits.property_name(name)
        plain[name] = None
    relations = given["relations"]
    if relations is not None and type(relations) is not dict:
        raise Refused("relations must be a dict of relation type -> target or list of targets")
    linked = {relation: targets(kind, relation, listed) for relation, listed in (relations or {}).items()}
    entry = given["entry"]
    if entry is not None:
        limits.entry_id(entry)
    limits.measured(given)
    return checked_key, moment, plain, linked, entry


def _shown(given: dict) -> dict:
    """What an update was given, part by part: a part that cannot be read is kept as its type's name."""
    shown = {}
    for name, part in given.items():
        try:
            shown[name] = limits.plain(part)
        except Refused:
            shown[name] = f"<{limits.sort_of(part)}>"
    return shown


def update(graph, kind, key, t, by, values=None, relations=None, entry=None) -> dict:
    """Changes what it names from t on and keeps the rest; one receipt, as remember() gives.

    by must be a name and kind a Kind (else Refused, a ValueError), checked before
    anything is written. The rest is content: what cannot be stored gives an "invalid" receipt (with
    "key": None when the key is not one) and a stored WriteFailure, never an exception. A time before
    the current State is "stale" (its reason gives that State's start); an entity that does not exist
    yet is created with only what the update names; "busy" after 5 reads that each found another writer.
    """
    by = check_call(kind, by)
    raw: object = None
    try:  # exactly a str or an int, so no method of what was given runs
        checked_key = limits.written_key(key)
    except Refused:
        checked_key = None
    try:
        given = {"key": key, "t": t, "values": values, "relations": relations, "entry": entry}
        raw = limits.plain(given, "an update")
        checked_key, moment, plain, linked, checked_entry = _checked(kind, raw)
    except Refused as error:
        content = raw if raw is not None else _shown(given)
        keep_failures(graph, [Failure(error.reason, kind.label, checked_key, content, str(error), by)])
        return {"key": checked_key, "status": error.reason, "reason": str(error)}
    row = Row(0, checked_key, moment, {}, {}, checked_entry, raw)
    statuses: dict[int, str] = {}
    refusals: list[Failure] = []
    try:
        found = checked_entry is None or checked_entry in check_entries(graph, [row])
    except ResponseError as error:
        keep_failures(graph, [Failure("failed", kind.label, checked_key, raw, str(error), by)])
        return {"key": checked_key, "status": "failed", "reason": str(error)}
    if not found:
        message = f"the entry {checked_entry!r} does not exist"
        keep_failures(graph, [Failure("missing", kind.label, checked_key, raw, message, by)])
        return {"key": checked_key, "status": "missing", "reason": message}
    write_ready(graph, kind, by, [row], statuses, refusals, partial=_completed(kind, row, plain, linked))
    keep_failures(graph, refusals)
    status = statuses[0]
    found = receipt(checked_key, status, refusals[0].message if refusals else None)
    if status in ("stale", "busy") and refusals:
        found["reason"] = refusals[0].message or why(status)
    return found
