"""A row checked and made ready for a query, and the comparable form (and fingerprint) of a State."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime

from .. import clock, values
from ..kinds import Kind
from ..values import Refused, WrongType

ROW_FIELDS = frozenset({"key", "t", "values", "relations", "entry"})


@dataclass(slots=True)
class Row:
    """One row: the full picture of one entity at time t (slots: a batch makes hundreds)."""

    index: int
    key: str | int
    t: datetime
    values: dict[str, object]  # plain values; times as stamp text
    relations: dict[str, frozenset]  # every declared relation: its targets (empty when closed)
    entry: str | None
    raw: object = field(repr=False, default=None)  # what the caller sent, checked plain (or a plain copy)
    size: int = 0  # characters of the row's JSON: what bounds the size of one query
    _fp: str | None = field(repr=False, default=None)
    made: tuple | None = field(repr=False, default=None)  # what a write takes of it: plans.content_of()
    _links_fp: str | None = field(repr=False, default=None)

    @property
    def fp(self) -> str:
        """The fingerprint of what the row says: equal fingerprints, equal content."""
        if self._fp is None:
            self._fp, self._links_fp = fingerprints(self.values, self.relations)
        return self._fp

    @property
    def links_fp(self) -> str:
        """The fingerprint of its relations alone (fingerprints()), made with fp."""
        if self._links_fp is None:
            self._fp, self._links_fp = fingerprints(self.values, self.relations)
        return self._links_fp

    @property
    def targets(self) -> int:
        return sum(len(listed) for listed in self.relations.values())


def typed(item: object) -> object:
    """A value with its type, so 1, 1.0, True and "1" never compare equal."""
    if isinstance(item, list | tuple):
        return ("list", tuple(typed(one) for one in item))
    return (type(item).__name__, item)


_SEQUENCES = (list, tuple)


def _typed_text(item: object) -> str:
    """repr(typed(item)), for a list value."""
    inner = [
        _typed_text(one) if type(one) in _SEQUENCES else f"({type(one).__name__!r}, {one!r})" for one in item
    ]
    return f"('list', {_tuple_text(inner)})"


def _tuple_text(parts: list[str]) -> str:
    """repr() of a tuple whose items have these reprs."""
    return f"({', '.join(parts)}{',' if len(parts) == 1 else ''})"


# Texts already made, by what they were made from: the rows of a batch mostly share their value names,
# and many their targets (one room, the same teams). Keys are checked names and keys (never a float, so no
# two keys of other types are equal). Each store holds at most MAX_TEXTS_KEPT, and a targets' text is kept
# only when short, so that what a caller sends can hold no more than some megabytes here.
_TARGETS_TEXTS: dict[frozenset, str] = {}
_VALUE_OPENINGS: dict[tuple[str, type], str] = {}
MAX_TEXTS_KEPT = 10_000
MAX_KEPT_TEXT = 200  # characters of a targets' text that is kept


def _targets_text(targets: frozenset) -> str:
    """repr() of the targets as (type, target) pairs, sorted (by the target alone when all are text)."""
    found = _TARGETS_TEXTS.get(targets)
    if found is not None:
        return found
    if all(type(one) is str for one in targets):
        found = _tuple_text([f"('str', {target!r})" for target in sorted(targets)])
    else:
        pairs = sorted([(type(one).__name__, one) for one in targets])
        found = _tuple_text([f"({sort!r}, {target!r})" for sort, target in pairs])
    if len(found) <= MAX_KEPT_TEXT and len(_TARGETS_TEXTS) < MAX_TEXTS_KEPT:
        _TARGETS_TEXTS[targets] = found
    return found


def _opening(name: str, sort: type) -> str:
    found = _VALUE_OPENINGS.get((name, sort))
    if found is None:
        found = f"({name!r}, ({sort.__name__!r}, "
        if len(_VALUE_OPENINGS) < MAX_TEXTS_KEPT:
            _VALUE_OPENINGS[(name, sort)] = found
    return found


def content_text(given_values: dict, relations: dict) -> str:
    """What two States are compared by, as text: their values and their non-empty relations' targets,
    each sorted by name and with its type, so 1, 1.0, True and "1" never compare equal.

    It is repr() of the tuple ((name, (type, value)) sorted by name, (relation, ((type, target) sorted))
    sorted by relation), the form every stored fingerprint was made from, written without building the
    tuples: 5.8 µs a row of 5 values and 4 targets where the tuples and their repr() took 8.8 µs.
    """
    return _whole_text(given_values, _links_text(relations))


def _whole_text(given_values: dict, linked: str) -> str:
    """content_text() from the values and the relations' text already made."""
    return f"({_values_text(given_values)}, {linked})"


def _values_text(given_values: dict) -> str:
    named = [
        f"({name!r}, {_typed_text(item)})"
        if type(item) in _SEQUENCES
        else f"{_opening(name, type(item))}{item!r}))"
        for name, item in sorted(given_values.items())  # names differ: only they are compared
    ]
    return _tuple_text(named)


def _links_text(relations: dict) -> str:
    linked = [
        f"({relation!r}, {_targets_text(targets)})"
        for relation, targets in sorted(relations.items())
        if targets
    ]
    return _tuple_text(linked)


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "backslashreplace"), digest_size=16).hexdigest()


def fingerprint(given_values: dict, relations: dict) -> str:
    """A short hex digest of a State's content (content_text): what a State and its entity keep as fp."""
    return _digest(content_text(given_values, relations))


