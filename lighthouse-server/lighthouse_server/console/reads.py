"""The console's own reads of a tenant's graph: what no library call gives as a page needs it.

Counts per kind, a page of a kind's entities, an entity's relation edges with their windows, the entries
States came from, what cites an entity, lists of episodes and of users. Labels come only from declared
Kinds (plain names, checked by Kind), so they may be put into the query text.
"""

from __future__ import annotations

import json

from lighthouse.clock import from_store
from lighthouse.kinds import STATE_KIND, TRUST
from lighthouse.read import shown

from ..reading import rows

MOST_WINDOWS = 5_000  # relation edges one entity page reads
MOST_CITATIONS = 5_000
# Properties an entity node holds besides its values (the library's own have dotted names).
_NOT_VALUES = {"key", "words", "fp", "by", "recorded_at", "valid_from", "seen_last"}


def counts(graph, kinds: dict) -> dict[str, int]:
    """How many entities each kind holds."""
    found = {}
    for label in kinds:
        answer = rows(graph, f"MATCH (e:`{label}`:Entity) RETURN count(e)")
        found[label] = answer[0][0] if answer else 0
    return found


def waiting_embeddings(graph, kinds: dict) -> dict[str, int]:
    """Entities of each kind with dimensions that still wait for their vectors."""
    found = {}
    for label, kind in kinds.items():
        if kind.dimensions:
            answer = rows(graph, f"MATCH (e:`{label}ToEmbed`) RETURN count(e)")
            found[label] = answer[0][0] if answer else 0
    return found


def candidates_waiting(graph, kinds: dict) -> int:
    """How many States of the declared kinds still wait for a review (the range index on their trust)."""
    if not kinds:
        return 0
    answer = rows(
        graph,
        f"MATCH (s:State) WHERE s.`{TRUST}` = 'candidate' AND s.`{STATE_KIND}` IN $labels RETURN count(s)",
        {"labels": sorted(kinds)},
    )
    return answer[0][0] if answer else 0


def newest_states(graph, kind, key, most: int) -> tuple[list[dict], int]:
    """The newest States of an entity (at most `most`), oldest first and shaped as history() gives
    them, and how many it has in all: one query, so a long history costs the page only its window."""
    found = rows(
        graph,
        f"MATCH (e:`{kind.label}` {{key: $key}})-[:HAS_STATE]->(s:State) WITH e, count(s) AS total "
        "MATCH (e)-[:HAS_STATE]->(s:State) WITH total, s ORDER BY s.valid_from DESC LIMIT $most "
        "RETURN total, properties(s)",
        {"key": key, "most": most},
    )
    states = [shown(kind, props) for _total, props in reversed(found)]
    return states, found[0][0] if found else 0


def notes_kept(graph) -> int:
    answer = rows(graph, "MATCH (n:Entry {type: 'note'}) RETURN count(n)")
    return answer[0][0] if answer else 0


def failures_by_reason(graph) -> list[dict]:
    """[{"reason", "kept", "times", "last_at"}], the most recent reason first."""
    found = rows(
        graph,
        "MATCH (f:WriteFailure) RETURN f.reason, count(f), sum(f.times), max(f.last_at) "
        "ORDER BY max(f.last_at) DESC",
    )
    return [
        {"reason": reason, "kept": kept, "times": times, "last_at": from_store(last)}
        for reason, kept, times, last in found
    ]


def entities(graph, kind, offset: int, size: int) -> list[dict]:
    """One page of a kind's entities by key, one more than size when there are more: {"key", "since",
    "by", "values"}."""
    found = rows(
        graph,
        f"MATCH (e:`{kind.label}`:Entity) RETURN e.key, properties(e) ORDER BY e.key SKIP $skip LIMIT $n",
        {"skip": offset, "n": size + 1},
    )
    listed = []
    for key, props in found:
        values = {
            name: value
            for name, value in props.items()
            if "." not in name and name not in _NOT_VALUES and name != kind.key
        }
        listed.append(
            {
                "key": key,
                "since": from_store(props.get("valid_from")),
                "by": props.get("by"),
                "values": values,
            }
        )
    return listed


def key_exists(graph, kind, key) -> bool:
    return bool(rows(graph, f"MATCH (e:`{kind.label}`:Entity {{key: $key}}) RETURN 1 LIMIT 1", {"key": key}))


