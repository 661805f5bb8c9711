"""Which messages wait for a vector of a model, read past that model's mark, as entries are by theirs.

say() gives each message the graph's next serial (`lh.serial`, counted on the Stamp's LH_SAID loop edge:
a counter on a node SET beside a CREATE costs FalkorDB 4.22.1 time in proportion to the graph), and the
Stamp keeps, per model, the serial up to which every message has a vector of it (`said_mark_<hash>`),
moved in the query that stores the vectors and only from where the call read it (a compare-and-set), so
two calls at once store each vector once. A round then reads only the messages past the mark, through
the index on `lh.serial`, and a count of what waits costs what waits.

A model with no mark yet first reads the messages without a serial (said in a graph before it had a Stamp
or before serials were given) the old way, each without its vector, and takes its mark (0) once none of
them waits. A message keeps one vector: a model's vectors replace another's, and a store that replaced
some takes the other models' marks off, so each of them reads again (the old way, then by serial, skipping
the messages that still hold its vectors) when it comes back.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache

from ..graphs import read
from ..kinds import VECTOR, VECTOR_MODEL, VECTOR_OF
from ..recall.vector import MAX_SLICES, write_chunks

MESSAGE_VECTOR = "MessageVector"  # no Kind label ends in Vector
SERIAL = "lh.serial"
MARK_PREFIX = "said_mark_"
_NO_VECTOR = f"NOT (m)-[:{VECTOR_OF}]->(:{MESSAGE_VECTOR} {{`{VECTOR_MODEL}`: $model}})"
_UNNUMBERED = f"MATCH (m:Message) WHERE m.`{SERIAL}` IS NULL AND {_NO_VECTOR} "
_PAST = f"MATCH (m:Message) WHERE m.`{SERIAL}` > $after AND {_NO_VECTOR} "
_SLICE = (
    f"MATCH (m:Message) WHERE m.`{SERIAL}` > $after AND m.`{SERIAL}` <= $upto AND {_NO_VECTOR} "
    f"RETURN m.key, m.text, m.`{SERIAL}` ORDER BY m.`{SERIAL}`"
)
_EVERY = f"MATCH (m:Message) WHERE {_NO_VECTOR} RETURN count(m)"


def mark_name(model: str) -> str:
    """The Stamp's property that holds the serial up to which messages have vectors of a model."""
    return MARK_PREFIX + hashlib.sha256(model.encode("utf-8")).hexdigest()[:16]


def stamp_marks(graph, model: str) -> tuple[bool, int | None, int, list[str]]:
    """(whether the graph has a Stamp, the model's mark or None, the last serial given, the other models'
    marks)."""
    mark = mark_name(model)
    found = read(
        graph,
        f"MATCH (st:Stamp) OPTIONAL MATCH (st)-[said:LH_SAID]->(st) WITH st, max(said.serial) AS top "
        f"RETURN st.`{mark}`, coalesce(top, 0), [name IN keys(st) WHERE name STARTS WITH '{MARK_PREFIX}'] "
        "LIMIT 1",
    )
    if not found:
        return False, None, 0, []
    at, top, names = found[0]
    return True, at, top, sorted(name for name in names if name != mark)


def waiting(graph, model: str) -> int:
    """Messages with no vector of the model: past its mark, or every one while it has no mark."""
    _stamped, at, _top, _others = stamp_marks(graph, model)
    if at is None:
        found = read(graph, _EVERY, {"model": model})
    else:
        found = read(graph, _PAST + "RETURN count(m)", {"model": model, "after": at})
    return found[0][0] if found else 0


def to_embed(graph, model: str, limit: int) -> tuple[list, list, dict]:
    """What one call embeds: ([key, text] of unnumbered messages, [key, text, serial] of messages past the
    mark, by serial, and {"others": the other models' marks, and when the mark moves "from": the mark
    read (-1 for none) and "to": the serial read up to})."""
    stamped, at, top, others = stamp_marks(graph, model)
    unnumbered: list = []
    if at is None:
        unnumbered = read(
            graph,
            _UNNUMBERED + "WITH m LIMIT $limit RETURN m.key, m.text",
            {
                "model": model,
                "limit": limit,
            },
        )
        if not stamped or len(unnumbered) >= limit:
            return unnumbered, [], {"others": others}
    start = -1 if at is None else at
    after, numbered = max(start, 0), []
    for _ in range(MAX_SLICES):
        left = limit - len(unnumbered) - len(numbered)
        if after >= top or left <= 0:
            break
        upto = min(after + left, top)
        numbered += read(graph, _SLICE, {"model": model, "after": after, "upto": upto})
        after = upto
    move = {"from": start, "to": after} if after > start else {}
    return unnumbered, numbered, {**move, "others": others}


@lru_cache(maxsize=64)
def store_query(mark: str | None, others: tuple[str, ...]) -> str:
    """The store of a chunk of vectors: with a mark, only from where the call read it, moving it; the
    other models' marks taken off when a vector of theirs was replaced. The old vectors are listed before
    the writes (FalkorDB 4.22.1 could not read a pattern comprehension in a FOREACH after a write)."""
    if mark is None:
        head = "OPTIONAL MATCH (st:Stamp) WITH st LIMIT 1 "
    else:
        head = f"MATCH (st:Stamp) WHERE coalesce(st.`{mark}`, -1) = $after SET st.`{mark}` = $upto WITH st LIMIT 1 "
    cleared = ", ".join(f"stamp.`{name}` = null" for name in others)
    clearing = (
        f"FOREACH (stamp IN CASE WHEN st IS NOT NULL AND replaced > 0 THEN [st] ELSE [] END | SET {cleared}) "
        if others
        else ""
    )
    return (
        head + "CALL { WITH st UNWIND $rows AS r MATCH (m:Message {key: r.key}) WHERE m.text = r.text "
        f"  WITH m, r, [(m)-[:{VECTOR_OF}]->(old:{MESSAGE_VECTOR}) | old] AS olds "
        "  FOREACH (gone IN olds | DELETE gone) "
        f"  CREATE (m)-[:{VECTOR_OF}]->(:{MESSAGE_VECTOR} {{`{VECTOR}`: vecf32(r.vector), "
        f"`{VECTOR_MODEL}`: $model}}) "
        "  RETURN count(m) AS written, sum(size(olds)) AS replaced } "
        f"{clearing}RETURN written"
    )


def store_vectors(graph, model: str, unnumbered: list[dict], past: list[dict], move: dict) -> int:
    """Stores the vectors ({"key", "text", "vector"}) of unnumbered messages, then those of the messages
    past the mark ({..., "serial"}, by serial) with the mark's move (to_embed()'s), chunk by chunk, each
    chunk's query moving the mark to its last serial and the last one to where the call read; stops when
    another call moved the mark first. The vectors written."""
    others = tuple(move["others"])
    written = 0
    for chunk in write_chunks(unnumbered, len(unnumbered[0]["vector"])) if unnumbered else []:
        written += graph.query(store_query(None, others), {"rows": chunk, "model": model}).result_set[0][0]
    chunks = write_chunks(past, len(past[0]["vector"])) if past else ([[]] if "to" in move else [])
    moved = move.get("from")
    for place, chunk in enumerate(chunks):
        upto = move["to"] if place == len(chunks) - 1 else chunk[-1]["serial"]
        params = {"rows": chunk, "model": model, "after": moved, "upto": upto}
        stored = graph.query(store_query(mark_name(model), others), params).result_set
        if not stored:  # another call moved the mark first: it stores what follows
            break
        written, moved = written + stored[0][0], upto
    return written