def fingerprints(given_values: dict, relations: dict) -> tuple[str, str]:
    """fingerprint(), and the digest of the relations part of content_text() alone: what an entity keeps
    as lh.links_fp for its current State, so that a change that keeps every target reads no edge. The
    relations' text is made once for both."""
    linked = _links_text(relations)
    return _digest(_whole_text(given_values, linked)), _digest(linked)


def text_of(kind: Kind, given_values: dict) -> str:
    """The text values of a kind, in the order the kind names them, one per line."""
    return "\n".join(str(given_values[name]) for name in kind.text if name in given_values)


def checked_key(value: object, relation: str | None = None) -> str | int:
    """values.written_key(), with a fast path for the common name of printable ASCII, which holds no
    character of a Unicode C category and no line or paragraph separator: only its length and its ends
    are checked.
    relation: the key is a target of it (what a refusal says; the text is made only then)."""
    if (
        type(value) is str
        and 0 < len(value) <= values.MAX_NAME
        and value.isascii()
        and value.isprintable()
        and value[0] != " "
        and value[-1] != " "
    ):
        return value
    return values.written_key(value, "a key" if relation is None else f"a target of {relation}")


def targets(kind: Kind, relation: object, given: object) -> frozenset:
    if type(relation) is not str or relation not in kind.relations:
        raise Refused(f"{kind.label} has no relation {values.printable(relation)}")
    listed = [] if given is None else given if type(given) in (list, tuple) else [given]  # None: no targets
    if len(listed) > values.MAX_TARGETS:
        raise Refused(f"{relation} has more than {values.MAX_TARGETS} targets")
    return frozenset([checked_key(one, relation) for one in listed])


def checked_values(kind: Kind, given: object) -> dict[str, object]:
    """The values of a row: checked, floats as they are read back, times in the one time format. A value
    None means absent (API 1.2): its name is checked, and it is left out. A declared time is whatever
    stamp() takes (API 1.2, "time input"): text or a datetime, naive taken as UTC; blank text, like None,
    is a time not given, and left out."""
    # floats already as they read back: values.stored_float()
    plain = values.values(given, none_is_absent=True, times=kind.times)
    if kind.key in plain:
        raise Refused(f"the key {kind.key!r} is not a value")
    for name in kind.times:
        if name in plain:
            if not clock.given(plain[name]):  # blank text is a time not given (API 1.2): absent, as None
                del plain[name]
                continue
            try:
                plain[name] = clock.stamp_of(clock.parse(plain[name]))
            except (Refused, WrongType) as error:
                raise Refused(f"the time {name!r}: {error}") from None
    for name in kind.text:
        if name in plain and type(plain[name]) is not str:
            raise Refused(f"the text {name!r} must be text")
    return plain


def checked_relations(kind: Kind, given: object) -> dict[str, frozenset]:
    if given is None:
        given = {}
    if type(given) is not dict:
        raise Refused("relations must be a dict of relation type -> target or list of targets")
    found = {relation: frozenset() for relation in kind.relations}
    for relation, listed in given.items():
        found[relation] = targets(kind, relation, listed)
    return found


def key_of(raw: object) -> str | int | None:
    """The key of what a caller sent as a row when it is a valid key, else None; never raises."""
    try:
        if type(raw) is not dict:
            return None
        return values.key(dict.get(raw, "key"))
    except Exception:  # a key that is not one, or an object that fails when read: no key
        return None


def prepare(kind: Kind, index: int, raw: object, present: datetime, default_t: object = None) -> Row:
    """A Row from what the caller sent, or Refused saying what is wrong with it.

    Every check reads only values of exactly the builtin types (dict, list, tuple, str, int, float, bool,
    None, datetime), so no object of the caller's can run code of its own here. A dict whose every part
    passes is read as it is; anything else is first copied as plain values (values.plain), and an object
    that lies about its type or fails when read is refused there, with the reason that copy gives (a dict
    refused as it is is read again that way, so its reason is the same too).
    """
    if type(raw) is dict:
        try:
            return _checked_row(kind, index, raw, present, default_t)
        except Exception:  # said again from the plain copy, which tells what it is
            pass
    return _checked_row(kind, index, values.plain(raw, "a row"), present, default_t)


def _checked_row(kind: Kind, index: int, raw: object, present: datetime, default_t: object) -> Row:
    if type(raw) is not dict:
        raise Refused(f"a row is a dict, not {values.sort_of(raw)}")
    if not all(type(field) is str for field in raw):  # before a set reads them: no hash of the caller's
        raise Refused("a row's fields are text")
    if not ROW_FIELDS.issuperset(raw):
        unknown = set(raw) - ROW_FIELDS
        raise Refused(
            f"a row has no field {sorted(unknown)[0][:80]!r}; it has key, t, values, relations, entry"
        )
    if "key" not in raw:
        raise Refused("a row needs its key")
    key = checked_key(raw["key"])
    moment = raw.get("t", default_t)
    if not clock.given(moment):
        raise Refused("the time t of a row is missing")
    try:
        t = clock.checked(moment, present_time=present)
    except (Refused, WrongType) as error:
        raise Refused(str(error)) from None
    plain = checked_values(kind, raw.get("values"))
    relations = checked_relations(kind, raw.get("relations"))
    entry = raw.get("entry")
    if entry is not None:
        entry = values.entry_id(entry)
    size = values.measured(raw)  # of plain values only: every part was checked above
    return Row(index, key, t, plain, relations, entry, raw, size)
