"""The one query that carries plans out: apply_plans() writes many plans in one query, each guarded by
the revision of its entity, so a plan made from a snapshot that another writer changed is not written.

The query holds only the parts some plan of the batch uses, and each plan travels as a list of the
fields those parts read, in the order the query reads them (row[0], row[1], ...): no field name is sent
500 times, and no field the query does not read is sent at all.
"""

from __future__ import annotations

import re
import uuid
from functools import lru_cache

from .. import clock
from ..kinds import LINKS_FP, REVISION, STATE_KIND, TRUST, VECTOR, VECTOR_MODEL, VECTOR_OF, Kind
from ..wire import parameters_header
from .ahead import server_at_work
from .plans import CREATED_PARTS


def _content_properties(times: tuple[str, ...], values: list[str], needs: frozenset) -> str:
    """The row's times and named values as properties of a node's CREATE (an entity's or a State's): one
    the row leaves out is null there, and not stored. When every entity of the batch is new ("absent"),
    they travel as lists in the order named here (_listed_content()), not as maps."""
    listed = "absent" in needs
    made = []
    for number, name in enumerate(times):
        given = f"row.listed_times[{number}]" if listed else f"row.times.`{name}`"
        made.append(f", `{name}`: CASE WHEN {given} IS NULL THEN null ELSE localdatetime({given}) END")
    for number, name in enumerate(values):
        made.append(
            f", `{name}`: row.listed_values[{number}]" if listed else f", `{name}`: row.values.`{name}`"
        )
    return "".join(made)


def _listed_content(kind: Kind, needs: frozenset, plans: list[dict]) -> None:
    """For a batch of new entities: each plan's times, named values and targets to open as lists, in the
    order the query reads them. No name travels once a row, and the parameters hold no map name to unquote
    (that pass over 500 rows took 2.3 µs a row)."""
    times, values = kind.times if "times" in needs else (), value_names(needs)
    relations, empty = list(kind.relations), {}
    for plan in plans:  # map() of a bound get(): a third less than a comprehension, for lists this short
        if times:
            plan["listed_times"] = list(map(plan["times"].get, times))
        plan["listed_values"] = list(map(plan["values"].get, values))
        plan["listed_open"] = list(map((plan.get("open") or empty).get, relations))


def value_names(needs: frozenset) -> list[str]:
    """The value names a query's CREATE names one by one, in order (none when they go as a map)."""
    return sorted(need[len("value:") :] for need in needs if need.startswith("value:"))


def _values_as_map(node: str, needs: frozenset) -> str:
    """More value names than MAX_NAMED_VALUES in the batch: the values SET after the CREATE, as a map."""
    return f"SET {node} += row.values " if "values_as_map" in needs else ""


def _when(condition: str) -> str:
    return f"CASE WHEN {condition} THEN [1] ELSE [] END"


# A new State's values are properties of its CREATE, by name, when a batch's new States have at most this
# many names between them: a SET after the CREATE (of a map or of each name) cost FalkorDB 4.22.1 about
# 10 µs a node (100 ms for 10,000 States). More names go as a map, SET after it.
MAX_NAMED_VALUES = 64

# Plan fields that each ask for a part of the query when they hold something (not None, False or []).
_PARTS = frozenset(
    [
        "entity_times",
        "current",
        "restamp",
        "end_held",
        "seen_held",
        "start_next",
        "next_seen",
        "unembed",
        "held",
        "next",
        "source",
        "new",
        "until",
        "trust",
    ]
)


def _needs(plans: list[dict]) -> frozenset:
    """The parts of the write query that some plan of the batch uses; the others are left out of it."""
    found: set[str] = set()
    opened: set[str] = set()
    moved: set[str] = set()
    reopened: set[str] = set()
    named: set[str] = set()
    absent = 0
    embedding: set[bool] = set()
    for plan in plans:
        if plan.get("absent"):  # a plan of plans.created(): the parts it asks for are known
            absent += 1
            found.update(CREATED_PARTS)
            if plan["source"] is not None:
                found.add("source")
            if plan.get("trust") is not None:
                found.add("trust")
            embedding.add(bool(plan.get("embed")))
        else:
            found.update(  # the parts of the plan's fields only: a plan holds some twenty
                [
                    name
                    for name in _PARTS & plan.keys()
                    if (item := plan[name]) is not None and item is not False and item != []
                ]
            )
            if plan.get("new") and plan.get("held") is not None and plan.get("next") is not None:
                found.add("unlink")
            reopened.update(plan.get("reopen") or ())
        if plan.get("new"):
            named.update(plan["values"])
        if "times" in plan:  # even empty: a time the row leaves out is removed from the entity
            found.add("times")
        opened.update(plan.get("open") or ())
        moved.update(plan.get("moves") or ())
    found.update(f"open:{relation}" for relation in opened)
    found.update(f"move:{relation}" for relation in moved)
    found.update(f"reopen:{relation}" for relation in reopened)
    if absent == len(plans):
        found.add("absent")  # every entity is new: each is created whole (_created_entity())
        if len(embedding) == 1:  # all of them wait for a vector, or none: the label goes in the CREATE
            found.add("embed_all" if embedding == {True} else "embed_none")
    if len(named) > MAX_NAMED_VALUES:
        found.add("values_as_map")
    else:
        found.update(f"value:{name}" for name in named)  # each a checked property name
    return frozenset(found)


