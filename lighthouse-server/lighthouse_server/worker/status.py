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

from lighthouse import extraction_progress

from ..parts import Parts
from . import embedding

SEEN_LATELY = 30.0  # seconds: a worker that looked at the graph since is alive (it looks at least every 10 s)


def _age(moment: datetime | None, present: datetime) -> float | None:
    return None if moment is None else max((present - moment).total_seconds(), 0.0)


def extraction_status(graph, configured: bool, declared: bool) -> dict:
    """The extraction phase of one tenant graph (lighthouse.extraction_progress()): counts, the oldest
    waiting note's age, its state."""
    present = datetime.now(UTC)
    job = extraction_progress(graph)
    waiting, oldest = job["notes_waiting"], job["oldest_waiting"]
    seen_age = _age(job["seen_at"], present)
    alive = job["owner"] is not None and seen_age is not None and seen_age <= SEEN_LATELY
    if not configured and not alive:
        state = "not configured"
    elif not declared:
        state = "no kinds"
    elif waiting == 0:
        state = "idle"
    elif not alive:
        state = "stalled"
    else:
        state = "failing" if job["erring"] else "working"
    return {
        "state": state,
        "model": job["model"],
        "worker": job["owner"],
        "notes_waiting": waiting,
        "oldest_waiting_s": None if oldest is None else int(_age(oldest, present)),
        "notes_read": job["notes_read"],
        "rows": job["rows"],
        "items_refused": job["items_refused"],
        "asks_failed": job["asks_failed"],
        "notes_set_aside": job["notes_set_aside"],
        "notes_invalidated": job["notes_invalidated"],
        "last_read_at": job["last_read_at"],
        "last_error": job["last_error"],
        "last_error_at": job["last_error_at"],
        "last_seen_s": None if seen_age is None else int(seen_age),
    }


def tenant_status(parts: Parts, tenant_id: str, graph) -> dict:
    """One tenant's status, from the process's parts: {"tenant", "extraction", "embedding"}."""
    declarations, kinds = parts.kinds.declared(tenant_id)
    return {
        "tenant": tenant_id,
        "extraction": extraction_status(graph, bool(parts.settings.model_url), bool(declarations)),
        "embedding": embedding.embedding_status(graph, kinds, parts.embedder),
    }
