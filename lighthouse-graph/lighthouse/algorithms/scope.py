"""What a question about the graph reads: the labels of its nodes and the types of its edges, checked.

The nodes are the entities of the kinds asked about and of the kinds their relations point at; the
edges are the relations named, or every relation those kinds declare. Records (episodes, lessons) take
part only through ABOUT, and only when asked for.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import clock
from ..kinds import Kind
from ..values import Refused

ABOUT = "ABOUT"
RECORDS = ("Episode", "Lesson")  # the records with ABOUT edges to entities; found by their id
MAX_KINDS = 200
MAX_READ = 1_000_000  # relations and entities one answer may read


@dataclass(frozen=True)
class Scope:
    """The labels and types a question reads, sorted: also what its kept answer is keyed by."""

    labels: tuple[str, ...]
    types: tuple[str, ...]
    records: tuple[str, ...] = ()

    def at_one_time(self) -> Scope:
        """The same question at a time: records have no time, so neither they nor ABOUT take part."""
        return Scope(
            tuple(label for label in self.labels if label not in self.records),
            tuple(kind for kind in self.types if kind != ABOUT),
        )

    def label_test(self, variable: str) -> str:
        """Cypher that holds for a node of one of the labels (each label a checked plain name)."""
        return "(" + " OR ".join(f"{variable}:`{label}`" for label in self.labels) + ")"

    def type_pattern(self) -> str:
        return "|".join(f"`{kind}`" for kind in self.types)

    def key_of(self, variable: str) -> str:
        """A node's key: the key of an entity, the id of a record."""
        if not self.records:
            return f"{variable}.key"
        return f"CASE WHEN {variable}:Entity THEN {variable}.key ELSE {variable}.id END"

    def label_of(self, variable: str) -> str:
        return f"[one IN labels({variable}) WHERE one IN $labels][0]"


def held_at(edge: str) -> str:
    """Cypher: the edge held at the time $at: begun at or before it, and not ended by then."""
    return (
        f"{edge}.valid_from <= localdatetime($at) "
        f"AND ({edge}.valid_to IS NULL OR {edge}.valid_to > localdatetime($at))"
    )


def checked_kinds(kinds: object) -> list[Kind]:
    if isinstance(kinds, Kind):
        kinds = [kinds]
    if not isinstance(kinds, list | tuple) or not kinds:
        raise Refused("kinds must be a non-empty list of Kind")
    if len(kinds) > MAX_KINDS:
        raise Refused(f"kinds holds more than {MAX_KINDS} kinds")
    for kind in kinds:
        if not isinstance(kind, Kind):
            raise Refused(f"kinds must be a list of Kind, not of {type(kind).__name__}")
    return list(kinds)


def _names(given: object, what: str) -> list[str]:
    if isinstance(given, str):
        given = [given]
    if not isinstance(given, list | tuple) or not given:
        raise Refused(f"{what} is None or a non-empty list of names")
    if len(given) > MAX_KINDS:
        raise Refused(f"{what} holds more than {MAX_KINDS} names")
    for one in given:
        if not isinstance(one, str):
            raise Refused(f"{what} holds a {type(one).__name__}, not a name")
    return list(given)


def scope(kinds: object, relations: object = None, records: object = None) -> Scope:
    """The Scope of a question, or Refused naming what cannot be asked.

    relations: None for every relation the kinds declare (and ABOUT with records), else a list of them.
    records: None, or a list of "Episode" and "Lesson": they join through ABOUT, which must be named.
    """
    chosen_kinds = checked_kinds(kinds)
    declared = {relation: kind for kind in chosen_kinds for relation in kind.relations}
    chosen_records = []
    if records is not None:
        for record in _names(records, "records"):
            if record not in RECORDS:
                raise Refused(f"records are {' and '.join(RECORDS)}, not {ascii(record[:80])}")
            if record not in chosen_records:
                chosen_records.append(record)
    if relations is None:
        types = set(declared) | ({ABOUT} if chosen_records else set())
    else:
        types = set()
        for relation in _names(relations, "relations"):
            if relation == ABOUT and not chosen_records:
                raise Refused("ABOUT joins records to entities: name them in records")
            if relation != ABOUT and relation not in declared:
                labels = ", ".join(kind.label for kind in chosen_kinds)
                raise Refused(f"no kind of {labels} has the relation {ascii(relation[:80])}")
            types.add(relation)
        if chosen_records and ABOUT not in types:
            raise Refused("records take part through ABOUT: name it in relations")
    if not types:
        raise Refused("these kinds declare no relation: there is nothing to follow")
    labels = {kind.label for kind in chosen_kinds} | set(chosen_records)
    # A kind that declares the relation too adds its targets: the edges of one type go where any points.
    for kind in chosen_kinds:
        for relation in kind.relations:
            if relation in types:
                labels.add(kind.target(relation).label)
    return Scope(tuple(sorted(labels)), tuple(sorted(types)), tuple(sorted(chosen_records)))


def checked_most(most: object) -> int:
    """How many relations and entities an answer may read: at most 1,000,000, fewer when asked."""
    if isinstance(most, bool) or not isinstance(most, int) or not 1 <= most <= MAX_READ:
        raise Refused(f"most is a whole number from 1 to {MAX_READ:,}")
    return most


def moment(at: object) -> str:
    """The text of a time to ask at, or Refused."""
    try:
        return clock.stamp(clock.parse(at))
    except clock.TimeError as error:
        raise Refused(str(error)) from None
