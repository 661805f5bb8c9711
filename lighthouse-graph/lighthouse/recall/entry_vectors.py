"""embed_entries(), nearest_entries(): the text of entries found by meaning.

An entry never changes, so its vectors stand for it for good. embed_entries() reads the entries stored
since its mark for that model, by their serial, a slice at a time; the mark moves in the query that
stores the vectors. The vector is kept under kinds.VECTOR and its model under kinds.VECTOR_MODEL.
A long text is embedded whole, in parts (parts_of(): windows of CHUNK_WORDS words that overlap), not cut
where a model stops reading (all-MiniLM-L6-v2 reads 256 word pieces): the first part's vector is kept on
the entry, each other part's on an `EntryVector` node the entry points at (LH_VECTOR), under an index of
its own; nearest_entries() asks both indexes, and an entry scores as its best part.
The rule is that of vector.py: arguments checked first (Refused, WrongType), an embedder's bad answer
raises EmbedderError and stores nothing, and what the embedder raises passes unchanged.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from functools import lru_cache

from ..episodes import text_of as entry_text
from ..errors import WrongType
from ..graphs import STAMP_SERIAL, read
from ..kinds import ENTRY_PARTS, VECTOR, VECTOR_MODEL, VECTOR_OF, is_kind
from ..values import Refused, name
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

CHUNK_WORDS = 120  # words of one part of a long text: what all-MiniLM-L6-v2 reads whole, with room
OVERLAP_WORDS = 20  # words two neighbouring parts share, so a sentence one part cuts is whole in the next


def parts_of(text: str) -> list[str]:
    """The parts a text's vectors stand for: the text itself when it has at most CHUNK_WORDS words,
    else windows of CHUNK_WORDS words, each starting OVERLAP_WORDS words before the one before it ends."""
    words = text.split()
    if len(words) <= CHUNK_WORDS:
        return [text]
    step = CHUNK_WORDS - OVERLAP_WORDS
    return [
        " ".join(words[start : start + CHUNK_WORDS]) for start in range(0, len(words) - OVERLAP_WORDS, step)
    ]


def entry_dimensions(graph) -> int | None:
    """The dimensions of the entries' vector indexes (of the entries and of their parts); None for a
    graph that does not exist yet. Refused when either index is missing."""
    indexes = read(graph, "CALL db.indexes() YIELD label, types, options RETURN label, types, options")
    sizes = {
        label: int(options[VECTOR]["dimension"])
        for label, types, options in indexes
        if label in ("Entry", ENTRY_PARTS) and "VECTOR" in (types or {}).get(VECTOR, [])
    }
    if "Entry" in sizes and ENTRY_PARTS in sizes:
        return sizes["Entry"]
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
    # The mark moves in the query that stores the vectors, and only from where this call read it. The
    # parts an earlier model gave are listed before the writes (FalkorDB 4.22.1 could not read a pattern
    # comprehension in a FOREACH after a write) and replaced.
    return (
        f"MATCH (st:Stamp) WHERE coalesce(st.`{mark}`, 0) = $after SET st.`{mark}` = $upto "
        "WITH st CALL { WITH st UNWIND $rows AS r MATCH (n:Entry {id: r.id}) "
        f"  WITH n, r, [(n)-[:{VECTOR_OF}]->(old:{ENTRY_PARTS}) | old] AS old_parts "
        "  FOREACH (gone IN old_parts | DELETE gone) "
        f"  SET n.`{VECTOR}` = vecf32(r.vector), n.`{VECTOR_MODEL}` = $model "
        f"  FOREACH (part IN r.parts | CREATE (n)-[:{VECTOR_OF}]->(:{ENTRY_PARTS} "
        f"    {{part: part[0], `{VECTOR}`: vecf32(part[1]), `{VECTOR_MODEL}`: $model}})) "
        "  RETURN count(n) AS written } "
        "RETURN written"
    )


def embed_entries(graph, embedder: Callable, model: str, limit: int = 100) -> dict:
    """Gives a vector of `model` to up to `limit` entries with text, read by serial from this model's mark.

    The text of an entry is its text values in the order of their names, one per line; a text of more
    than CHUNK_WORDS words is embedded in parts (parts_of()), each part a text the embedder is asked
    about. An entry never changes, so its vectors stand for good. Returns {"embedded", "waiting"}: waiting counts the entries
    stored since the mark, text or none. Arguments are checked before anything is asked or stored: it
    raises what embed() raises, and Refused naming entry_dimensions
    when the graph has no vector index for entries.
    """
    model, limit = checked_call(embedder, model, limit, MAX_EMBED)
    dimensions, mark = entry_dimensions(graph), mark_name(model)
    stamp = read(graph, f"MATCH (st:Stamp) {STAMP_SERIAL}RETURN last_serial, coalesce(st.`{mark}`, 0)")
    if not stamp or dimensions is None:
        # API 2.9: the message names entry_dimensions, as for a graph made without the index
        raise Refused(
            "the graph has no Stamp and no vector index for entries: "
            "ensure_schema(graph, kinds, entry_dimensions=...) first"
        )
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
                parts = parts_of(text)
                todo.append({"id": entry_id, "serial": serial, "count": len(parts)})
                texts.extend(parts)
        after = min(upto, top)
    vectors = iter(asked_model(embedder, texts, dimensions))
    rows = []
    for item in todo:
        given = [next(vectors) for _ in range(item.pop("count"))]
        rows.append({**item, "vector": given[0], "parts": [[n, v] for n, v in enumerate(given) if n]})
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
_NEAREST_PARTS = (
    f"CALL db.idx.vector.queryNodes('{ENTRY_PARTS}', '{VECTOR}', $k, vecf32($vector)) YIELD node, score "
    f"OPTIONAL MATCH (n:Entry)-[:{VECTOR_OF}]->(node) "
    f"WITH collect(CASE WHEN node.`{VECTOR_MODEL}` = $model AND n IS NOT NULL "
    "  AND ($types IS NULL OR n.type IN $types) "
    f"  THEN [n.id, 1.0 - score, n.id, {entry_fields('n')}, "
    f"    CASE WHEN $vectors THEN node.`{VECTOR}` ELSE null END] ELSE null END) AS found, "
    "  count(node) AS seen "
    "RETURN found, seen"
)
PARTS_READ = 4  # parts asked of their index for each entry a call gives: one long text has many near parts


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
    similarity of its nearest part (a short text is one part), ties in id order. Arguments are checked first, nothing is written: what embed_entries()
    raises, and WrongType for a question that is not a str. Keyword only: types (only entries of these types),
    vectors=True (each result's stored unit "vector" too: its nearest part's), timeout as in nearest().
    """
    model, asked = question_vector(question, embedder, model, limit, timeout, vectors)
    params = {"model": model, "types": checked_types(types), "vectors": vectors}
    dimensions = entry_dimensions(graph)
    question, embedder, limit, timeout = asked
    if dimensions is None or not question.strip():
        return []
    vector = asked_model(embedder, [question], dimensions)[0]  # asked once, for both indexes

    def again(_texts: list[str]) -> list[list[float]]:
        return [vector]

    best: dict = {}
    for query, most in ((_NEAREST_ENTRIES, limit), (_NEAREST_PARTS, min(1_000, limit * PARTS_READ))):
        for row in nearest_rows(graph, query, dict(params), dimensions, (question, again, most, timeout)):
            if row[0] not in best or row[1] > best[row[0]][1]:
                best[row[0]] = row
    results = []
    for entry_id, score, _order, listed, stored in sorted(best.values(), key=lambda row: (-row[1], row[0]))[
        :limit
    ]:
        item = {"id": entry_id, "score": score, "entry": entry_shown(listed)}
        results.append({**item, "vector": list(stored)} if vectors else item)
    return results


def vectors_waiting(graph, kinds=(), model=None) -> dict:
    """What waits for a vector, counted and nothing written: {"kinds": {label: entities of the kind with
    text and no vector of its model yet}, "entries": entries stored past `model`'s mark (every entry
    stored, with model None)}. Only kinds with dimensions are counted. kinds not a list or tuple of Kind
    raises WrongType; a model that is not a name raises Refused. {"kinds": {}, "entries": 0} for a graph
    not made yet."""
    if type(kinds) not in (list, tuple) or not all(is_kind(kind) for kind in kinds):
        raise WrongType("kinds must be a list or tuple of Kind")
    mark = "0" if model is None else f"coalesce(st.`{mark_name(name(model, 'model'))}`, 0)"
    counted = {}
    for kind in kinds:
        if kind.dimensions:
            found = read(graph, f"MATCH (e:`{kind.embed_label}`) RETURN count(e)")
            counted[kind.label] = found[0][0] if found else 0
    found = read(graph, f"MATCH (st:Stamp) {STAMP_SERIAL}RETURN last_serial - {mark}")
    return {"kinds": counted, "entries": max(0, found[0][0]) if found else 0}
