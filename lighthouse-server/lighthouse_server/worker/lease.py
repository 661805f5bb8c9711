"""Who this worker is, whether another is gone, and how long its hold on a tenant graph lasts
(lighthouse.hold_extraction()).

The owner name "<host>:<pid>:<random>" tells a worker of this host whose process ended (a kill -9):
gone() says so and the next start takes the graph over at once. A pid of this host that looks alive may
be a new process that reuses it, and an owner of another host is gone only after the lease, which
outlasts the longest ask of one note, so a live owner always looks again in time.
"""

from __future__ import annotations

import os
import secrets
import socket

from .model import backoff

LEASE = 300.0  # seconds without a look after which a worker is taken to be gone, at least
MOST_LEASE = 7 * 24 * 3600.0  # the longest the library takes
LEASE_MARGIN = 60.0  # seconds beyond the longest ask of a note: the writes of its rows, a slow database


def lease_for(settings) -> float:
    """The lease of a worker with these settings: LEASE, or longer than its longest ask of one note
    (every attempt timing out, with the backoff between them) and a margin."""
    asking = settings.model_timeout_s * settings.model_attempts
    waiting = sum(backoff(attempt) for attempt in range(1, settings.model_attempts))
    return min(max(LEASE, asking + waiting + LEASE_MARGIN), MOST_LEASE)


def gone(owner: str) -> bool:
    """The owner is a process of this host that ended."""
    host, _, rest = owner.partition(":")
    pid = rest.partition(":")[0]
    if host != socket.gethostname() or not pid.isdecimal() or len(pid) > 9:
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # alive, as another user: the lease tells
        pass
    return False


def me() -> str:
    """This worker's owner name: host, process and a random part (two loops of one process differ)."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