def _moves(kind: Kind, needs: frozenset) -> str:
    """The edges that end or start at the row's time, one CALL {} per relation type that some plan moves,
    each edge found between the entity and its target, both held (Expand Into): from the entity alone
    FalkorDB 4.22.1 walked every relation edge of it (15.8 of some 75 ms for 500 late rows), and between
    the two nodes with every relation type in the pattern it took as long (12.9 ms); with one type, 0.6."""
    moves = ""
    for number, relation in enumerate(kind.relations):
        if f"move:{relation}" not in needs:
            continue
        move, moved, target = f"move{number}", f"moved{number}", f"moved_to{number}"
        moves += (
            "WITH e, row "  # each CALL {} with names of its own: FalkorDB 4.22 lets them clash after it
            f"CALL {{ WITH e, row UNWIND coalesce(row.moves.`{relation}`, []) AS {move} "
            f"  MATCH ({target}) WHERE id({target}) = {move}[2] WITH e, row, {move}, {target} "
            f"  MATCH (e)-[{moved}:`{relation}`]->({target}) WHERE id({moved}) = {move}[0] "
            f"  SET {moved}.valid_to = CASE WHEN {move}[1] THEN localdatetime(row.t) ELSE {moved}.valid_to END, "
            f"      {moved}.valid_from = CASE WHEN {move}[1] THEN {moved}.valid_from "
            "        ELSE localdatetime(row.t) END "
            f"  RETURN count(*) AS {moved}_count }} "
        )
    return moves


def _opens(kind: Kind, needs: frozenset) -> str:
    opens = ""
    for number, relation in enumerate(kind.relations):
        target = kind.target(relation)
        x, opened, again, reopened = f"x{number}", f"opened{number}", f"y{number}", f"reopened{number}"
        merge = f"ON CREATE SET {{0}}:Entity, {{0}}.`{REVISION}` = 0, {{0}}.`{target.key}` = {{0}}.key "
        until = "row.until" if "until" in needs else ""
        if f"open:{relation}" in needs:
            given = f"row.listed_open[{number}]" if "absent" in needs else f"row.open.`{relation}`"
            opens += (
                f"FOREACH (o{number} IN coalesce({given}, []) | "
                f"  MERGE ({x}:`{target.label}` {{key: o{number}}}) {merge.format(x)}"
                f"  CREATE (e)-[{opened}:`{relation}` {{valid_from: localdatetime(row.t), by: $by, "
                "recorded_at: localdatetime($now)"
                + (
                    f", valid_to: CASE WHEN {until} IS NULL THEN null ELSE localdatetime({until}) END"
                    if until
                    else ""
                )
                + f"}}]->({x})) "
            )
        if f"reopen:{relation}" in needs:
            opens += (
                f"FOREACH (r{number} IN coalesce(row.reopen.`{relation}`, []) | "
                f"  MERGE ({again}:`{target.label}` {{key: r{number}.target}}) {merge.format(again)}"
                f"  CREATE (e)-[{reopened}:`{relation}` {{valid_from: localdatetime(r{number}.from), by: $by, "
                f"recorded_at: localdatetime($now), valid_to: CASE WHEN r{number}.to IS NULL THEN null "
                f"ELSE localdatetime(r{number}.to) END}}]->({again})) "
            )
    return opens


