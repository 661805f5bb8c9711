"""fuse(): the rankings of several ways of recall merged into one, by reciprocal rank fusion.

The scores of the graph, the words and the meaning cannot be compared, so only places count: an item
scores 1 / (k + place) in each ranking that has it. Optional after that: diversity (maximal marginal
relevance over the meaning vectors) and the application's reranker, whose answer is checked.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable

from .. import values
from ..values import Refused

MAX_RANKINGS = 20
MAX_RANKED = 1_000  # items of one ranking
MAX_RESULTS = 1_000
MAX_DIVERSE = 100  # results that diversity picks at most, each compared with those picked before
POOL = 10  # diversity picks from the best POOL x limit (at most 200) of the fused ranking
MAX_K = 10_000


class RerankerError(ValueError):
    """A reranker's answer that is not the results it was given, in another order."""


def identity(item: object) -> tuple[str, str, object]:
    """What names a ranked item: ("key", ...) for an entity or a bare key, ("id", ...) for an entry."""
    if isinstance(item, dict):
        if "key" in item:
            field, found = "key", item["key"]
        elif "id" in item:
            field, found = "id", item["id"]
        else:
            raise Refused("a ranked item is a key, or a dict with its key or id")
    else:
        field, found = "key", item
    if isinstance(found, bool) or not isinstance(found, str | int):
        raise Refused(f"a ranked {field} is text or a whole number, not {type(found).__name__}")
    return field, type(found).__name__, found  # the type too, so 1 and "1" stay two items


def _checked(rankings: object, limit: object, k: object) -> None:
    if not isinstance(rankings, dict):
        raise Refused("rankings is a dict of name -> list of results, best first")
    if len(rankings) > MAX_RANKINGS:
        raise Refused(f"at most {MAX_RANKINGS} rankings are fused")
    for name, listed in rankings.items():
        values.name(name, "a ranking's name")
        if not isinstance(listed, list | tuple):
            raise Refused(f"the ranking {name!r} is a list, not {type(listed).__name__}")
        if len(listed) > MAX_RANKED:
            raise Refused(f"the ranking {name!r} holds more than {MAX_RANKED:,} items")
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_RESULTS:
        raise Refused(f"limit is a whole number from 1 to {MAX_RESULTS:,}")
    if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= MAX_K:
        raise Refused(f"k is a whole number from 0 to {MAX_K:,}")


def _fused(rankings: dict, k: int) -> list[dict]:
    board: dict[tuple, dict] = {}
    for order, (name, listed) in enumerate(rankings.items()):
        for place, item in enumerate(listed, start=1):
            named = identity(item)
            found = board.setdefault(
                named, {"fields": {}, "places": {}, "first": (order, place), "id": named}
            )
            if name in found["places"]:  # an item a ranking repeats counts at its best place only
                continue
            found["places"][name] = place
            for field, content in item.items() if isinstance(item, dict) else []:
                found["fields"].setdefault(field, content)  # the ranking named first wins a field
    # fsum: equal places give equal scores, whatever order they are added in.
    for found in board.values():
        found["score"] = math.fsum(1 / (k + place) for place in found["places"].values())
    ranked = sorted(
        board.values(),
        key=lambda found: (-found["score"], min(found["places"].values()), found["first"]),
    )
    results = []
    for found in ranked:
        field, _type, key = found["id"]
        result = {
            field: key,
            **{f: c for f, c in found["fields"].items() if f not in (field, "score", "places")},
        }
        result["score"] = found["score"]
        result["places"] = found["places"]
        results.append(result)
    return results


def _unit(vector: object, key: object) -> list[float]:
    if not isinstance(vector, list | tuple) or not vector:
        raise Refused(f"the vector of {key!r} is a list of numbers")
    if not all(isinstance(x, numbers.Real) and not isinstance(x, bool) for x in vector):
        raise Refused(f"the vector of {key!r} holds something that is not a number")
    floats = [float(x) for x in vector]
    top = max(abs(x) for x in floats) if all(math.isfinite(x) for x in floats) else 0.0
    if not top:
        raise Refused(f"the vector of {key!r} is all zeros or not finite")
    length = math.sqrt(math.fsum((x / top) ** 2 for x in floats))
    return [x / top / length for x in floats]


