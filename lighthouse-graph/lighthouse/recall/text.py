"""search(), search_history(), search_entries(): what is in memory, found by the words of its text.

Every node that can be searched keeps `words`: the letters and digits of its text, case folded, one
space between them (values.words() on the write path). The full-text index reads only that, and a
question reaches it only as such words too, so nothing of the index's query language (*, -, |, @field:,
quotes) can come from a caller. In that language a space means every word must match and | means any
may. Each search is one round trip, stopped by FalkorDB after 5 seconds at most.
"""

from __future__ import annotations

import json
from functools import lru_cache

from redis.exceptions import ResponseError

from .. import clock, values
from ..graphs import read
from ..kinds import Kind
from ..read import shown
from ..values import Refused

STOP_AFTER = 5_000  # milliseconds a search may run before FalkorDB stops it
MAX_RESULTS = 1_000
MAX_TYPES = 200  # entry types one search_entries() may name
MATCHES = {"all": " ", "any": "|"}  # how the index's query language joins words for each way to match

# What a search shows of a node besides its values: the index's input and the vector stay in the graph.
HIDDEN = ["words", "embedding", "model", "text_hash", "rev"]


def key_order(key: str) -> str:
    """ORDER BY terms that put keys in the order Python sorts them here: whole numbers, then names.

    FalkorDB alone puts names before numbers. toString() of a name is the name itself.
    """
    return f"CASE WHEN toString({key}) = {key} THEN 1 ELSE 0 END, {key}"


class TooSlow(RuntimeError):
    """A search that FalkorDB stopped because it ran longer than its time allows."""


def checked_limit(limit: object) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_RESULTS:
        raise Refused(f"limit is a whole number from 1 to {MAX_RESULTS:,}")
    return limit


def checked_timeout(timeout: object) -> int:
    if isinstance(timeout, bool) or not isinstance(timeout, int) or not 1 <= timeout <= STOP_AFTER:
        raise Refused(f"timeout is a whole number of milliseconds from 1 to {STOP_AFTER:,}")
    return timeout


def bounded(graph, query: str, params: dict, timeout: int = STOP_AFTER) -> list[list]:
    """The rows of a read that FalkorDB stops after timeout milliseconds; TooSlow when it did."""
    try:
        return read(graph, query, params, timeout=timeout)
    except ResponseError as error:
        if "timed out" in str(error).lower():
            raise TooSlow(f"the search ran longer than {timeout:,} ms and was stopped") from None
        raise


def index_query(question: object, match: object = "all") -> str | None:
    """The text sent to the full-text index: the question's words joined so that all or any must match.

    None when the question has no letters or digits: there is nothing to ask.
    """
    if not isinstance(match, str) or match not in MATCHES:
        raise Refused('match is "all" or "any"')
    found = values.question(question)
    return MATCHES[match].join(found) if found else None


def asked_words(question: object, match: object = "all") -> dict | None:
    """The parameters of a search: the question for the index, and each of its words once."""
    asked = index_query(question, match)
    if asked is None:
        return None
    return {"query": asked, "terms": list(dict.fromkeys(values.question(question)))}


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
    if not isinstance(kind, Kind):
        raise Refused(f"kind must be a Kind, not {type(kind).__name__}")
    if not kind.text:
        raise Refused(f"{kind.label} has no text values to search")
    return kind


def shown_entity(kind: Kind, key: object, score: float, listed: list, entry: object) -> dict:
    """A found node as the reads show a State, with its key and score first (they win over a value's name)."""
    found = {"key": key, "score": score}
    for name, item in shown(kind, dict(listed), entry).items():
        found.setdefault(name, item)
    return found


def current_hidden(kind: Kind) -> list[str]:
    """What a search of entity nodes leaves out of the values: HIDDEN, and the kind's own key name."""
    return [*HIDDEN, *([kind.key] if kind.key != "key" else [])]


def shown_current(kind: Kind, key: object, score: float, listed: list) -> dict:
    """A found entity node as shown_entity() gives it, less entry and valid_to: it is the current State."""
    found = shown_entity(kind, key, score, listed, None)
    del found["entry"], found["valid_to"]
    return found


@lru_cache(maxsize=256)
def _search_query(kind: Kind, match: str) -> str:
    return (
        f"{scored(kind.label, match)}"
        f"WITH node AS found, score ORDER BY score DESC, {key_order('found.key')} LIMIT $limit "
        "RETURN found.key, score, [name IN keys(found) WHERE NOT name IN $hidden | [name, found[name]]]"
    )


