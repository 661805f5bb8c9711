"""search(), search_history(), search_entries(): what is in memory, found by the words of its text.

Every node that can be searched keeps `words`: the letters and digits of its text, case folded, one
space between them (values.words() on the write path). The full-text index reads only that, and a
question reaches it only as such words too, so nothing of the index's query language (*, -, |, @field:,
quotes) can come from a caller. In that language a space means every word must match and | means any
may. Each search is one round trip, stopped by FalkorDB after 5 seconds at most (errors.TooSlow).

The rule of every read here: its arguments are checked before anything is asked. A bad value raises
Refused (a ValueError), a question that is not a str raises WrongType (a TypeError), and nothing is
written or stored.
"""

from __future__ import annotations

import json
from functools import lru_cache

from redis.exceptions import ResponseError

from .. import clock, values
from ..errors import Refused, TooSlow
from ..graphs import read
from ..kinds import (
    ENGINE_NAMES,
    INTERNAL,
    STATE_KIND,
    TRUST_MARKS,
    Kind,
    is_kind,
    is_owned,
    trust_shown,
)
from ..wire import TEXT_CELL, cell_value, decoded, read_reply, rows_read

STOP_AFTER = 5_000  # milliseconds a search may run before FalkorDB stops it
MAX_RESULTS = 1_000
MAX_TYPES = 200  # entry types one search_entries() may name
MATCHES = {"all": " ", "any": "|"}  # how the index's query language joins words for each way to match

# What a read shows of a node: the values, and what the library keeps beside them that history() shows
# (ENGINE_NAMES: valid_from, by, fp...). Every other property the library owns (kinds.is_owned: the key,
# given beside; the index's words; lh.rev, lh.kind, lh.vector, lh.model) stays in the graph: the queries
# of search_history() leave them out, and search() leaves them undecoded in the reply.
HIDDEN = ("key", "words")
SHOWN_OWN = ENGINE_NAMES - set(HIDDEN)
# The times every entity and State keeps beside the values: shown as datetimes, like declared times.
ENGINE_TIMES = frozenset({"valid_from", "valid_to", "seen_last", "recorded_at"})


def key_order(key: str) -> str:
    """ORDER BY terms that put keys in the order Python sorts them here: whole numbers, then names.

    FalkorDB alone puts names before numbers; false sorts before true. typeOf() cost a search a fifth of
    the CASE over toString() it replaced (0.149 against 0.178 ms inside FalkorDB, fleet of 3,000).
    """
    return f"typeOf({key}) = 'String', {key}"


_MARKS = ", ".join(f"'{mark}'" for mark in TRUST_MARKS)


def shown_names(node: str) -> str:
    """Cypher for the [name, value] pairs of a node that a read may show: not hidden, not the library's
    (but a State's trust marks, which shown_values() shows as trust and review)."""
    return (
        f"[name IN keys({node}) WHERE NOT name IN $hidden "
        f"AND (NOT name STARTS WITH '{INTERNAL}' OR name IN [{_MARKS}]) | [name, {node}[name]]]"
    )


def checked_kind(kind: object) -> Kind:
    """Exactly a Kind: a subclass could change what its fields say while a query is built."""
    if not is_kind(kind):
        raise Refused(f"kind must be a Kind, not {type(kind).__name__}")
    return kind


def checked_limit(limit: object) -> int:
    return values.whole(limit, "limit", 1, MAX_RESULTS)


def checked_timeout(timeout: object) -> int:
    return values.whole(timeout, "timeout in milliseconds", 1, STOP_AFTER)


def bounded(graph, query: str, params: dict, timeout: int = STOP_AFTER, reader=None) -> list:
    """The rows of a read that FalkorDB stops after timeout milliseconds; TooSlow when it did. reader:
    what asks, graphs.read() unless given (it takes the same arguments)."""
    try:
        return (
            read(graph, query, params, timeout) if reader is None else reader(graph, query, params, timeout)
        )
    except ResponseError as error:
        if "timed out" in str(error).lower():
            raise TooSlow(f"the search ran longer than {timeout:,} ms and was stopped") from None
        raise


