"""What a question about the graph reads: the labels of its nodes and the types of its edges, checked.

The nodes are the entities of the kinds asked about and of the kinds their relations point at, and the
records asked for; the edges are the relations named, or every relation those kinds declare (and, with
records, the edges of records). Every argument is checked here, before any query is built: a container
of the wrong sort raises WrongType, a bad value Refused, and nothing else is raised, whatever the
object given does when it is read.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from redis.exceptions import ResponseError

from .. import clock
from ..errors import Refused, TooSlow, WrongType
from ..kinds import Kind, is_kind

ABOUT = "ABOUT"
# The edges of the library's records that a question may follow, and the records that take part.
RECORD_EDGES = ("ABOUT", "HAS", "CITES", "SUPPORTED_BY", "CONTRADICTED_BY", "USED_IN", "RAN_IN")
RECORD_LABELS = ("Entry", "Episode", "Lesson", "Playbook")  # found by their id, not a key
ENTITY = "entity"  # in _RECORD_ENDS: any label of an entity
# Where each edge of records goes: (label of the start, label of the end).
_RECORD_ENDS = {
    "ABOUT": (("Episode", ENTITY), ("Lesson", ENTITY)),
    "HAS": (("Episode", "Entry"),),
    "CITES": (("Entry", ENTITY), ("Entry", "Entry"), ("Entry", "Episode")),
    "SUPPORTED_BY": (("Lesson", "Episode"), ("Playbook", "Episode")),
    "CONTRADICTED_BY": (("Lesson", "Episode"),),
    "USED_IN": (("Lesson", "Episode"),),
    "RAN_IN": (("Playbook", "Episode"),),
}
MAX_KINDS = 200
MAX_RELATIONS = 200
MAX_READ = 1_000_000  # relations and entities one answer may read
STOP_AFTER = 5_000  # milliseconds FalkorDB lets one read of a question run (API 1.4)


@dataclass(frozen=True)
class Scope:
    """The labels and types a question reads, sorted: also what its kept answer is keyed by."""

    labels: tuple[str, ...]
    types: tuple[str, ...]
    records: tuple[str, ...] = ()
    # (label of the start, type, label of the end) of every edge the question reads: a pattern with
    # both labels is read from FalkorDB's matrices, where a test of the end's labels reads each edge.
    ends: tuple[tuple[str, str, str], ...] = ()

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


def checked_kinds(kinds: object, *, empty: bool = False) -> list[Kind]:
    """kinds as a list: WrongType unless exactly a list or tuple of Kind; Refused when empty (unless
    empty is allowed) or longer than 200."""
    if type(kinds) not in (list, tuple):
        raise WrongType(f"kinds must be a list of Kind, not {type(kinds).__name__}")
    chosen = list(kinds)  # exactly a list or tuple: reading it runs nothing of the caller's
    for kind in chosen:
        if not is_kind(kind):
            raise WrongType(f"kinds must be a list of Kind, not of {type(kind).__name__}")
    if not chosen and not empty:
        raise Refused("kinds must hold at least one kind")
    if len(chosen) > MAX_KINDS:
        raise Refused(f"kinds holds more than {MAX_KINDS} kinds")
    return chosen


def checked_records(records: object) -> tuple[str, ...]:
    if type(records) not in (list, tuple):
        raise WrongType(f"records must be a list or tuple of record labels, not {type(records).__name__}")
    found: list[str] = []
    for record in list(records):
        if type(record) is not str or record not in RECORD_LABELS:
            shown = ascii(record[:80]) if type(record) is str else type(record).__name__
            raise Refused(f"{shown} is not a record: records are {', '.join(RECORD_LABELS)}")
        if record not in found:
            found.append(record)
    return tuple(sorted(found))


def _named(relations: object, declared: set[str]) -> set[str]:
    if type(relations) not in (list, tuple) or len(relations) > MAX_RELATIONS:
        raise Refused(f"relations must be a list or tuple of at most {MAX_RELATIONS} relation types")
    if not relations:
        raise Refused("relations is empty: there is no relation to follow")
    named = set()
    for relation in list(relations):
        if type(relation) is not str or (relation not in declared and relation not in RECORD_EDGES):
            shown = ascii(relation[:80]) if type(relation) is str else type(relation).__name__
            raise Refused(f"{shown} is not a relation of these kinds")
        named.add(relation)
    return named


def scope(kinds: list[Kind], relations: object = None, records: tuple[str, ...] = ()) -> Scope:
    """The Scope of a question over checked kinds and records, or Refused naming what cannot be asked.

    relations: None for every relation the kinds declare (and every record edge, with records), else a
    list or tuple of relation types, each declared by one of the kinds or an edge of records.
    """
    declared = {relation for kind in kinds for relation in kind.relations}
    if relations is None:
        types = declared | (set(RECORD_EDGES) if records else set())
    else:
        types = _named(relations, declared)
    if not types:
        raise Refused("these kinds declare no relation: there is no relation to follow")
    labels = {kind.label for kind in kinds} | set(records)
    ends = set()
    # A kind that declares the relation too adds its targets: the edges of one type go where any points.
    for kind in kinds:
        for relation, target in kind.relations.items():
            if relation in types:
                labels.add(target.label)
                ends.add((kind.label, relation, target.label))
    entities = labels - set(RECORD_LABELS)
    for relation in types:
        for start, end in _RECORD_ENDS.get(relation, ()):
            for label in sorted(entities) if end == ENTITY else [end]:
                if start in labels and label in labels:
                    ends.add((start, relation, label))
    return Scope(tuple(sorted(labels)), tuple(sorted(types)), records, tuple(sorted(ends)))


def timed(chosen: Scope) -> Scope:
    """The scope of a question at one time: records have no time, so neither they nor their edges may.
    A kind's own relation of a name the records' edges use too (a Paper's ABOUT a Topic) has its time."""
    own = {
        kind for start, kind, end in chosen.ends if start not in RECORD_LABELS and end not in RECORD_LABELS
    }
    if chosen.records or any(kind in RECORD_EDGES and kind not in own for kind in chosen.types):
        raise Refused("records have no time: with at, no records and no edges of records take part")
    return chosen


def checked_most(most: object) -> int:
    """How many relations and entities an answer may read: at most 1,000,000, fewer when asked."""
    if type(most) is not int or not 1 <= most <= MAX_READ:
        raise Refused(f"most must be a whole number from 1 to {MAX_READ}")
    return most


def asked_at(at: object) -> str:
    """The text of a time to ask at: Refused (a ValueError) or WrongType (a TypeError) when it is not one."""
    return clock.stamp_of(clock.looked_at(at, "at"))


@contextmanager
def in_time() -> Iterator[None]:
    """Around the reads of a question, each sent with timeout=STOP_AFTER: one that FalkorDB stopped
    raises TooSlow (a ResponseError); any other error of the database passes as it is."""
    try:
        yield
    except TooSlow:
        raise
    except ResponseError as error:
        if "timed out" in str(error).lower():
            raise TooSlow(f"the question ran longer than {STOP_AFTER:,} ms and was stopped") from None
        raise