def windows(graph, kind, key) -> list[dict]:
    """Every edge of the kind's relations from the entity: {"relation", "target", "valid_from",
    "valid_to", "by", "recorded_at"}, by relation, target and time."""
    if not kind.relations:
        return []
    found = rows(
        graph,
        f"MATCH (e:`{kind.label}`:Entity {{key: $key}})-[r]->(x:Entity) WHERE type(r) IN $types "
        "RETURN type(r), x.key, r.valid_from, r.valid_to, r.by, r.recorded_at "
        "ORDER BY type(r), x.key, r.valid_from LIMIT $most",
        {"key": key, "types": sorted(kind.relations), "most": MOST_WINDOWS},
    )
    return [
        {
            "relation": relation,
            "target": target,
            "target_label": kind.target(relation).label,
            "valid_from": from_store(since),
            "valid_to": from_store(until),
            "by": by,
            "recorded_at": from_store(recorded),
        }
        for relation, target, since, until, by, recorded in found
    ]


def entry_text(values: dict) -> str:
    """The words of an entry: a note's text, else its text values one per line, else its values as JSON."""
    if isinstance(values.get("text"), str):
        return values["text"]
    texts = [f"{name}: {value}" for name, value in sorted(values.items()) if isinstance(value, str)]
    return "\n".join(texts) if texts else json.dumps(values, ensure_ascii=False, default=str)


def entries(graph, ids: list[str]) -> dict[str, dict]:
    """The entries of these ids (evidence of States): id -> {"id", "episode", "type", "by", "at",
    "text", "values", "invalidated_at", "invalidated_by", "invalidated_why"}."""
    if not ids:
        return {}
    found = rows(
        graph,
        "UNWIND $ids AS wanted MATCH (n:Entry {id: wanted}) RETURN n.id, n.episode, n.type, n.by, n.at, "
        "n.content, n.invalidated_at, n.invalidated_by, n.invalidated_why",
        {"ids": sorted(set(ids))},
    )
    shown = {}
    for entry_id, episode, kind, by, at, content, marked_at, marked_by, marked_why in found:
        try:
            values = json.loads(content) if content else {}
        except ValueError:
            values = {}
        shown[entry_id] = {
            "id": entry_id,
            "episode": episode,
            "type": kind,
            "by": by,
            "at": from_store(at),
            "values": values,
            "text": entry_text(values) if isinstance(values, dict) else str(values),
            "invalidated_at": from_store(marked_at),
            "invalidated_by": marked_by,
            "invalidated_why": marked_why,
        }
    return shown


def citations(graph, kind, key) -> list[dict]:
    """The entries that cite the entity: {"id", "episode", "type", "by", "as_of"}, oldest as_of first."""
    found = rows(
        graph,
        f"MATCH (e:`{kind.label}`:Entity {{key: $key}})<-[c:CITES]-(n:Entry) "
        "RETURN n.id, n.episode, n.type, n.by, c.as_of ORDER BY c.as_of, n.id LIMIT $most",
        {"key": key, "most": MOST_CITATIONS},
    )
    return [
        {"id": entry_id, "episode": episode, "type": kind_, "by": by, "as_of": from_store(as_of)}
        for entry_id, episode, kind_, by, as_of in found
    ]


def episodes(graph, offset: int, size: int) -> list[dict]:
    """A page of episodes, newest first, one more than size when there are more."""
    found = rows(
        graph,
        # The page first, then the count and end of each of its episodes (on the node, or on the tally a graph
        # written before kept them on).
        "MATCH (ep:Episode) WITH ep ORDER BY ep.opened_at DESC, ep.id SKIP $skip LIMIT $n "
        "OPTIONAL MATCH (ep)-[tally:LH_TALLY]->(ep) "
        "WITH ep, coalesce(max(tally.entries), ep.entry_count, 0) AS entry_count, "
        "  coalesce(max(tally.closed_at), ep.closed_at) AS closed_at "  # the end too, as episode() reads it
        "RETURN ep.id, ep.by, ep.opened_at, entry_count, closed_at ORDER BY ep.opened_at DESC, ep.id",
        {"skip": offset, "n": size + 1},
    )
    names = ("id", "by", "opened_at", "entry_count", "closed_at")
    return [
        {
            name: from_store(value) if name.endswith("_at") else value
            for name, value in zip(names, row, strict=True)
        }
        for row in found
    ]


def users(graph, offset: int, size: int) -> list[dict]:
    """A page of the users who have sessions, by user: {"user", "sessions", "active_at"}."""
    found = rows(
        graph,
        "MATCH (s:Session) OPTIONAL MATCH (s)-[tally:LH_TALLY]->(s) "
        "WITH s, max(tally.active_at) AS tallied_at "
        "WITH s.user AS user, count(s) AS sessions, max(coalesce(tallied_at, s.active_at)) AS active "
        "RETURN user, sessions, active ORDER BY user SKIP $skip LIMIT $n",
        {"skip": offset, "n": size + 1},
    )
    return [
        {"user": user, "sessions": count, "active_at": from_store(active)} for user, count, active in found
    ]
