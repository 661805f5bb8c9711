"""embed(), nearest(): the current text of entities found by meaning.

embedder(texts) -> one vector per text is the application's function. A vector is stored at unit length
(FalkorDB computes cosine in float32, where tiny or huge numbers overflow) under kinds.VECTOR, with the
name of its model under kinds.VECTOR_MODEL, on a node of its own (Kind.vector_label, which the kind's
vector index covers) that the entity points at (kinds.VECTOR_OF): on the entity, every property SET of a
change paid for indexing the vector again (2 ms for 1,536 numbers). The model of a kind's vectors is
kept on the Stamp (embed_model_<Label>) rather than found by a query for a model that differs, which
would read the whole kind on every call. After a change of model, the first embed() marks every entity
with text once, a span of node ids a query, keeping how far it came on the Stamp, so a call that stops
midway goes on where it stopped.

The rule: the arguments are checked before anything is asked or stored. A bad value raises Refused (a
ValueError), an embedder that is not callable or a question that is not a str raises WrongType (a
TypeError). What the embedder answers is checked whole before anything is stored: a bad answer raises
EmbedderError (a Refused, "embedder" in its message) and stores nothing. What the embedder raises
passes unchanged.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from functools import lru_cache

from redis.exceptions import ResponseError

from .. import values
from ..errors import EmbedderError, Refused, TooSlow, WrongType
from ..graphs import read
from ..kinds import VECTOR, VECTOR_MODEL, VECTOR_OF, Kind
from ..write.rows import text_of
from .text import (
    HIDDEN,
    STOP_AFTER,
    bounded,
    checked_kind,
    checked_timeout,
    shown_names,
    shown_values,
)

MAX_EMBED = 1_000  # entities or entries one call gives vectors to
MARK_SPAN = 20_000  # node ids one marking query looks at
MAX_CARRIED = 1_000_000  # numbers of vectors and characters of text that one write query carries
MAX_SLICES = 20  # slices of serials one embed_entries() reads
MAX_K = 1_000  # neighbours read of the index at most, when other models' vectors crowd the nearest


def _checked_kind(kind: object) -> Kind:
    kind = checked_kind(kind)
    if not kind.dimensions:
        raise Refused(f"{kind.label} has no vectors: it declares no dimensions")
    return kind


def checked_call(embedder: object, model: object, limit: object, most: int) -> tuple[str, int]:
    """The model's name and the limit of a call that asks an embedder; WrongType for an embedder that
    cannot be called, Refused for the rest."""
    if not callable(embedder):
        raise WrongType("embedder must be a function: a list of texts in, one vector for each out")
    model = values.name(model, "model")
    return model, values.whole(limit, "limit", 1, most)


def _vector(vector: object, place: int, dimensions: int) -> list[float]:
    """One vector of exactly a list or tuple of exactly int or float, at unit length."""
    if type(vector) not in (list, tuple):
        raise EmbedderError(f"the embedder answered vector {place} as {type(vector).__name__}, not a list")
    if len(vector) != dimensions:
        raise EmbedderError(
            f"the embedder answered vector {place} of {len(vector)} numbers, not {dimensions}"
        )
    if not all(type(x) is float or type(x) is int for x in vector):
        raise EmbedderError(f"the embedder answered vector {place} holding something that is not a number")
    try:
        floats = [float(x) for x in vector]  # whole numbers are taken as floats
    except OverflowError:
        raise EmbedderError(f"the embedder answered vector {place} holding a number out of range") from None
    if not all(math.isfinite(x) for x in floats):
        raise EmbedderError(f"the embedder answered vector {place} holding NaN or infinity")
    top = max(abs(x) for x in floats)
    if top == 0:
        raise EmbedderError(f"the embedder answered vector {place} of all zeros: it has no direction")
    scaled = [x / top for x in floats]  # scaled first, so squares of huge numbers cannot overflow
    length = math.sqrt(math.fsum(x * x for x in scaled))
    return [float(f"{x / length:.9g}") for x in scaled]  # 9 digits: all that float32 keeps


def vectors_of(answer: object, count: int, dimensions: int) -> list[list[float]]:
    """The embedder's answer checked whole: exactly a list or tuple of one vector per text, each of
    `dimensions` finite numbers, not all zeros. Each comes back at unit length. Anything else (a
    generator, a subclass, an object that fails when read) raises EmbedderError."""
    if type(answer) not in (list, tuple):
        raise EmbedderError(f"the embedder answered {type(answer).__name__}, not a list of vectors")
    if len(answer) != count:
        raise EmbedderError(f"the embedder answered {len(answer)} vectors for {count} texts")
    return [_vector(vector, place, dimensions) for place, vector in enumerate(answer)]


def asked_model(embedder: Callable, texts: list[str], dimensions: int) -> list[list[float]]:
    """The embedder's vectors for texts (not asked when there are none); what it raises passes."""
    return vectors_of(embedder(list(texts)), len(texts), dimensions) if texts else []


