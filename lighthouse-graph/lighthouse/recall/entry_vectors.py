"""embed_entries(), nearest_entries(): the text of entries found by meaning.

An entry never changes, so its vector stands for it for good. embed_entries() reads the entries stored
since its mark for that model, by their serial, a slice at a time; the mark moves in the query that
stores the vectors. The vector is kept under kinds.VECTOR and its model under kinds.VECTOR_MODEL.
The rule is that of vector.py: arguments checked first (Refused, WrongType), an embedder's bad answer
raises EmbedderError and stores nothing, and what the embedder raises passes unchanged.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from functools import lru_cache

from ..episodes import text_of as entry_text
from ..graphs import STAMP_SERIAL, read
from ..kinds import VECTOR, VECTOR_MODEL
from ..values import Refused
from .text import STOP_AFTER, checked_types, entry_fields, entry_shown
from .vector import (
    MAX_EMBED,
    MAX_SLICES,
    asked_model,
    checked_call,
    nearest_rows,
    question_vector,
    write_chunks,
)


def entry_dimensions(graph) -> int | None:
    """The dimensions of the entries' vector index; None for a graph that does not exist yet."""
    indexes = read(graph, "CALL db.indexes() YIELD label, types, options RETURN label, types, options")
    for label, types, options in indexes:
        if label == "Entry" and "VECTOR" in (types or {}).get(VECTOR, []):
            return int(options[VECTOR]["dimension"])
    if indexes:
        raise Refused("entries have no vector index: ensure_schema(graph, kinds, entry_dimensions=...) first")
    return None


def mark_name(model: str) -> str:
    """The Stamp's property that holds the serial up to which entries have vectors of a model."""
    return "embed_mark_" + hashlib.sha256(model.encode("utf-8")).hexdigest()[:16]


_SLICE_QUERY = (
    "MATCH (st:Stamp) "
    + STAMP_SERIAL
    + "OPTIONAL MATCH (n:Entry) WHERE n.serial > $after AND n.serial <= $upto "
    "RETURN last_serial, "
    f"  collect(CASE WHEN n IS NULL THEN null ELSE [n.serial, n.id, n.content, n.`{VECTOR_MODEL}`] END)"
)


@lru_cache(maxsize=256)
def _entries_store_query(mark: str) -> str:
    # The mark moves in the query that stores the vectors, and only from where this call read it.
    return (
        f"MATCH (st:Stamp) WHERE coalesce(st.`{mark}`, 0) = $after SET st.`{mark}` = $upto "
        "WITH st CALL { WITH st UNWIND $rows AS r MATCH (n:Entry {id: r.id}) "
        f"  SET n.`{VECTOR}` = vecf32(r.vector), n.`{VECTOR_MODEL}` = $model RETURN count(n) AS written }} "
        "RETURN written"
    )


def embed_entries(graph, embedder: Callable, model: str, limit: int = 100) -> dict:
    """Gives a vector of `model` to up to `limit` entries with text, read by serial from this model's mark.

    The text of an entry is its text values in the order of their names, one per line. An entry never
    changes, so its vector stands for good. Returns {"embedded", "waiting"}: waiting counts the entries
    stored since the mark, text or none. Arguments are checked before anything is asked or stored: it
    raises what embed() raises, and Refused naming entry_dimensions
    when the graph has no vector index for entries.
    """
    model, limit = checked_call(embedder, model, limit, MAX_EMBED)
    dimensions, mark = entry_dimensions(graph), mark_name(model)
    stamp = read(graph, f"MATCH (st:Stamp) {STAMP_SERIAL}RETURN last_serial, coalesce(st.`{mark}`, 0)")
    if not stamp or dimensions is None:
        raise Refused("the graph has no Stamp: run ensure_schema() before embed_entries()")
    top, start = stamp[0]
    after, todo, texts = start, [], []
    for _ in range(MAX_SLICES):
        if after >= top or len(todo) >= limit:
            break
        upto = after + limit - len(todo)
        top, listed = read(graph, _SLICE_QUERY, {"after": after, "upto": upto})[0]
        for serial, entry_id, content, current in sorted(item for item in listed if item is not None):
            text = entry_text(json.loads(content)) if content else ""
            if text and current != model:  # an entry with no text gets no vector; the mark passes it
                todo.append({"id": entry_id, "serial": serial})
                texts.append(text)
        after = min(upto, top)
    rows = [
        {**item, "vector": vector}
        for item, vector in zip(todo, asked_model(embedder, texts, dimensions), strict=True)
    ]
    embedded, moved = 0, start
    chunks = write_chunks(rows, dimensions) if rows else ([[]] if after > start else [])
    for place, chunk in enumerate(chunks):
        upto = after if place == len(chunks) - 1 else chunk[-1]["serial"]
        found = graph.query(
            _entries_store_query(mark), {"rows": chunk, "model": model, "after": moved, "upto": upto}
        ).result_set
        if not found:  # another call moved the mark first: it stores what follows
            break
        embedded, moved = embedded + found[0][0], upto
    waiting = read(graph, f"MATCH (st:Stamp) {STAMP_SERIAL}RETURN last_serial - coalesce(st.`{mark}`, 0)")
    return {"embedded": embedded, "waiting": max(0, waiting[0][0])}


_NEAREST_ENTRIES = (
    f"CALL db.idx.vector.queryNodes('Entry', '{VECTOR}', $k, vecf32($vector)) YIELD node, score "
    f"WITH collect(CASE WHEN node.`{VECTOR_MODEL}` = $model AND ($types IS NULL OR node.type IN $types) "
    f"  THEN [node.id, 1.0 - score, node.id, {entry_fields('node')}, "
    f"    CASE WHEN $vectors THEN node.`{VECTOR}` ELSE null END] ELSE null END) AS found, "
    "  count(node) AS seen "
    "RETURN found, seen"
)


def nearest_entries(
    graph,
    question: str,
    embedder: Callable,
    model: str,
    limit: int = 10,
    *,
    types: object = None,
    vectors: bool = False,
    timeout: int = STOP_AFTER,
) -> list[dict]:
    """The entries whose text is nearest in meaning to the question, best first.

    Returns [{"id", "score", "entry"}], the entry as search_entries() gives it; score is the cosine
    similarity, ties in id order. Arguments are checked first, nothing is written: what embed_entries()
    raises, and WrongType for a question that is not a str. Keyword only: types (only entries of these types),
    vectors=True (each result's stored unit "vector" too), timeout as in nearest().
    """
    model, asked = question_vector(question, embedder, model, limit, timeout, vectors)
    params = {"model": model, "types": checked_types(types), "vectors": vectors}
    results = []
    for entry_id, score, _order, listed, stored in nearest_rows(
        graph, _NEAREST_ENTRIES, params, entry_dimensions(graph), asked
    ):
        item = {"id": entry_id, "score": score, "entry": entry_shown(listed)}
        results.append({**item, "vector": list(stored)} if vectors else item)
    return results
