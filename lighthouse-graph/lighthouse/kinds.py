"""Kind: what one sort of entity looks like, and the names the library keeps for itself."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from .errors import Refused, WrongType

# A label, a relation type or a property name is put into query text, so it must be a plain identifier.
# \Z, not $: $ also matches before a final newline, which would let "Device\n" into a query.
PLAIN_NAME = re.compile(r"\A[A-Za-z_][A-Za-z0-9_]{0,99}\Z")

# The names the library writes beside the values of an entity or a State: no key, time, text or value
# may take one of them (nor "key", which every entity keeps beside its kind's own key name).
ENGINE_NAMES = frozenset({"fp", "valid_from", "valid_to", "recorded_at", "by", "seen_last", "entry", "words"})

# Properties the library keeps for itself on entities and States under names no value can take (a
# property name of a value is a plain identifier, and these hold a dot), so every value name the
# published API allows is free: "kind", "model" or "rev" are values like any other.
INTERNAL = "lh."
REVISION = "lh.rev"  # one more on every write of the entity: the guard of a write against another
# On an entity: the digest of its current State's relations (rows.fingerprints()). A change whose row names
# the same targets reads none of the entity's edges; an entity without it (written before) reads them all.
LINKS_FP = "lh.links_fp"
STATE_KIND = "lh.kind"  # the label of the entity a State belongs to
VECTOR = "lh.vector"  # the vector of a text (on the node of an entity's vector, and on an entry)
VECTOR_MODEL = "lh.model"  # the model that vector comes from
VECTOR_OF = "LH_VECTOR"  # from an entity to the node that holds the vector of its text
ENTRY_PARTS = "EntryVector"  # the vectors of a long entry's parts after the first (no Kind ends in Vector)
# A State a model drew is a candidate until a person reviews it (review.py). Structured rows carry no mark:
# they are confirmed. What a read shows of the marks goes under TRUST_SHOWN names, which only marked States
# hold (a candidate row may not use them as values), so a structured State keeps every value name free.
TRUST = "lh.trust"  # "candidate" or "rejected", or "confirmed" once reviewed
REVIEWED_BY = "lh.reviewed_by"
REVIEWED_AT = "lh.reviewed_at"
REVIEW_WHY = "lh.review_why"
TRUST_SHOWN = ("trust", "review")
TRUST_MARKS = (TRUST, REVIEWED_BY, REVIEWED_AT, REVIEW_WHY)


def trust_shown(props: dict, from_store) -> dict:
    """What a read shows of a State's trust marks: {} for a structured State never reviewed; else
    {"trust"} and, once reviewed, {"review": {"trust", "by", "at", "why"}}. from_store reads a time."""
    trust = props.get(TRUST)
    if trust is None:
        return {}
    shown: dict = {"trust": trust}
    if props.get(REVIEWED_BY) is not None:
        at = props.get(REVIEWED_AT)
        shown["review"] = {
            "trust": trust,
            "by": props[REVIEWED_BY],
            "at": None if at is None else from_store(at),
            "why": props.get(REVIEW_WHY),
        }
    return shown


OWNED_NAMES = ENGINE_NAMES | {"key", REVISION, STATE_KIND, VECTOR, VECTOR_MODEL}


def is_owned(name: str) -> bool:
    """True for a property the library writes, false for a value of the application."""
    return name in OWNED_NAMES or name.startswith(INTERNAL)


# Labels the library owns: a Kind may not take one of them.
OWNED_LABELS = frozenset(
    {
        "Entity",
        "State",
        "Episode",
        "Entry",
        "Agent",
        "Handoff",
        "Task",
        "Session",
        "Message",
        "Reference",
        "WriteFailure",
        "Stamp",
        "Lesson",
        "Playbook",
        "Step",
        "Trigger",
    }
)


# Relation types the library's own edges use (ensure_schema() registers each).
OWNED_RELATIONS = frozenset(
    {
        "HAS_STATE",
        "NEXT",
        "FROM",
        "ABOUT",
        "HAS",
        "CITES",
        "WROTE",
        "GAVE",
        "TO",
        "POINTS_TO",
        "CLAIMED_BY",
        "AFTER",
        "MENTIONS",
        "READ_BY",
        "SUPPORTED_BY",
        "CONTRADICTED_BY",
        "USED_IN",
        "RAN_IN",
        "REPLACES",
        # Edges a graph written before keeps: a playbook's episodes, and what promotion counted.
        "DRAWN_FROM",
        "SHOWN_IN",
        "PROMOTED_BY",
        "LH_TALLY",  # the counters of a Session, an Episode and the Stamp, on a loop edge
        VECTOR_OF,  # an entity to the node that holds its vector
    }
)


# The relation types a Kind may not declare: those whose edges leave an entity or a State (a kind's HAS_STATE
# would read its targets as States, and its States as targets), and the library's LH_ names. The rest of
# OWNED_RELATIONS join the library's own records, and the library's queries over them name those records'
# labels, which no Kind takes: a kind's ABOUT, HAS or CITES between entities meets none of them (API 2.1
# refuses only HAS_STATE and NEXT).
RESERVED_RELATIONS = frozenset({"HAS_STATE", "NEXT", VECTOR_OF, "LH_TALLY"})


# A relation target that means the kind that declares it; at construction it becomes the Kind itself.
SELF = "self"


_TYPE_NAME = type.__dict__["__name__"]


def _sort_of(given: object) -> str:
    """The name of the type of what was given: no metaclass can lie about it or raise."""
    return _TYPE_NAME.__get__(type(given))


def _plain(name: object, what: str) -> str:
    if type(name) is not str or not PLAIN_NAME.match(name):
        # Only exact text is shown: the repr of anything else could raise or lie.
        shown = ascii(name[:80]) if type(name) is str else _sort_of(name)
        raise Refused(f"{what} must be a property name ([A-Za-z_][A-Za-z0-9_]{{0,99}}): {shown}")
    return name


def _names(names: object, group: str) -> tuple[str, ...]:
    # Exactly a list or tuple: a subclass could raise or lie when it is read.
    if type(names) not in (list, tuple):
        raise WrongType(f"{group} must be a tuple or list of names, not {_sort_of(names)}")
    return tuple(_plain(name, f"a name in {group}") for name in names)


@dataclass(frozen=True, eq=False)
class Kind:
    """One sort of entity: its label, the name of its key, and what its values and relations mean.

    times: values that are instants (stored as times); relations: relation type -> Kind of its targets
    (or SELF); text: values that are searched by words and, with dimensions, by meaning.
    Raises WrongType (a TypeError) for a container of the wrong sort, Refused (a ValueError) for a name.
    """

    label: str
    key: str = "key"
    times: tuple[str, ...] = ()
    relations: Mapping[str, Kind] = field(default_factory=dict)
    text: tuple[str, ...] = ()
    dimensions: int = 0

    def __post_init__(self) -> None:
        _plain(self.label, "a kind's label")
        if self.label in OWNED_LABELS or self.label.endswith(("ToEmbed", "Vector")):
            raise Refused(f"the label {self.label!r} belongs to the library")
        _plain(self.key, "a kind's key name")
        times, text = _names(self.times, "times"), _names(self.text, "text")
        if self.key in ENGINE_NAMES:
            raise Refused(f"the key name {self.key!r} belongs to the library")
        for group, names in (("times", times), ("text", text)):
            for name in names:
                if name in ENGINE_NAMES:
                    raise Refused(f"{name!r} in {group} belongs to the library")
                if name in ("key", self.key):  # every entity keeps its key under "key" too
                    raise Refused(f"the key {name!r} cannot also be in {group}")
        if set(times) & set(text):
            raise Refused("a value cannot be both a time and a text")
        # Exactly a dict, copied now: a subclass could raise or lie when it is read, and a change the
        # caller makes to the dict later must not change the kind.
        if type(self.relations) is not dict:
            raise WrongType(
                f"relations must be a dict of relation type -> Kind, not {_sort_of(self.relations)}"
            )
        targets: dict[str, Kind] = {}
        for relation, target in dict.items(self.relations):
            _plain(relation, "a relation type")
            if relation in RESERVED_RELATIONS:
                raise Refused(f"the relation type {relation!r} belongs to the library")
            # type(), str.__eq__ and is_kind(): a target cannot pass as text or a Kind, or compare, by a lie.
            if issubclass(type(target), str) and str.__eq__(target, SELF) is True:
                target = self
            elif not is_kind(target):
                raise WrongType(f"the target of {relation} must be a Kind or SELF, not {_sort_of(target)}")
            targets[relation] = target
        if type(self.dimensions) is not int or not 0 <= self.dimensions <= 4096:
            raise Refused("dimensions must be a whole number from 0 to 4096")
        if self.dimensions and not text:
            raise Refused("a kind with dimensions needs text values to embed")
        object.__setattr__(self, "times", times)
        object.__setattr__(self, "text", text)
        object.__setattr__(self, "relations", MappingProxyType(targets))

    def target(self, relation: str) -> Kind:
        """The kind of the targets of a relation this kind declares."""
        if type(relation) is not str or relation not in self.relations:
            shown = ascii(relation[:80]) if type(relation) is str else _sort_of(relation)
            raise Refused(f"{self.label} has no relation {shown}")
        return self.relations[relation]

    @property
    def embed_label(self) -> str:
        """The label an entity carries while its text waits for a vector."""
        return f"{self.label}ToEmbed"

    @property
    def vector_label(self) -> str:
        """The label of the nodes that hold the vectors of this kind's entities (and its vector index).

        Not the entity itself: FalkorDB 4.22.1 indexes a node again in every index of its labels at each
        property SET, and a vector of 1,536 numbers made every change of an entity cost 2 ms more."""
        return f"{self.label}Vector"

    def __repr__(self) -> str:
        return f"Kind({self.label!r}, key={self.key!r})"


def is_kind(given: object) -> bool:
    """True for exactly a Kind. Not isinstance(), which an object's __class__ property fools, and not a
    subclass, whose fields could read one way when checked and another when a query is built."""
    return type(given) is Kind
