"""Where an entity's vector is kept: on a node of its own (Kind.vector_label), which the entity points at
with a VECTOR_OF edge and which the kind's vector index covers. ensure_schema() moves the vectors of a graph
written when they were properties of the entities themselves, under an index on the entity's label.

FalkorDB 4.22.1 indexes a node again in every index of its labels at each property SET: with the vector on
the entity, every change of it paid for the vector index (1,740 to 2,050 ms for SETs on 1,000 nodes with
vectors of 1,536 numbers, 0.66 ms without the index).

The move, in ensure_schema(): copies of the vectors on vector nodes; the Stamp marked; the old index
dropped (a schema change, in ensure_schema()'s turn); the entities' copies cleared, which costs no indexing
once that index is gone; the mark taken off. A move cut short before the drop goes on at the next call
(copies are made only for entities that point at no vector node); one cut short after it is seen by its
mark, and clears what is left. An entity that waits for a vector (its text changed, or its model) gets
no copy: the vector it holds is of another text or model, and it is embedded again.
"""

from __future__ import annotations

from redis.exceptions import ResponseError

from .kinds import VECTOR, VECTOR_MODEL, VECTOR_OF, Kind

MOVED_AT_ONCE = 1_000  # entities one query of the move takes


def _held(kind: Kind) -> str:
    return f"MATCH (e:`{kind.label}`) WHERE e.`{VECTOR}` IS NOT NULL "


def _copy_query(kind: Kind) -> str:
    # An entity that already points at a vector node (a move cut short) gets no second one.
    return (
        _held(kind) + f"AND NOT e:`{kind.embed_label}` "
        f"OPTIONAL MATCH (e)-[:{VECTOR_OF}]->(made) WITH e, made WHERE made IS NULL "
        f"WITH e LIMIT {MOVED_AT_ONCE} "
        f"CREATE (e)-[:{VECTOR_OF}]->(:`{kind.vector_label}` {{`{VECTOR}`: e.`{VECTOR}`, "
        f"`{VECTOR_MODEL}`: e.`{VECTOR_MODEL}`}}) RETURN count(e)"
    )


def _clear_query(kind: Kind) -> str:
    return (
        _held(kind) + f"WITH e LIMIT {MOVED_AT_ONCE} "
        f"SET e.`{VECTOR}` = null, e.`{VECTOR_MODEL}` = null RETURN count(e)"
    )


def clearing_mark(kind: Kind) -> str:
    """The Stamp's property that says a move dropped the kind's old index and has copies left to clear."""
    return f"vectors_clearing_{kind.label}"


def _until_none(graph, query: str) -> int:
    moved = 0
    while True:
        count = graph.query(query).result_set[0][0]
        if not count:
            return moved
        moved += count


def copy_vectors(graph, kind: Kind) -> int:
    """Gives each entity of the kind that holds a vector (and waits for none) a vector node with it, then
    marks the Stamp for the clearing to come; the number of nodes made."""
    made = _until_none(graph, _copy_query(kind))
    graph.query(f"MATCH (st:Stamp) SET st.`{clearing_mark(kind)}` = true")
    return made


def old_index_drop(kind: Kind) -> str:
    return f"DROP VECTOR INDEX FOR (n:`{kind.label}`) ON (n.`{VECTOR}`)"


def clear_copies(graph, kind: Kind) -> int:
    """Takes the vectors off the entities of the kind (after the old index is gone), then the Stamp's mark;
    the number cleared."""
    cleared = _until_none(graph, _clear_query(kind))
    graph.query(f"MATCH (st:Stamp) SET st.`{clearing_mark(kind)}` = null")
    return cleared


def left_to_clear(graph, kinds: list[Kind]) -> list[Kind]:
    """The kinds whose entities' copies are to be cleared (the Stamp's mark says so): those moved by this
    ensure_schema(), and those of a move cut short after its copies were made. The graph has its Stamp."""
    marks = [clearing_mark(kind) for kind in kinds]
    if not marks:
        return []
    found = graph.ro_query(
        "MATCH (st:Stamp) RETURN [name IN $marks WHERE st[name] = true]", {"marks": marks}
    ).result_set
    flagged = set(found[0][0]) if found else set()
    return [kind for kind in kinds if clearing_mark(kind) in flagged]


def waiting_to_move(graph, kinds: list[Kind]) -> list[Kind]:
    """The kinds with dimensions whose vectors ensure_schema() has yet to move (their old index is there)
    or to clear off their entities (a move cut short after the drop): two reads, nothing written. For an
    application that must know whether to run ensure_schema() after an upgrade, as the service does."""
    kinds = [kind for kind in kinds if kind.dimensions]
    if not kinds:
        return []
    try:
        listed = graph.ro_query("CALL db.indexes() YIELD label, types RETURN label, types").result_set
    except ResponseError as error:
        if "empty key" in str(error):  # no graph yet: nothing to move
            return []
        raise
    old = {label for label, types in listed if "VECTOR" in (types or {}).get(VECTOR, [])}
    flagged = set(left_to_clear(graph, kinds))
    return [kind for kind in kinds if kind.label in old or kind in flagged]
