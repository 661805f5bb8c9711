"""A row checked and made ready for a query, and the comparable form of what a State holds."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from .. import clock, values
from ..kinds import Kind
from ..values import Refused

ROW_FIELDS = frozenset({"key", "t", "values", "relations", "entry"})


@dataclass
class Row:
    """One row: the full picture of one entity at time t."""

    index: int
    key: str | int
    t: datetime
    values: dict[str, object]  # plain values; times as stamp text
    relations: dict[str, frozenset]  # every declared relation: its targets (empty when closed)
    entry: str | None
    raw: object = field(repr=False, default=None)

    @property
    def content(self) -> tuple:
        return content_of(self.values, self.relations)


def typed(item: object) -> object:
    """A value with its type, so 1, 1.0, True and "1" never compare equal."""
    if isinstance(item, list | tuple):
        return ("list", tuple(typed(one) for one in item))
    return (type(item).__name__, item)


def content_of(given_values: dict, relations: dict) -> tuple:
    """What two States are compared by: their values and their relation targets."""
    return (
        tuple(sorted((name, typed(item)) for name, item in given_values.items())),
        tuple(
            sorted((rel, tuple(sorted(map(typed, targets)))) for rel, targets in relations.items() if targets)
        ),
    )


def text_of(kind: Kind, given_values: dict) -> str:
    """The text values of a kind, in the order the kind names them, one per line."""
    return "\n".join(str(given_values[name]) for name in kind.text if name in given_values)


def targets(kind: Kind, relation: object, given: object) -> frozenset:
    if not isinstance(relation, str) or relation not in kind.relations:
        raise Refused(f"{kind.label} has no relation {values.shown(relation)}")
    listed = (
        [] if given is None else given if isinstance(given, list | tuple) else [given]
    )  # None: no targets
    if len(listed) > values.MAX_TARGETS:
        raise Refused(f"{relation} has more than {values.MAX_TARGETS} targets")
    return frozenset(values.key(one, f"a target of {relation}") for one in listed)


def checked_values(kind: Kind, given: object) -> dict[str, object]:
    """The values of a row: checked, floats as they are read back, times in the one time format."""
    plain = values.values(given)  # floats already as they read back: values.stored_float()
    if kind.key in plain:
        raise Refused(f"the key {kind.key!r} is not a value")
    for name in kind.times:
        if name in plain:
            try:
                plain[name] = clock.stamp_of(clock.parse(plain[name]))
            except clock.TimeError as error:
                raise Refused(f"the time {name!r}: {error}") from None
    for name in kind.text:
        if name in plain and not isinstance(plain[name], str):
            raise Refused(f"the text {name!r} must be text")
    return plain


def checked_relations(kind: Kind, given: object) -> dict[str, frozenset]:
    if given is None:
        given = {}
    if not isinstance(given, dict):
        raise Refused("relations must be a dict of relation type -> target or list of targets")
    found = {relation: frozenset() for relation in kind.relations}
    for relation, listed in given.items():
        found[relation] = targets(kind, relation, listed)
    return found


def prepare(kind: Kind, index: int, raw: object, present: datetime, default_t: object = None) -> Row:
    """A Row from what the caller sent, or Refused saying what is wrong with it."""
    if not isinstance(raw, dict):
        raise Refused(f"a row is a dict, not {type(raw).__name__}")
    unknown = set(raw) - ROW_FIELDS
    if unknown:
        raise Refused(
            f"a row has no field {sorted(map(str, unknown))[0][:80]!r}; it has key, t, values, relations, entry"
        )
    if "key" not in raw:
        raise Refused("a row needs its key")
    key = values.key(raw["key"])
    moment = raw.get("t", default_t)
    if moment is None:
        raise Refused("a row needs its time t")
    try:
        t = clock.checked(moment, present_time=present)
    except clock.TimeError as error:
        raise Refused(str(error)) from None
    plain = checked_values(kind, raw.get("values"))
    relations = checked_relations(kind, raw.get("relations"))
    entry = raw.get("entry")
    if entry is not None:
        entry = values.name(entry, "an entry id")
    values.measured(raw)
    return Row(index, key, t, plain, relations, entry, raw)
