"""The marks on the Stamp of the two extraction jobs, how far each has come, as the serial of the last
entry it finished: extract() keeps one for each kind and set of types (`extract_<Label>_<digest>`),
extract_notes() one for the graph's notes (`lh.extract_notes`). (embed_entries() keeps its marks on the
Stamp too, moved only from where its call read them: recall/entry_vectors.py.)

One way to read such a mark and one way to move it, each a part of the query that reads or does the
job's work over a bound `st` (the Stamp), so a mark moves in the query that finishes what it counts, and
never back. A graph written when a mark was kept elsewhere (under another name, or on another node) is read
there while the Stamp has none, and the first move takes it onto the Stamp and clears the old place.
"""

from __future__ import annotations

import re

_NAME = re.compile(r"\A[A-Za-z_][A-Za-z0-9_.]{0,199}\Z")  # a plain name, or one with dots (lh.*)
_PLACE = re.compile(r"\A[a-z]+\.`?[A-Za-z_][A-Za-z0-9_.]{0,199}`?\Z")  # a bound node's property


def _named(name: str) -> str:
    if not _NAME.match(name):
        raise ValueError(f"a mark's name is a plain name, not {name!r}")
    return name


def _place(before: str | None) -> str | None:
    if before is not None and not _PLACE.match(before):
        raise ValueError(f"a mark's old place is a bound node's property, not {before!r}")
    return before


def mark_read(name: str, before: str | None = None) -> str:
    """Cypher for the mark `name` of the bound Stamp `st`; where a graph written before kept it (`before`,
    a bound node's property such as "st.`extract_1a2b`"), while the Stamp has none; else 0."""
    kept = [f"st.`{_named(name)}`", *([_place(before)] if before else []), "0"]
    return f"coalesce({', '.join(kept)})"


def mark_moved(name: str, to: str, before: str | None = None) -> str:
    """Cypher SET items: the mark `name` of the bound Stamp `st` moved to `to` (a Cypher expression: a
    parameter, a serial) unless it is past it already, and its old place `before` cleared."""
    kept = mark_read(name, before)
    moved = f"st.`{name}` = CASE WHEN {kept} > {to} THEN {kept} ELSE {to} END"
    return moved + (f", {before} = null" if before else "")
