"""world(), tenant(), ensure_schema(): which graph, and the indexes and the Stamp it needs."""

from __future__ import annotations

import re
import time
import uuid

from redis.exceptions import ResponseError

from .kinds import OWNED_RELATIONS, Kind
from .values import Refused, shown, whole

WORLD = "world"
# \Z, not $: $ also matches before a final newline, and "acme\n" would name another graph.
_TENANT = re.compile(r"\A[a-z0-9][a-z0-9_-]{0,62}\Z")
TENANT_PREFIX = "tenant:"

# (label, property) pairs every graph gets a range index on: how records are found by id or key.
_RECORD_INDEXES = (
    ("State", "valid_from"),
    ("State", "by"),
    ("Entry", "id"),
    ("Entry", "serial"),
    ("Episode", "id"),
    ("Agent", "name"),
    ("Handoff", "id"),
    ("Task", "id"),
    ("Task", "kind"),
    ("Task", "pending"),
    ("Session", "user"),
    ("Session", "key"),
    ("Message", "key"),
    ("Reference", "key"),
    ("WriteFailure", "fingerprint"),
    ("WriteFailure", "owner"),
    ("Lesson", "id"),
    ("Playbook", "id"),
    ("Playbook", "name"),
    ("Candidate", "key"),
)


def read(graph, query: str, params: dict | None = None, timeout: int | None = None) -> list[list]:
    """The rows of a read-only query; none from a graph that does not exist yet (FalkorDB refuses those)."""
    try:
        return graph.ro_query(query, params, timeout=timeout).result_set
    except ResponseError as error:
        if "empty key" in str(error):
            return []
        raise


def world(db, *, name: str = WORLD):
    """The graph that every tenant shares: db.select_graph("world"), or the one name a setting gives.

    Raises Refused (a ValueError) for a name that is not 1 to 63 lower-case letters, digits, _ or -.
    """
    if type(name) is not str or not _TENANT.match(name):
        raise Refused(f"a graph name is 1 to 63 lower-case letters, digits, _ or -: {shown(name)}")
    return db.select_graph(name)


def tenant(db, tenant_id):
    """The graph of one tenant: "tenant:<id>". The one place a tenant's graph is named.

    Raises Refused (a ValueError) for an id that is not [a-z0-9][a-z0-9_-]{0,62}, None included.
    """
    if type(tenant_id) is not str or not _TENANT.match(tenant_id):
        raise Refused(f"a tenant id is 1 to 63 lower-case letters, digits, _ or -: {shown(tenant_id)}")
    return db.select_graph(f"{TENANT_PREFIX}{tenant_id}")


def _existing(graph) -> dict[tuple[str, str, str], dict]:
    """(label, property, RANGE/FULLTEXT/VECTOR) -> the index's options; a relation type is shown as [TYPE]."""
    found: dict[tuple[str, str, str], dict] = {}
    result = read(
        graph,
        "CALL db.indexes() YIELD label, properties, types, options, entitytype "
        "RETURN CASE WHEN entitytype = 'NODE' THEN label ELSE '[' + label + ']' END, properties, types, options",
    )
    for label, props, types, options in result:
        for prop in props:
            for sort in types.get(prop, []) if isinstance(types, dict) else []:
                given = options.get(prop) if isinstance(options, dict) else None
                found[(label, prop, str(sort).upper())] = dict(given or {})
    return found


def _vector_sizes(kinds: dict[str, Kind], entry_dimensions: int | None) -> dict[str, int]:
    sizes = {label: kind.dimensions for label, kind in kinds.items() if kind.dimensions}
    if entry_dimensions:
        sizes["Entry"] = entry_dimensions
    return sizes


def _create(graph, statement: str) -> None:
    try:
        graph.query(statement)
    except ResponseError as error:
        if "already indexed" not in str(error) and "already exists" not in str(error):
            raise


