"""fuse(): the rankings of several ways of recall merged into one, by reciprocal rank fusion.

The scores of the graph, the words and the meaning cannot be compared, so only places count: an item
scores 1 / (60 + place) in each ranking that has it. Optional after that, keyword only: diversity
(maximal marginal relevance over the meaning vectors) and the application's reranker, whose answer is
checked. The rule: the arguments are read once, as exact dicts, lists and tuples, before anything is
computed; a bad value raises Refused (a ValueError), a ranking that is not a list raises WrongType (a
TypeError). What a reranker raises passes unchanged.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from .. import values
from ..errors import Refused, RerankerError, WrongType

MAX_RANKINGS = 100
MAX_RANKED = 10_000  # items of one ranking
MAX_RESULTS = 1_000
MAX_DIVERSE = 100  # results that diversity picks at most, each compared with those picked before
POOL = 10  # diversity picks from the best POOL x limit (at most 200) of the fused ranking
MAX_K = 10_000


def identity(item: object) -> str | int:
    """The key of a ranked item: exactly a dict with a "key" that is a key (a name or a 64-bit int)."""
    if type(item) is not dict:
        raise Refused(f"a ranked item must be a dict with its key, not {type(item).__name__}")
    return values.key(_field(item, "key"), "a ranked item's key")


def _field(item: dict, name: str) -> object:
    """A field of an exact dict, or None when it has none or its keys fail when compared."""
    try:
        return dict.get(item, name)
    except Exception:  # a key object whose comparison raises: the field cannot be read
        return None


def _in_order(key: str | int) -> tuple[int, str | int]:
    """Whole-number keys before names, each ascending: the order of ties."""
    return (0, key) if type(key) is int else (1, key)


def _checked(rankings: object, limit: object, k: object) -> list[tuple[str, list]]:
    """The rankings as (name, items) pairs in the order given, read once."""
    if type(rankings) is not dict:
        raise Refused(f"rankings must be a dict of name -> list of results, not {type(rankings).__name__}")
    pairs = list(dict.items(rankings))
    if len(pairs) > MAX_RANKINGS:
        raise Refused(f"at most {MAX_RANKINGS} rankings are fused")
    for name, listed in pairs:
        values.name(name, "a ranking's name")
        if type(listed) not in (list, tuple):
            raise WrongType(f"the ranking {name!r} must be a list, not {type(listed).__name__}")
        if len(listed) > MAX_RANKED:
            raise Refused(f"the ranking {name!r} holds more than {MAX_RANKED:,} items")
    values.whole(limit, "limit", 1, MAX_RESULTS)
    values.whole(k, "k", 0, MAX_K)
    return pairs


def _fused(pairs: list[tuple[str, list]], k: int, weights: dict | None = None) -> list[dict]:
    """[{"key", "score", "places", "vector"?}], best first; ties: whole-number keys, then names."""
    board: dict[tuple, dict] = {}
    for name, listed in pairs:
        place = 0  # a key a ranking repeats counts once, at its best place, and takes no place again
        for item in listed:
            key = identity(item)
            found = board.setdefault((type(key) is int, key), {"key": key, "places": {}})
            if name in found["places"]:
                continue
            place += 1
            found["places"][name] = place
            if found.get("vector") is None:  # what diversity may read, never shown
                found["vector"] = _field(item, "vector")
    # fsum: equal places give equal scores, whatever order they are added in.
    weights = weights or {}
    for found in board.values():
        found["score"] = math.fsum(
            weights.get(name, 1.0) / (k + place) for name, place in found["places"].items()
        )
    return sorted(board.values(), key=lambda found: (-found["score"], *_in_order(found["key"])))


def _unit(vector: object, key: object) -> list[float]:
    if type(vector) not in (list, tuple) or not vector:
        raise Refused(f"the vector of {key!r} is a list of numbers")
    if not all(type(x) is float or type(x) is int for x in vector):
        raise Refused(f"the vector of {key!r} holds something that is not a number")
    try:
        floats = [float(x) for x in vector]
    except OverflowError:
        raise Refused(f"the vector of {key!r} holds a number out of range") from None
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
        key = result["key"]
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


def _answered(item: object) -> tuple[bool, str | int]:
    """What names an item of the reranker's answer: a result (a dict with its key) or a bare key."""
    return _named(identity(item) if type(item) is dict else values.key(item, "a reranked key"))


