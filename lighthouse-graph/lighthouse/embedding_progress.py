"""embedding_progress(), keep_embedding_progress(), keep_embedding_error(): the state of an application's
job that gives a graph's entities, entries and messages their vectors (embed(), embed_entries(),
embed_said()), kept in the graph so that every process that reads it says the same.

The graph holds it on one node, (:`lh.Embedding` {name: "embedding"}): the model of the last round
that worked (or of the last vectors a failed round gave) and how many vectors the job gave with it
(`embedded`, started again for a new model), when it last gave some (`last_embedded_at`), and whether
its last round failed (`failing`), with that error, its time and model (`last_error`, `last_error_at`,
`failed_model`). A round that worked clears `failing` and keeps the error for the record. Times are
stored as localdatetime values; a graph written when they were text is read as it is.

The rule: the arguments are checked before anything is read or written: a model that is not a name, a
count that is not a whole number from 0 to 10**9, or vectors counted without their model, raise Refused
(a ValueError); an error that is not text raises WrongType (a TypeError). An error is kept cut to 2,000 characters.
"""

from __future__ import annotations

from datetime import UTC, datetime

from . import clock, values
from .errors import Refused
from .graphs import read
from .note_extraction import MAX_COUNT, error_text

EMBEDDING = "`lh.Embedding`"  # the job's one node (no Kind label holds a dot)
_FIELDS = ("model", "embedded", "failing", "last_error", "last_error_at", "last_embedded_at")
_NODE = f"MERGE (e:{EMBEDDING} {{name: 'embedding'}}) "
# The count is of one model's vectors: a new model starts it again. A failed round that gave none leaves
# the model and the count as they are; a round that worked ($worked) keeps its model even when it gave
# none, so the worker, which asks every kind again while the kept model is not its own, stops asking.
_COUNTED = (
    "e.embedded = CASE WHEN $n = 0 AND NOT $worked THEN e.embedded "
    "  WHEN e.model = $model THEN coalesce(e.embedded, 0) + $n ELSE $n END, "
    "e.model = CASE WHEN $n = 0 AND NOT $worked THEN e.model ELSE $model END, "
    "e.last_embedded_at = CASE WHEN $n > 0 THEN localdatetime($now) ELSE e.last_embedded_at END"
)


def _time(stored: object) -> datetime | None:
    if type(stored) is str:  # as a graph written before kept it: now()'s text, UTC without a zone
        return datetime.fromisoformat(stored).replace(tzinfo=UTC)
    return clock.from_store(stored)


def embedding_progress(graph) -> dict:
    """{"model", "embedded", "failing", "last_error", "last_error_at", "last_embedded_at"}: the model of
    the last round that worked (or of a failed round's vectors) and how many it gave with it, whether its last round failed, the last
    error and its time (aware UTC datetimes), when it last gave vectors. Nothing kept (a graph not made
    yet too): model None, embedded 0, failing False, the rest None. Nothing is written."""
    found = read(
        graph, f"MATCH (e:{EMBEDDING}) RETURN " + ", ".join(f"e.{name}" for name in _FIELDS) + " LIMIT 1"
    )
    kept = dict(zip(_FIELDS, found[0], strict=True)) if found else dict.fromkeys(_FIELDS)
    kept["embedded"] = kept["embedded"] or 0
    kept["failing"] = kept["failing"] is True
    for name in ("last_error_at", "last_embedded_at"):
        kept[name] = _time(kept[name])
    return kept


def _model(model: object) -> str | None:
    return None if model is None else values.name(model, "model")


def _embedded(embedded: object) -> int:
    return values.whole(embedded, "embedded", 0, MAX_COUNT)


def keep_embedding_progress(graph, model, embedded) -> None:
    """A round that worked: `embedded` vectors of `model` (a name) counted (a model other than the kept
    one starts the count again, also with none), and the job no longer failing (its last error kept for
    the record). One query."""
    model, embedded = values.name(model, "model"), _embedded(embedded)
    graph.query(
        _NODE + f"SET {_COUNTED}, e.failing = false",
        {"model": model, "n": embedded, "now": clock.now(), "worked": True},
    )


def keep_embedding_error(graph, model, error, embedded=0) -> bool:
    """A round that failed: `error` kept as the job's last one, with its time and `model` (a name, or None
    when the model could not be known), and the `embedded` vectors the round gave before it failed
    counted as keep_embedding_progress() counts them. The same error kept again keeps its first time; True
    when something was written, False when the job was already failing with this error and nothing was
    counted (nothing is written then)."""
    model, error, embedded = _model(model), error_text(error), _embedded(embedded)
    if embedded and model is None:
        raise Refused("vectors counted need the model that gave them, not None")
    if not embedded:
        kept = embedding_progress(graph)
        if kept["failing"] and kept["last_error"] == error:
            return False
    graph.query(
        _NODE + "WITH e, coalesce(e.failing, false) AND e.last_error = $error AS same "
        f"SET {_COUNTED}, e.failing = true, e.last_error = $error, e.failed_model = $model, "
        "  e.last_error_at = CASE WHEN same THEN e.last_error_at ELSE localdatetime($now) END",
        {"model": model, "n": embedded, "error": error, "now": clock.now(), "worked": False},
    )
    return True
