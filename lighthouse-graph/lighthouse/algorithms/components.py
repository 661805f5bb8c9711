"""Groups: union-find over numbered nodes, and the one order and size every answer of groups() has."""

from __future__ import annotations

from collections.abc import Iterable

Name = tuple[str, object]  # (label, key) of an entity, (label, id) of a record


def components(size: int, edges: Iterable[tuple[int, int]]) -> list[list[int]]:
    """The weakly connected components of nodes 0..size-1: edges join whichever way they point."""
    parent = list(range(size))
    for start, end in edges:
        # The roots of both ends, halving the paths on the way (inline: a call per find costs more).
        while parent[start] != start:
            parent[start] = start = parent[parent[start]]
        while parent[end] != end:
            parent[end] = end = parent[parent[end]]
        # The smaller root stays (a comparison here, not a call of min() and max() for every edge).
        if start < end:
            parent[end] = start
        elif end < start:
            parent[start] = end
    found: dict[int, list[int]] = {}
    for node in range(size):
        root = node
        while parent[root] != root:
            root = parent[root]
        found.setdefault(root, []).append(node)
    return list(found.values())


def name_key(name: Name) -> tuple:
    """The order of names: by label, then whole numbers before text keys."""
    return (name[0], isinstance(name[1], str), name[1])


def shaped(
    groups: Iterable[tuple[int, list[Name]]], at_least: int, limit: int, show: int, in_order: bool = False
) -> list[dict]:
    """Groups as answers give them: [{"size", "members"}], largest first, ties by their first member.

    groups: (size, members) pairs. Only groups of at least `at_least` members, the first `limit` of
    them, each listing its first `show` members in name order (the order of the oldest of equals here:
    label, whole numbers before text keys, then key). in_order: the members are in that order already,
    and may be only the first `show` of them.
    """
    listed = [
        (size, members if in_order else sorted(members, key=name_key))
        for size, members in groups
        if size >= at_least
    ]
    listed.sort(key=lambda group: (-group[0], name_key(group[1][0]) if group[1] else ()))
    return [{"size": size, "members": members[:show]} for size, members in listed[:limit]]


def names_in(answer: list[dict]) -> int:
    return sum(len(group["members"]) for group in answer)
