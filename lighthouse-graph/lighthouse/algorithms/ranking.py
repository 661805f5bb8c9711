"""important() and between(): which entities matter most, by PageRank and by the paths through them."""

from __future__ import annotations

from ..recall.text import checked_limit
from ..snapshot import between_at, between_in, important_at, important_in, read
from ..values import Refused
from .kept import answered
from .scope import MAX_READ, checked_most, moment, scope

BETWEEN_STEPS = 10_000_000  # relations between() follows without sample, from 32 entities at least
MAX_SAMPLE = 100_000


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
    up to 1 (only the best `limit` are given); equal scores in label then key order. PageRank by
    FalkorDB's rules (damping 0.85, the rank of a node with no edge out spread over all, two edges
    between the same nodes counted once), computed here from one read of at most `most` relations and
    entities: FalkorDB's algo.pageRank restricted to a label is wrong where other nodes lie between.

    Without at: every relation ever true, kept until the graph grows. With at: what held then.
    """
    if relation is not None and not isinstance(relation, str):
        raise Refused("important() takes one relation (a name) or None for all of them")
    chosen = scope(kinds, None if relation is None else [relation])
    limit, most = checked_limit(limit), checked_most(most)
    if at is not None:
        return important_at(graph, chosen, moment(at), limit, most)
    return answered(
        graph,
        ("important", chosen, limit),
        chosen,
        lambda: important_in(read(graph, chosen, None, most), limit),
        len,
    )


def between(
    graph,
    kinds: list,
    relations: list[str] | None = None,
    sample: int | None = None,
    limit: int = 10,
    at: object = None,
    *,
    most: int = MAX_READ,
) -> list[dict]:
    """The entities that stand between others, by Brandes' betweenness: [{"entity", "score"}].

    Paths follow the direction of the relations: an entity scores only when relations lead into it and
    out of it. The count starts from every entity when that follows at most 10,000,000 relations
    (2,000,000 at a time), else from as many as that allows, at least 32, drawn with a fixed seed so the
    same graph gives the same answer, and scaled up. sample: start from that many instead.
    FalkorDB's algo.betweenness counts wrong (a chain a->b->c->d gives c 3), so it is computed here from
    one read of at most `most` relations and entities. Without at: kept until the graph grows.
    """
    chosen = scope(kinds, relations)
    limit, most = checked_limit(limit), checked_most(most)
    if sample is not None and (
        isinstance(sample, bool) or not isinstance(sample, int) or not 1 <= sample <= MAX_SAMPLE
    ):
        raise Refused(f"sample is None or a whole number of entities from 1 to {MAX_SAMPLE:,}")
    if at is not None:
        return between_at(graph, chosen, moment(at), sample, limit, most)
    return answered(
        graph,
        ("between", chosen, sample, limit),
        chosen,
        lambda: between_in(read(graph, chosen, None, most), BETWEEN_STEPS, sample, limit),
        len,
    )
