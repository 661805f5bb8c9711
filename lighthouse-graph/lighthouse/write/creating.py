"""A batch whose entities the read found none of: each row goes straight into the fields the write query
reads, with no plan a row between them.

What it sends is what decide() (plans.created()) and apply_plans() would send for the same rows, field
for field (a test holds the two side by side): only the dicts a row went through on the way are left
out. Those dicts, and the passes over them, were an eighth of what a created row cost the Python
process (359,428 instructions a row with them, 317,761 without: bench/python_cost.py).
"""

from __future__ import annotations

from functools import lru_cache
from operator import itemgetter

from .. import clock
from ..kinds import Kind
from .applying import MAX_NAMED_VALUES, positional_query, value_names, written
from .plans import CREATED_PARTS, content_of
from .rows import Row


def created_needs(kind: Kind, rows: list[Row], trust: str | None) -> frozenset:
    """The parts of the write query a batch of new entities asks for: applying._needs() of their plans."""
    found = set(CREATED_PARTS)
    found.add("absent")
    named: set[str] = set()
    opened: set[str] = set()
    embedding: set[bool] = set()
    every = len(kind.relations)
    for row in rows:
        # Made once a row: ahead (ahead.py), or at its first use here.
        plain, _times, text, _words = row.made or content_of(kind, row)
        named.update(plain)
        if len(opened) < every:  # once every relation opens somewhere, no row adds one
            opened.update([relation for relation, targets in row.relations.items() if targets])
        if row.entry is not None:
            found.add("source")
        embedding.add(bool(text))
    if trust is not None:
        found.add("trust")
    if kind.times:
        found.add("times")  # even when a row gives none: a time left out is null there
    found.update(f"open:{relation}" for relation in opened)
    if not kind.dimensions:
        embedding = {False}  # no vectors: none waits for one
    if len(embedding) == 1:
        found.add("embed_all" if embedding == {True} else "embed_none")
    if len(named) > MAX_NAMED_VALUES:
        found.add("values_as_map")
    else:
        found.update(f"value:{name}" for name in named)
    return frozenset(found)


# Every field a plan of plans.created() holds once apply_plans() has listed its content, in the order
# created_rows() makes them; a field no such plan holds reads as None, as plan.get() gives it.
_FIELDS = (
    "i", "key", "rev", "t", "values", "words", "fp", "links_fp", "absent", "current", "clear",
    "entity_times", "new", "until", "held", "next", "source", "trust", "listed_values", "listed_open",
    "times", "listed_times", "retext", "embed", "unembed",
)  # fmt: skip


@lru_cache(maxsize=256)
def _picker(layout: tuple[str, ...]) -> itemgetter:
    """What takes the layout's fields, in its order, from a row's _FIELDS (the None after them for any
    other). A layout holds two fields at least (the key and the index the query returns): a tuple."""
    places = {name: place for place, name in enumerate(_FIELDS)}
    return itemgetter(*[places.get(name, len(_FIELDS)) for name in layout])


def created_rows(
    kind: Kind, rows: list[Row], needs: frozenset, layout: tuple[str, ...], trust: str | None
) -> list[tuple]:
    """Each row as the fields the query reads (layout), as apply_plans() lists them of the plan
    plans.created() gives: its times, values and targets to open as lists in the query's order. Tuples,
    which the parameters carry as lists."""
    names = value_names(needs)  # none when the values go as a map
    times, relations, dimensions = kind.times, list(kind.relations), bool(kind.dimensions)
    picked = _picker(layout)
    made = []
    for row in rows:
        plain, given_times, text, words = row.made or content_of(kind, row)
        t = clock.stamp_of(row.t)
        targets = row.relations
        fields = (
            row.index, row.key, 0, t, plain, words, row.fp, row.links_fp, True, True, {}, [t, None], True,
            None, None, None, row.entry, trust, list(map(plain.get, names)),
            [list(found) if (found := targets.get(relation)) else None for relation in relations],
            given_times if times else None, list(map(given_times.get, times)) if times else None,
            True if dimensions else None, bool(text) if dimensions else None, False if dimensions else None,
            None,
        )  # fmt: skip
        made.append(picked(fields))
    return made


def apply_created(graph, kind: Kind, by: str, rows: list[Row], trust: str | None) -> set[int]:
    """Writes a batch of new entities in one query (apply_plans()'s, for plans of created()); returns the
    indexes of the rows written. A row whose entity another writer made since it was read is not."""
    needs = created_needs(kind, rows, trust)
    query, layout = positional_query(kind, needs)
    return written(graph, query, created_rows(kind, rows, needs, layout, trust), by)
