"""Answers kept until the graph grows: groups(), important() and between() are computed once per graph state.

An answer is reused while the graph has the same Stamp id and as many nodes and edges of the labels and
types its question reads. A graph only grows, and every query that deletes gives it a new stamp, so
equal numbers mean the same nodes and edges. FalkorDB keeps those numbers per label and type:
db.meta.stats() gives them without a scan (GRAPH.PROFILE shows one ProcedureCall, where a query that
counts two labels scans both). Answers are kept per database client, at most 64, each of at most
10,000 names; a caller gets a copy.
"""

from __future__ import annotations

import copy
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from ..graphs import read
from .scope import Scope

MAX_ANSWERS = 64  # kept for one database client
MAX_NAMES = 10_000  # names in one kept answer
MAX_PICTURES = 4  # pictures of the graph (what connection() searches) kept for one database client

_MEASURE = "CALL db.meta.stats() YIELD labels, relTypes OPTIONAL MATCH (stamp:Stamp) RETURN stamp.id, labels, relTypes"

_lock = threading.Lock()
# database client -> (graph name, question) -> (Measure, answer); a client that is gone takes its answers.
_kept: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
# database client -> (graph name, question) -> (Measure, picture): what a search reads, kept whole.
_pictures: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


@dataclass(frozen=True)
class Measure:
    """The stamp of a graph and the numbers of nodes and edges of the labels and types a question reads."""

    stamp: str | None
    labels: tuple[tuple[str, int], ...] = ()
    types: tuple[tuple[str, int], ...] = ()


def measure(graph, scope: Scope) -> Measure:
    """One round trip: the graph's stamp (None without one) and its counts for the scope."""
    result = read(graph, _MEASURE)
    if not result:  # a graph that does not exist yet
        return Measure(None)
    stamp, labels, types = result[0]
    labels, types = dict(labels or {}), dict(types or {})
    return Measure(
        stamp,
        tuple((label, int(labels.get(label, 0))) for label in scope.labels),
        tuple((kind, int(types.get(kind, 0))) for kind in scope.types),
    )


def _answers_of(graph, kept: weakref.WeakKeyDictionary = _kept) -> OrderedDict | None:
    client = getattr(graph, "client", None)
    if client is None:
        return None
    try:
        return kept.setdefault(client, OrderedDict())
    except TypeError:  # a client that cannot be weakly referenced: nothing is kept for it
        return None


def kept_picture(graph, question: tuple, found: Measure) -> object | None:
    """The picture kept for a question while the graph is as `found` measured it; else None.

    A picture is the library's own (connection() reads it, callers never see it): it is not copied.
    """
    pictures = _answers_of(graph, _pictures) if found.stamp is not None else None
    if pictures is None:
        return None
    with _lock:
        held = pictures.get((graph.name, question))
        return held[1] if held is not None and held[0] == found else None


def keep_picture(graph, question: tuple, found: Measure, picture: object) -> None:
    """Keeps a picture of the graph as `found` measured it (before it was read); at most 4 a client."""
    pictures = _answers_of(graph, _pictures) if found.stamp is not None else None
    if pictures is None:
        return
    with _lock:
        pictures[(graph.name, question)] = (found, picture)
        pictures.move_to_end((graph.name, question))
        while len(pictures) > MAX_PICTURES:
            pictures.popitem(last=False)


def answered(graph, question: tuple, scope: Scope, compute: Callable[[], list], names: Callable[[list], int]):
    """The kept answer to a question while the graph is as it was; else compute() once and keep it.

    question: what tells this question from another (its function and arguments); names: how many names
    an answer holds. Kept only for a graph with a stamp, and only answers of at most 10,000 names.
    """
    found = measure(graph, scope)
    answers = _answers_of(graph) if found.stamp is not None else None
    if answers is None:
        return compute()
    key = (graph.name, question)
    with _lock:
        held = answers.get(key)
        if held is not None and held[0] == found:
            answers.move_to_end(key)
            return copy.deepcopy(held[1])
        # Another stamp: the graph was made again or something was deleted. No answer of before holds.
        for other in [
            one for one, (was, _) in answers.items() if one[0] == graph.name and was.stamp != found.stamp
        ]:
            del answers[other]
    fresh = compute()
    if names(fresh) <= MAX_NAMES:
        with _lock:
            answers[key] = (found, copy.deepcopy(fresh))
            answers.move_to_end(key)
            while len(answers) > MAX_ANSWERS:
                answers.popitem(last=False)
    return fresh
