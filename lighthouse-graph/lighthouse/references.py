"""References: how episodes, handoffs and messages name an entity or a record, in the form reads give back."""

from __future__ import annotations

from .kinds import OWNED_LABELS, PLAIN_NAME, Kind
from .values import MAX_REFERENCES, Refused, key, name

# Records the library keeps, found by their id. Everything else named by a label is an entity.
RECORDS = frozenset({"Episode", "Entry", "Lesson", "Playbook", "Handoff", "Task"})


def parse(reference: object) -> tuple[str, str | int]:
    """(label, key) from (Kind, key), (label, key) or an entry id such as "d1-overheat/1"; else Refused."""
    if isinstance(reference, str):
        return ("Entry", name(reference, "an entry id"))
    if not isinstance(reference, tuple | list) or len(reference) != 2:
        raise Refused(f"a reference is (Kind, key), (label, id) or an entry id, not {str(reference)[:80]!r}")
    label, given = reference
    if isinstance(label, Kind):
        return (label.label, key(given, f"the key of a {label.label}"))
    if not isinstance(label, str) or not PLAIN_NAME.match(label):
        raise Refused(f"a reference's label must be a Kind or a plain name, not {str(label)[:80]!r}")
    if label in RECORDS:
        return (label, name(given, f"the id of a {label}"))
    if label in OWNED_LABELS:
        raise Refused(f"{label} cannot be referred to")
    return (label, key(given, f"the key of a {label}"))


def parse_all(references: object, what: str = "references") -> list[tuple[str, str | int]]:
    """Each reference parsed, duplicates dropped, in the order given; at most 200."""
    if references is None:
        return []
    if not isinstance(references, list | tuple):
        raise Refused(f"{what} must be a list")
    if len(references) > MAX_REFERENCES:
        raise Refused(f"{what} holds more than {MAX_REFERENCES} references")
    found: list[tuple[str, str | int]] = []
    for reference in references:
        parsed = parse(reference)
        if parsed not in found:
            found.append(parsed)
    return found


def is_record(label: str) -> bool:
    return label in RECORDS
