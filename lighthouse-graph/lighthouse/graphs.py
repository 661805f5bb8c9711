"""world(), tenant(), tenant_graph_name(), ensure_schema(): which graph, and the indexes and the Stamp it needs."""

from __future__ import annotations

import re
import time
import uuid

from redis.exceptions import ResponseError

from .errors import SchemaNotReady
from .kinds import ENTRY_PARTS, OWNED_RELATIONS, VECTOR, Kind, is_kind
from .schema_turns import schema_turn
from .tally_layout import move_counts
from .values import Refused, WrongType, printable, whole
from .vector_layout import clear_copies, copy_vectors, left_to_clear, old_index_drop
from .wire import read_rows

WORLD = "world"
# \Z, not $: $ also matches before a final newline, and "acme\n" would name another graph.
_TENANT = re.compile(r"\A[a-z0-9][a-z0-9_-]{0,62}\Z")
TENANT_PREFIX = "tenant:"

# (label, property) pairs every graph gets a range index on: how records are found by id or key.
_RECORD_INDEXES = (
    ("State", "valid_from"),
    ("State", "by"),
    ("State", "lh.trust"),  # candidates() finds the States waiting for a review
    ("Entry", "id"),
    ("Entry", "serial"),
    ("Stamp", "id"),  # registers the label before the Stamp's MERGE: see ensure_schema()
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
    ("WriteFailure", "lh.fingerprint"),
    ("WriteFailure", "owner"),
    ("Lesson", "id"),
    ("Playbook", "id"),
    ("Playbook", "name"),
    # the job of reading notes with a model finds a note's state (note_extraction.py)
    ("lh.Extraction", "note"),
    ("lh.Extraction", "state"),
    # the jobs' labels registered before their first MERGE: eight workers that find one new each make a node
    ("lh.Worker", "phase"),
    ("lh.Embedding", "name"),
)


def read(graph, query: str, params: dict | None = None, timeout: int | None = None) -> list[list]:
    """The rows of a read-only query; none from a graph that does not exist yet (FalkorDB refuses those).
    The parameters and the reply travel in wire.py's faster forms where those are exact."""
    try:
        return read_rows(graph, query, params, timeout)
    except ResponseError as error:
        if "empty key" in str(error):
            return []
        raise


def read_query(graph, query, parameters=None, timeout=None) -> list[list]:
    """The rows of an application's own read-only query (GRAPH.RO_QUERY, decoded as the library decodes
    its own); [] from a graph that does not exist yet. timeout: milliseconds, or None for the server's.
    A query that is not text raises WrongType; the database's errors pass as ResponseError."""
    if type(query) is not str or (parameters is not None and type(parameters) is not dict):
        raise WrongType("query is text and parameters None or a dict")
    return read(graph, query, parameters, timeout)


def tenant_ids(db) -> list[str]:
    """Every tenant whose graph exists (the ids tenant() takes), sorted; one call to the server, or on a
    cluster one to each primary (each lists only the graphs of its own slots)."""
    return sorted(name[len(TENANT_PREFIX) :] for name in graph_names(db) if name.startswith(TENANT_PREFIX))


def graph_names(db) -> set[str]:
    """Every graph of the database; on a cluster, GRAPH.LIST of each primary together."""
    connection = db.connection
    if not hasattr(connection, "get_primaries"):  # one server
        return set(db.list_graphs())
    answers = connection.execute_command("GRAPH.LIST", target_nodes=connection.get_primaries())
    if not isinstance(answers, dict):  # one primary: its own answer
        answers = {"one": answers}
    return {
        name.decode() if isinstance(name, bytes) else name for names in answers.values() for name in names
    }


def world(db, *, name: str = WORLD):
    """The graph that every tenant shares: db.select_graph("world"), or the one name a setting gives.

    Raises Refused (a ValueError) for a name that is not 1 to 63 lower-case letters, digits, _ or -.
    Nothing is read or written.
    """
    if type(name) is not str or not _TENANT.match(name):
        raise Refused(f"a graph name is 1 to 63 lower-case letters, digits, _ or -: {printable(name)}")
    return db.select_graph(name)