def _named(key: str | int) -> tuple[bool, str | int]:
    return (type(key) is int, key)  # the type too, so 1 and "1" stay two items


def _reranked(results: list[dict], rerank: Callable) -> list[dict]:
    answer = rerank([dict(result, places=dict(result["places"])) for result in results])
    if type(answer) not in (list, tuple):
        raise RerankerError(f"the reranker answered {type(answer).__name__}, not a list of the results")
    ours = {_named(result["key"]): result for result in results}
    try:
        named = [_answered(item) for item in answer]
    except Refused as error:
        raise RerankerError(f"the reranker answered an item that is not a result: {error}") from None
    if len(named) != len(ours) or set(named) != set(ours):
        raise RerankerError("the reranker must answer the same results, each once, in its order")
    return [ours[name] for name in named]  # the order is the reranker's, the content ours


def fuse(
    rankings: dict,
    limit: int = 10,
    *,
    k: int = 60,
    diversity: float | None = None,
    vectors: dict | None = None,
    rerank: Callable | None = None,
    weights: dict | None = None,
) -> list[dict]:
    """One ranking from several, by reciprocal rank fusion over places only, best first.

    rankings: name -> results best first, each a dict with its "key" (other fields are ignored).
    Returns [{"key", "score", "places"}]: score is the sum of 1 / (60 + place) over the rankings that
    list the key, places {ranking name: place}, counted from 1; a key a ranking lists twice counts once,
    at its best place, and its second listing takes no place (["a", "b", "a", "c"]: c is third). Ties: whole-number keys before names, each ascending. fuse({}) is [].
    Arguments are read once and checked before anything is computed: Refused when rankings is not a dict, a
    name is not a name, an item has no valid key, or for limit (1 to 1,000); WrongType when a ranking is not a
    list or tuple ("must be a list").
    Keyword only: k (60), diversity, a weight from 0 to 1 for maximal marginal relevance (1 keeps the
    fused order) over vectors (key -> vector; else the "vector" an item carries), picking from the best
    10 x limit; rerank, the application's function: results in, the same results reordered out;
    weights, ranking name -> a number from 0 to 100 that its places count for (1 for a ranking it
    does not name).
    """
    pairs = _checked(rankings, limit, k)
    if weights is not None:
        if type(weights) is not dict:
            raise Refused("weights is a dict of ranking name -> number")
        for name, weight in dict.items(weights):
            values.name(name, "a weight's ranking")
            if type(weight) not in (int, float) or not 0 <= weight <= 100:
                raise Refused(f"the weight of {name!r} is a number from 0 to 100")
    results = _fused(pairs, k, weights)
    if diversity is not None:
        if type(diversity) not in (int, float) or not 0 <= diversity <= 1:
            raise Refused("diversity is a weight from 0 to 1")
        if vectors is not None and type(vectors) is not dict:
            raise Refused("vectors is a dict of key -> vector")
        if limit > MAX_DIVERSE:
            raise Refused(f"diversity picks at most {MAX_DIVERSE} results")
        results = _diverse(results, limit, float(diversity), dict(vectors or {}))
    elif vectors is not None:
        raise Refused("vectors are for diversity: give diversity a weight too")
    results = [{"key": found["key"], "score": found["score"], "places": found["places"]} for found in results]
    results = results[:limit]
    if rerank is not None:
        if not callable(rerank):
            raise WrongType("rerank is a function: results in, the same results reordered out")
        results = _reranked(results, rerank)
    return results