def _diverse(results: list[dict], limit: int, weight: float, vectors: dict) -> list[dict]:
    """Maximal marginal relevance: each next pick is the most relevant (weight) and least like the
    picks before it (1 - weight). An item without a vector is like nothing."""
    pool = results[: max(limit, min(POOL * limit, 200))]
    if not pool:
        return []
    top = pool[0]["score"]
    units = {}
    for result in pool:
        key = result.get("key", result.get("id"))
        given = vectors.get(key, result.get("vector"))
        if given is not None:
            units[id(result)] = _unit(given, key)
    sizes = {len(unit) for unit in units.values()}
    if len(sizes) > 1:
        raise Refused("the vectors for diversity have different sizes")
    closest = {id(result): 0.0 for result in pool}  # the highest similarity to a pick so far
    picked: list[dict] = []
    while pool and len(picked) < limit:
        best = max(
            pool,
            key=lambda result: weight * result["score"] / top - (1 - weight) * closest[id(result)],
        )  # max() keeps the first of equals: the better fused place
        pool = [result for result in pool if result is not best]
        picked.append(best)
        chosen = units.get(id(best))
        for result in pool if chosen is not None else []:
            unit = units.get(id(result))
            if unit is not None:
                similar = math.fsum(a * b for a, b in zip(unit, chosen, strict=True))
                closest[id(result)] = max(closest[id(result)], similar)
    return picked


def _reranked(results: list[dict], rerank: Callable) -> list[dict]:
    answer = rerank([{**result, "places": dict(result["places"])} for result in results])
    if not isinstance(answer, list | tuple):
        raise RerankerError(f"the reranker answered {type(answer).__name__}, not a list of the results")
    ours = {identity(result): result for result in results}
    try:
        named = [identity(item) for item in answer]
    except Refused as error:
        raise RerankerError(f"the reranker answered an item that is not a result: {error}") from None
    if len(named) != len(ours) or set(named) != set(ours):
        raise RerankerError("the reranker must answer the same results, each once, in its order")
    return [ours[name] for name in named]  # the order is the reranker's, the content ours


def fuse(
    rankings: dict,
    limit: int = 10,
    k: int = 60,
    diversity: float | None = None,
    vectors: dict | None = None,
    rerank: Callable | None = None,
) -> list[dict]:
    """One ranking from several, by reciprocal rank fusion over places only, best first.

    rankings: name -> results best first (dicts with key, or id for entries, or bare keys). Each result:
    its key (or id), the fields the rankings gave (the ranking named first wins), score (the sum of
    1 / (k + place)) and places ({ranking name: place}). Equal scores go to the better best place, then to
    the ranking named first. diversity: a weight from 0 to 1 for maximal marginal relevance (1 keeps the
    fused order) over vectors (key or id -> vector; else a result's own "vector"), picking from the best
    10 x limit. rerank: the application's function, results in, the same results reordered out.
    """
    _checked(rankings, limit, k)
    results = _fused(rankings, k)
    if diversity is not None:
        if isinstance(diversity, bool) or not isinstance(diversity, numbers.Real) or not 0 <= diversity <= 1:
            raise Refused("diversity is a weight from 0 to 1")
        if vectors is not None and not isinstance(vectors, dict):
            raise Refused("vectors is a dict of key or id -> vector")
        if limit > MAX_DIVERSE:
            raise Refused(f"diversity picks at most {MAX_DIVERSE} results")
        results = _diverse(results, limit, float(diversity), vectors or {})
    elif vectors is not None:
        raise Refused("vectors are for diversity: give diversity a weight too")
    results = results[:limit]
    if rerank is not None:
        if not callable(rerank):
            raise Refused("rerank is a function: results in, the same results reordered out")
        results = _reranked(results, rerank)
    return results
