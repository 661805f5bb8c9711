"""The write rule as a decision, and the one query that carries decisions out.

decide() compares a row with what is stored around its time and says what happens (a receipt status)
and which nodes and edges change (a plan). apply_plans() writes many plans in one query, each guarded by
the revision of its entity, so a plan made from a snapshot that another writer changed is not written.

A plan holds only what its row changes: FalkorDB reads the parameters of a query as text, and for 500
rows that reading was 40 ms of a write while every plan carried every field.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache

from .. import clock
from ..kinds import REVISION, STATE_KIND, TRUST, VECTOR, VECTOR_MODEL, Kind
from ..values import words
from .rows import Row, content_of, fingerprint, parameters_header, text_of, typed

Pair = tuple[str, object]  # (relation type, typed target)


@dataclass
class Edge:
    id: int
    relation: str
    target: object
    valid_from: datetime
    valid_to: datetime | None


@dataclass
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
            self.fp = fingerprint(content_of(self.values, self.relations))
        return self.fp


@dataclass
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
    New edges hold from the row's time until the plan's "until"; "moves" are [edge id, closes]: a closed
    edge ends at the row's time, another one starts then.
    """
    nf = None if next_from is None else clock.stamp_of(next_from)
    for pair, edge in had.items():
        if pair in wanted:
            continue
        plan.setdefault("moves", []).append([edge.id, True])
        if nf is not None and pair in after and after[pair].id == edge.id:  # it held across: split it
            to = None if edge.valid_to is None else clock.stamp_of(edge.valid_to)
            reopen = plan.setdefault("reopen", {}).setdefault(pair[0], [])
            reopen.append({"target": edge.target, "from": nf, "to": to})
    for pair, target in wanted.items():
        if pair in had:
            continue
        if nf is not None and pair in after:  # it began with the next State: it begins at t now
            plan.setdefault("moves", []).append([after[pair].id, False])
        else:
            plan.setdefault("open", {}).setdefault(pair[0], []).append(target)


def _split_times(kind: Kind, given: dict) -> tuple[dict, dict]:
    plain = {name: item for name, item in given.items() if name not in kind.times}
    times = {name: item for name, item in given.items() if name in kind.times}
    return plain, times


_ASCII_WORD = re.compile(r"[a-z0-9]+")


def words_of(text: str) -> str:
    """values.words(text), with a fast path for ASCII text, where NFKC changes nothing, casefold() is lower()
    and the letters and digits are [a-z0-9]: the same words, at a fraction of the cost of a loop per character."""
    if text.isascii():
        return " ".join(_ASCII_WORD.findall(text.lower()))
    return words(text)


def _content(kind: Kind, plan: dict, row: Row) -> None:
    """What a new State or the entity node takes from the row: its values, its times and its words."""
    plan["values"], times = _split_times(kind, row.values)
    if kind.times:
        plan["times"] = times
    plan["words"] = words_of(text_of(kind, row.values))
    plan["fp"] = row.fp


def _becomes_current(kind: Kind, plan: dict, row: Row, around: Around, t: str) -> None:
    _content(kind, plan, row)
    old = around.props
    plan["current"] = True
    # Removed values, and values equal to the old ones across types: FalkorDB 4.22 skips a SET whose
    # value equals the old one (1, 1.0 and true), so those are cleared before they are set.
    plan["clear"] = {
        name: None
        for name in old
        if name not in kind.times
        and (
            name not in row.values
            or (old[name] == row.values[name] and typed(old[name]) != typed(row.values[name]))
        )
    }
    plan["entity_times"] = [t, None]
    if kind.dimensions:
        old_text, new_text = text_of(kind, old), text_of(kind, row.values)
        # A text that changed loses its vector; it waits for a new one only when there is text to embed.
        plan["retext"] = new_text != old_text or around.current is None
        plan["embed"] = bool(new_text)


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


def decide(kind: Kind, row: Row, around: Around, *, partial: bool = False) -> tuple[str, dict | None]:
    """The receipt status of a row against what is stored, and the plan that writes it (None: no write)."""
    t = clock.stamp_of(row.t)
    plan = {"i": row.index, "key": row.key, "rev": around.rev, "t": t}
    wanted = {
        (relation, typed(target)): target for relation, targets in row.relations.items() for target in targets
    }
    if around.current is None:
        _becomes_current(kind, plan, row, around, t)
        _new_state(kind, plan, row, None, None)
        _edges_plan(plan, {}, wanted, {}, None)
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
            _edges_plan(plan, around.edges_prev, wanted, {}, None)
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
    _edges_plan(plan, around.edges_prev if held else {}, wanted, around.edges_next, nxt.valid_from)
    return "inserted", plan


