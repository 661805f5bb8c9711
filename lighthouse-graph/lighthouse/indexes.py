"""ensure_indexes(): range indexes on an application's own records, built in the server's schema turn.

FalkorDB 4.22.1 crashed when two clients changed schemas at once, so an application that keeps records
of its own (the service's keys, in a graph the library does not model) has its indexes built here, one
at a time, while no other client of the server changes a schema, and never creates them itself.
"""

from __future__ import annotations

from .graphs import application_indexes, build_in_schema_turn, read
from .values import Refused


def ensure_indexes(graph, indexes, wait_seconds=10.0) -> None:
    """Gives the graph a range index on each (label, property) pair it lacks and waits until all are
    built. Idempotent; nothing else of the library's (no Stamp, no record indexes) is made.

    indexes: a list or tuple of (label, property) pairs, each a name of letters, digits, _ and . (else
    WrongType for the container, Refused for a name); wait_seconds: 0 to 86,400 (else Refused).
    SchemaNotReady when an index is not built within wait_seconds; server errors pass as ResponseError.
    """
    wanted = application_indexes(indexes)
    if type(wait_seconds) not in (int, float) or not 0 <= wait_seconds <= 86_400:
        raise Refused("wait_seconds must be a number of seconds from 0 to 86400")
    existing = {
        (label, prop)
        for label, props, types in read(graph, "CALL db.indexes() YIELD label, properties, types RETURN *")
        for prop in props
        if "RANGE" in (types or {}).get(prop, [])
    }
    statements = [
        f"CREATE INDEX FOR (n:`{label}`) ON (n.`{prop}`)"
        for label, prop in dict.fromkeys(wanted)
        if (label, prop) not in existing
    ]
    if statements:
        build_in_schema_turn(graph, statements, [], wait_seconds)