def write_chunks(rows: list[dict], dimensions: int) -> list[list[dict]]:
    """Rows cut so that one query carries at most MAX_CARRIED numbers and characters of text."""
    chunks, size = [[]], 0
    for row in rows:
        cost = dimensions * (1 + len(row.get("parts") or [])) + sum(
            len(t) for t in row.get("text") or [] if t
        )
        if chunks[-1] and size + cost > MAX_CARRIED:
            chunks, size = [*chunks, []], 0
        chunks[-1].append(row)
        size += cost
    return chunks if rows else []


def _stamp_names(kind: Kind) -> tuple[str, str, str]:
    """The Stamp's properties for a kind: its model, how far marking came, and the last id to mark."""
    return f"embed_model_{kind.label}", f"embed_after_{kind.label}", f"embed_upto_{kind.label}"


@lru_cache(maxsize=256)
def _switch_query(kind: Kind) -> str:
    model, after, upto = _stamp_names(kind)
    return (
        f"MATCH (st:Stamp) WHERE coalesce(st.`{model}`, '') <> $model "
        f"OPTIONAL MATCH (e:`{kind.label}`) WITH st, max(id(e)) AS top "
        f"SET st.`{model}` = $model, st.`{after}` = -1, st.`{upto}` = coalesce(top, -1)"
    )


@lru_cache(maxsize=256)
def _mark_query(kind: Kind) -> str:
    model, after, upto = _stamp_names(kind)
    # The text, text_of(), is not empty: two values or more, or one that is not "".
    listed = ", ".join(f"e.`{name}`" for name in kind.text)
    return (
        f"OPTIONAL MATCH (e:`{kind.label}`) WHERE id(e) > $after AND id(e) <= $upto "
        f"AND (size([v IN [{listed}] WHERE v IS NOT NULL]) > 1 OR any(v IN [{listed}] WHERE v <> '')) "
        f"WITH e, [(e)-[:{VECTOR_OF}]->(held) | held.`{VECTOR_MODEL}`] AS models "
        f"FOREACH (_ IN CASE WHEN e IS NULL OR $model IN models THEN [] ELSE [1] END | SET e:`{kind.embed_label}`) "
        "WITH count(e) AS marked "
        f"MATCH (st:Stamp) WHERE st.`{model}` = $model AND st.`{after}` = $after "
        f"SET st.`{after}` = CASE WHEN $upto >= st.`{upto}` THEN null ELSE $upto END "
        f"RETURN st.`{after}`, st.`{upto}`"
    )


def _follow_model(graph, kind: Kind, model: str) -> None:
    """Makes every entity with text and no vector of this model wait, once after a change of model."""
    asked = "MATCH (st:Stamp) RETURN " + ", ".join(f"st.`{name}`" for name in _stamp_names(kind))
    stamp = read(graph, asked)
    if not stamp:
        raise Refused("the graph has no Stamp: run ensure_schema() before embed()")
    if stamp[0][0] != model:
        graph.query(_switch_query(kind), {"model": model})
        stamp = read(graph, asked)
    current, after, upto = stamp[0]
    while current == model and after is not None:
        params = {"model": model, "after": after, "upto": min(after + MARK_SPAN, upto)}
        result = graph.query(_mark_query(kind), params).result_set
        if not result:  # another call marks, or another model took the kind over: it goes on, not this one
            return
        after, upto = result[0]