def _reply(graph, query: str, params: dict, timeout: int) -> list | None:
    """wire.read_reply(): the compact reply, whole (no rows from a graph not yet made), or None."""
    try:
        return read_reply(graph, query, params, timeout)
    except ResponseError as error:
        if "empty key" in str(error):  # as graphs.read() answers for a graph not yet made
            return [[], [], []]
        raise


def asked_words(question: object, match: object = "all") -> dict | None:
    """The parameters of a search: the question for the index, and each of its words once."""
    if type(match) is not str or match not in MATCHES:
        raise Refused('match must be "all" or "any"')
    found = values.question(question, distinct=True)  # read once; 20 different words (API 2.9)
    if not found:
        return None
    return {"query": MATCHES[match].join(found), "terms": found}


def scored(index: str, match: str) -> str:
    """The start of a search: the nodes of the index that match, each with its score.

    With "all", one question: every word must be in the text, and the index's score, which weighs how
    close together the words stand, ranks the few that match. With "any", one question per word and the
    scores of a node added up: the index divides the score of a text that matches several words of one
    question by how far apart they stand, also when any word may match, so "pump shaft" nine words apart
    scored below a text with "pump" alone. Asked word by word, each word adds its own weight.
    """
    if match == "all":
        return f"CALL db.idx.fulltext.queryNodes('{index}', $query) YIELD node, score "
    return (
        "UNWIND $terms AS term "
        f"CALL db.idx.fulltext.queryNodes('{index}', term) YIELD node, score "
        "WITH node, sum(score) AS score "
    )


def _text_kind(kind: object) -> Kind:
    kind = checked_kind(kind)
    if not kind.text:
        raise Refused(f"{kind.label} has no text values to search")
    return kind


_SKIP, _KEEP, _TIME, _MARK = range(4)
_PLANNED = 1_000  # names one kind's plan keeps: past it, a name is weighed each time
_KINDS_PLANNED = 256  # kinds with a plan kept at once


def _planned(kind: Kind, name: str) -> int:
    """What shown_values() does with a name of a kind: leave it out, keep it, read a time, or a mark."""
    if name in TRUST_MARKS:
        return _MARK
    if name == kind.key or (is_owned(name) and name not in SHOWN_OWN):
        return _SKIP
    return _TIME if name in ENGINE_TIMES or name in kind.times else _KEEP


# Each kind's names and what is done with them (and, for search(), the orders its nodes list them in): a
# read of ten results weighs the same dozen names ten times, and is_owned() and the sets took a third of
# the Python a search() result costs.
_plans: dict[Kind, dict] = {}


def _plan(kind: Kind) -> dict:
    plan = _plans.get(kind)
    if plan is None:
        if len(_plans) >= _KINDS_PLANNED:  # kinds made anew for each call: the plans stay few
            _plans.clear()
        plan = _plans.setdefault(kind, {})
    return plan


def _action(kind: Kind, plan: dict[str, int], name: str) -> int:
    action = plan.get(name)
    if action is None:
        action = _planned(kind, name)
        if len(plan) < _PLANNED:
            plan[name] = action
    return action


def shown_values(kind: Kind, listed) -> dict:
    """The [name, value] pairs of a node as a read shows them: times (declared or the library's) as
    datetimes, the kind's own key name left out (it is the key)."""
    plan = _plan(kind)
    found = {}
    marks = None
    for name, item in listed:
        action = plan.get(name)
        if action is None:
            action = _action(kind, plan, name)
        if action == _KEEP:
            found[name] = item
        elif action == _TIME:
            found[name] = clock.from_store(item)
        elif action == _MARK:
            marks = {} if marks is None else marks
            marks[name] = item
    if marks is not None:
        found.update(trust_shown(marks, clock.from_store))
    return found


