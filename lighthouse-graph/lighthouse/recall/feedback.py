"""Pseudo relevance feedback on vectors, for recall()'s notes: the question's vector moved toward the
vectors of the notes it finds first (Rocchio's classic), then asked again.

A question is put in other words than the notes that answer it; the notes it finds first share its
subject and say it in the notes' own words, so the mean of their vectors, added to the question's,
finds the notes that say the same in those words too. Nothing is written.
"""

from __future__ import annotations

import math

from .entry_vectors import nearest_entries

FEEDBACK = 3  # the first notes whose vectors move the question
SHARE = 0.5  # what their mean weighs beside the question's own vector (1)


def moved(vector: list[float], found: list[list[float]], share: float = SHARE) -> list[float]:
    """The unit vector of `vector` (made unit) plus `share` x the mean of the `found` unit vectors;
    `vector` made unit when nothing was found."""
    own = _unit(vector)
    if not found:
        return own
    mean = [sum(column) / len(found) for column in zip(*(_unit(one) for one in found), strict=True)]
    return _unit([mine + share * theirs for mine, theirs in zip(own, mean, strict=True)])


def _unit(vector: list[float]) -> list[float]:
    length = math.sqrt(math.fsum(value * value for value in vector))
    return [value / length for value in vector] if length else list(vector)


def nearest_with_feedback(graph, question: str, vector: list[float], model, limit: int, types) -> list[dict]:
    """nearest_entries() of the question's vector moved toward its first FEEDBACK notes' vectors: the
    notes found, best first, [{"id", "score", "entry"}] (score: the cosine to the moved vector)."""
    first = nearest_entries(
        graph, question, lambda texts: [vector for _ in texts], model, FEEDBACK, types=types, vectors=True
    )
    if not first:
        return []
    asked = moved(vector, [one["vector"] for one in first])
    return nearest_entries(graph, question, lambda texts: [asked for _ in texts], model, limit, types=types)
