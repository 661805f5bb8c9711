"""what_if(): rows laid over a time without writing them, and the groups and ranks they would change.

The relations that held at the time are read in one query (algorithms/snapshot.py); each row is laid
over them by the write rule, in memory: a row is the whole picture of its entity's relations, so those
it does not name are closed and the targets it names hold. Then union-find and PageRank (the code of
the algorithms at one time) run on both pictures, and what differs is the answer. Nothing is written.
"""

from __future__ import annotations

from . import clock, values
from .algorithms.centrality import pagerank
from .algorithms.components import Name, components, name_key
from .algorithms.scope import checked_kinds, scope, timed
from .algorithms.snapshot import Snapshot, snapshot_of
from .errors import Refused, WrongType
from .kinds import Kind, is_kind
from .playbooks import playbooks_for

MAX_LAID = 1_000  # rows one what-if lays
MAX_SHIFTS = 10  # rank shifts one answer gives
MOVED = 1e-9  # a change of rank smaller than this is the iteration's noise, not a move


def _targets(kind: Kind, relation: object, given: object) -> list:
    if type(relation) is not str or relation not in kind.relations:
        raise Refused(f"{kind.label} has no relation {values.printable(relation)}")
    listed = given if type(given) in (list, tuple) else [given]
    if len(listed) > values.MAX_TARGETS:
        raise Refused(f"a relation holds at most {values.MAX_TARGETS} targets")
    return [values.key(target, f"a target of {relation}") for target in listed]


def _laid_rows(hypothetical_rows: object) -> list[tuple[Kind, object, dict[str, list]]]:
    """(kind, key, relation -> targets) for each row; WrongType or Refused for what cannot be laid."""
    if type(hypothetical_rows) is not list:
        raise WrongType(
            f"hypothetical_rows must be a list of (Kind, rows), not {type(hypothetical_rows).__name__}"
        )
    laid: dict[tuple, tuple[Kind, object, dict[str, list]]] = {}
    count = 0
    for item in list(hypothetical_rows):
        if type(item) not in (tuple, list) or len(item) != 2 or not is_kind(item[0]):
            raise Refused(f"an item of hypothetical_rows must be (Kind, rows), not {values.printable(item)}")
        kind, rows = item
        if type(rows) not in (list, tuple):
            raise Refused(f"an item of hypothetical_rows must be (Kind, rows): rows is {type(rows).__name__}")
        for row in list(rows):
            count += 1
            if count > MAX_LAID:
                raise Refused(f"a what-if lays at most {MAX_LAID:,} rows")
            if type(row) is not dict:
                raise Refused(f"a row must be a dict with a key, not {values.printable(row)}")
            key = values.key(dict.get(row, "key"), "the key of a row")
            given = dict.get(row, "relations", {})
            if given is None:
                given = {}
            if type(given) is not dict:
                raise WrongType(f"the relations of a row must be a map, not {type(given).__name__}")
            relations = {relation: _targets(kind, relation, one) for relation, one in dict.items(given)}
            laid[(kind.label, type(key).__name__, key)] = (kind, key, relations)  # the last row of an entity
    return list(laid.values())


def _typed_name(name: Name) -> tuple:
    """A name with its key's type, so the key 1 and the key "1" stay two entities."""
    return (name[0], type(name[1]).__name__, name[1])


def _laid(snapshot: Snapshot, laid: list[tuple[Kind, object, dict]], types: tuple[str, ...]) -> Snapshot:
    """The snapshot with each row's relations in place of those its entity had: the write rule."""
    names = snapshot.names
    replaced = {
        (kind.label, type(key).__name__, key, relation)
        for kind, key, _ in laid
        for relation in kind.relations
        if relation in types
    }
    edges: list[tuple[Name, Name, str]] = [
        (names[a], names[b], relation)
        for a, b, relation in snapshot.edges
        if (*_typed_name(names[a]), relation) not in replaced
    ]
    standing = {names[node] for node in snapshot.standing}
    for kind, key, relations in laid:
        entity = (kind.label, key)
        standing.add(entity)
        for relation, targets in relations.items():
            if relation in types:
                label = kind.target(relation).label
                edges.extend((entity, (label, target), relation) for target in targets)
    # An entity that only relations pointed at is gone when the rows closed the last of them.
    found = {_typed_name(name): name for name in standing}
    for start, end, _ in edges:
        found.setdefault(_typed_name(start), start)
        found.setdefault(_typed_name(end), end)
    listed = sorted(found.values(), key=name_key)
    place = {_typed_name(name): number for number, name in enumerate(listed)}
    return Snapshot(
        listed,
        [(place[_typed_name(a)], place[_typed_name(b)], relation) for a, b, relation in edges],
        {place[_typed_name(name)] for name in standing},
    )


def _groups(snapshot: Snapshot) -> list[dict]:
    """Every set of 2 or more, largest first, ties by their first member; each lists all its members."""
    found = [
        sorted((snapshot.names[node] for node in group), key=name_key)
        for group in components(len(snapshot.names), snapshot.links())
        if len(group) > 1
    ]
    found.sort(key=lambda members: (-len(members), name_key(members[0])))
    return [{"size": len(members), "members": members} for members in found]


def _rank_shifts(before: Snapshot, after: Snapshot) -> list[dict]:
    was = dict(zip(map(_typed_name, before.names), pagerank(len(before.names), before.links()), strict=True))
    now = dict(zip(map(_typed_name, after.names), pagerank(len(after.names), after.links()), strict=True))
    names = {_typed_name(name): name for name in [*before.names, *after.names]}
    moves = []
    for one, name in names.items():
        old, new = was.get(one), now.get(one)
        delta = (new or 0.0) - (old or 0.0)
        if old is None or new is None or abs(delta) > MOVED:
            moves.append({"entity": name, "before": old, "after": new, "delta": delta})
    moves.sort(key=lambda move: (-round(abs(move["delta"]), 9), name_key(move["entity"])))
    return moves[:MAX_SHIFTS]


def what_if(
    graph, kinds: list, hypothetical_rows: list, at: object = None, situation: dict | None = None
) -> dict:
    """What rows would change at a time if they were true then, without writing them.

    hypothetical_rows: [(Kind, [row, ...]), ...]; only each row's "key" and "relations" are used, and a
    row replaces all relations of its entity (the write rule). kinds: the kinds whose relations are
    followed, as groups() takes them; at: the time (now when None).

    Returns {"at": the time as text, "groups_before", "groups_after": every set of 2 or more
    ({"size", "members"}), "rank_shifts": the 10 entities whose PageRank would move most ({"entity",
    "before", "after", "delta"}; None where an entity would not exist before or after), "playbooks":
    playbooks_for(graph, situation), or [] without a situation}.

    Arguments are checked before anything is read: kinds or hypothetical_rows of the wrong sort, or a
    row's relations that are not a map, raise WrongType; an empty kinds, a blank or bad at, an item that
    is not (Kind, rows), a row without a valid key or a target that is not a key raise Refused. Nothing
    is written. Database errors propagate.
    """
    chosen = timed(scope(checked_kinds(kinds)))
    laid = _laid_rows(hypothetical_rows)
    when = clock.stamp_of(clock.present() if at is None else clock.looked_at(at, "at"))
    playbooks = [] if situation is None else playbooks_for(graph, situation)
    before = snapshot_of(graph, chosen, when)
    after = _laid(before, laid, chosen.types)
    return {
        "at": when,
        "groups_before": _groups(before),
        "groups_after": _groups(after),
        "rank_shifts": _rank_shifts(before, after),
        "playbooks": playbooks,
    }
