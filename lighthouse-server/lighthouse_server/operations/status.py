"""Operations of the workers: the tenant's status, its set-aside notes, and the replay of one."""

from __future__ import annotations

from ..problems import Problem
from ..worker.extraction import replay, set_aside
from ..worker.status import tenant_status
from .table import Operation, Param

SET_ASIDE_MOST = 1_000


def _status(call, arguments: dict) -> dict:
    return tenant_status(call.parts, call.principal.tenant, call.graph)


def _replay(call, arguments: dict) -> dict:
    return replay(call.graph, arguments["note"])


def _set_aside(call, arguments: dict) -> list:
    limit = arguments.get("limit", 100)
    if not 1 <= limit <= SET_ASIDE_MOST:
        raise Problem("invalid_argument", f"limit must be a whole number from 1 to {SET_ASIDE_MOST}")
    return set_aside(call.graph, limit)


OPERATIONS = [
    Operation(
        "status",
        None,
        "read",
        (),
        '{"tenant", "extraction": {"state", "model", "worker", "notes_waiting", "oldest_waiting_s", "notes_read", '
        '"rows": {status: count}, "items_refused", "asks_failed", "notes_set_aside", "notes_invalidated", '
        '"last_read_at", "last_error", "last_error_at", "last_seen_s"}, "embedding": {"state", "waiting", '
        '"embedded", "model", "last_error", "last_error_at", "last_embedded_at"}}; a state is "not configured", '
        '"no kinds", "idle", "working", "failing" or "stalled" (extraction), "not configured", "ok" or '
        '"failing" (embedding)',
        "What the workers did for this tenant and what waits: notes waiting and the oldest one's age, notes "
        "read, rows written by receipt status, items of the model refused, notes set aside, the last error. "
        'A phase whose setting is empty says "not configured".',
        answer=_status,
    ),
    Operation(
        "replay",
        None,
        "write",
        (Param("note", "text", "the id of a set-aside note, as set_aside lists it", required=True),),
        '{"note", "status": "replayed" | "unknown" | "not_set_aside"}',
        "Give a note that was set aside (the model failed on it every time) back to the extraction worker, "
        "which reads it again before newer notes.",
        example={"note": "notes:agent/1"},
        writes=True,
        answer=_replay,
    ),
    Operation(
        "set_aside",
        None,
        "read",
        (Param("limit", "int", f"how many to give, 1 to {SET_ASIDE_MOST} (default 100)"),),
        '[{"note", "text", "at", "error", "error_at", "asks"}] oldest first',
        "The notes the extraction worker set aside after the model failed on them every time, with the "
        "last error; replay gives one back.",
        answer=_set_aside,
    ),
]
