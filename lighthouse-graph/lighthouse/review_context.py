"""review_context(): what a person needs beside a candidate to decide on it: the State it would replace,
the difference between the two (values and relations), and the earlier rejections it repeats.

The State it would replace is the one that counts just before the candidate begins (read.as_of(...,
rejected=False)); None for a candidate that creates its entity. Its relations are those valid at its
start. A repeat is a rejected State of the
same entity that held a value the candidate adds or changes to the same value: it is given with its
review (who, when, why). Arguments are checked first (Refused or WrongType); nothing is written;
database errors pass as ResponseError.
"""

from __future__ import annotations

from datetime import timedelta
from functools import lru_cache

from . import clock
from .graphs import read
from .kinds import TRUST, Kind
from .read import as_of, checked_entity, shown
from .versions import differences, relation_windows, relations_at, values_of, version_began

MOST_REJECTED = 1_000  # rejected States of one entity compared with a candidate


@lru_cache(maxsize=256)
def _rejected_query(kind: Kind) -> str:
    return (
        f"MATCH (:`{kind.label}` {{key: $key}})-[:HAS_STATE]->(s) WHERE s.`{TRUST}` = 'rejected' "
        "RETURN properties(s) ORDER BY s.valid_from DESC LIMIT $most"
    )


def review_context(graph, kind, key, valid_from) -> dict:
    """{"state": the State that began at valid_from, "replaces": the State before it or None, "changes":
    {"values": {"added", "changed", "removed"}, "relations": {"added", "removed"}} (as versions.py
    shapes them), "repeats": [{"state": a rejected State, "names": the names whose value it repeats}]}.
    Refused when no State of the entity began at valid_from."""
    key = checked_entity(kind, key)
    state = version_began(graph, kind, key, valid_from, "valid_from")
    start = state["valid_from"]
    just_before = start - timedelta(seconds=1)
    replaces = as_of(graph, kind, key, just_before, rejected=False) if start > clock.EARLIEST else None
    windows = relation_windows(graph, kind, key)
    # Edges begin and end only where States begin: those valid at the replaced State's start are its own
    # (a rejected State between the two may have ended them since).
    linked_before = relations_at(windows, replaces["valid_from"]) if replaces else set()
    changes = differences(replaces, state, linked_before, relations_at(windows, start))
    claimed = {
        **changes["values"]["added"],
        **{name: pair[1] for name, pair in changes["values"]["changed"].items()},
    }
    repeats = []
    for (props,) in read(graph, _rejected_query(kind), {"key": key, "most": MOST_REJECTED}):
        rejected = shown(kind, props)
        if rejected["valid_from"] == state["valid_from"]:
            continue
        held = values_of(rejected)
        names = sorted(name for name, value in claimed.items() if name in held and held[name] == value)
        if names:
            repeats.append({"state": rejected, "names": names})
    return {
        "state": state,
        "replaces": replaces,
        "changes": {k: changes[k] for k in ("values", "relations")},
        "repeats": repeats,
    }