def _created_entity(kind: Kind, needs: frozenset, values: list[str], times: tuple[str, ...]) -> str:
    """The start of the query when no plan's entity existed when it was read: each is created with its
    values in its CREATE (MERGE and the SETs after it were a quarter of what 10,000 creates took FalkorDB).
    One that another writer made since is not written, and its row is read and decided again. The label
    of an entity waiting for its vector is in the CREATE too when every entity of the batch takes it (a
    FOREACH that sets it cost 20 to 40 ms of 10,000)."""
    embed_all = kind.dimensions and "embed_all" in needs
    return (
        "UNWIND $rows AS row "
        f"OPTIONAL MATCH (existing:`{kind.label}` {{key: row.key}}) "
        + ("OPTIONAL MATCH (source_entry:Entry {id: row.source}) " if "source" in needs else "")
        + f"WITH row{', source_entry' if 'source' in needs else ''} WHERE existing IS NULL "
        f"CREATE (e:`{kind.label}`:Entity{f':`{kind.embed_label}`' if embed_all else ''} "
        f"{{key: row.key, `{REVISION}`: 1{'' if kind.key == 'key' else f', `{kind.key}`: row.key'}, "
        f"valid_from: localdatetime(row.t), words: row.words, fp: row.fp, `{LINKS_FP}`: row.links_fp, by: $by, "
        "recorded_at: localdatetime($now)"
        + _content_properties(times, values, needs)
        + "}) "
        + _values_as_map("e", needs)
        + (
            f"FOREACH (marking IN {_when('row.embed')} | SET e:`{kind.embed_label}`) "
            if kind.dimensions and not embed_all and "embed_none" not in needs
            else ""
        )
    )


def _merged_entity(kind: Kind, needs: frozenset, times: tuple[str, ...]) -> str:
    """The start of the query when some plan's entity exists: each is matched (or made, by MERGE, so two
    writers never make one entity twice), guarded by its revision, and given its new values."""
    held, later = "held" in needs, "next" in needs
    embed = (
        (
            "  FOREACH (unembedding IN CASE WHEN row.unembed THEN old_vectors ELSE [] END | DELETE unembedding) "
            # A graph not moved yet (vector_layout.py) keeps it on the entity: it goes too, never to be moved.
            f"  FOREACH (legacy IN CASE WHEN row.unembed AND e.`{VECTOR}` IS NOT NULL THEN [e] ELSE [] END | "
            f"    SET legacy.`{VECTOR}` = null, legacy.`{VECTOR_MODEL}` = null) "
            if "unembed" in needs
            else ""
        )
        + f"  FOREACH (marking IN {_when('row.retext AND row.embed')} | SET e:`{kind.embed_label}`) "
        f"  FOREACH (unmarking IN {_when('row.retext AND NOT row.embed')} | REMOVE e:`{kind.embed_label}`) "
        if kind.dimensions
        else ""
    )
    parts = [
        "OPTIONAL MATCH (st:Stamp) WITH st " if "restamp" in needs else "",
        "UNWIND $rows AS row ",
        f"MERGE (e:`{kind.label}` {{key: row.key}}) "
        f"ON CREATE SET e:Entity, e.`{REVISION}` = 0, e.`{kind.key}` = row.key ",
        f"WITH {'st, ' if 'restamp' in needs else ''}e, row"
        # The node of the entity's vector, listed before the writes (read in a FOREACH after them, FalkorDB
        # 4.22.1 could not find the list).
        + (f", [(e)-[:{VECTOR_OF}]->(old_vector) | old_vector] AS old_vectors" if "unembed" in needs else "")
        + f" WHERE coalesce(e.`{REVISION}`, 0) = row.rev ",
        "OPTIONAL MATCH (held) WHERE id(held) = row.held " if held else "",
        "OPTIONAL MATCH (later) WHERE id(later) = row.next " if later else "",
        # A DELETE here, not in CALL {}: there FalkorDB 4.22 deleted for the first row of the query only.
        "OPTIONAL MATCH (held)-[link:NEXT]->(later) WHERE row.new " if "unlink" in needs else "",
        "OPTIONAL MATCH (source_entry:Entry {id: row.source}) " if "source" in needs else "",
        # One SET for all the entity takes, its parts by CASE: each SET clause on the entity cost FalkorDB
        # 4.22.1 some 8 µs a row (four of them were a third of a batch of changes). Within one SET the
        # items apply in order: the values are cleared before they are set.
        f"SET e.`{REVISION}` = coalesce(e.`{REVISION}`, 0) + 1",
        ", e.valid_from = CASE WHEN row.entity_times IS NULL THEN e.valid_from "
        "ELSE localdatetime(row.entity_times[0]) END, "
        "e.seen_last = CASE WHEN row.entity_times IS NULL THEN e.seen_last "
        "WHEN row.entity_times[1] IS NULL THEN null ELSE localdatetime(row.entity_times[1]) END"
        if "entity_times" in needs
        else "",
        ", e += CASE WHEN row.current THEN row.clear ELSE {} END, "
        "e += CASE WHEN row.current THEN row.values ELSE {} END, "
        + ", ".join(
            f"e.{name} = CASE WHEN row.current THEN {value} ELSE e.{name} END"
            for name, value in [
                ("words", "row.words"),
                ("fp", "row.fp"),
                (f"`{LINKS_FP}`", "row.links_fp"),
                ("by", "$by"),
                ("recorded_at", "localdatetime($now)"),
                *[
                    (
                        f"`{name}`",
                        f"CASE WHEN row.times.`{name}` IS NULL THEN null ELSE localdatetime(row.times.`{name}`) END",
                    )
                    for name in times
                ],
            ]
        )
        if "current" in needs
        else "",
        " ",
        embed if "current" in needs else "",
    ]
    return "".join(parts)


