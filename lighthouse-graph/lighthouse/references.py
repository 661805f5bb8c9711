"""References: how episodes, handoffs and messages name an entity or a record, in the form reads give back.

A reference is (label, key): an entity by its Kind's label and key, or a record (an entry, an episode, a
lesson, a playbook, a handoff, a task) by its label and id. An entry can also be named by its id alone.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from .errors import ReceiptMismatch
from .graphs import read
from .kinds import OWNED_LABELS, PLAIN_NAME, is_kind
from .values import MAX_REFERENCES, Refused, entry_id, key, name, printable

# Records the library keeps, found by their id. Everything else named by a label is an entity.
RECORDS = frozenset({"Episode", "Entry", "Lesson", "Playbook", "Handoff", "Task"})
# The records a caller names by a text label (API 1.2, "reference (input)"); an entity is named by its Kind.
NAMED_RECORDS = ("Entry", "Episode", "Lesson", "Playbook")

Reference = tuple[str, str | int]


def parse(reference: object, *, entity_label: bool = True) -> Reference:
    """(label, key) from (Kind, key), (label, id) of a record (Entry, Episode, Lesson, Playbook) or an
    entry id such as "d1-overheat/1"; else Refused. entity_label: ("Device", "d1") names an entity too,
    as the reads that take an entity's label for its kind allow; a reference a caller gives (API 1.2,
    parse_all() and said_about()) is parsed without it, and names an entity by its Kind only.

    Refused too for an object that fails when it is read (a list whose len() raises, say): hostile input
    costs a refusal, never an error of another kind.
    """
    try:
        return _parsed(reference, entity_label)
    except Refused:
        raise
    except Exception as error:  # what the caller gave could not even be read
        raise Refused(f"a reference could not be read: {type(error).__name__}") from None


def _parsed(reference: object, entity_label: bool) -> Reference:
    if type(reference) is str:
        return ("Entry", entry_id(reference))
    if type(reference) not in (tuple, list) or len(reference) != 2:
        raise Refused(f"a reference is (Kind, key), (label, id) or an entry id, not {printable(reference)}")
    label, given = reference
    if is_kind(label):
        return (label.label, key(given, f"the key of a {label.label}"))
    if type(label) is not str or not PLAIN_NAME.match(label):
        raise Refused(f"a reference's label must be a Kind or a plain name, not {printable(label)}")
    if label == "Entry":
        return (label, entry_id(given, "the id of an Entry"))
    if label in NAMED_RECORDS:
        return (label, name(given, f"the id of a {label}"))
    if label in OWNED_LABELS:
        raise Refused(f"{label} cannot be referred to")
    if not entity_label:
        raise Refused(
            f"an entity is named by its Kind, (Kind, key), and a record by one of {', '.join(NAMED_RECORDS)}: "
            f"not {printable(label)}"
        )
    return (label, key(given, f"the key of a {label}"))


def parse_all(references: object, what: str = "references", *, entity_label: bool = True) -> list[Reference]:
    """Each reference parsed (parse(), with entity_label), duplicates dropped, in the order given; at most
    200; one label named by Kinds of two key names is refused. Refused otherwise. What a caller gives is
    parsed without entity_label (API 1.2); the pairs the library itself kept as text (a lesson's about, as
    promotion tallies it) need it."""
    try:
        return _parsed_all(references, what, entity_label)
    except Refused:
        raise
    except Exception as error:  # a list that fails when it is read
        raise Refused(f"{what} could not be read: {type(error).__name__}") from None


def _parsed_all(references: object, what: str, entity_label: bool) -> list[Reference]:
    if type(references) not in (list, tuple):
        raise Refused(f"{what} must be a list or tuple, not {type(references).__name__}")
    if len(references) > MAX_REFERENCES:
        raise Refused(f"{what} holds more than {MAX_REFERENCES} references")
    found: list[Reference] = []
    seen: set[tuple[str, str, str | int]] = set()
    key_names: dict[str, str] = {}  # the key's name of each label a Kind names
    for reference in references:
        parsed = parse(reference, entity_label=entity_label)
        # One label is one kind (API 2.2): two key names for it are two kinds that cannot both be.
        if is_kind(reference[0]) and key_names.setdefault(parsed[0], reference[0].key) != reference[0].key:
            raise Refused(f"{what} names {parsed[0]} with two different keys")
        # 1 and "1" are different keys; a set of plain tuples would take 1 and True as one.
        marker = (parsed[0], type(parsed[1]).__name__, parsed[1])
        if marker not in seen:
            seen.add(marker)
            found.append(parsed)
    return found


def is_record(label: str) -> bool:
    return label in RECORDS


def ordered(references: list[Reference]) -> list[Reference]:
    """References as tuples, without duplicates, sorted by str() of the tuple: the order reads give."""
    unique = {(ref[0], type(ref[1]).__name__, ref[1]): (ref[0], ref[1]) for ref in references}
    return sorted(unique.values(), key=str)


def pattern(label: str, variable: str, key_expression: str) -> str:
    """The node pattern that finds what a reference names: a record by its id, an entity by its key.

    label must come from parse(), which lets only plain names through: it is put into the query text.
    """
    if not PLAIN_NAME.match(label):
        raise Refused(f"not a plain label: {label[:80]!r}")
    if label in RECORDS:
        return f"({variable}:`{label}` {{id: {key_expression}}})"
    return f"({variable}:`{label}`:Entity {{key: {key_expression}}})"


# Up to this many references are found by one OPTIONAL MATCH each: measured on 4.22.1 at 20,000 nodes,
# a CALL {} with UNWIND cost 0.05 ms more inside FalkorDB per label than an OPTIONAL MATCH, and a second
# label in the pattern (`:Kind:Entity`) 0.03 ms more than a label test after the index lookup.
FEW = 4


def _matched_one_by_one(references: list[Reference]) -> tuple[str, dict]:
    """One OPTIONAL MATCH each: the n-th reference's node is ref_node_<n>, null when it names nothing."""
    labels: list[str] = []
    params: dict = {}
    for place, (label, given) in enumerate(references):
        labels.append(label)
        params[f"ref_key_{place}"] = given
    return _matched_clause(tuple(labels)), params


