"""The write rule as a decision: decide() compares a row with what is stored around its time and says
what happens (a receipt status) and which nodes and edges change (a plan), which applying.py writes.

A plan holds only what its row changes: FalkorDB reads the parameters of a query as text, and for 500
rows that reading was 40 ms of a write while every plan carried every field.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from .. import clock
from ..kinds import Kind
from ..values import words
from .rows import Row, fingerprint, text_of, typed

Pair = tuple[str, object]  # (relation type, typed target)


@dataclass(slots=True)
class Edge:
    id: int
    relation: str
    target: object
    valid_from: datetime
    valid_to: datetime | None
    node: int  # the target node's id: a write finds the edge between two nodes it holds, not among all


@dataclass(slots=True)
class StateView:
    id: int
    valid_from: datetime
    valid_to: datetime | None
    seen_last: datetime | None
    values: dict | None  # None when only the fingerprint was read
    relations: dict | None  # relation -> frozenset of targets
    fp: str | None = None  # the fingerprint of its content, as stored (States written before it: None)

    @property
    def content_fp(self) -> str:
        """The fingerprint of the content: as stored, or made from the values for a State without one."""
        if self.fp is None:
            self.fp = fingerprint(self.values, self.relations)
        return self.fp


@dataclass(slots=True)
class Around:
    """What is stored of one entity around the time of a row."""

    rev: int = 0
    props: dict = field(default_factory=dict)  # the values the entity node holds now
    current: StateView | None = None
    prev: StateView | None = None  # the State the time falls in
    next: StateView | None = None  # the State after it
    edges_prev: dict = field(default_factory=dict)  # Pair -> Edge, edges that hold at the row's time
    edges_next: dict = field(default_factory=dict)  # Pair -> Edge, edges that hold when next begins
    past: StateView | None = None  # for a late row: the State its time falls in, times and fp only
    late_edges: list | None = None  # when that State is just before the current one: the edges of both
    absent: bool = False  # the read found no node of the entity: its plan creates it whole
    same_links: bool = False  # the current State's targets are the row's (lh.links_fp): no edge was read


def pairs(relations: dict) -> set:
    return {(relation, typed(target)) for relation, targets in relations.items() for target in targets}


def relations_from(edges: dict, kind: Kind) -> dict:
    found = {relation: set() for relation in kind.relations}
    for edge in edges.values():
        found[edge.relation].add(edge.target)
    return {relation: frozenset(targets) for relation, targets in found.items()}


def _edges_plan(plan: dict, had: dict, wanted: dict, after: dict, next_from: datetime | None) -> None:
    """Makes the relation edges hold `wanted` from the row's time until next_from, where `after` holds again.

    had: the edges that held at the row's time; after: the edges that hold when the next State begins.
    New edges hold from the row's time until the plan's "until"; "moves" are, by relation, [edge id,
    closes, target node id]: a closed edge ends at the row's time, another one starts then.
    """
    nf = None if next_from is None else clock.stamp_of(next_from)
    for pair, edge in had.items():
        if pair in wanted:
            continue
        plan.setdefault("moves", {}).setdefault(pair[0], []).append([edge.id, True, edge.node])
        if nf is not None and pair in after and after[pair].id == edge.id:  # it held across: split it
            to = None if edge.valid_to is None else clock.stamp_of(edge.valid_to)
            reopen = plan.setdefault("reopen", {}).setdefault(pair[0], [])
            reopen.append({"target": edge.target, "from": nf, "to": to})
    for pair, target in wanted.items():
        if pair in had:
            continue
        if nf is not None and pair in after:  # it began with the next State: it begins at t now
            moved = after[pair]
            plan.setdefault("moves", {}).setdefault(pair[0], []).append([moved.id, False, moved.node])
        else:
            plan.setdefault("open", {}).setdefault(pair[0], []).append(target)


def _split_times(kind: Kind, given: dict) -> tuple[dict, dict]:
    plain = dict(given)  # a kind names a few times: taking them out is cheaper than two passes over all
    times = {name: plain.pop(name) for name in kind.times if name in plain}
    return plain, times


# Every byte that is not an ASCII letter or digit, as a space (letters are lowered before).
_ASCII_NOT_WORD = bytes(byte if chr(byte).isascii() and chr(byte).isalnum() else 32 for byte in range(256))


def words_of(text: str) -> str:
    """values.words(text), with a fast path for ASCII text, where NFKC changes nothing, casefold() is lower()
    and the letters and digits are [a-z0-9]: the same words, at a fraction of the cost of a loop per character
    (bytes translated and split: 0.9 µs for a row's text, where a regex took 2.4)."""
    if text.isascii():
        return b" ".join(text.encode().lower().translate(_ASCII_NOT_WORD).split()).decode()
    return words(text)


def content_of(kind: Kind, row: Row) -> tuple[dict, dict, str, str]:
    """What a new State or the entity node takes from a row: its values without its times, its times, its
    text (text_of()) and the text's words. Made once a row: for a large call, ahead of its queries."""
    if row.made is None:
        plain, times = _split_times(kind, row.values)
        text = text_of(kind, row.values)
        row.made = (plain, times, text, words_of(text))
    return row.made


def _content(kind: Kind, plan: dict, row: Row) -> str:
    """A plan's values, times, words and fingerprint, from the row (content_of()). Gives the row's text."""
    plan["values"], times, text, plan["words"] = content_of(kind, row)
    if kind.times:
        plan["times"] = times
    plan["fp"] = row.fp
    plan["links_fp"] = row.links_fp
    return text


def _across_types(old: object, new: object) -> bool:
    """Equal values of other types (1 and 1.0, or lists of them): typed() only where the types agree
    at the top, for a list (a value is a scalar or a list of scalars; read back, a list is a list)."""
    return type(old) is not type(new) or (type(old) is list and typed(old) != typed(new))


def _becomes_current(kind: Kind, plan: dict, row: Row, around: Around, t: str) -> None:
    new_text = _content(kind, plan, row)
    old = around.props
    plan["current"] = True
    # Removed values, and values equal to the old ones across types: FalkorDB 4.22 skips a SET whose
    # value equals the old one (1, 1.0 and true), so those are cleared before they are set.
    given = row.values
    plan["clear"] = {
        name: None
        for name in old
        if name not in kind.times
        and (name not in given or (old[name] == given[name] and _across_types(old[name], given[name])))
    }
    plan["entity_times"] = [t, None]
    if kind.dimensions:
        old_text = text_of(kind, old)
        # A text that changed loses its vector; it waits for a new one only when there is text to embed.
        plan["retext"] = new_text != old_text or around.current is None
        plan["embed"] = bool(new_text)
        # Only an entity that had a State can hold a vector (its text came with the State): clearing one
        # on a new entity was a tenth of what a batch of 500 creates took FalkorDB.
        plan["unembed"] = plan["retext"] and around.current is not None


def _new_state(kind: Kind, plan: dict, row: Row, prev: StateView | None, nxt: StateView | None) -> None:
    if "values" not in plan:
        _content(kind, plan, row)
    plan["new"] = True
    plan["until"] = None if nxt is None else clock.stamp_of(nxt.valid_from)
    plan["held"] = None if prev is None else prev.id
    plan["next"] = None if nxt is None else nxt.id
    plan["source"] = row.entry
    if prev is not None and nxt is not None:  # the link between them is replaced: the one deleting write
        plan["restamp"] = True


def _wanted(row: Row) -> dict:
    """The row's relation targets by (relation, typed target): made only for a row that writes a State."""
    return {
        (relation, (type(target).__name__, target)): target
        for relation, targets in row.relations.items()
        for target in targets
    }


# The query parts (applying.py) that every plan of created() asks for; it asks for "source" and "trust"
# too when they hold something, and for no other part.
CREATED_PARTS = frozenset({"current", "entity_times", "new"})


def created(kind: Kind, plan: dict, row: Row, t: str) -> dict:
    """The plan of an entity the read did not find: everything the general path gives a new entity (a
    batch that also holds existing entities writes it that way), built without comparing it to anything."""
    text = _content(kind, plan, row)
    plan.update(absent=True, current=True, clear={}, entity_times=[t, None], new=True, until=None)
    if kind.dimensions:
        plan.update(retext=True, embed=bool(text), unembed=False)
    plan.update(held=None, next=None, source=row.entry)
    opened = {relation: list(targets) for relation, targets in row.relations.items() if targets}
    if opened:
        plan["open"] = opened
    return plan


def decide(kind: Kind, row: Row, around: Around, *, partial: bool = False) -> tuple[str, dict | None]:
    """The receipt status of a row against what is stored, and the plan that writes it (None: no write)."""
    t = clock.stamp_of(row.t)
    plan = {"i": row.index, "key": row.key, "rev": around.rev, "t": t}
    if around.absent:  # no node yet: what the general path below gives, made directly
        return "created", created(kind, plan, row, t)
    if around.current is None:
        _becomes_current(kind, plan, row, around, t)
        _new_state(kind, plan, row, None, None)
        _edges_plan(plan, {}, _wanted(row), {}, None)
        return "created", plan
    held, nxt = around.prev, around.next
    if partial and row.t < around.current.valid_from:
        return "stale", None
    if held is not None:
        same = row.fp == held.content_fp
        if row.t == held.valid_from:
            return ("unchanged", None) if same else ("conflict", None)
        if same:
            if row.t <= (held.seen_last or held.valid_from):
                return "unchanged", None
            plan.update(held=held.id, seen_held=True)
            if held.valid_to is None:
                plan["entity_times"] = [clock.stamp_of(held.valid_from), t]
            return "unchanged", plan
        if held.seen_last is not None and row.t <= held.seen_last:
            return ("stale", None) if row.t < held.seen_last else ("conflict", None)
        plan.update(held=held.id, end_held=True)
        if nxt is None:  # a change of the current State
            _becomes_current(kind, plan, row, around, t)
            _new_state(kind, plan, row, held, None)
            if not around.same_links:
                _edges_plan(plan, around.edges_prev, _wanted(row), {}, None)
            return "changed", plan
    if nxt is None:
        raise AssertionError("a late row with no State after it")  # the caller reads around every late row
    if row.fp == nxt.content_fp:  # the next State starts earlier
        plan.update(next=nxt.id, start_next=True)
        if nxt.seen_last is None:
            plan["next_seen"] = clock.stamp_of(nxt.valid_from)
        if nxt.valid_to is None:
            plan["entity_times"] = [t, clock.stamp_of(nxt.seen_last or nxt.valid_from)]
    else:
        _new_state(kind, plan, row, held, nxt)
    _edges_plan(plan, around.edges_prev if held else {}, _wanted(row), around.edges_next, nxt.valid_from)
    return "inserted", plan
