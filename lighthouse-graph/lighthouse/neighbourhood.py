"""neighbourhood(): the graph around an entity at a time: the relation edges valid then from it and to
it, one or two steps out, as nodes and edges a caller can draw.

Only the relations of the kinds given are followed (the labels a caller declared), in both directions.
Arguments are checked first (Refused or WrongType); nothing is written; database errors pass as
ResponseError.
"""

from __future__ import annotations

from functools import lru_cache

from . import clock, values
from .algorithms.scope import checked_kinds
from .graphs import read
from .read import checked_entity

MOST_NODES = 500
MOST_STEPS = 2


@lru_cache(maxsize=512)
def _step_query(label: str, outgoing: bool) -> str:
    arrow = "-[r]->" if outgoing else "<-[r]-"
    return (
        "WITH localdatetime($at) AS moment "
        f"UNWIND $keys AS wanted MATCH (e:`{label}`:Entity {{key: wanted}}){arrow}(x:Entity) "
        "WHERE type(r) IN $types AND r.valid_from <= moment AND (r.valid_to IS NULL OR r.valid_to > moment) "
        "RETURN DISTINCT e.key, type(r), labels(x), x.key LIMIT $most"
    )


def neighbourhood(graph, kinds, kind, key, when=None, steps=1, limit=200) -> dict:
    """The entities linked to kind/key by an edge valid at `when` (now without one), within `steps` (1 or
    2), at most `limit` nodes (1 to 500): {"at", "nodes": [{"kind", "key", "depth"}] (the entity first,
    depth 0), "edges": [{"from": [label, key], "relation", "to": [label, key]}], "truncated"} (truncated
    when the limit left nodes out). kinds: the Kinds whose relations are followed (a list)."""
    chosen = checked_kinds(kinds)
    key = checked_entity(kind, key)
    steps = values.whole(steps, "steps", 1, MOST_STEPS)
    limit = values.whole(limit, "limit", 1, MOST_NODES)
    at = clock.present() if when is None else clock.looked_at(when, "when")
    labels = {one.label for one in chosen} | {kind.label}
    types = sorted({relation for one in [*chosen, kind] for relation in one.relations})
    nodes = {(kind.label, key): 0}
    edges: dict[tuple, dict] = {}
    frontier = [(kind.label, key)]
    truncated = False
    for depth in range(1, steps + 1):
        found_next = []
        by_label: dict[str, list] = {}
        for label, one in frontier:
            by_label.setdefault(label, []).append(one)
        for label, keys in sorted(by_label.items()):
            for outgoing in (True, False):
                params = {"keys": keys, "types": types, "at": clock.stamp_of(at), "most": MOST_NODES * 4}
                for near_key, relation, their_labels, far_key in read(
                    graph, _step_query(label, outgoing), params
                ):
                    far_label = next((one for one in their_labels if one in labels), None)
                    if far_label is None:
                        continue
                    far = (far_label, far_key)
                    if far not in nodes:
                        if len(nodes) >= limit:
                            truncated = True
                            continue
                        nodes[far] = depth
                        found_next.append(far)
                    near = (label, near_key)
                    start, end = (near, far) if outgoing else (far, near)
                    edges.setdefault(
                        (start, relation, end), {"from": list(start), "relation": relation, "to": list(end)}
                    )
        frontier = found_next
        if not frontier:
            break
    return {
        "at": at,
        "nodes": [{"kind": label, "key": one, "depth": depth} for (label, one), depth in nodes.items()],
        "edges": list(edges.values()),
        "truncated": truncated,
    }
