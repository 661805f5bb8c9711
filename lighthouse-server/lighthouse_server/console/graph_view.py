"""The graph around an entity at a time, drawn on the server as SVG (the page's CSP allows no inline
script, and a drawing needs none): the entity in the middle, what it links to and what links to it on a
ring around it, a second step on an outer ring, each node a link to its page. The edges are those valid
at the time the form names (now without one), from lighthouse.neighbourhood()."""

from __future__ import annotations

import math
from dataclasses import dataclass

from lighthouse import kinds_holding, neighbourhood

from ..problems import Problem
from .pages import as_time, declared, graph_of, key_of
from .rendering import page, when_text

SIZE = 760
RINGS = (0, 190, 330)  # the radius of each step


@dataclass
class Node:
    kind: str
    key: object
    depth: int
    x: float
    y: float


@dataclass
class Edge:
    x1: float
    y1: float
    x2: float
    y2: float
    relation: str
    title: str


def placed(found: dict) -> tuple[list[Node], list[Edge]]:
    """Where each node and edge goes: each ring's nodes evenly around it, the outer ones in the order of
    the inner nodes they hang from, so that they sit near them."""
    middle = SIZE / 2
    by_ref = {}
    parents: dict[tuple, float] = {}
    rings: dict[int, list[dict]] = {}
    for node in found["nodes"]:
        rings.setdefault(node["depth"], []).append(node)
    for depth in sorted(rings):
        members = rings[depth]
        if depth == 2:
            members.sort(key=lambda node: parents.get((node["kind"], node["key"]), 0.0))
        for place, node in enumerate(members):
            angle = 2 * math.pi * place / len(members) - math.pi / 2
            radius = RINGS[depth]
            ref = (node["kind"], node["key"])
            by_ref[ref] = Node(
                node["kind"],
                node["key"],
                depth,
                middle + radius * math.cos(angle),
                middle + radius * math.sin(angle),
            )
            if depth == 1:
                for edge in found["edges"]:
                    ends = (tuple(edge["from"]), tuple(edge["to"]))
                    if ref in ends:
                        other = ends[1] if ends[0] == ref else ends[0]
                        parents.setdefault(other, angle)
    edges = []
    for edge in found["edges"]:
        start, end = by_ref.get(tuple(edge["from"])), by_ref.get(tuple(edge["to"]))
        if start is None or end is None:
            continue
        title = f"{edge['from'][0]} {edge['from'][1]} {edge['relation']} {edge['to'][0]} {edge['to'][1]}"
        edges.append(
            Edge(
                round(start.x, 1),
                round(start.y, 1),
                round(end.x, 1),
                round(end.y, 1),
                edge["relation"],
                title,
            )
        )
    nodes = [Node(n.kind, n.key, n.depth, round(n.x, 1), round(n.y, 1)) for n in by_ref.values()]
    return nodes, edges


def graph_page(console, who, query):
    kinds = declared(console, who)
    kind = console.kinds.kind(who.tenant, query.get("kind"))
    key = key_of(query)
    graph = graph_of(console, who)
    if not kinds_holding(graph, [kind], key):
        raise Problem("not_found", f"there is no {kind.label} with key {str(key)[:200]!r} in this tenant")
    at = as_time(query["at"], "at") if query.get("at") else None
    steps = 2 if query.get("steps") == "2" else 1
    found = neighbourhood(graph, list(kinds.values()), kind, key, at, steps)
    nodes, edges = placed(found)
    return page(
        "graph.html",
        who,
        kind=kind,
        key=key,
        at=found["at"],
        at_text=when_text(found["at"]) if at is not None else "",
        steps=steps,
        nodes=nodes,
        edges=edges,
        truncated=found["truncated"],
        size=SIZE,
    )