def _layout(kind: Kind, names: tuple) -> tuple[int | None, tuple]:
    """Where a node's properties, listed in this order, hold its key and what a result shows: (the key's
    place, ((place, name, action), ...)). A kind's nodes mostly list one order: kept in its plan."""
    plan = _plan(kind)
    found = plan.get(names)
    if found is None:
        key_at, shown = None, []
        for place, name in enumerate(names):
            name = name if type(name) is str else cell_value([TEXT_CELL, name])
            action = _action(kind, plan, name)
            if name == "key":
                key_at = 2 * place + 1
            elif action != _SKIP:
                shown.append((2 * place + 1, name, action))
        found = (key_at, tuple(shown))
        if len(plan) < _PLANNED:
            plan[names] = found
    return found


def _found(kind: Kind, row: list) -> dict:
    """A search() result from a row of its reply ([score, properties] cells); what none shows is not read."""
    score, (_, listed) = row
    key_at, shown = _layout(kind, tuple(listed[0::2]))
    found = {}
    marks = None
    for at, name, action in shown:
        sort, item = cell = listed[at]
        if sort != TEXT_CELL or type(item) is not str:
            item = cell_value(cell)
        if action == _KEEP:
            found[name] = item
        elif action == _TIME:
            found[name] = clock.from_store(item)
        else:
            marks = {} if marks is None else marks
            marks[name] = item
    if marks is not None:
        found.update(trust_shown(marks, clock.from_store))
    key = None if key_at is None else cell_value(listed[key_at])
    return {"key": key, "score": cell_value(score), "values": found}


@lru_cache(maxsize=256)
def _search_query(kind: Kind, match: str) -> str:
    """The label filters the index's answer (one index per label). The order and the limit sit on a WITH:
    FalkorDB projects a RETURN before it sorts, so properties() read every match (a word 3,000 devices
    hold: 15.0 against 4.3 ms inside FalkorDB; 1 to 9 matches: 119 against 125 µs). _found() leaves out
    what no result shows (words, the key's own name, the library's names, a leftover vector) undecoded.
    """
    return (
        f"{scored(kind.label, match)}WITH node, score "
        f"ORDER BY score DESC, {key_order('node.key')} LIMIT $limit "
        "RETURN score, properties(node)"
    )


def search(
    graph, kind: Kind, question: str, limit: int = 10, match: str = "all", *, timeout: int = STOP_AFTER
) -> list[dict]:
    """The entities of a kind whose current text has the words of the question, best first.

    Returns [{"key", "score", "values"}]: values are the entity's current properties but its key and
    words (declared times and valid_from, seen_last, recorded_at as datetimes). Ties in key order.
    match="all": every word must be there; "any": one is enough. At most 1,000 characters and 20 distinct words of
    the question are read. A value that changed is found by its new words only: search_history() finds
    the old ones. Arguments are checked first and nothing is written: Refused for a kind with no text ("no
    text"), match or limit (checked even when the question has no words), WrongType for a question that is not
    a str; timeout (keyword only, milliseconds, at most 5,000): past it, TooSlow.
    """
    kind = _text_kind(kind)
    asked = asked_words(question, match)
    limit, timeout = checked_limit(limit), checked_timeout(timeout)
    if asked is None:
        return []
    if match == "all":
        del asked["terms"]  # the query reads the words joined, not one by one
    query, params = _search_query(kind, match), {**asked, "limit": limit}
    reply = bounded(graph, query, params, timeout, reader=_reply)
    results = None if reply is None else rows_read(reply, lambda row: _found(kind, row))
    if results is not None:
        return results
    # A value only the client's parser reads (the reply its way), a stand-in for a graph, or parameters
    # the compact header cannot carry (the graph's own ro_query()).
    rows = decoded(graph, reply) if reply is not None else bounded(graph, query, params, timeout)
    return [
        {"key": found["key"], "score": score, "values": shown_values(kind, found.items())}
        for score, found in rows
    ]


# States of every kind share one index: those of other kinds are left out before the order and limit.
_HISTORY_QUERY = (
    "{scored}"
    f"WITH node AS state, score WHERE state.`{STATE_KIND}` = $label "
    f"WITH state, score ORDER BY score DESC, {key_order('state.key')}, state.valid_from LIMIT $limit "
    f"RETURN state.key AS found, score, {shown_names('state')}, state.valid_from AS began "
    f"ORDER BY score DESC, {key_order('found')}, began"
)


