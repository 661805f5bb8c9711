"""The notes nearest in meaning to a question, for recall(): generic notes put back (local scaling),
and the question's vector moved toward the notes it finds first (pseudo relevance feedback).

Local scaling: a note like "Thanks, noted." is near every question a little and near many notes a lot
(a hub of the vector space). Among the notes found, each scores its cosine to the question less SCALING
x the mean cosine to its NEIGHBOURS nearest others found: a note that says what many others say loses,
one that says something of its own keeps its place (CSLS, as in cross-lingual word retrieval).

Feedback (Rocchio's classic): a question is put in other words than the notes that answer it; the notes
it finds first share its subject in the notes' own words, so the mean of their vectors, added to the
question's, finds the notes that say the same in those words too. Nothing is written.
"""

from __future__ import annotations

import math

from ..graphs import read
from ..kinds import VECTOR, VECTOR_MODEL
from .entry_vectors import nearest_entries

FEEDBACK = 3  # the first notes whose vectors move the question
SHARE = 0.5  # what their mean weighs beside the question's own vector (1)
NEIGHBOURS = 3  # the others found a note is compared with, for how generic it is
SCALED = 30  # the first notes found that are scaled (each compared with each: their pairs grow as the square)
SCALING = 0.5  # what a note's mean cosine to its nearest others found takes from its score


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


def scaled(found: list[dict], cosine: dict) -> list[dict]:
    """The notes found (the first SCALED of them; the rest follow) re-ranked by their score less SCALING x their mean cosine to their NEIGHBOURS
    nearest others found (cosine: (id, id) -> cosine, as notes_found.cosines() gives); each keeps its
    fields, "score" becoming the scaled one. Ties keep their order."""
    found, rest = found[:SCALED], found[SCALED:]
    ids = [one["id"] for one in found]
    density = {}
    for mine in ids:
        nearest = sorted((cosine.get((mine, other), 0.0) for other in ids if other != mine), reverse=True)
        taken = nearest[:NEIGHBOURS]
        density[mine] = sum(taken) / len(taken) if taken else 0.0
    rescored = [{**one, "score": one["score"] - SCALING * density[one["id"]]} for one in found]
    return sorted(rescored, key=lambda one: -one["score"]) + rest


# The stored vectors of the notes named (a long note's: its first part's), in the order asked.
_VECTORS = (
    f"UNWIND range(0, size($ids) - 1) AS place MATCH (n:Entry {{id: $ids[place]}}) "
    f"WHERE n.`{VECTOR_MODEL}` = $model RETURN n.`{VECTOR}` ORDER BY place"
)


def nearest_with_feedback(
    graph, question: str, vector: list[float], model, limit: int, types, cosines
) -> list[dict]:
    """The notes nearest to the question's vector, scaled(), then nearest to that vector moved toward
    the first FEEDBACK of them, scaled() again: [{"id", "score", "entry"}], best first.
    cosines: a function (graph, ids, model) -> {(id, id): cosine}."""

    def asked(wanted: list[float]):
        return lambda texts: [wanted for _ in texts]

    first = nearest_entries(graph, question, asked(vector), model, limit, types=types)
    if not first:
        return []
    first = scaled(first, cosines(graph, [one["id"] for one in first[:SCALED]], model))
    ids = [one["id"] for one in first[:FEEDBACK]]
    found = [list(row[0]) for row in read(graph, _VECTORS, {"ids": ids, "model": model})]
    moved_to = moved(vector, found)
    again = nearest_entries(graph, question, asked(moved_to), model, limit, types=types)
    return scaled(again, cosines(graph, [one["id"] for one in again[:SCALED]], model))
