"""The embedding worker's round and its status: vectors for every declared kind with text and
dimensions, for the entries (a note is an entry) and for the conversations' messages (so that `said`
finds a user's messages by meaning), with the configured embedder.

The worker loop calls embed_pending() once a round for each tenant; a round does a bounded amount of
work (PER_ROUND entities of each kind and PER_ROUND entries) and never raises: what went wrong is kept
in the tenant's graph by the library (keep_embedding_error(), keep_embedding_progress(); read back by
embedding_progress()), so the status that any process reads says it. embed() and embed_entries() move
their own marks, and embed_said() takes a message's waiting label off, in the queries that store the
vectors, so two processes that run rounds at once store each vector once. An embedder that
failed rests (is not asked) for a while in this process, so an endpoint that hangs does not hold up
the worker's other phases every round.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time

from lighthouse import (
    EmbedderError,
    LighthouseError,
    Refused,
    embed,
    embed_entries,
    embed_said,
    embedding_progress,
    ensure_schema,
    entry_dimensions,
    keep_embedding_error,
    keep_embedding_progress,
    said_waiting,
    vectors_waiting,
)

# One schema change at a time in this process, declarations' and ours (see declarations.py).
from ..declarations import SCHEMA_LOCK
from ..embedders import Configured, EmbedderUnavailable, EmbeddingsFailed

_log = logging.getLogger(__name__)

PER_ROUND = 100  # entities of each kind, entries, and messages given vectors in one round
REST_FIRST, REST_MOST = 1.0, 300.0  # seconds a failed embedder is left alone: the first rest, the longest
SHOWN = 500  # characters of an error kept
# The configured embedder (kind, URL, model) -> (rest until, in time.monotonic(), its length, the error).
_rests: dict[tuple, tuple[float, float, str]] = {}
_rests_lock = threading.Lock()


def _embeddable(kinds) -> list:
    listed = list(kinds.values()) if isinstance(kinds, dict) else list(kinds)
    return [kind for kind in listed if kind.text and kind.dimensions]


def said(error: BaseException) -> str:
    """An error as the status keeps it: the embedders' own failures by their message (it says what the
    endpoint or the installation did), any other with its type's name first."""
    text = str(error) or "no message"
    if not isinstance(error, EmbeddingsFailed | EmbedderUnavailable):
        text = f"{type(error).__name__}: {text}"
    return text[:SHOWN]


def _entry_index(graph, kinds: list, dimensions: int, changing) -> str | None:
    """Makes the entries' vector index of the embedder's dimensions when the graph has none; the
    error when it has one of other dimensions, else None. The index is made while the tenant's calls
    in this process are held back, as a declaration's are: FalkorDB 4.22.1 crashed (SIGSEGV in its
    index lookup) when a query used a label's index while a new index of that label was being built."""
    try:
        size = entry_dimensions(graph)
    except Refused:  # a graph with indexes but none for entries' vectors yet
        with changing(), SCHEMA_LOCK:  # the order declare() takes them in
            ensure_schema(graph, kinds=kinds, entry_dimensions=dimensions)
        return None
    if size is not None and size != dimensions:
        return f"entries have a vector index of {size} dimensions; the embedder gives {dimensions}"
    return None


def _resting(embedder: Configured) -> tuple[float, str] | None:
    """(seconds left, its error) while the configured embedder rests after a failure; else None."""
    with _rests_lock:
        found = _rests.get(embedder.endpoint)
    if found is None or found[0] <= time.monotonic():
        return None
    return found[0] - time.monotonic(), found[2]


def _rest(embedder: Configured, error: str) -> None:
    with _rests_lock:
        before = _rests.get(embedder.endpoint)
        seconds = REST_FIRST if before is None else min(before[1] * 2, REST_MOST)
        _rests[embedder.endpoint] = (time.monotonic() + seconds, seconds, error)


def _failed(graph, model: str | None, done: dict, errors: list[str]) -> dict:
    """The round's answer after errors, each kept as the tenant's last one (once, when it repeats)."""
    message = "; ".join(errors)[:SHOWN]
    try:
        keep_embedding_error(graph, model, message, done["embedded"])
    except Exception:  # noqa: BLE001 - a database that cannot keep the error: the log says it
        _log.exception("the embedding error could not be kept: %s", message)
    return {**done, "state": "failing", "model": model, "errors": errors}