def tenant(db, tenant_id):
    """The graph of one tenant: "tenant:<id>" (tenant_graph_name()).

    Raises Refused (a ValueError) for an id that is not [a-z0-9][a-z0-9_-]{0,62}, None included. Nothing
    is read or written.
    """
    return db.select_graph(tenant_graph_name(tenant_id))


def tenant_graph_name(tenant_id) -> str:
    """The name of one tenant's graph, "tenant:<id>", without a graph object: what a key kept beside the
    graph (its hash tag on a cluster) is named after. The one place a tenant's graph is named.

    Raises Refused (a ValueError) for an id that is not [a-z0-9][a-z0-9_-]{0,62}, None included.
    """
    if type(tenant_id) is not str or not _TENANT.match(tenant_id):
        raise Refused(f"a tenant id is 1 to 63 lower-case letters, digits, _ or -: {printable(tenant_id)}")
    return TENANT_PREFIX + tenant_id


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


# (label, property) of the library's own records that no two nodes share: each gets a unique constraint.
_UNIQUE = (
    ("Entry", "id"),
    ("Episode", "id"),
    ("Agent", "name"),
    ("Handoff", "id"),
    ("Task", "id"),
    ("Session", "key"),
    ("Reference", "key"),
    ("Lesson", "id"),
    ("Playbook", "id"),
)
# WriteFailure's fingerprint has a range index and no constraint: FalkorDB 4.22.1 refuses a constraint on a
# dotted property name ("Property name lh.fingerprint is invalid"); its MERGE, one write at a time on a
# label ensure_schema() registered, keeps one node for one refusal.


def _vector_sizes(kinds: dict[str, Kind], entry_dimensions: int) -> dict[str, int]:
    """The dimensions of each vector index, by the label it covers: a kind's vector nodes, the entries,
    and the parts of a long entry's text (EntryVector)."""
    sizes = {kind.vector_label: kind.dimensions for kind in kinds.values() if kind.dimensions}
    if entry_dimensions:
        sizes["Entry"] = sizes[ENTRY_PARTS] = entry_dimensions
    return sizes


def _create(graph, statement: str) -> None:
    try:
        graph.query(statement)
    except ResponseError as error:
        # Another client made it (or dropped the one this drops) in the meantime.
        if not any(said in str(error) for said in ("already indexed", "already exists", "no such index")):
            raise


def _constraints(graph) -> dict[tuple[str, str], str]:
    """(label, property) -> status of each unique constraint on nodes."""
    result = read(
        graph,
        "CALL db.constraints() YIELD type, label, properties, entitytype, status "
        "RETURN type, label, properties, entitytype, status",
    )
    return {
        (label, props[0]): status
        for sort, label, props, entity, status in result
        if sort == "UNIQUE" and entity == "NODE" and len(props) == 1
    }


def _unique(graph, label: str, prop: str) -> None:
    try:
        graph.execute_command(
            "GRAPH.CONSTRAINT", "CREATE", graph.name, "UNIQUE", "NODE", label, "PROPERTIES", 1, prop
        )
    except ResponseError as error:
        if "already exists" not in str(error).lower():
            raise


def build_in_schema_turn(graph, statements: list[str], lacking: list[tuple[str, str]], wait: float) -> None:
    """Creates the indexes (statements) and then the unique constraints on (label, property) pairs (a
    constraint needs the index on its property) while no other client of the server changes a schema, and
    waits until all are built before the next goes. An index or constraint made already is passed over;
    SchemaNotReady when something is not built within wait seconds or failed to build."""
    # One at a time, each built before the next is asked for: FalkorDB 4.22.1 crashed (SIGSEGV in its
    # indexer thread) when a GRAPH.CONSTRAINT CREATE handed it a task while it ran the one before.
    with schema_turn(graph, wait):
        try:
            for statement in statements:
                _create(graph, statement)
                _wait_until_built(graph, wait, constraints=False)
            for label, prop in lacking:
                _unique(graph, label, prop)
                _wait_until_built(graph, wait)
        finally:
            _wait_until_built(graph, wait)


