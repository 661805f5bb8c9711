"""Kind: what one sort of entity looks like, and the names the library keeps for itself."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# A label, a relation type or a property name is put into query text, so it must be a plain identifier.
# \Z, not $: $ also matches before a final newline, which would let "Device\n" into a query.
PLAIN_NAME = re.compile(r"\A[A-Za-z][A-Za-z0-9_]{0,63}\Z")

# Property names the library writes on entities, States and records: a value may not use them.
OWNED_NAMES = frozenset(
    {
        "key",
        "rev",
        "by",
        "valid_from",
        "valid_to",
        "seen_last",
        "recorded_at",
        "entry",
        "words",
        "embedding",
        "model",
        "kind",
        "text_hash",
    }
)

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
        "Candidate",
    }
)


# Relation types the library's own edges use: a Kind may not declare one, or its edges would be read
# as States, entries or records (and those as its targets).
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
        "DRAWN_FROM",
        "REPLACES",
        "SHOWN_IN",
        "PROMOTED_BY",
    }
)


class _Self:
    """Marks a relation whose targets are of the kind that declares it."""

    def __repr__(self) -> str:
        return "SELF"


SELF = _Self()


def _plain(name: object, what: str) -> str:
    if not isinstance(name, str) or not PLAIN_NAME.match(name):
        raise ValueError(f"{what} must be a plain name (a letter, then letters, digits or _): {name!r}")
    return name


@dataclass(frozen=True, eq=False)
class Kind:
    """One sort of entity: its label, the name of its key, and what its values and relations mean.

    times: values that are instants (stored as times); text: values that are searched by words
    and, with dimensions, by meaning; relations: relation type -> Kind of its targets (or SELF).
    """

    label: str
    key: str = "key"
    times: tuple[str, ...] = ()
    text: tuple[str, ...] = ()
    relations: dict[str, Kind | _Self] = field(default_factory=dict)
    dimensions: int | None = None

    def __post_init__(self) -> None:
        _plain(self.label, "a kind's label")
        if self.label in OWNED_LABELS or self.label.endswith("ToEmbed"):
            raise ValueError(f"the label {self.label!r} belongs to the library")
        _plain(self.key, "a kind's key name")
        if self.key != "key" and self.key in OWNED_NAMES:
            raise ValueError(f"the key name {self.key!r} belongs to the library")
        for group, names in (("times", self.times), ("text", self.text)):
            if isinstance(names, str) or not isinstance(names, tuple):
                raise ValueError(f"{group} must be a tuple of names")
            for name in names:
                _plain(name, f"a name in {group}")
                if name in OWNED_NAMES or name == self.key:
                    raise ValueError(f"{name!r} in {group} belongs to the library or is the key")
        if set(self.times) & set(self.text):
            raise ValueError("a value cannot be both a time and a text")
        if not isinstance(self.relations, dict):
            raise ValueError("relations must be a dict of relation type -> Kind")
        for relation, target in self.relations.items():
            _plain(relation, "a relation type")
            if relation.upper() != relation:
                raise ValueError(f"a relation type is written in capitals: {relation!r}")
            if relation in OWNED_RELATIONS:
                raise ValueError(f"the relation type {relation!r} belongs to the library")
            if not (isinstance(target, Kind) or target is SELF):
                raise ValueError(f"the target of {relation} must be a Kind or SELF")
        if self.dimensions is not None and (
            not isinstance(self.dimensions, int)
            or isinstance(self.dimensions, bool)
            or not 1 <= self.dimensions <= 4096
        ):
            raise ValueError("dimensions must be a whole number from 1 to 4096")
        if self.dimensions is not None and not self.text:
            raise ValueError("a kind with dimensions needs text values to embed")

    def target(self, relation: str) -> Kind:
        """The kind of the targets of a relation this kind declares."""
        if relation not in self.relations:
            raise ValueError(f"{self.label} has no relation {relation!r}")
        found = self.relations[relation]
        return self if found is SELF else found  # type: ignore[return-value]

    @property
    def embed_label(self) -> str:
        """The label an entity carries while its text waits for a vector."""
        return f"{self.label}ToEmbed"

    def __repr__(self) -> str:
        return f"Kind({self.label!r}, key={self.key!r})"
