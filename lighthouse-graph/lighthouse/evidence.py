"""The entries behind what an entity holds: entries read by id (the evidence States name), and the
entries that cite an entity, with the time each cited it as of.

Arguments are checked first (Refused or WrongType); nothing is written; database errors pass as
ResponseError.
"""

from __future__ import annotations

import json
from functools import lru_cache

from . import clock, values
from .graphs import read
from .kinds import Kind
from .read import checked_entity

MOST_IDS = 10_000  # entries one read names
MOST_CITATIONS = 5_000

_ENTRIES_QUERY = (
    "UNWIND $ids AS wanted MATCH (n:Entry {id: wanted}) RETURN n.id, n.episode, n.type, n.by, n.at, "
    "n.recorded_at, n.content, n.invalidated_at, n.invalidated_by, n.invalidated_why"
)


def _content(stored: object) -> object:
    try:
        return json.loads(stored) if stored else {}
    except (TypeError, ValueError):
        return {}


def entries_by_id(graph, ids) -> dict[str, dict]:
    """The entries of these ids that exist: id -> {"id", "episode", "type", "by", "at", "recorded_at",
    "values", "invalidated_at", "invalidated_by", "invalidated_why"} (the last three None unless
    invalidated). ids: a list of at most 10,000 names."""
    if type(ids) not in (list, tuple):
        raise values.WrongType(f"ids is a list of entry ids, not {values.sort_of(ids)}")
    if len(ids) > MOST_IDS:
        raise values.Refused(f"at most {MOST_IDS:,} ids")
    wanted = sorted({values.name(one, "an entry id") for one in ids})
    if not wanted:
        return {}
    found = read(graph, _ENTRIES_QUERY, {"ids": wanted})
    names = ("id", "episode", "type", "by", "at", "recorded_at", "values")
    names += ("invalidated_at", "invalidated_by", "invalidated_why")
    given = {}
    for row in found:
        entry = dict(zip(names, row, strict=True))
        for name in ("at", "recorded_at", "invalidated_at"):
            entry[name] = clock.from_store(entry[name])
        entry["values"] = _content(entry["values"])
        given[entry["id"]] = entry
    return given


@lru_cache(maxsize=256)
def _cited_query(kind: Kind) -> str:
    return (
        f"MATCH (e:`{kind.label}`:Entity {{key: $key}})<-[c:CITES]-(n:Entry) "
        "RETURN n.id, n.episode, n.type, n.by, c.as_of ORDER BY c.as_of, n.id LIMIT $most"
    )


def cited_by(graph, kind, key, limit=MOST_CITATIONS) -> list[dict]:
    """The entries that cite the entity, oldest as_of first: [{"id", "episode", "type", "by", "as_of"}]
    (as_of None where the citation named no time). limit 1 to 5,000."""
    key = checked_entity(kind, key)
    limit = values.whole(limit, "limit", 1, MOST_CITATIONS)
    found = read(graph, _cited_query(kind), {"key": key, "most": limit})
    return [
        {"id": ident, "episode": episode, "type": sort, "by": by, "as_of": clock.from_store(as_of)}
        for ident, episode, sort, by, as_of in found
    ]