@lru_cache(maxsize=256)
def _matched_clause(labels: tuple[str, ...]) -> str:
    parts: list[str] = []
    for place, label in enumerate(labels):
        node, key = f"ref_node_{place}", f"ref_key_{place}"
        if label in RECORDS:
            parts.append(f"OPTIONAL MATCH {pattern(label, node, '$' + key)} ")
        else:
            if not PLAIN_NAME.match(label):
                raise Refused(f"not a plain label: {label[:80]!r}")
            parts.append(f"OPTIONAL MATCH ({node}:`{label}` {{key: ${key}}}) WHERE {node}:Entity ")
    return "".join(parts)


def _found_one_by_one(references: list[Reference], into: str, places: bool) -> tuple[str, dict]:
    matched, params = _matched_one_by_one(references)
    if not places:
        nodes = ", ".join(f"ref_node_{place}" for place in range(len(references)))
        return matched + f"WITH [node IN [{nodes}] WHERE node IS NOT NULL] AS {into} ", params
    pairs = ", ".join(f"[ref_node_{place}, {place}]" for place in range(len(references)))
    return matched + f"WITH [pair IN [{pairs}] WHERE pair[0] IS NOT NULL] AS {into} ", params


def finding(references: list[Reference], into: str = "found", places: bool = False) -> tuple[str, dict]:
    """Cypher that starts a query and binds `into` to the list of referenced nodes that exist.

    places: each item is [node, place] instead, place the reference's position in the list, so the caller
    knows which were found. Nodes alone let a write make its edges with one FOREACH over them (each
    FOREACH of a query cost FalkorDB 4.22.1 about 8 µs a call, taken or not). A few references: one
    OPTIONAL MATCH each. More: one CALL {} per label, each with variables of its own (FalkorDB 4.22 lets a
    name bound inside CALL {} clash with the same name later). Compare size(into) with len(references) to
    know all exist.
    """
    if 0 < len(references) <= FEW:
        return _found_one_by_one(references, into, places)
    by_label: dict[str, list[dict]] = {}
    for place, (label, given) in enumerate(references):
        by_label.setdefault(label, []).append({"key": given, "place": place})
    parts: list[str] = []
    params: dict = {}
    lists: list[str] = []
    for number, label in enumerate(sorted(by_label)):
        keys, node, found = f"ref_keys_{number}", f"ref_node_{number}", f"ref_found_{number}"
        params[keys] = by_label[label]
        parts.append(
            f"CALL {{ UNWIND ${keys} AS ref_key_{number} "
            f"MATCH {pattern(label, node, f'ref_key_{number}.key')} "
            f"RETURN collect({f'[{node}, ref_key_{number}.place]' if places else node}) AS {found} }} "
        )
        lists.append(found)
    return "".join(parts) + f"WITH {' + '.join(lists) or '[]'} AS {into} ", params