def _wait_until_built(graph, wait: float, *, constraints: bool = True) -> None:
    """Returns once every index (and constraint) is operational; FalkorDB builds them in the background."""
    deadline, rest = time.monotonic() + wait, 0.001
    while True:
        building = read(
            graph,
            "CALL db.indexes() YIELD label, status WHERE status <> 'OPERATIONAL' RETURN label, status",
        )
        if constraints:
            building += [
                [f"{label}.{prop}", status]
                for (label, prop), status in _constraints(graph).items()
                if status != "OPERATIONAL"
            ]
        if not building:
            return
        failed = [f"{label} ({status})" for label, status in building if "FAIL" in str(status).upper()]
        if failed:
            raise SchemaNotReady(f"schema not ready: failed: {', '.join(failed)}")
        if time.monotonic() >= deadline:
            listed = ", ".join(f"{label} ({status})" for label, status in building)
            raise SchemaNotReady(f"schema not ready after {wait:g} s: {listed}")
        time.sleep(rest)  # an empty graph's index is built in a millisecond or two; a large one's takes long
        rest = min(rest * 2, 0.02)


def every_kind(kinds: object) -> dict[str, Kind]:
    """Each Kind given and each Kind they point at, by label; Refused for one label with two keys."""
    if type(kinds) not in (list, tuple) or not all(is_kind(kind) for kind in kinds):
        raise WrongType("kinds must be a list or tuple of Kind")
    every: dict[str, Kind] = {}
    waiting = list(kinds)
    while waiting:
        kind = waiting.pop()
        known = every.get(kind.label)
        if known is None:
            every[kind.label] = kind
            waiting.extend(kind.relations.values())
        elif known.key != kind.key:
            raise Refused(
                f"the label {kind.label!r} is declared with two keys: {known.key!r} and {kind.key!r}"
            )
    return every


# From a bound `st`, the serial of the graph's last entry: on the Stamp, where record() and note() move it,
# or on a loop edge where a graph written before ensure_schema() moved it kept it (tally_layout.py).
STAMP_SERIAL = (
    "OPTIONAL MATCH (st)-[serials:LH_TALLY]->(st) "
    "WITH st, coalesce(max(serials.serial), st.serial, 0) AS last_serial "
)


_INDEX_NAME = re.compile(r"\A[A-Za-z_][A-Za-z0-9_.]{0,99}\Z")  # a plain name, or one with dots (lh.*)


def application_indexes(indexes: object) -> list[tuple[str, str]]:
    """The (label, property) pairs an application asks a range index on, checked: names only."""
    if type(indexes) not in (list, tuple):
        raise WrongType("indexes is a list of (label, property) pairs")
    found = []
    for pair in indexes:
        if type(pair) not in (list, tuple) or len(pair) != 2:
            raise WrongType("indexes is a list of (label, property) pairs")
        label, prop = pair
        if (
            type(label) is not str
            or type(prop) is not str
            or not (_INDEX_NAME.match(label) and _INDEX_NAME.match(prop))
        ):
            raise Refused("an index's label and property are names (letters, digits, _ and .)")
        found.append((label, prop))
    return found


