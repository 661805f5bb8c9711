"""groups(): what belongs together, joined by relations whichever way they point, now or at one time."""

from __future__ import annotations

from .. import values
from .components import components, names_in, shaped
from .kept import answered
from .scope import MAX_READ, asked_at, checked_kinds, checked_most, checked_records, scope, timed
from .snapshot import Snapshot, snapshot_of

MAX_AT_LEAST = 1_000_000
MAX_SHOWN = 1_000  # groups one answer gives, and members one group lists


def grouped(snapshot: Snapshot, at_least: int, limit: int, show: int) -> list[dict]:
    """The weakly connected groups of a snapshot, as groups() gives them: union-find over node numbers."""
    found = components(len(snapshot.names), snapshot.links())
    # The nodes of a snapshot are numbered in name order, and each group lists them in that order.
    names = snapshot.names
    return shaped(
        ((len(group), [names[node] for node in group[:show]]) for group in found), at_least, limit, show, True
    )


def groups(
    graph,
    kinds: list,
    relations: list[str] | None = None,
    records: tuple = (),
    at_least: int = 2,
    limit: int = 100,
    show: int = 100,
    at: object = None,
    *,
    most: int = MAX_READ,
) -> list[dict]:
    """The weakly connected groups of the entities of the kinds: [{"size", "members"}], largest first.

    Entities of the kinds and of the kinds their relations point at are joined by the relations named
    (every one the kinds declare without; with records, the edges of records too), whichever way they
    point. records: "Episode", "Entry", "Lesson", "Playbook" take part as (label, id). Only groups of at
    least `at_least` members; `limit` groups, each listing its first `show` members in name order
    (size says how many it has). Groups of one size come in the order of their first member: the same
    graph gives the same answer.

    Without at: every relation that was ever true, kept until the graph grows. With at: the relations
    that held then and the entities that existed then (no records), not kept. Either way union-find
    runs here over one read (snapshot.py) of at most `most` relations and entities.

    Arguments are checked before anything is read: a container of the wrong sort (kinds, records)
    raises WrongType (a TypeError), a bad value Refused (a ValueError). Database errors propagate.
    """
    chosen_kinds = checked_kinds(kinds)
    chosen = scope(chosen_kinds, relations, checked_records(records))
    at_least = values.whole(at_least, "at_least", 1, MAX_AT_LEAST)
    limit = values.whole(limit, "limit", 1, MAX_SHOWN)
    show = values.whole(show, "show", 1, MAX_SHOWN)
    most = checked_most(most)
    if at is not None:
        time = asked_at(at)
        return grouped(snapshot_of(graph, timed(chosen), time, most), at_least, limit, show)
    return answered(
        graph,
        ("groups", chosen, at_least, limit, show),
        chosen,
        lambda: grouped(snapshot_of(graph, chosen, None, most), at_least, limit, show),
        names_in,
    )
