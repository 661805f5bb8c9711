"""Where an entity's vector is kept: on a node of its own (Kind.vector_label), which the entity points at
with a VECTOR_OF edge and which the kind's vector index covers. ensure_schema() moves the vectors of a graph
written when they were properties of the entities themselves, under an index on the entity's label.

FalkorDB 4.22.1 indexes a node again in every index of its labels at each property SET: with the vector on
the entity, every change of it paid for the vector index (1,740 to 2,050 ms for SETs on 1,000 nodes with
vectors of 1,536 numbers, 0.66 ms without the index).
"""

from __future__ import annotations

from .kinds import VECTOR, VECTOR_MODEL, VECTOR_OF, Kind

MOVED_AT_ONCE = 1_000  # entities one query of the move takes


def _held(kind: Kind) -> str:
    return f"MATCH (e:`{kind.label}`) WHERE e.`{VECTOR}` IS NOT NULL "


def _copy_query(kind: Kind) -> str:
    # An entity that already points at a vector node (a move cut short) gets no second one.
    return (
        _held(kind) + f"OPTIONAL MATCH (e)-[:{VECTOR_OF}]->(made) WITH e, made WHERE made IS NULL "
        f"WITH e LIMIT {MOVED_AT_ONCE} "
        f"CREATE (e)-[:{VECTOR_OF}]->(:`{kind.vector_label}` {{`{VECTOR}`: e.`{VECTOR}`, "
        f"`{VECTOR_MODEL}`: e.`{VECTOR_MODEL}`}}) RETURN count(e)"
    )


def _clear_query(kind: Kind) -> str:
    return (
        _held(kind) + f"WITH e LIMIT {MOVED_AT_ONCE} "
        f"SET e.`{VECTOR}` = null, e.`{VECTOR_MODEL}` = null RETURN count(e)"
    )


def _until_none(graph, query: str) -> int:
    moved = 0
    while True:
        count = graph.query(query).result_set[0][0]
        if not count:
            return moved
        moved += count


# The move, for a graph with the vector index on the entity's label (ensure_schema() runs it): copies of
# the vectors on vector nodes, then the old index dropped (a schema change, in ensure_schema()'s turn),
# then the entities' copies cleared, which costs no indexing once that index is gone. A move cut short
# before the drop goes on at the next call (copies are made only for entities that point at no vector
# node); one cut short after it leaves copies on entities that nothing reads or indexes.


def copy_vectors(graph, kind: Kind) -> int:
    """Gives each entity of the kind that holds a vector a vector node with it; the number made."""
    return _until_none(graph, _copy_query(kind))


def old_index_drop(kind: Kind) -> str:
    return f"DROP VECTOR INDEX FOR (n:`{kind.label}`) ON (n.`{VECTOR}`)"


def clear_copies(graph, kind: Kind) -> int:
    """Takes the vectors off the entities of the kind (after the old index is gone); the number cleared."""
    return _until_none(graph, _clear_query(kind))
