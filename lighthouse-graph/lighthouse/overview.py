"""overview(): what a tenant's graph holds, counted, for a person looking at it as a whole.

Entities of each kind, those still waiting for the vectors of their text, the notes kept, the
candidates waiting for a review, and the refused writes by reason. Every count is a whole number (a
sum FalkorDB gives as a float is given back whole). Arguments are checked first: kinds not a list of
Kind is WrongType, more than 200 kinds Refused. Nothing is written; database errors pass as
ResponseError.
"""

from __future__ import annotations

from . import clock
from .algorithms.scope import checked_kinds
from .graphs import read
from .kinds import STATE_KIND, TRUST
from .notes import NOTE

MOST_REASONS = 200  # reasons of refused writes listed, the most recent first


def _count(graph, query: str, params: dict | None = None) -> int:
    found = read(graph, query, params)
    return int(found[0][0]) if found and found[0][0] is not None else 0


def overview(graph, kinds) -> dict:
    """{"entities": {label: n}, "embeddings_waiting": {label: n} (kinds with dimensions only),
    "notes": n, "candidates_waiting": n (States of these kinds marked candidate), "failures_by_reason":
    [{"reason", "kept", "times", "last_at"}] (the most recent reason first, at most 200)}."""
    chosen = checked_kinds(kinds, empty=True)
    entities = {
        kind.label: _count(graph, f"MATCH (e:`{kind.label}`:Entity) RETURN count(e)") for kind in chosen
    }
    waiting = {
        kind.label: _count(graph, f"MATCH (e:`{kind.embed_label}`) RETURN count(e)")
        for kind in chosen
        if kind.dimensions
    }
    candidates = 0
    if chosen:
        candidates = _count(
            graph,
            f"MATCH (s:State) WHERE s.`{TRUST}` = 'candidate' AND s.`{STATE_KIND}` IN $labels RETURN count(s)",
            {"labels": sorted(entities)},
        )
    reasons = read(
        graph,
        "MATCH (f:WriteFailure) RETURN f.reason, count(f), sum(f.times), max(f.last_at) "
        "ORDER BY max(f.last_at) DESC LIMIT $most",
        {"most": MOST_REASONS},
    )
    return {
        "entities": entities,
        "embeddings_waiting": waiting,
        "notes": _count(graph, "MATCH (n:Entry {type: $note}) RETURN count(n)", {"note": NOTE}),
        "candidates_waiting": candidates,
        "failures_by_reason": [
            {"reason": reason, "kept": int(kept), "times": int(times or 0), "last_at": clock.from_store(last)}
            for reason, kept, times, last in reasons
        ],
    }