def existing(graph, references: list[Reference]) -> set[Reference]:
    """The references (as parse() gives them) that name a node in the graph: one read for all of them."""
    if not references:
        return set()
    clause, params = finding(references, places=True)
    result = read(graph, clause + "UNWIND found AS pair RETURN DISTINCT pair[1]", params)
    return {references[row[0]] for row in result}


def missing(graph, references: list[Reference]) -> list[Reference]:
    """The references that name nothing in the graph, in the order given: one read."""
    found = existing(graph, references)
    return [reference for reference in references if reference not in found]


def from_store(labels: list[str], record_id: object, entity_key: object) -> Reference:
    """A reference from what a query returned of a node: labels(x), x.id, x.key."""
    for label in labels:
        if label in RECORDS:
            return (label, record_id)
    for label in labels:
        if label != "Entity" and not label.endswith("ToEmbed"):
            return (label, entity_key)
    raise Refused(f"a node with labels {labels!r} is not something a reference can name")


def stored_references(listed: list) -> list[Reference]:
    """References from a collected list of [labels(x), x.id, x.key] (nulls skipped), sorted."""
    return ordered([from_store(*item) for item in listed if item is not None])


def describe(reference: Reference) -> str:
    """A reference as text for a receipt's reason."""
    return f"{reference[0]} {reference[1]!r}"


def made_where_found(
    graph, things: list, old: str, making: str, linking: Callable[[str], str], params: dict
) -> str:
    """Makes a record only when it is not there yet and every reference names a node, in one query:
    "made", "exists" or "missing".

    old: the pattern of the record that must not exist yet, its variable `old` ("(old:Episode {id: $id})").
    making: the Cypher that writes it, and makes at least one node. linking(node): the Cypher that links it
    to the node of one reference. A few references are matched one by one and named in the write itself;
    more, by finding(), as a list. The query always answers one row, whether old was there: measured on
    FalkorDB 4.22.1 (bench/beside_shapes.py's open_episode(), 2026-12-04), a RETURN of that row only when
    the write was refused (a WITH ... WHERE before it) cost 0.02 ms more inside FalkorDB a call, and its
    text, built again each call, 0.02 ms of Python. A database error passes as ResponseError.
    """
    if len(things) <= FEW:
        clause, found = _matched_one_by_one(things)
    else:
        clause, found = finding(things)
    written = graph.query(_making(clause, len(things), old, making, linking), {**found, **params})
    if not written.result_set:
        raise ReceiptMismatch("the write made nothing and did not say why")
    existed, made = written.result_set[0]
    if made:
        return "made"
    return "exists" if existed else "missing"


@lru_cache(maxsize=256)
def _making(clause: str, count: int, old: str, making: str, linking: Callable[[str], str]) -> str:
    """made_where_found()'s query after the clause that finds count references (one by one up to FEW)."""
    if count <= FEW:
        nodes = [f"ref_node_{place}" for place in range(count)]
        ready = " AND ".join(["old IS NULL", *(f"{node} IS NOT NULL" for node in nodes)])
        links = " ".join(linking(node) for node in nodes)
    else:
        ready = f"old IS NULL AND size(found) = {count}"
        links = f"FOREACH (thing IN found | {linking('thing')})"
    return (
        f"{clause}OPTIONAL MATCH {old} "
        f"FOREACH (writing IN CASE WHEN {ready} THEN [1] ELSE [] END | {making} {links}) "
        f"RETURN old IS NOT NULL, {ready}"
    )