def _new_states(kind: Kind, needs: frozenset, times: tuple[str, ...], values: list[str]) -> str:
    """The CREATE of each new State, with its NEXT links and its entry, in a FOREACH for the plans that
    make one. Even when every entity is new and each makes its first State: a CREATE outside a FOREACH
    cost FalkorDB 4.22.1 as much or more (10,000 creates: 566 to 658 ms against 518 to 664)."""
    held, later = "held" in needs, "next" in needs
    made = (
        f"CREATE (e)-[:HAS_STATE]->(made:State {{`{STATE_KIND}`: '{kind.label}', key: row.key, "
        "valid_from: localdatetime(row.t), by: $by, recorded_at: localdatetime($now), words: row.words, "
        "fp: row.fp"
        + (", entry: row.source" if "source" in needs else "")
        + (f", `{TRUST}`: row.trust" if "trust" in needs else "")
        + (
            ", valid_to: CASE WHEN row.until IS NULL THEN null ELSE localdatetime(row.until) END"
            if "until" in needs
            else ""
        )
        + _content_properties(times, values, needs)
        + "}) "
        + _values_as_map("made", needs)
        + (
            f"FOREACH (after_held IN {_when('held IS NOT NULL')} | CREATE (held)-[:NEXT]->(made)) "
            if held
            else ""
        )
        + (
            f"FOREACH (before_later IN {_when('later IS NOT NULL')} | CREATE (made)-[:NEXT]->(later)) "
            if later
            else ""
        )
        + (
            f"FOREACH (citing IN {_when('source_entry IS NOT NULL')} | CREATE (made)-[:FROM]->(source_entry)) "
            if "source" in needs
            else ""
        )
    )
    # A new State is made in FOREACH, not in CALL {}: there, FalkorDB 4.22 took longer for each CREATE the
    # larger the graph was (500 new States: 45 ms in an empty graph, 170 ms after 3,000 more).
    return f"FOREACH (making IN {_when('row.new')} | {made}) "


def _apply_query(kind: Kind, needs: frozenset) -> str:
    # Every variable has a name of its own: FalkorDB 4.22 let a name bound inside CALL {} clash with the
    # same name in a later FOREACH, which then silently did nothing. The reads come first, then every write.
    # Only the parts some plan of the batch uses are in the query: each part left out of a batch of 500
    # creates saved its pass over the 500 rows (the whole query took about half as long).
    times = kind.times if "times" in needs else ()
    values = value_names(needs)
    parts = [
        _created_entity(kind, needs, values, times)
        if "absent" in needs
        else _merged_entity(kind, needs, times),
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
        _new_states(kind, needs, times, values) if "new" in needs else "",
        _opens(kind, needs),
        _moves(kind, needs),
        "RETURN row.i",
    ]
    return "".join(parts)


_FIELD = re.compile(r"\brow\.([A-Za-z_][A-Za-z0-9_]*)")


@lru_cache(maxsize=1024)
def positional_query(kind: Kind, needs: frozenset) -> tuple[str, tuple[str, ...]]:
    """The write query for these needs with each plan read as a list, and the plan fields of that list
    in order: each `row.name` of the query becomes `row[place]`, place its first use in the query."""
    query = _apply_query(kind, needs)
    layout = tuple(dict.fromkeys(_FIELD.findall(query)))
    places = {name: place for place, name in enumerate(layout)}
    return _FIELD.sub(lambda found: f"row[{places[found.group(1)]}]", query), layout


def apply_plans(graph, kind: Kind, by: str, plans: list[dict]) -> set[int]:
    """Writes the plans in one query; returns the indexes of the rows whose plan was written."""
    if not plans:
        return set()
    needs = _needs(plans)
    query, layout = positional_query(kind, needs)
    if "absent" in needs:
        _listed_content(kind, needs, plans)
    return written(graph, query, [list(map(plan.get, layout)) for plan in plans], by)


def written(graph, query: str, rows: list, by: str) -> set[int]:
    """Sends a write query of positional rows, each of which returns its index: the indexes written.
    The parameters go as their header when it carries them exactly (wire.parameters_header()), else the
    client's way; the rows of a large call are prepared meanwhile (server_at_work())."""
    params = {"rows": rows, "by": by, "now": clock.now(), "stamp": uuid.uuid4().hex}
    header = parameters_header(params)
    with server_at_work():
        result = graph.query(header + query) if header else graph.query(query, params)
    return {row[0] for row in result.result_set}