def search_history(
    graph, kind: Kind, question: str, limit: int = 10, match: str = "all", *, timeout: int = STOP_AFTER
) -> list[dict]:
    """The States of entities of a kind, past and current, whose text had the words of the question.

    Returns [{"key", "score", "state"}], state shaped as history() gives it: the values, valid_from,
    valid_to once closed, recorded_at, by, fp, seen_last if set, entry if it came from one. Ranked by
    score, then key, then valid_from. The same checks (before anything is asked), errors and timeout as
    search(); nothing is written.
    """
    kind = _text_kind(kind)
    asked = asked_words(question, match)
    limit, timeout = checked_limit(limit), checked_timeout(timeout)
    if asked is None:
        return []
    params = {**asked, "label": kind.label, "limit": limit, "hidden": list(HIDDEN)}
    query = _HISTORY_QUERY.replace("{scored}", scored("State", match))
    return [
        {"key": key, "score": score, "state": shown_values(kind, listed)}
        for key, score, listed, _began in bounded(graph, query, params, timeout)
    ]


# What a read gives of an entry: its stored fields, and its values (kept as JSON in content).
ENTRY_FIELDS = (
    "[{0}.id, {0}.seq, {0}.serial, {0}.type, {0}.at, {0}.recorded_at, {0}.by, {0}.content, "
    "{0}.invalidated_at, {0}.invalidated_by, {0}.invalidated_why]"
)


def entry_fields(node: str) -> str:
    """Cypher for the list entry_shown() reads."""
    return ENTRY_FIELDS.format(node)


def entry_shown(listed: list) -> dict:
    """An entry as search_entries(), nearest_entries() and an extractor get it: id, seq, serial, type,
    at, recorded_at, by (times as datetimes), the mark invalidated_at/_by/_why once it has one, and its
    values at the top level (record() keeps their names from those). No words, no cites."""
    entry_id, seq, serial, entry_type, at, recorded_at, by, content, marked_at, marked_by, why = listed
    shown = {"id": entry_id, "seq": seq, "serial": serial, "type": entry_type}
    shown |= {"at": clock.from_store(at), "recorded_at": clock.from_store(recorded_at), "by": by}
    if marked_at is not None:
        shown |= {"invalidated_at": clock.from_store(marked_at), "invalidated_by": marked_by}
        shown["invalidated_why"] = why
    for name, item in (json.loads(content) if content else {}).items():
        shown.setdefault(name, item)
    return shown


_ENTRIES_QUERY = (
    "{scored}"
    "WITH node AS found, score WHERE $types IS NULL OR found.type IN $types "
    "WITH found, score ORDER BY score DESC, found.id LIMIT $limit "
    f"RETURN {entry_fields('found')}, score"
)


def checked_types(types: object) -> list[str] | None:
    """None, or the entry types of a list or tuple of names, sorted and each once."""
    if types is None:
        return None
    if type(types) not in (list, tuple) or not types:
        raise Refused("types must be None or a list of entry types")
    if len(types) > MAX_TYPES:
        raise Refused(f"types names more than {MAX_TYPES} entry types")
    return sorted({values.name(one, "an entry type") for one in types})


def search_entries(
    graph,
    question: str,
    limit: int = 10,
    match: str = "all",
    *,
    types: object = None,
    timeout: int = STOP_AFTER,
) -> list[dict]:
    """The entries of episodes whose text values have the words of the question, best first.

    Returns [{"id", "score", "entry"}], the entry as entry_shown() gives it (it keeps serial; no cites,
    no words). Order: score descending, then id. The same checks (before anything is asked), errors and
    timeout as search(), but "no text"; nothing is written. types
    (keyword only): only entries of these types.
    """
    asked = asked_words(question, match)
    limit, timeout, wanted = checked_limit(limit), checked_timeout(timeout), checked_types(types)
    if asked is None:
        return []
    params = {**asked, "types": wanted, "limit": limit}
    query = _ENTRIES_QUERY.replace("{scored}", scored("Entry", match))
    return [
        {"id": listed[0], "score": score, "entry": entry_shown(listed)}
        for listed, score in bounded(graph, query, params, timeout)
    ]