def _time_sets(target: str, names: tuple[str, ...]) -> str:
    return "".join(
        f", {target}.`{name}` = CASE WHEN row.times.`{name}` IS NULL THEN null "
        f"ELSE localdatetime(row.times.`{name}`) END"
        for name in names
    )


def _when(condition: str) -> str:
    return f"CASE WHEN {condition} THEN [1] ELSE [] END"


def _needs(kind: Kind, plans: list[dict]) -> frozenset:
    """The parts of the write query that some plan of the batch uses; the others are left out of it."""
    found = set()
    for plan in plans:
        for name in (
            "entity_times",
            "current",
            "restamp",
            "end_held",
            "seen_held",
            "start_next",
            "next_seen",
        ):
            if plan.get(name):
                found.add(name)
        for name in ("held", "next", "source", "moves", "new", "until", "trust"):
            if plan.get(name) is not None and plan.get(name) != []:
                found.add(name)
        if plan.get("new") and plan.get("held") is not None and plan.get("next") is not None:
            found.add("unlink")
        if "times" in plan:  # even empty: a time the row leaves out is removed from the entity
            found.add("times")
        for relation in plan.get("open") or ():
            found.add(f"open:{relation}")
        for relation in plan.get("reopen") or ():
            found.add(f"reopen:{relation}")
    return frozenset(found)


def _opens(kind: Kind, needs: frozenset) -> str:
    opens = ""
    for number, relation in enumerate(kind.relations):
        target = kind.target(relation)
        x, opened, again, reopened = f"x{number}", f"opened{number}", f"y{number}", f"reopened{number}"
        merge = f"ON CREATE SET {{0}}:Entity, {{0}}.`{REVISION}` = 0, {{0}}.`{target.key}` = {{0}}.key "
        until = "row.until" if "until" in needs else "null"
        if f"open:{relation}" in needs:
            opens += (
                f"FOREACH (o{number} IN coalesce(row.open.`{relation}`, []) | "
                f"  MERGE ({x}:`{target.label}` {{key: o{number}}}) {merge.format(x)}"
                f"  CREATE (e)-[{opened}:`{relation}` {{valid_from: localdatetime(row.t), by: $by, "
                f"recorded_at: localdatetime($now)}}]->({x}) "
                + (
                    f"  SET {opened}.valid_to = CASE WHEN {until} IS NULL THEN null ELSE localdatetime({until}) END) "
                    if "until" in needs
                    else ") "
                )
            )
        if f"reopen:{relation}" in needs:
            opens += (
                f"FOREACH (r{number} IN coalesce(row.reopen.`{relation}`, []) | "
                f"  MERGE ({again}:`{target.label}` {{key: r{number}.target}}) {merge.format(again)}"
                f"  CREATE (e)-[{reopened}:`{relation}` {{valid_from: localdatetime(r{number}.from), by: $by, "
                f"recorded_at: localdatetime($now)}}]->({again}) "
                f"  SET {reopened}.valid_to = CASE WHEN r{number}.to IS NULL THEN null "
                f"ELSE localdatetime(r{number}.to) END) "
            )
    return opens