def embed_pending(
    graph, kinds, embedder: Configured, *, limit: int = PER_ROUND, changing=contextlib.nullcontext
) -> dict:
    """One round: up to `limit` vectors for each declared kind with text and dimensions, up to `limit`
    for the entries and up to `limit` for the messages. Never raises.

    Returns {"state": "not configured" | "ok" | "failing", "model", "embedded", "kinds": {label:
    {"embedded", "waiting"}}, "entries": {"embedded", "waiting"} or None, "messages": {"embedded",
    "waiting"} or None, "errors": [text]}. A kind whose
    dimensions differ from the embedder's is left out with its error. An embedder (or database) that
    fails ends the round there, and the embedder is not asked again in this process for a rest of
    REST_FIRST seconds, doubled after each failure up to REST_MOST (so an endpoint that hangs costs
    the worker's other phases one timeout a rest, not one a round); "resting_s" says what is left.
    Every error is kept as the tenant's last one. changing: the tenant's writers' gate held for a
    schema change (the serve's, so its calls wait while the entries' vector index is made).
    """
    configured = embedder
    done: dict = {
        "state": "ok",
        "model": None,
        "embedded": 0,
        "kinds": {},
        "entries": None,
        "messages": None,
        "errors": [],
    }
    if not configured.configured:
        return {**done, "state": "not configured"}
    resting = _resting(configured)
    if resting is not None:
        left, error = resting
        return {**_failed(graph, configured.model, done, [error]), "resting_s": left}
    chosen = _embeddable(kinds)
    try:
        embedder, model, dimensions = configured.load()
    except Exception as error:  # noqa: BLE001 - a model that cannot be loaded or reached is a failing status
        message = f"the embedder cannot be used: {said(error)}"
        _rest(configured, message)
        return _failed(graph, configured.model, done, [message])
    done["model"] = model
    errors = []
    kept = embedding_progress(graph)
    # An idle round writes nothing: a kind is asked only when some entity waits for a vector, or when the
    # model changed since the last vectors (embed() then marks its entities again).
    switched = kept["model"] is not None and kept["model"] != model
    try:
        for kind in chosen:
            if kind.dimensions != dimensions:
                errors.append(
                    f"kind {kind.label!r} has {kind.dimensions} dimensions; {model} gives {dimensions}"
                )
                continue
            if not switched and not _waiting(graph, [kind], None, entries=False):
                continue
            done["kinds"][kind.label] = embed(graph, kind, embedder, model, limit)
            done["embedded"] += done["kinds"][kind.label]["embedded"]
        # Entries are asked once some were stored past the model's mark (or the model changed).
        if switched or _waiting(graph, [], model) > 0:
            problem = _entry_index(graph, chosen, dimensions, changing)
            if problem is not None:
                errors.append(problem)
            else:
                done["entries"] = embed_entries(graph, embedder, model, limit)
                done["embedded"] += done["entries"]["embedded"]
        if said_waiting(graph, model) > 0:  # a new model's vectors replace the old ones as they come
            done["messages"] = embed_said(graph, embedder, model, limit)
            done["embedded"] += done["messages"]["embedded"]
    except Exception as error:  # noqa: BLE001 - the round ends; the status says why
        errors.append(said(error))
        # The embedder rests after its own failures; a refusal about this graph alone (a graph without
        # its schema yet) leaves it working for every other tenant.
        if not isinstance(error, LighthouseError) or isinstance(error, EmbedderError):
            _rest(configured, said(error))
    else:
        with _rests_lock:
            _rests.pop(configured.endpoint, None)
    if errors:
        return _failed(graph, model, done, errors)
    if done["embedded"] or kept["failing"] or switched:
        try:
            keep_embedding_progress(graph, model, done["embedded"])
        except Exception as error:  # noqa: BLE001 - the vectors are stored; only their count is not
            return {**done, "state": "failing", "errors": [said(error)]}
    return done


def _waiting(graph, kinds: list, model: str | None, *, entries: bool = True) -> int:
    """Entities of the kinds whose text waits for a vector, and (entries=True) entries past the model's
    mark."""
    waiting = vectors_waiting(graph, list(kinds), model)
    return sum(waiting["kinds"].values()) + (waiting["entries"] if entries else 0)


def embedding_status(graph, kinds, embedder: Configured) -> dict:
    """{"state": "not configured" | "ok" | "failing", "waiting", "embedded", "model", "last_error",
    "last_error_at", "last_embedded_at"}, read from the tenant's graph, so every process says the same.

    "not configured" when no embedder is set (never "ok" then); "failing" when the last round that
    did something failed. waiting: entities of kinds with text and dimensions that have no vector,
    entries stored past the model's mark (all of them without a model), and messages with no vector of
    the model (none counted without one). embedded: the vectors rounds
    gave with this model. Loads and asks no model.
    """
    model = embedder.model
    kept = embedding_progress(graph)
    state = "failing" if kept["failing"] else "ok"
    if not embedder.configured:
        state = "not configured"  # whatever an earlier configuration left
    return {
        "state": state,
        "waiting": _waiting(graph, _embeddable(kinds), model) + (said_waiting(graph, model) if model else 0),
        "embedded": kept["embedded"] if model is not None and kept["model"] == model else 0,
        "model": model,
        "last_error": kept["last_error"],
        "last_error_at": kept["last_error_at"],
        "last_embedded_at": kept["last_embedded_at"],
    }