def ensure_schema(graph, kinds=(), wait_seconds=10.0, entry_dimensions=0, *, indexes=()) -> None:
    """Gives a graph its Stamp (once), unique constraints on the key of each Kind (and each Kind they point
    at) and on the library's records, range and full-text indexes, a vector index for each Kind with
    dimensions and for entries when entry_dimensions > 0, and waits until all are operational. A graph an
    earlier version wrote is brought up to date: vectors onto nodes of their own (vector_layout.py), the
    counters of episodes and the Stamp onto the nodes (tally_layout.py), WriteFailures and playbooks as
    the design names them (model_layout.py). Stop the writers meanwhile.

    Idempotent. Arguments are checked before anything is written: kinds not a list or tuple of Kind raises
    WrongType (a TypeError); one label with two keys, entry_dimensions not a whole number from 0 to 4096 or
    a wait that is not a number of seconds raises Refused (a ValueError). SchemaNotReady (a RuntimeError)
    when something is not operational within wait_seconds, has failed, or an existing vector index has
    another dimension. Other server errors pass as ResponseError. Returns None.

    indexes (keyword only): (label, property) pairs of the application's own records to give range
    indexes too, built in the same turn as the rest (FalkorDB 4.22.1 crashed when two clients changed
    schemas at once, so an application that needs an index asks for it here rather than creating it).
    """
    every = every_kind(kinds)
    extra = application_indexes(indexes)
    entry_dimensions = whole(entry_dimensions, "entry_dimensions", 0, 4096)
    if type(wait_seconds) not in (int, float) or not 0 <= wait_seconds <= 86_400:
        raise Refused("wait_seconds must be a number of seconds from 0 to 86400")
    existing = _existing(graph)
    vectors = _vector_sizes(every, entry_dimensions)
    # A graph written when vectors were on the entities has its kinds' indexes on their own labels.
    moving = [
        kind for kind in every.values() if kind.dimensions and (kind.label, VECTOR, "VECTOR") in existing
    ]
    # Each index by the label it covers, and the name a refusal gives it (a kind's, for its vector nodes).
    checked = {}
    if entry_dimensions:
        checked = {"Entry": ("Entry", entry_dimensions), ENTRY_PARTS: ("Entry", entry_dimensions)}
    for kind in every.values():
        if kind.dimensions:
            checked[kind.vector_label] = checked[kind.label] = (kind.label, kind.dimensions)
    for label, (name, size) in checked.items():
        found = existing.get((label, VECTOR, "VECTOR"))
        if found is not None and found.get("dimension") != size:
            # FalkorDB would keep the old index, and every vector of the new size would fail later.
            raise SchemaNotReady(
                f"schema not ready: {name} already has a vector index of {found.get('dimension')} "
                f"dimensions, not {size}"
            )
    wanted: list[tuple[str, str, str]] = [
        (label, prop, "RANGE") for label, prop in _RECORD_INDEXES + tuple(extra)
    ]
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
    statements = [
        f"CREATE INDEX FOR (n:`{label}`) ON (n.`{prop}`)"
        if sort == "RANGE"
        else f"CALL db.idx.fulltext.createNodeIndex('{label}', '{prop}')"
        for label, prop, sort in wanted
        if (label, prop, sort) not in existing
    ]
    # FalkorDB 4.22 let writers that MERGE at the same moment on a label or relation type the graph
    # had never seen each create their own node or edge; once the type exists, MERGE is exact. An
    # index on a property no edge has registers every relation type the library or a kind uses.
    types = set(OWNED_RELATIONS) | {relation for kind in every.values() for relation in kind.relations}
    statements += [
        f"CREATE INDEX FOR ()-[r:`{relation}`]-() ON (r.registered)"
        for relation in sorted(types)
        if (f"[{relation}]", "registered", "RANGE") not in existing
    ]
    statements += [
        f"CREATE VECTOR INDEX FOR (n:`{label}`) ON (n.`{VECTOR}`) "
        f"OPTIONS {{dimension: {size}, similarityFunction: 'cosine'}}"
        for label, size in vectors.items()
        if (label, VECTOR, "VECTOR") not in existing
    ]
    for kind in moving:
        copy_vectors(graph, kind)
    statements += [old_index_drop(kind) for kind in moving]
    constrained = _constraints(graph)
    lacking = [
        (label, prop)
        for label, prop in list(_UNIQUE) + [(kind.label, "key") for kind in every.values()]
        if (label, prop) not in constrained
    ]
    if statements or lacking:
        build_in_schema_turn(graph, statements, lacking, wait_seconds)
    # After the index on Stamp.id registered the label: on a label the graph had never seen, callers of
    # ensure_schema() at once each made a Stamp (found 2026-12-01, 3 rounds of 10), and two Stamps fail
    # every record(). The MERGE reads no index, so it need not wait for the build.
    graph.query("MERGE (s:Stamp) ON CREATE SET s.id = $id, s.serial = 0", {"id": uuid.uuid4().hex})
    move_counts(graph)  # counters a graph written before kept on tallies
    # Here, not at the top: the records' modules read through this one.
    from .model_layout import move_records

    move_records(graph)  # WriteFailures and playbooks a graph written before kept under other names
    _wait_until_built(graph, wait_seconds)
    for kind in left_to_clear(graph, [kind for kind in every.values() if kind.dimensions]):
        clear_copies(graph, kind)