@lru_cache(maxsize=256)
def _waiting_query(kind: Kind) -> str:
    listed = ", ".join(f"e.`{name}`" for name in kind.text)
    return (
        f"MATCH (e:`{kind.embed_label}`) WITH e LIMIT $limit "
        f"RETURN e.key, [{listed}], $model IN [(e)-[:{VECTOR_OF}]->(held) | held.`{VECTOR_MODEL}`]"
    )


@lru_cache(maxsize=256)
def _store_query(kind: Kind) -> str:
    # A vector is stored only where the text is still the one the model was asked about.
    same = " AND ".join(
        f"(e.`{name}` = r.text[{place}] OR (e.`{name}` IS NULL AND r.text[{place}] IS NULL))"
        for place, name in enumerate(kind.text)
    )
    # The vectors held before are listed before the writes: FalkorDB 4.22.1 could not read a pattern
    # comprehension in a FOREACH after a write.
    return (
        f"MATCH (st:Stamp) WHERE st.`{_stamp_names(kind)[0]}` = $model "
        "UNWIND $rows AS r "
        f"MATCH (e:`{kind.label}` {{key: r.key}}) WHERE e:`{kind.embed_label}` AND {same} "
        f"WITH e, r, [(e)-[:{VECTOR_OF}]->(old_vector) | old_vector] AS old_vectors "
        "FOREACH (gone IN CASE WHEN r.kept THEN [] ELSE old_vectors END | DELETE gone) "
        "FOREACH (making IN CASE WHEN r.kept OR r.vector IS NULL THEN [] ELSE [1] END | "
        f"  CREATE (e)-[:{VECTOR_OF}]->(:`{kind.vector_label}` {{`{VECTOR}`: vecf32(r.vector), "
        f"`{VECTOR_MODEL}`: $model}})) "
        f"REMOVE e:`{kind.embed_label}` "
        "RETURN count(r.vector)"
    )


def embed(graph, kind: Kind, embedder: Callable, model: str, limit: int = 100) -> dict:
    """Gives a vector of `model` to up to `limit` entities of a kind whose text has none, asking
    embedder(texts) once with a fresh list. Returns {"embedded", "waiting"}: call again until waiting is 0.

    Only the entities labelled <Label>ToEmbed are read. A vector is stored only if the text is still
    what the model was asked about. Arguments are checked before anything is asked or stored: Refused
    for a kind without dimensions ("no vectors"), a model
    that is not a name or a limit outside 1 to 1,000; WrongType for an embedder that cannot be called;
    EmbedderError (a Refused, "embedder") for an answer that is not one vector per text of the kind's
    dimensions, of finite numbers, not all zeros, and then nothing is stored. What the embedder raises
    passes unchanged.
    """
    kind = _checked_kind(kind)
    model, limit = checked_call(embedder, model, limit, MAX_EMBED)
    _follow_model(graph, kind, model)
    # One that waits with a vector of this model (marked for another in between) keeps it.
    found = read(graph, _waiting_query(kind), {"limit": limit, "model": model})
    rows = [{"key": key, "text": listed, "kept": bool(kept)} for key, listed, kept in found]
    present = [{n: v for n, v in zip(kind.text, row["text"], strict=True) if v is not None} for row in rows]
    texts = ["" if row["kept"] else text_of(kind, given) for row, given in zip(rows, present, strict=True)]
    vectors = iter(asked_model(embedder, [text for text in texts if text], kind.dimensions))
    for row, text in zip(rows, texts, strict=True):
        row["vector"] = next(vectors) if text else None
    embedded = 0
    for chunk in write_chunks(rows, kind.dimensions):
        found = graph.query(_store_query(kind), {"rows": chunk, "model": model}).result_set
        embedded += found[0][0] if found else 0
    waiting = read(graph, f"MATCH (e:`{kind.embed_label}`) RETURN count(e)")
    return {"embedded": embedded, "waiting": waiting[0][0] if waiting else 0}


