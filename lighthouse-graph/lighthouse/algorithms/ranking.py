"""important() and between(): which entities matter most, by PageRank and by the paths through them."""

from __future__ import annotations

import heapq
from itertools import compress, repeat
from operator import ge, neg

from .. import values
from ..values import Refused
from .centrality import betweenness, pagerank, sources
from .components import Name
from .kept import answered
from .scope import MAX_READ, asked_at, checked_kinds, checked_most, scope, timed
from .snapshot import Snapshot, snapshot_of

BETWEEN_STEPS = 10_000_000  # relations between() follows without sample, from 32 entities at least
BETWEEN_STEPS_AT = 2_000_000  # the same at a time, where nothing is kept
MAX_SAMPLED_STEPS = 100_000_000  # relations a sample the caller chose may follow
MAX_LIMIT = 1_000
MAX_SAMPLE = 1_000
MAX_SEED = 2**31 - 1
_NEAR = 2e-9  # below the limit-th score, what rounds to 9 places as high may lie: 0.5e-9, with room


def ranked(names: list[Name], scores: list[float], limit: int) -> list[dict]:
    """[{"entity", "score"}], highest first; equal scores in name order (names are in that order)."""
    # Rounded for the order only: equal scores may differ in their last bits after the iteration.
    # round(score, 9) costs a microsecond, so only the scores that can reach the best `limit` are rounded:
    # the limit-th highest score v has at least `limit` at or above it, rounded no lower than v is; a
    # score rounded as high lies within 1e-9 below v at most. The pairs are compared in C.
    if not scores:
        return []
    least = heapq.nlargest(limit, scores)[-1] - _NEAR
    near = list(compress(range(len(scores)), map(ge, scores, repeat(least))))
    rounded = map(round, map(scores.__getitem__, near), repeat(9))
    order = heapq.nsmallest(limit, zip(map(neg, rounded), near, strict=True))
    return [{"entity": names[node], "score": scores[node]} for _, node in order]


def important_in(snapshot: Snapshot, limit: int) -> list[dict]:
    return ranked(snapshot.names, pagerank(len(snapshot.names), snapshot.links()), limit)


def between_in(snapshot: Snapshot, steps: int, sample: int | None, seed: int, limit: int) -> list[dict]:
    size = len(snapshot.names)
    links = set(snapshot.links())
    if sample is not None and min(sample, size) * len(links) > MAX_SAMPLED_STEPS:
        raise Refused(
            f"a sample of {sample:,} would follow more than {MAX_SAMPLED_STEPS:,} relations: take fewer"
        )
    starts = sources(size, len(links), steps, sample, seed)
    return ranked(snapshot.names, betweenness(size, links, starts), limit)


def important(
    graph,
    kinds: list,
    relation: str | None = None,
    limit: int = 10,
    at: object = None,
    *,
    most: int = MAX_READ,
) -> list[dict]:
    """The entities that relations lead to most, by PageRank: [{"entity": (label, key), "score"}].

    Over the entities of the kinds and of the kinds their relations point at, and the edges of one
    relation or, without one, of every relation the kinds declare. The scores of all those entities add
    up to 1 (only the best `limit`, 1 to 1000, are given); equal scores in name order. PageRank by
    FalkorDB's rules (damping 0.85, the rank of a node with no edge out spread over all, two edges
    between the same nodes counted once), computed here from one read of at most `most` relations and
    entities: FalkorDB's algo.pageRank restricted to a label is wrong where other nodes lie between.

    Without at: every relation ever true, kept until the graph grows. With at: what held then.
    Arguments are checked before anything is read: kinds not a list of Kind raises WrongType, a bad
    value (a list as relation, say) Refused. Database errors propagate.
    """
    chosen_kinds = checked_kinds(kinds)
    if relation is not None and type(relation) is not str:
        raise Refused("important() takes one relation type or None for all of them, not a list")
    chosen = scope(chosen_kinds, None if relation is None else [relation])
    limit = values.whole(limit, "limit", 1, MAX_LIMIT)
    most = checked_most(most)
    if at is not None:
        time = asked_at(at)
        return important_in(snapshot_of(graph, timed(chosen), time, most), limit)
    return answered(
        graph,
        ("important", chosen, limit),
        chosen,
        lambda: important_in(snapshot_of(graph, chosen, None, most), limit),
        len,
    )


def between(
    graph,
    kinds: list,
    relations: list[str] | None = None,
    limit: int = 10,
    sample: int | None = None,
    seed: int = 1,
    at: object = None,
    *,
    most: int = MAX_READ,
) -> list[dict]:
    """The entities that stand between others, by Brandes' betweenness: [{"entity", "score"}].

    Paths follow the direction of the relations: an entity scores only when relations lead into it and
    out of it. The count starts from every entity when that follows at most 10,000,000 relations
    (2,000,000 at a time), else from as many as that allows, at least 32, drawn with `seed` (1 to
    2**31 - 1) so the same graph gives the same answer, and scaled up. sample (1 to 1000): start from
    that many instead. FalkorDB's algo.betweenness counts wrong (a chain a->b->c->d gives c 3), so it
    is computed here from one read of at most `most` relations and entities. Without at: kept until the
    graph grows. Arguments are checked as important() checks them. Nothing is written; database errors
    pass as ResponseError.
    """
    chosen = scope(checked_kinds(kinds), relations)
    limit = values.whole(limit, "limit", 1, MAX_LIMIT)
    if sample is not None:
        sample = values.whole(sample, "sample", 1, MAX_SAMPLE)
    seed = values.whole(seed, "seed", 1, MAX_SEED)
    most = checked_most(most)
    if at is not None:
        time = asked_at(at)
        picture = snapshot_of(graph, timed(chosen), time, most)
        return between_in(picture, BETWEEN_STEPS_AT, sample, seed, limit)
    return answered(
        graph,
        ("between", chosen, sample, seed, limit),
        chosen,
        lambda: between_in(snapshot_of(graph, chosen, None, most), BETWEEN_STEPS, sample, seed, limit),
        len,
    )
