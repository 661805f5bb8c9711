"""What a written full-picture row ended: the values and relations its entity held just before the row's
time that the row leaves out, told by remember(..., endings=True) from what the write decided.

A change of the current State knows it from the read it was decided on (the entity's values, the edges
that held). A late row decided from fingerprints alone did not read the values of the State its time
falls in: those States are read by id, in one query for the rows of a write, and only then.
"""

from __future__ import annotations

from ..graphs import read
from .late import stored_values
from .plans import Around
from .rows import Row

ENDING = ("changed", "inserted")  # the statuses of a row that may end what a State before it held


def endings_of(graph, kind, decided: list[tuple[Row, Around]]) -> dict[int, dict]:
    """Row index -> {"values": [names], "relations": {type: [keys]}} for each written row that ended
    something (only what did end is named, names and keys sorted); rows that ended nothing are left out."""
    unread = sorted(
        {around.prev.id for _, around in decided if around.prev is not None and _before(around) is None}
    )
    held = {}
    if unread:
        rows = read(
            graph,
            "UNWIND $ids AS id MATCH (s:State) WHERE id(s) = id RETURN id, properties(s)",
            {"ids": unread},
        )
        held = {sid: stored_values(kind, props) for sid, props in rows}
    found = {}
    for row, around in decided:
        if around.prev is None:  # a row before the first State: nothing held before it
            continue
        before = _before(around)
        ended = _ended(row, around, held.get(around.prev.id, {}) if before is None else before)
        if ended:
            found[row.index] = ended
    return found


def _before(around: Around) -> dict | None:
    """The values held just before the row's time, as its read gave them (None: not read)."""
    if around.props is not None and around.prev is around.current:  # a change of the current State
        return around.props
    return around.prev.values


def _ended(row: Row, around: Around, before: dict) -> dict:
    ended: dict = {}
    gone = sorted(name for name in before if row.values.get(name) is None)
    if gone:
        ended["values"] = gone
    if not around.same_links:  # the same targets as the current State: no edge was read, none ended
        kept = {
            (relation, (type(target).__name__, target))  # as late.holding() keys them: 1, 1.0, "1" differ
            for relation, targets in row.relations.items()
            for target in targets
        }
        closed: dict[str, list] = {}
        for pair, edge in around.edges_prev.items():
            if pair not in kept:
                closed.setdefault(edge.relation, []).append(edge.target)
        if closed:
            ended["relations"] = {name: sorted(keys, key=str) for name, keys in sorted(closed.items())}
    return ended
