"""What the workers did and what waits, per tenant, read from the tenant's graph: the status.

Each phase has a state, and a phase whose setting is empty says "not configured", never "ok":
- extraction: "not configured" (no model_url here, and no worker of another process seen lately),
  "no kinds" (notes wait until the tenant declares kinds), "idle" (nothing waits), "working" (notes wait
  and a worker looked lately), "failing" (notes wait, a worker looks, and its last error is later than
  the last note it read, or it never read one), "stalled" (notes wait and no worker looked for a while).
  A note an agent invalidated does not wait: the worker skips it and counts it (notes_invalidated).
- embedding: what worker/embedding.py's embedding_status() says, "not configured" without an embedder.
"""

from __future__ import annotations

from datetime import UTC, datetime

from lighthouse import notes_waiting

from ..reading import rows
from . import embedding
from .progress import EXTRACTION, PHASE, STATUSES, WORKER, moment, notes_named

SEEN_LATELY = 30.0  # seconds: a worker that looked at the graph since is alive (it looks at least every 10 s)


def _age(value: object, present: datetime) -> float | None:
    return None if value is None else max((present - moment(value)).total_seconds(), 0.0)


def _failing(worker: dict) -> bool:
    """The worker's last error came after the last note it read (or it never read one). Times are whole
    seconds, so an error and a read of one second are ordered by the flag that both writes set."""
    if worker.get("last_error_at") is None:
        return False
    if worker.get("last_read_at") is None:
        return True
    erred, read = moment(worker["last_error_at"]), moment(worker["last_read_at"])
    return erred > read or (erred == read and bool(worker.get("erred_since_read")))


def extraction_status(graph, configured: bool, declared: bool) -> dict:
    """The extraction phase of one tenant graph: counts, the oldest waiting note's age, its state."""
    present = datetime.now(UTC)
    found = rows(
        graph,
        f"OPTIONAL MATCH (w:{WORKER} {{phase: $phase}}) RETURN properties(w)",
        {"phase": PHASE},
    )
    worker = (found[0][0] if found and found[0][0] is not None else None) or {}
    since = worker.get("mark") or 0
    past = notes_waiting(graph, since)
    waiting, oldest = past["count"], past["oldest"]
    # Begun and not finished behind the mark (given back by replay, answered when a worker died, waiting
    # for the model to be judged) wait too; those past the mark are counted above already.
    begun = rows(
        graph,
        f"MATCH (x:{EXTRACTION}) WHERE x.state IN ['replay', 'answered', 'waiting', 'set_aside'] "
        "RETURN x.note, x.state = 'set_aside'",
    )
    aside_ids = {note_id for note_id, is_aside in begun if is_aside}
    aside = 0
    for note in notes_named(graph, [note_id for note_id, _ in begun]):
        if "invalidated_at" in note:
            continue
        if note["id"] in aside_ids:
            aside += 1
        elif note["serial"] <= since:
            waiting += 1
            if oldest is None or note["recorded_at"] < oldest:
                oldest = note["recorded_at"]
    seen_age = _age(worker.get("seen_at"), present)
    alive = worker.get("owner") is not None and seen_age is not None and seen_age <= SEEN_LATELY
    if not configured and not alive:
        state = "not configured"
    elif not declared:
        state = "no kinds"
    elif waiting == 0:
        state = "idle"
    elif not alive:
        state = "stalled"
    else:
        state = "failing" if _failing(worker) else "working"
    return {
        "state": state,
        "model": worker.get("model"),
        "worker": worker.get("owner"),
        "notes_waiting": waiting,
        "oldest_waiting_s": None if oldest is None else int(_age(oldest, present)),
        "notes_read": worker.get("notes_read", 0),
        "rows": {status: worker[f"rows_{status}"] for status in STATUSES if worker.get(f"rows_{status}")},
        "items_refused": worker.get("items_refused", 0),
        "asks_failed": worker.get("asks_failed", 0),
        "notes_set_aside": aside,
        "notes_invalidated": worker.get("notes_invalidated", 0),
        "last_read_at": None if worker.get("last_read_at") is None else moment(worker["last_read_at"]),
        "last_error": worker.get("last_error"),
        "last_error_at": None if worker.get("last_error_at") is None else moment(worker["last_error_at"]),
        "last_seen_s": None if seen_age is None else int(seen_age),
    }


def tenant_status(service, tenant_id: str, graph) -> dict:
    """One tenant's status: {"tenant", "extraction", "embedding"}."""
    declarations, kinds = service.kinds.declared(tenant_id)
    return {
        "tenant": tenant_id,
        "extraction": extraction_status(graph, bool(service.settings.model_url), bool(declarations)),
        "embedding": embedding.embedding_status(graph, kinds, service.embedding),
    }