@lru_cache(maxsize=1024)
def _apply_query(kind: Kind, needs: frozenset) -> str:
    # Every variable has a name of its own: FalkorDB 4.22 let a name bound inside CALL {} clash with the
    # same name in a later FOREACH, which then silently did nothing. The reads come first, then every write.
    # Only the parts some plan of the batch uses are in the query: each part left out of a batch of 500
    # creates saved its pass over the 500 rows (the whole query took about half as long).
    held, later = "held" in needs, "next" in needs
    times = kind.times if "times" in needs else ()
    embed = (
        f"  FOREACH (unembedding IN {_when('row.retext')} | SET e.`{VECTOR}` = null, e.`{VECTOR_MODEL}` = null) "
        f"  FOREACH (marking IN {_when('row.retext AND row.embed')} | SET e:`{kind.embed_label}`) "
        f"  FOREACH (unmarking IN {_when('row.retext AND NOT row.embed')} | REMOVE e:`{kind.embed_label}`) "
        if kind.dimensions
        else ""
    )
    parts = [
        "OPTIONAL MATCH (st:Stamp) WITH st " if "restamp" in needs else "",
        "UNWIND $rows AS row ",
        f"MERGE (e:`{kind.label}` {{key: row.key}}) "
        f"ON CREATE SET e:Entity, e.`{REVISION}` = 0, e.`{kind.key}` = row.key ",
        f"WITH {'st, ' if 'restamp' in needs else ''}e, row WHERE coalesce(e.`{REVISION}`, 0) = row.rev ",
        "OPTIONAL MATCH (held) WHERE id(held) = row.held " if held else "",
        "OPTIONAL MATCH (later) WHERE id(later) = row.next " if later else "",
        # A DELETE here, not in CALL {}: there FalkorDB 4.22 deleted for the first row of the query only.
        "OPTIONAL MATCH (held)-[link:NEXT]->(later) WHERE row.new " if "unlink" in needs else "",
        "OPTIONAL MATCH (source_entry:Entry {id: row.source}) " if "source" in needs else "",
        f"SET e.`{REVISION}` = coalesce(e.`{REVISION}`, 0) + 1 ",
        f"FOREACH (timing IN {_when('row.entity_times IS NOT NULL')} | "
        "  SET e.valid_from = localdatetime(row.entity_times[0]), "
        "      e.seen_last = CASE WHEN row.entity_times[1] IS NULL THEN null "
        "ELSE localdatetime(row.entity_times[1]) END) "
        if "entity_times" in needs
        else "",
        f"FOREACH (becoming IN {_when('row.current')} | "
        "  SET e += row.clear "
        "  SET e += row.values, e.words = row.words, e.fp = row.fp, e.by = $by, e.recorded_at = localdatetime($now)"
        f"{_time_sets('e', times)} "
        f"{embed}) "
        if "current" in needs
        else "",
        f"FOREACH (stamping IN {_when('row.restamp AND st IS NOT NULL')} | SET st.id = $stamp) "
        if "restamp" in needs
        else "",
        f"FOREACH (ending IN {_when('row.end_held')} | SET held.valid_to = localdatetime(row.t)) "
        if "end_held" in needs
        else "",
        f"FOREACH (seeing IN {_when('row.seen_held')} | SET held.seen_last = localdatetime(row.t)) "
        if "seen_held" in needs
        else "",
        f"FOREACH (starting IN {_when('row.start_next')} | SET later.valid_from = localdatetime(row.t)) "
        if "start_next" in needs
        else "",
        f"FOREACH (seeing_next IN {_when('row.next_seen IS NOT NULL')} | "
        "  SET later.seen_last = localdatetime(row.next_seen)) "
        if "next_seen" in needs
        else "",
        "DELETE link " if "unlink" in needs else "",
        # A new State is made in FOREACH, not in CALL {}: there, FalkorDB 4.22 took longer for each CREATE
        # the larger the graph was (500 new States: 45 ms in an empty graph, 170 ms after 3,000 more).
        f"FOREACH (making IN {_when('row.new')} | "
        f"  CREATE (e)-[:HAS_STATE]->(made:State {{`{STATE_KIND}`: '{kind.label}', key: row.key, "
        "    valid_from: localdatetime(row.t), by: $by, recorded_at: localdatetime($now), words: row.words, "
        "    fp: row.fp"
        + (", entry: row.source" if "source" in needs else "")
        + (f", `{TRUST}`: row.trust" if "trust" in needs else "")
        + "}) "
        "  SET made += row.values"
        + (
            ", made.valid_to = CASE WHEN row.until IS NULL THEN null ELSE localdatetime(row.until) END"
            if "until" in needs
            else ""
        )
        + f"{_time_sets('made', times)} "
        + (
            f"  FOREACH (after_held IN {_when('held IS NOT NULL')} | CREATE (held)-[:NEXT]->(made)) "
            if held
            else ""
        )
        + (
            f"  FOREACH (before_later IN {_when('later IS NOT NULL')} | CREATE (made)-[:NEXT]->(later)) "
            if later
            else ""
        )
        + (
            f"  FOREACH (citing IN {_when('source_entry IS NOT NULL')} | CREATE (made)-[:FROM]->(source_entry))"
            if "source" in needs
            else ""
        )
        + ") "
        if "new" in needs
        else "",
        _opens(kind, needs),
        "WITH e, row "
        "CALL { WITH e, row UNWIND coalesce(row.moves, []) AS move "
        "  MATCH (e)-[moved]->() WHERE id(moved) = move[0] "
        "  SET moved.valid_to = CASE WHEN move[1] THEN localdatetime(row.t) ELSE moved.valid_to END, "
        "      moved.valid_from = CASE WHEN move[1] THEN moved.valid_from ELSE localdatetime(row.t) END "
        "  RETURN count(*) AS moved_count } "
        if "moves" in needs
        else "",
        "RETURN row.i",
    ]
    return "".join(parts)


def apply_plans(graph, kind: Kind, by: str, plans: list[dict]) -> set[int]:
    """Writes the plans in one query; returns the indexes of the rows whose plan was written."""
    if not plans:
        return set()
    query = _apply_query(kind, _needs(kind, plans))
    params = {"rows": plans, "by": by, "now": clock.now(), "stamp": uuid.uuid4().hex}
    header = parameters_header(params)  # the fast form when it carries them exactly, else the client's
    result = graph.query(header + query) if header else graph.query(query, params)
    return {row[0] for row in result.result_set}