def search(
    graph, kind: Kind, question: object, match: str = "all", limit: int = 10, *, timeout: int = STOP_AFTER
) -> list[dict]:
    """The entities of a kind whose current text has the words of the question, best first.

    match="all": every word must be there; "any": one is enough. Each result: key, score (the index's;
    ties in key order), the current values, valid_from, seen_last, by, recorded_at. A value that changed
    is found by its new words only: search_history() finds the old ones. At most 1,000 characters and 20
    words of the question are read. timeout: milliseconds, at most 5,000; past it, TooSlow.
    """
    kind = _text_kind(kind)
    asked = asked_words(question, match)
    limit, timeout = checked_limit(limit), checked_timeout(timeout)
    if asked is None:
        return []
    params = {**asked, "limit": limit, "hidden": current_hidden(kind)}
    rows = bounded(graph, _search_query(kind, match), params, timeout)
    return [shown_current(kind, key, score, listed) for key, score, listed in rows]


# States of every kind share one index: those of other kinds are left out before the order and limit.
_HISTORY_QUERY = (
    "{scored}"
    "WITH node AS state, score WHERE state.kind = $label "
    f"WITH state, score ORDER BY score DESC, {key_order('state.key')}, state.valid_from LIMIT $limit "
    # A State keeps the id of its entry (beside its FROM edge): no step to the Entry node.
    "RETURN state.key AS found, score, "
    "  [name IN keys(state) WHERE NOT name IN $hidden | [name, state[name]]], state.entry, "
    "  state.valid_from AS began "
    f"ORDER BY score DESC, {key_order('found')}, began"
)


def search_history(
    graph, kind: Kind, question: object, match: str = "all", limit: int = 10, *, timeout: int = STOP_AFTER
) -> list[dict]:
    """The States of entities of a kind, past and current, whose text had the words of the question.

    Each result: key, score, valid_from, valid_to (None for a State that still holds), seen_last, by,
    recorded_at, entry (the entry it came from, or None) and the values it held. Ranked by score, then
    key, then valid_from. Same question rules and timeout as search().
    """
    kind = _text_kind(kind)
    asked = asked_words(question, match)
    limit, timeout = checked_limit(limit), checked_timeout(timeout)
    if asked is None:
        return []
    params = {**asked, "label": kind.label, "limit": limit, "hidden": HIDDEN}
    rows = bounded(graph, _HISTORY_QUERY.replace("{scored}", scored("State", match)), params, timeout)
    return [shown_entity(kind, key, score, listed, entry) for key, score, listed, entry, _began in rows]


_ENTRIES_QUERY = (
    "{scored}"
    "WITH node AS found, score WHERE $types IS NULL OR found.type IN $types "
    "WITH found, score ORDER BY score DESC, found.serial, found.id LIMIT $limit "
    "RETURN found.id, found.episode, found.seq, found.type, found.by, found.at, found.content, score"
)


def checked_types(types: object) -> list[str] | None:
    if types is None:
        return None
    if not isinstance(types, list | tuple) or not types:
        raise Refused("types is None or a list of entry types")
    if len(types) > MAX_TYPES:
        raise Refused(f"types names more than {MAX_TYPES} entry types")
    return sorted({values.name(one, "an entry type") for one in types})


def search_entries(
    graph,
    question: object,
    match: str = "all",
    limit: int = 10,
    types: object = None,
    *,
    timeout: int = STOP_AFTER,
) -> list[dict]:
    """The entries of episodes whose text values have the words of the question, best first.

    Each result: id, episode, seq, type, by, at, values, score. Ties go to the entry stored first.
    types: only entries of these types. Same question rules and timeout as search().
    """
    asked = asked_words(question, match)
    limit, timeout, wanted = checked_limit(limit), checked_timeout(timeout), checked_types(types)
    if asked is None:
        return []
    params = {**asked, "types": wanted, "limit": limit}
    found = []
    for entry_id, episode, seq, entry_type, by, at, content, score in bounded(
        graph, _ENTRIES_QUERY.replace("{scored}", scored("Entry", match)), params, timeout
    ):
        found.append(
            {
                "id": entry_id,
                "episode": episode,
                "seq": seq,
                "type": entry_type,
                "by": by,
                "at": clock.from_store(at),
                "values": json.loads(content) if content else {},
                "score": score,
            }
        )
    return found