def _wait_until_built(graph, wait: float) -> None:
    """Returns once every index answers; FalkorDB builds them in the background."""
    deadline = time.monotonic() + wait
    while True:
        building = read(
            graph,
            "CALL db.indexes() YIELD label, status WHERE status <> 'OPERATIONAL' RETURN label, status",
        )
        if not building:
            return
        if time.monotonic() >= deadline:
            listed = ", ".join(f"{label} ({status})" for label, status in building)
            raise TimeoutError(f"indexes still being built after {wait:g} s: {listed}")
        time.sleep(0.02)


def ensure_schema(graph, kinds: list[Kind], entry_dimensions: int | None = None, wait: float = 60.0) -> str:
    """Gives a graph its Stamp, the indexes of its records and of each kind. Returns the stamp's id.

    Running it again changes nothing. Stop the writers while it adds a kind to a graph in use.
    It returns once every index is built (or raises TimeoutError after wait seconds): a full-text
    index that is still being built answers nothing, not even for nodes written after it.
    """
    if not isinstance(kinds, list | tuple) or not all(isinstance(kind, Kind) for kind in kinds):
        raise Refused("kinds must be a list of Kind")
    if entry_dimensions is not None:
        entry_dimensions = whole(entry_dimensions, "entry_dimensions", 1, 4096)
    if isinstance(wait, bool) or not isinstance(wait, int | float) or not 0 <= wait <= 86_400:
        raise Refused("wait is a number of seconds from 0 to 86,400")
    every = {kind.label: kind for kind in kinds}
    for kind in kinds:
        for relation in kind.relations:
            every.setdefault(kind.target(relation).label, kind.target(relation))
    existing = _existing(graph)
    vectors = _vector_sizes(every, entry_dimensions)
    for label, size in vectors.items():
        found = existing.get((label, "embedding", "VECTOR"))
        if found is not None and found.get("dimension") != size:
            # FalkorDB would keep the old index, and every vector of the new size would fail later.
            raise Refused(
                f"{label} already has a vector index of {found.get('dimension')} dimensions, not {size}"
            )
    stamp = graph.query(
        "MERGE (s:Stamp) ON CREATE SET s.id = $id, s.serial = 0 RETURN s.id", {"id": uuid.uuid4().hex}
    ).result_set[0][0]
    wanted: list[tuple[str, str, str]] = [(label, prop, "RANGE") for label, prop in _RECORD_INDEXES]
    wanted += [
        ("State", "words", "FULLTEXT"),
        ("Entry", "words", "FULLTEXT"),
        ("Message", "words", "FULLTEXT"),
    ]
    for kind in every.values():
        wanted.append((kind.label, "key", "RANGE"))
        if kind.key != "key":  # the key under the kind's own name, for the application's queries
            wanted.append((kind.label, kind.key, "RANGE"))
        if kind.text:
            wanted.append((kind.label, "words", "FULLTEXT"))
    for label, prop, sort in wanted:
        if (label, prop, sort) in existing:
            continue
        if sort == "RANGE":
            _create(graph, f"CREATE INDEX FOR (n:`{label}`) ON (n.`{prop}`)")
        else:
            _create(graph, f"CALL db.idx.fulltext.createNodeIndex('{label}', '{prop}')")
    # FalkorDB 4.22 let writers that MERGE at the same moment on a label or relation type the graph
    # had never seen each create their own node or edge; once the type exists, MERGE is exact. An
    # index on a property no edge has registers every relation type the library or a kind uses.
    types = set(OWNED_RELATIONS) | {relation for kind in every.values() for relation in kind.relations}
    for relation in sorted(types):
        if (f"[{relation}]", "registered", "RANGE") not in existing:
            _create(graph, f"CREATE INDEX FOR ()-[r:`{relation}`]-() ON (r.registered)")
    for label, size in vectors.items():
        if (label, "embedding", "VECTOR") not in existing:
            _create(
                graph,
                f"CREATE VECTOR INDEX FOR (n:`{label}`) ON (n.embedding) "
                f"OPTIONS {{dimension: {size}, similarityFunction: 'cosine'}}",
            )
    _wait_until_built(graph, wait)
    return stamp
