"""Which worker reads a tenant's notes: one at a time, so no note is asked of the model twice.

The `lh.Worker` node of the tenant graph names its owner ("<host>:<pid>:<random>") and when it last
looked (seen_at). A worker takes the graph when no one holds it, when it holds it already, when the
owner is a process of this host that is gone (a kill -9: the next start takes over at once), or when
the owner has not looked for the lease (of any host: a pid of this host that looks alive may be a new
process that reuses it). The lease outlasts the longest ask of one note (lease_for()), so a live owner
always looks again in time; the take is a compare-and-set on the owner, so two workers that look at
once do not both win, and every write of the owner is guarded by it (extraction.py), so a worker that
lost the graph anyway writes nothing more. The status reads seen_at as "a worker is alive".
"""

from __future__ import annotations

import os
import secrets
import socket
from datetime import UTC, datetime

from lighthouse import now

from ..reading import rows
from .model import backoff
from .progress import PHASE, WORKER, moment

LEASE = 300.0  # seconds without a look after which a worker is taken to be gone, at least
LEASE_MARGIN = 60.0  # seconds beyond the longest ask of a note: the writes of its rows, a slow database


def lease_for(settings) -> float:
    """The lease of a worker with these settings: LEASE, or longer than its longest ask of one note
    (every attempt timing out, with the backoff between them) and a margin."""
    asking = settings.model_timeout_s * settings.model_attempts
    waiting = sum(backoff(attempt) for attempt in range(1, settings.model_attempts))
    return max(LEASE, asking + waiting + LEASE_MARGIN)


def me() -> str:
    """This worker's owner name: host, process and a random part (two loops of one process differ)."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"


def _gone(owner: str, present: datetime, seen_at: object, lease: float) -> bool:
    host, _, rest = owner.partition(":")
    pid = rest.partition(":")[0]
    if host == socket.gethostname() and pid.isdecimal():
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            return True
        except PermissionError:  # alive, as another user: the lease tells
            pass
    return seen_at is None or (present - moment(seen_at)).total_seconds() > lease


def claim(graph, owner: str, model_name: str, lease: float = LEASE) -> str | None:
    """Takes (or keeps) the tenant graph for this worker and says it looked now: None when it holds
    the graph, else the owner that does. lease: seconds without a look after which an owner is gone."""
    found = rows(graph, f"MATCH (w:{WORKER} {{phase: $phase}}) RETURN w.owner, w.seen_at", {"phase": PHASE})
    held, seen_at = found[0] if found else (None, None)
    if held not in (None, owner) and not _gone(held, datetime.now(UTC), seen_at, lease):
        return held
    taken = graph.query(
        f"MERGE (w:{WORKER} {{phase: $phase}}) WITH w WHERE coalesce(w.owner, '') = $held "
        "SET w.owner = $owner, w.seen_at = localdatetime($now), w.model = $model RETURN w.owner",
        {"phase": PHASE, "held": held or "", "owner": owner, "now": now(), "model": model_name},
    ).result_set
    if taken:
        return None
    again = rows(graph, f"MATCH (w:{WORKER} {{phase: $phase}}) RETURN w.owner", {"phase": PHASE})
    return again[0][0] if again else "another worker"


def release(graph, owner: str) -> None:
    """Gives the graph up (a clean stop): the next worker, of any host, takes it at once."""
    graph.query(
        f"MATCH (w:{WORKER} {{phase: $phase}}) WHERE w.owner = $owner SET w.owner = null",
        {"phase": PHASE, "owner": owner},
    )
