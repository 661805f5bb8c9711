"""what_if(): rows laid over a time without writing them, and the groups and ranks they would change.

The relations that held at the time are read in one query (snapshot.py); each row is laid over them by
the write rule, in memory: the relations of its entity that it does not name are closed, the targets it
names hold. Then union-find and PageRank (the code of the algorithms at one time) run on both pictures,
and what differs is the answer. Nothing is written.
"""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache

from . import clock
from .algorithms.centrality import pagerank
from .algorithms.components import Name, components, name_key
from .algorithms.kept import MAX_NAMES
from .algorithms.scope import checked_kinds, scope
from .graphs import read as read_rows
from .kinds import Kind
from .recall.text import checked_limit
from .references import ordered
from .snapshot import Snapshot, read
from .values import Refused
from .write.rows import Row, prepare, typed

MAX_ROWS = 1_000  # rows one what-if lays
MOVED = 1e-6  # a change of rank smaller than this is the iteration's noise, not a move
_QUESTION = frozenset({"kinds", "relations", "limit"})


@lru_cache(maxsize=256)
def _replaced_query(kind: Kind) -> str:
    # The entity first, then its States without the label State: with it, FalkorDB 4.22 started from
    # the index on State.valid_from and read every State of the graph in the window (15 ms a row at
    # 3,000 entities, not 0.3 ms).
    return (
        "UNWIND $rows AS row "
        f"MATCH (e:`{kind.label}` {{key: row.key}}) WITH e, row "
        "MATCH (e)-[:HAS_STATE]->(s) "
        "WHERE s.valid_from > localdatetime(row.t) AND s.valid_from <= localdatetime($at) "
        "RETURN DISTINCT row.i"
    )


def _question(kind: Kind, question: object) -> tuple[list[Kind], object, int]:
    if question is None:
        question = {}
    if not isinstance(question, dict) or set(question) - _QUESTION:
        raise Refused("question is None or a dict of kinds, relations and limit")
    kinds = checked_kinds(question.get("kinds", [kind]))
    if kind not in kinds:
        kinds = [kind, *kinds]
    return kinds, question.get("relations"), checked_limit(question.get("limit", 10))


def _rows(kind: Kind, rows: object, when: datetime) -> list[Row]:
    """The rows checked as remember() checks them, one per key: the latest at or before the time."""
    if not isinstance(rows, list | tuple):
        raise Refused(f"rows must be a list, not {type(rows).__name__}")
    if len(rows) > MAX_ROWS:
        raise Refused(f"a what-if lays at most {MAX_ROWS:,} rows")
    present, latest = clock.present(), {}
    for index, raw in enumerate(rows):
        try:
            row = prepare(kind, index, raw, present, default_t=clock.stamp_of(when) + "Z")
        except Refused as error:
            raise Refused(f"row {index}: {error}", error.reason) from None
        if row.t > when:
            raise Refused(f"row {index}: its time is after the time it is laid over")
        held = latest.get(typed(row.key))
        if held is not None and held.t == row.t and held.content != row.content:
            raise Refused(
                f"row {index}: another row of the same key and time says something else", "conflict"
            )
        if held is None or row.t >= held.t:
            latest[typed(row.key)] = row
    return list(latest.values())


def _laid(snapshot: Snapshot, kind: Kind, rows: list[Row], types: tuple[str, ...]) -> Snapshot:
    """The snapshot with each row's relations in place of those its entity had: the write rule."""
    names = snapshot.names
    followed = [relation for relation in kind.relations if relation in types]
    entities = {(kind.label, typed(row.key)) for row in rows}
    edges: list[tuple[Name, Name, str]] = [
        (names[a], names[b], relation)
        for a, b, relation in snapshot.edges
        if not (relation in followed and (names[a][0], typed(names[a][1])) in entities)
    ]
    standing = {names[node] for node in snapshot.standing}
    for row in rows:
        entity = (kind.label, row.key)
        standing.add(entity)
        for relation in followed:
            target = kind.target(relation).label
            edges.extend((entity, (target, one), relation) for one in row.relations.get(relation, ()))
    # An entity that only relations pointed at is gone when the rows closed the last of them.
    found = {_typed_name(name): name for name in standing}
    for start, end, _ in edges:
        found.setdefault(_typed_name(start), start)
        found.setdefault(_typed_name(end), end)
    ordered_names = sorted(found.values(), key=name_key)
    place = {_typed_name(name): number for number, name in enumerate(ordered_names)}
    return Snapshot(
        ordered_names,
        [(place[_typed_name(a)], place[_typed_name(b)], relation) for a, b, relation in edges],
        {place[_typed_name(name)] for name in standing},
    )


def _typed_name(name: Name) -> tuple:
    """A name with its key's type, so the key 1 and the key "1" stay two entities."""
    return (name[0], typed(name[1]))


def _groups_of(snapshot: Snapshot) -> dict[tuple, int]:
    found = components(len(snapshot.names), snapshot.links())
    return {_typed_name(snapshot.names[node]): number for number, group in enumerate(found) for node in group}


