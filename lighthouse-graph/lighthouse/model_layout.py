"""The move ensure_schema() makes, once a graph, of records an earlier version kept under other names than
the design gives them:

- a WriteFailure with `fingerprint`, `content`, `message`, `by`, `first_at` (and extract_again()'s `cleared`,
  `given_back_at`): its content becomes `detail`, the rest moves under `lh.` names, which no value can take;
- a Playbook drawn from its episodes by `DRAWN_FROM` edges, its trigger and steps only as JSON on the
  version: `SUPPORTED_BY` edges, and a Trigger and ordered Steps of its own (playbooks.parts_made()).

Each step is one query that writes only what is still in the old form, so a move cut short goes on at the
next call; the Stamp's mark (MOVED) then spares later calls the scans. Writers should be stopped, as for
any change ensure_schema() makes.
"""

from __future__ import annotations

import json

from .graphs import read
from .playbooks import RESTS_ON, STEPS, TRIGGER, parts_made
from .tally_layout import COUNTS_ON_NODES
from .write.failures import FINGERPRINT, FIRST_AT, MESSAGE, WRITER

MOVED = "lh.named_as_designed"  # the Stamp's mark: every record of the graph is in the design's form
BATCH = 1_000  # playbooks given their parts in one query

# The old name of each property a WriteFailure keeps, and the new one.
_FAILURE_NAMES = (
    ("fingerprint", FINGERPRINT),
    ("content", "detail"),
    ("message", MESSAGE),
    ("by", WRITER),
    ("first_at", FIRST_AT),
    ("cleared", "lh.cleared"),
    ("given_back_at", "lh.given_back_at"),
)
_MOVE_FAILURES = (
    "MATCH (f:WriteFailure) WHERE f.fingerprint IS NOT NULL "
    "SET " + ", ".join(f"f.`{new}` = f.`{old}`" for old, new in _FAILURE_NAMES) + " "
    "SET " + ", ".join(f"f.`{old}` = null" for old, _new in _FAILURE_NAMES) + " "
    "RETURN count(f)"
)
_MOVE_DRAWN = (
    "MATCH (p:Playbook)-[old:DRAWN_FROM]->(ep:Episode) "
    f"CREATE (p)-[:{RESTS_ON}]->(ep) DELETE old RETURN count(old)"
)
_WITHOUT_PARTS = (
    "MATCH (p:Playbook) WHERE NOT (p)-[:HAS]->(:Trigger) "
    f"RETURN p.id, p.`{TRIGGER}`, p.`{STEPS}` LIMIT {BATCH}"
)


def _give_parts(graph) -> int:
    """A Trigger and Steps for each version that has none, from its JSON: how many were given them."""
    given = 0
    while True:
        waiting = graph.query(_WITHOUT_PARTS).result_set
        for playbook_id, trigger, steps in waiting:
            params: dict = {"id": playbook_id}
            made = parts_made(json.loads(trigger), json.loads(steps), params)
            graph.query("MATCH (made:Playbook {id: $id}) " + made, params)
        given += len(waiting)
        if len(waiting) < BATCH:
            return given


def move_records(graph) -> int:
    """WriteFailures and playbooks moved into the design's form, once a graph (the Stamp's mark): how many
    were moved. The graph has its Stamp."""
    if graph.query(f"MATCH (st:Stamp) RETURN st.`{MOVED}` = true").result_set[0][0]:
        return 0
    moved = graph.query(_MOVE_FAILURES).result_set[0][0]
    moved += graph.query(_MOVE_DRAWN).result_set[0][0]
    moved += _give_parts(graph)
    graph.query(f"MATCH (st:Stamp) SET st.`{MOVED}` = true")
    return moved


def moved_yet(graph) -> bool:
    """Whether ensure_schema() has brought the graph's counters and records into the design's form (True
    for a graph not made yet: nothing to move). One read, nothing written. For an application that must
    know whether to run ensure_schema() after an upgrade, as the service does."""
    found = read(graph, f"MATCH (st:Stamp) RETURN st.`{COUNTS_ON_NODES}` = true AND st.`{MOVED}` = true")
    return not found or found[0][0] is True


def upgrade_waiting(graph, kinds=()) -> bool:
    """Whether ensure_schema() has yet to bring into this version's form what an earlier version wrote in
    the graph: vectors on the entities of these kinds (vector_layout.py), counters on tallies or records
    under other names (above). Three reads at most, nothing written; False for a graph not made yet. For
    an application that must know whether to run ensure_schema() after an upgrade, as the service does.
    kinds that are not a list or tuple of Kind raise WrongType."""
    from .graphs import every_kind  # the Kinds given and those they point at, checked
    from .vector_layout import waiting_to_move

    listed = list(every_kind(kinds).values())
    return bool(waiting_to_move(graph, listed)) or not moved_yet(graph)