def _closest(graph, query: str, params: dict, limit: int, timeout: int) -> list:
    """The items of the model asked about among the index's nearest, asking for more neighbours (at
    most MAX_K) while other models' vectors crowd them out; all within timeout milliseconds."""
    started, k = time.monotonic(), limit
    while True:
        left = timeout - int((time.monotonic() - started) * 1000)
        if left <= 0:
            raise TooSlow(f"the search ran longer than {timeout:,} ms and was stopped")
        try:
            rows = bounded(graph, query, {**params, "k": k}, left)
        except TooSlow:
            raise
        except ResponseError as error:
            # "undefined attribute": no node ever held a vector, so no index of one was made either.
            if any(
                said in str(error)
                for said in ("Invalid arguments", "dimension mismatch", "undefined attribute")
            ):
                raise Refused(
                    f"no vector index of these dimensions here ({error}): see ensure_schema()"
                ) from None
            raise
        found, seen = rows[0] if rows else ([], 0)
        if len(found) >= limit or seen < k or k >= MAX_K:
            return found
        k = min(k * 8, MAX_K)


def nearest_rows(graph, query: str, params: dict, dimensions: int | None, asked: tuple) -> list:
    """The rows nearest to the question, best first: [identity, score, order, ...]."""
    question, embedder, limit, timeout = asked
    if dimensions is None or not question.strip():  # no graph yet, or nothing asked
        return []
    params["vector"] = asked_model(embedder, [question], dimensions)[0]
    found = [item for item in _closest(graph, query, params, limit, timeout) if item is not None]
    return sorted(found, key=lambda item: (-item[1], type(item[2]).__name__, item[2]))[:limit]


def question_vector(
    question: object, embedder: object, model: object, limit: object, timeout: object, vectors: object
):
    """The checked arguments of a search by meaning: the model, and (question, embedder, limit, timeout)."""
    model, limit = checked_call(embedder, model, limit, 1_000)
    if type(question) is not str:
        raise WrongType(f"a question must be text, not {type(question).__name__}")
    if type(vectors) is not bool:
        raise WrongType("vectors must be True or False")
    return model, (values.text(question, "a question"), embedder, limit, checked_timeout(timeout))


@lru_cache(maxsize=256)
def _nearest_query(kind: Kind) -> str:
    return (
        f"CALL db.idx.vector.queryNodes('{kind.vector_label}', '{VECTOR}', $k, vecf32($vector)) "
        "YIELD node, score "
        f"OPTIONAL MATCH (e:`{kind.label}`)-[:{VECTOR_OF}]->(node) "
        f"WITH collect(CASE WHEN node.`{VECTOR_MODEL}` = $model AND e IS NOT NULL "
        f"  THEN [e.key, 1.0 - score, e.key, {shown_names('e')}, "
        f"  CASE WHEN $vectors THEN node.`{VECTOR}` ELSE null END] ELSE null END) AS found, "
        "  count(node) AS seen "
        "RETURN found, seen"
    )


def nearest(
    graph,
    kind: Kind,
    question: str,
    embedder: Callable,
    model: str,
    limit: int = 10,
    *,
    vectors: bool = False,
    timeout: int = STOP_AFTER,
) -> list[dict]:
    """The entities of a kind whose current text is nearest in meaning to the question, best first.

    Returns [{"key", "score", "values"}] as search() gives them; score is the cosine similarity (1 is
    the same direction; ties in key order). Compares only vectors of `model`, reading at most 1,000; an
    entity whose text changed is found again after the next embed(). A blank question gives [] without
    asking the embedder. Arguments are checked first, nothing is written: what embed() raises, and WrongType
    for a question that is not a str.
    Keyword only: vectors=True adds each result's stored unit "vector"; timeout in milliseconds, at
    most 5,000 (past it, TooSlow).
    """
    kind = _checked_kind(kind)
    model, asked = question_vector(question, embedder, model, limit, timeout, vectors)
    params = {"model": model, "hidden": list(HIDDEN), "vectors": vectors}
    results = []
    for key, score, _key, listed, stored in nearest_rows(
        graph, _nearest_query(kind), params, kind.dimensions, asked
    ):
        item = {"key": key, "score": score, "values": shown_values(kind, listed)}
        results.append({**item, "vector": list(stored)} if vectors else item)
    return results