def _listed(members: list[Name], room: list[int]) -> dict:
    """A group as answers give it; room[0] is how many names the answer may still list."""
    shown = ordered(members)[: room[0]]
    room[0] -= len(shown)
    return {"size": len(members), "members": shown}


def _members(groups: dict[tuple, int], names: dict[tuple, Name]) -> dict[int, list[Name]]:
    found: dict[int, list[Name]] = {}
    for one, group in groups.items():
        found.setdefault(group, []).append(names[one])
    return found


def _crossed(
    whole: dict[int, list[Name]],
    parts: dict[int, list[Name]],
    links: dict[int, set[int]],
    room: list[int],
    keys: tuple[str, str],
) -> list[dict]:
    """Each group of `whole` that shares members with more than one group of `parts`, and those:
    {keys[0]: the group, keys[1]: the parts}, in the order of their first members. A merge is a group
    after that several before went into; a split, a group before that went into several after."""

    def first(groups: dict[int, list[Name]], number: int) -> tuple:
        return name_key(min(groups[number], key=name_key))

    return [
        {
            keys[0]: _listed(whole[group], room),
            keys[1]: [
                _listed(parts[part], room) for part in sorted(linked, key=lambda part: first(parts, part))
            ],
        }
        for group, linked in sorted(links.items(), key=lambda item: first(whole, item[0]))
        if len(linked) > 1
    ]


def _group_changes(before: Snapshot, after: Snapshot) -> dict:
    was, now = _groups_of(before), _groups_of(after)
    names = {_typed_name(name): name for name in [*before.names, *after.names]}
    members_was, members_now = _members(was, names), _members(now, names)
    came_from: dict[int, set[int]] = {}
    went_to: dict[int, set[int]] = {}
    for one in was:
        if one in now:
            came_from.setdefault(now[one], set()).add(was[one])
            went_to.setdefault(was[one], set()).add(now[one])
    room = [MAX_NAMES]
    return {
        "merged": _crossed(members_now, members_was, came_from, room, ("into", "from")),
        "split": _crossed(members_was, members_now, went_to, room, ("from", "into")),
    }


def _rank_changes(before: Snapshot, after: Snapshot, limit: int) -> list[dict]:
    was = dict(zip(map(_typed_name, before.names), pagerank(len(before.names), before.links()), strict=True))
    now = dict(zip(map(_typed_name, after.names), pagerank(len(after.names), after.links()), strict=True))
    names = {_typed_name(name): name for name in [*before.names, *after.names]}
    moves = []
    for one, name in names.items():
        old, new = was.get(one), now.get(one)
        change = (new or 0.0) - (old or 0.0)
        if old is None or new is None or abs(change) > MOVED:
            moves.append({"entity": name, "before": old, "after": new, "change": change})
    moves.sort(key=lambda move: (-round(abs(move["change"]), 9), name_key(move["entity"])))
    return moves[:limit]


def what_if(graph, kind: Kind, rows: list[dict], at: object = None, question: dict | None = None) -> dict:
    """What rows would change at a time if they were true then, without writing them.

    rows: as remember() takes them, of one kind; t is the time given by at when left out, and may not
    be after it. A row is laid by the write rule: its entity's relations that it does not name are
    closed. A row that a stored State replaced before at does not reach that time and is not laid.
    question: {"kinds": the kinds asked about (kind is always one), "relations": those followed (all the
    kinds declare without), "limit": how many rank moves to give (10)}.

    Returns {"at", "rows": one {"key", "status": "laid" or "replaced"} per key, "groups": {"merged": [{"into",
    "from"}], "split": [{"from", "into"}]}, "ranks": [{"entity", "before", "after", "change"}]}: the
    groups that would merge or split (each {"size", "members"}, 10,000 names at most in all), and the
    entities whose PageRank would move most, None where an entity would not exist before or after.
    """
    if not isinstance(kind, Kind):
        raise Refused(f"kind must be a Kind, not {type(kind).__name__}")
    kinds, relations, limit = _question(kind, question)
    chosen = scope(kinds, relations).at_one_time()
    try:
        when = clock.checked(at) if at is not None else clock.present()
    except clock.TimeError as error:
        raise Refused(str(error)) from None
    laid = _rows(kind, rows, when)
    earlier = [
        {"i": index, "key": row.key, "t": clock.stamp_of(row.t)}
        for index, row in enumerate(laid)
        if row.t < when
    ]
    replaced = set()
    if earlier:
        result = read_rows(graph, _replaced_query(kind), {"rows": earlier, "at": clock.stamp_of(when)})
        replaced = {found[0] for found in result}
    kept_rows = [row for index, row in enumerate(laid) if index not in replaced]
    before = read(graph, chosen, clock.stamp_of(when))
    after = _laid(before, kind, kept_rows, chosen.types)
    return {
        "at": when,
        "rows": [
            {"key": row.key, "status": "replaced" if index in replaced else "laid"}
            for index, row in enumerate(laid)
        ],
        "groups": _group_changes(before, after),
        "ranks": _rank_changes(before, after, limit),
    }
