"""groups(): what belongs together, joined by relations whichever way they point, now or at one time."""

from __future__ import annotations

from functools import lru_cache

from ..graphs import read
from ..recall.text import checked_limit
from ..snapshot import groups_at
from .components import names_in, shaped
from .kept import MAX_NAMES, answered
from .scope import MAX_READ, Scope, checked_most, moment, scope


def _is_name(value: str) -> str:
    return f"CASE WHEN toString({value}) = {value} THEN 1 ELSE 0 END"


def _before(one: str, other: str) -> str:
    """Cypher: member `one` comes before `other` (label, then whole numbers before text keys, then key)."""
    return (
        f"({one}[0] < {other}[0] OR ({one}[0] = {other}[0] AND ({_is_name(f'{one}[1]')} < {_is_name(f'{other}[1]')} "
        f"OR ({_is_name(f'{one}[1]')} = {_is_name(f'{other}[1]')} AND {one}[1] < {other}[1]))))"
    )


@lru_cache(maxsize=256)
def _components_query(scope: Scope) -> str:
    # FalkorDB's algo.WCC was checked against union-find here (tests/test_algorithms.py): it is right,
    # also with nodes of other labels between its node ids. The largest groups are picked in the query,
    # ties by their first member, and only their members are sent, at most 10,000 in all.
    return (
        "CALL algo.WCC({nodeLabels: $labels, relationshipTypes: $types}) YIELD node, componentId "
        f"WITH componentId, [{scope.label_of('node')}, {scope.key_of('node')}] AS member "
        "WITH componentId, count(member) AS size, collect(member) AS members "
        f"WITH size, members, reduce(first = null, m IN members | "
        f"CASE WHEN first IS NULL OR {_before('m', 'first')} THEN m ELSE first END) AS first "
        f"WITH size, members, first[0] AS first_label, {_is_name('first[1]')} AS first_is_name, first[1] AS first_key "
        "ORDER BY size DESC, first_label, first_is_name, first_key LIMIT $limit "
        "WITH collect([size, members]) AS top "
        "UNWIND range(0, size(top) - 1) AS place "
        "WITH place, top[place] AS group, reduce(listed = 0, earlier IN top[0..place] | listed + size(earlier[1])) AS before "
        "RETURN group[0], group[1][0..CASE WHEN before >= $names THEN 0 ELSE $names - before END] ORDER BY place"
    )


def _components(graph, chosen: Scope, limit: int) -> list[dict]:
    params = {"labels": list(chosen.labels), "types": list(chosen.types), "limit": limit, "names": MAX_NAMES}
    result = read(graph, _components_query(chosen), params)
    return shaped(((size, [tuple(member) for member in members]) for size, members in result), limit, True)


def groups(
    graph,
    kinds: list,
    relations: list[str] | None = None,
    records: list[str] | None = None,
    at: object = None,
    limit: int = 10,
    *,
    most: int = MAX_READ,
) -> list[dict]:
    """The weakly connected groups of the entities of the kinds: [{"size", "members"}], largest first.

    Entities of the kinds and of the kinds their relations point at are joined by the relations named
    (every one the kinds declare without), whichever way they point. records=["Episode"] with "ABOUT" in
    relations (or relations None) adds the episodes about them; "Lesson" the lessons. members are
    (label, key) pairs, (label, id) for records, in label then key order. Groups of one size come in
    the order of their first member: the same graph gives the same answer. One answer lists at most
    10,000 members; a group past that lists those that fit, and size says how many it has.

    Without at: every relation that was ever true, by FalkorDB's algo.WCC, kept until the graph grows.
    With at: the relations that held then and the entities that existed then (no records), computed
    here from one read of at most `most` relations and entities, and not kept.
    """
    chosen = scope(kinds, relations, records)
    limit, most = checked_limit(limit), checked_most(most)
    if at is not None:
        return groups_at(graph, chosen, moment(at), limit, most)
    return answered(
        graph, ("groups", chosen, limit), chosen, lambda: _components(graph, chosen, limit), names_in
    )
