"""The write rule as a decision, and the one query that carries decisions out.

decide() compares a row with what is stored around its time and says what happens (a receipt status)
and which nodes and edges change (a plan). apply_plans() writes many plans in one query, each guarded by
the revision of its entity, so a plan made from a snapshot that another writer changed is not written.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache

from .. import clock
from ..kinds import Kind
from ..values import words
from .rows import Row, content_of, text_of, typed

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
    values: dict
    relations: dict  # relation -> frozenset of targets


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


def pairs(relations: dict) -> set:
    return {(relation, typed(target)) for relation, targets in relations.items() for target in targets}


def relations_from(edges: dict, kind: Kind) -> dict:
    found = {relation: set() for relation in kind.relations}
    for edge in edges.values():
        found[edge.relation].add(edge.target)
    return {relation: frozenset(targets) for relation, targets in found.items()}


def _edges_plan(plan: dict, had: dict, wanted: dict, after: dict, t: str, next_from: datetime | None) -> None:
    """Makes the relation edges hold `wanted` from t until next_from, where `after` holds again.

    had: the edges that held at t; after: the edges that hold when the next State begins.
    """
    nf = None if next_from is None else clock.stamp(next_from)
    for pair, edge in had.items():
        if pair in wanted:
            continue
        plan["edge_sets"][pair[0]].append({"id": edge.id, "field": "valid_to", "at": t})
        if nf is not None and pair in after and after[pair].id == edge.id:  # it held across: split it
            to = None if edge.valid_to is None else clock.stamp(edge.valid_to)
            plan["open"][pair[0]].append({"target": edge.target, "from": nf, "to": to})
    for pair, target in wanted.items():
        if pair in had:
            continue
        if nf is not None and pair in after:  # it began with the next State: it begins at t now
            plan["edge_sets"][pair[0]].append({"id": after[pair].id, "field": "valid_from", "at": t})
        else:
            plan["open"][pair[0]].append({"target": target, "from": t, "to": nf})


def _new_plan(kind: Kind, row: Row, rev: int) -> dict:
    return {
        "i": row.index,
        "key": row.key,
        "rev": rev,
        "restamp": False,
        "entity": [],
        "state_sets": [],
        "new_state": [],
        "unlink_prev": None,
        "unlink_next": None,
        "edge_sets": {relation: [] for relation in kind.relations},
        "link_prev": None,  # the States a new State is linked after and before, and its entry
        "link_next": None,
        "source": None,
        "open": {relation: [] for relation in kind.relations},
    }


def _split_times(kind: Kind, given: dict) -> tuple[dict, dict]:
    plain = {name: item for name, item in given.items() if name not in kind.times}
    times = {name: item for name, item in given.items() if name in kind.times}
    return plain, times


def _becomes_current(kind: Kind, plan: dict, row: Row, around: Around, t: str) -> None:
    plain, times = _split_times(kind, row.values)
    removed = {name: None for name in around.props if name not in row.values and name not in kind.times}
    old_text, new_text = text_of(kind, around.props), text_of(kind, row.values)
    plan["entity"].append(
        {
            "values": True,
            "props": {**removed, **plain},
            "clear": {name: None for name in plain},
            "times": times,
            "valid_from": t,
            "seen_last": None,
            "words": words(new_text),
            # A text that changed loses its vector; it waits for a new one only when there is text to embed.
            "retext": bool(kind.dimensions) and (new_text != old_text or around.current is None),
            "embed": bool(new_text),
        }
    )


def _new_state(
    kind: Kind, plan: dict, row: Row, t: str, prev: StateView | None, nxt: StateView | None
) -> None:
    plain, times = _split_times(kind, row.values)
    plan["new_state"].append(
        {
            "values": plain,
            "times": times,
            "valid_from": t,
            "valid_to": None if nxt is None else clock.stamp(nxt.valid_from),
            "words": words(text_of(kind, row.values)),
        }
    )
    plan["link_prev"] = None if prev is None else prev.id
    plan["link_next"] = None if nxt is None else nxt.id
    plan["source"] = row.entry
    if prev is not None and nxt is not None:  # the link between them is replaced: the one deleting write
        plan["unlink_prev"], plan["unlink_next"] = prev.id, nxt.id
        plan["restamp"] = True


def _entity_times(plan: dict, valid_from: datetime, seen_last: datetime | None) -> None:
    plan["entity"].append(
        {
            "values": False,
            "valid_from": clock.stamp(valid_from),
            "seen_last": None if seen_last is None else clock.stamp(seen_last),
        }
    )


def decide(kind: Kind, row: Row, around: Around, *, partial: bool = False) -> tuple[str, dict | None]:
    """The receipt status of a row against what is stored, and the plan that writes it (None: no write)."""
    t = clock.stamp(row.t)
    plan = _new_plan(kind, row, around.rev)
    wanted = {
        (relation, typed(target)): target for relation, targets in row.relations.items() for target in targets
    }
    if around.current is None:
        _becomes_current(kind, plan, row, around, t)
        _new_state(kind, plan, row, t, None, None)
        _edges_plan(plan, {}, wanted, {}, t, None)
        return "created", plan
    held, nxt = around.prev, around.next
    if partial and row.t < around.current.valid_from:
        return "stale", None
    if held is not None:
        same = row.content == content_of(held.values, held.relations)
        if row.t == held.valid_from:
            return ("unchanged", None) if same else ("conflict", None)
        if same:
            last = held.seen_last or held.valid_from
            if row.t <= last:
                return "unchanged", None
            plan["state_sets"].append({"id": held.id, "field": "seen_last", "at": t})
            if held.valid_to is None:
                _entity_times(plan, held.valid_from, row.t)
            return "unchanged", plan
        if held.seen_last is not None and row.t <= held.seen_last:
            return ("stale", None) if row.t < held.seen_last else ("conflict", None)
        plan["state_sets"].append({"id": held.id, "field": "valid_to", "at": t})
        if nxt is None:  # a change of the current State
            _becomes_current(kind, plan, row, around, t)
            _new_state(kind, plan, row, t, held, None)
            _edges_plan(plan, around.edges_prev, wanted, {}, t, None)
            return "changed", plan
    if nxt is None:
        raise AssertionError("a late row with no State after it")  # the caller reads around every late row
    if row.content == content_of(nxt.values, nxt.relations):  # the next State starts earlier
        plan["state_sets"].append({"id": nxt.id, "field": "valid_from", "at": t})
        seen_last = nxt.seen_last or nxt.valid_from
        if nxt.seen_last is None:
            plan["state_sets"].append({"id": nxt.id, "field": "seen_last", "at": clock.stamp(nxt.valid_from)})
        if nxt.valid_to is None:
            _entity_times(plan, row.t, seen_last)
    else:
        _new_state(kind, plan, row, t, held, nxt)
    _edges_plan(plan, around.edges_prev if held else {}, wanted, around.edges_next, t, nxt.valid_from)
    return "inserted", plan


def _time_sets(target: str, source: str, names: tuple[str, ...]) -> str:
    return "".join(
        f", {target}.`{name}` = CASE WHEN {source}.`{name}` IS NULL THEN null ELSE localdatetime({source}.`{name}`) END"
        for name in names
    )


@lru_cache(maxsize=256)
def _apply_query(kind: Kind) -> str:
    # Every variable has a name of its own: FalkorDB 4.22 let a name bound inside CALL {} clash with the
    # same name in a later FOREACH, which then silently created nothing.
    embed = (
        "    FOREACH (_ IN CASE WHEN v.retext THEN [1] ELSE [] END | SET e.embedding = null, e.model = null) "
        f"    FOREACH (_ IN CASE WHEN v.retext AND v.embed THEN [1] ELSE [] END | SET e:`{kind.embed_label}`) "
        f"    FOREACH (_ IN CASE WHEN v.retext AND NOT v.embed THEN [1] ELSE [] END | REMOVE e:`{kind.embed_label}`)"
        if kind.dimensions
        else ""
    )
    opens, moves = "", ""
    for number, relation in enumerate(kind.relations):
        target = kind.target(relation)
        o, x, opened = f"o{number}", f"x{number}", f"opened{number}"
        opens += (
            f"FOREACH ({o} IN row.open.`{relation}` | "
            f"MERGE ({x}:`{target.label}` {{key: {o}.target}}) "
            f"ON CREATE SET {x}:Entity, {x}.rev = 0, {x}.`{target.key}` = {o}.target "
            f"CREATE (e)-[{opened}:`{relation}` {{valid_from: localdatetime({o}.from), by: $by, "
            f"recorded_at: localdatetime($now)}}]->({x}) "
            f"SET {opened}.valid_to = CASE WHEN {o}.to IS NULL THEN null ELSE localdatetime({o}.to) END) "
        )
        # By type: only the entity's edges of this relation are looked at, not its every State.
        eu, moved = f"eu{number}", f"moved{number}"
        moves += (
            f"WITH e, row CALL {{ WITH e, row UNWIND row.edge_sets.`{relation}` AS {eu} "
            f"  MATCH (e)-[{moved}:`{relation}`]->() WHERE id({moved}) = {eu}.id "
            f"  SET {moved}.valid_to = CASE WHEN {eu}.field = 'valid_to' THEN localdatetime({eu}.at) ELSE {moved}.valid_to END, "
            f"      {moved}.valid_from = CASE WHEN {eu}.field = 'valid_from' THEN localdatetime({eu}.at) ELSE {moved}.valid_from END "
            f"  RETURN count(*) AS moved_count{number} }} "
        )
    return (
        "OPTIONAL MATCH (st:Stamp) WITH st "
        "UNWIND $rows AS row "
        f"MERGE (e:`{kind.label}` {{key: row.key}}) ON CREATE SET e:Entity, e.rev = 0, e.`{kind.key}` = row.key "
        "WITH st, e, row WHERE coalesce(e.rev, 0) = row.rev "
        "SET e.rev = coalesce(e.rev, 0) + 1 "
        "FOREACH (c IN row.entity | "
        "  SET e.valid_from = localdatetime(c.valid_from), "
        "      e.seen_last = CASE WHEN c.seen_last IS NULL THEN null ELSE localdatetime(c.seen_last) END "
        "  FOREACH (v IN CASE WHEN c.values THEN [c] ELSE [] END | "
        # Cleared first: FalkorDB 4.22 skips a SET whose value equals the old one across types (1, 1.0, true).
        "    SET e += v.clear "
        f"    SET e += v.props, e.words = v.words, e.by = $by, e.recorded_at = localdatetime($now)"
        f"{_time_sets('e', 'v.times', kind.times)} "
        f"{embed})) "
        "FOREACH (_ IN CASE WHEN row.restamp AND st IS NOT NULL THEN [1] ELSE [] END | SET st.id = $stamp) "
        "WITH e, row "
        "CALL { WITH e, row UNWIND row.state_sets AS su "
        "  MATCH (old) WHERE id(old) = su.id "
        "  SET old.valid_to = CASE WHEN su.field = 'valid_to' THEN localdatetime(su.at) ELSE old.valid_to END, "
        "      old.valid_from = CASE WHEN su.field = 'valid_from' THEN localdatetime(su.at) ELSE old.valid_from END, "
        "      old.seen_last = CASE WHEN su.field = 'seen_last' THEN localdatetime(su.at) ELSE old.seen_last END "
        "  RETURN count(*) AS state_sets } "
        # Not in CALL {}: FalkorDB 4.22 carried out a DELETE inside CALL {} for the first row of the query only.
        "WITH e, row "
        "OPTIONAL MATCH (before:State)-[link:NEXT]->(after:State) "
        "WHERE id(before) = row.unlink_prev AND id(after) = row.unlink_next "
        "DELETE link "
        "WITH e, row "
        # A new State is made in FOREACH, not in CALL {}: there, FalkorDB 4.22 took longer for each CREATE
        # the larger the graph was (500 new States: 45 ms in an empty graph, 170 ms after 3,000 more).
        "OPTIONAL MATCH (link_before:State) WHERE id(link_before) = row.link_prev "
        "OPTIONAL MATCH (link_after:State) WHERE id(link_after) = row.link_next "
        "OPTIONAL MATCH (source_entry:Entry {id: row.source}) "
        "FOREACH (n IN row.new_state | "
        f"  CREATE (e)-[:HAS_STATE]->(made:State {{kind: '{kind.label}', key: row.key, "
        "    valid_from: localdatetime(n.valid_from), by: $by, recorded_at: localdatetime($now), words: n.words}) "
        "  SET made += n.values, made.valid_to = CASE WHEN n.valid_to IS NULL THEN null ELSE localdatetime(n.valid_to) END"
        f"{_time_sets('made', 'n.times', kind.times)} "
        "  FOREACH (_ IN CASE WHEN link_before IS NULL THEN [] ELSE [1] END | CREATE (link_before)-[:NEXT]->(made)) "
        "  FOREACH (_ IN CASE WHEN link_after IS NULL THEN [] ELSE [1] END | CREATE (made)-[:NEXT]->(link_after)) "
        "  FOREACH (_ IN CASE WHEN source_entry IS NULL THEN [] ELSE [1] END | CREATE (made)-[:FROM]->(source_entry))) "
        f"{moves}"
        f"{opens}"
        "RETURN row.i"
    )


def apply_plans(graph, kind: Kind, by: str, plans: list[dict]) -> set[int]:
    """Writes the plans in one query; returns the indexes of the rows whose plan was written."""
    if not plans:
        return set()
    result = graph.query(
        _apply_query(kind),
        {"rows": plans, "by": by, "now": clock.stamp(), "stamp": uuid.uuid4().hex},
    )
    return {row[0] for row in result.result_set}
