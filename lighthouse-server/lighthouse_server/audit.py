"""Audit records of every administrative action: who, when, what, from which key.

Kept in the service's graph (keys.SERVICE_GRAPH), out of every tenant's reach; written here and
nowhere else, and no operation edits or deletes one.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time

from lighthouse import now

from .encoding import jsonable
from .keys import service_graph
from .reading import rows

ACTIONS = (
    "key_created",
    "key_revoked",
    "kind_declared",
    "session_forgotten",
    "user_forgotten",
    "restored",
    "moved",
)


def write(
    db, *, tenant: str, action: str, who: str, key_id: str | None, what: dict, once_for: str | None = None
) -> dict:
    """Stores one record and gives it back. once_for: the request of a call made again with its
    idempotency key (lighthouse.once()): the record of that request is written once, however often the
    call is made again, since its id is drawn from it (a record already there is left as it is)."""
    if action not in ACTIONS:
        raise ValueError(f"no audit action {action!r}")
    record = {
        "id": secrets.token_hex(8) if once_for is None else _drawn_id(once_for),
        "at": now(),
        "tenant": tenant,
        "action": action,
        "who": who,
        "key_id": key_id,
        "what": json.dumps(jsonable(what), ensure_ascii=False, sort_keys=True)[:20_000],
        "serial": time.time_ns(),  # the order of writing: `at` is in whole seconds
    }
    if once_for is None:
        service_graph(db).query(
            "CREATE (:AuditRecord {id: $id, at: $at, tenant: $tenant, action: $action, who: $who, "
            "key_id: $key_id, what: $what, serial: $serial})",
            record,
        )
    else:
        service_graph(db).query(
            "MERGE (a:AuditRecord {tenant: $tenant, id: $id}) ON CREATE SET a.at = $at, a.action = $action, "
            "a.who = $who, a.key_id = $key_id, a.what = $what, a.serial = $serial",
            record,
        )
    del record["serial"]
    return record


def _drawn_id(request: str) -> str:
    """An id of the same form as a drawn one, the same for every call of the request."""
    return hashlib.sha256(f"audit\x1f{request}".encode()).hexdigest()[:16]


def read(db, tenant: str, *, offset: int = 0, limit: int = 100) -> list[dict]:
    """A tenant's records, oldest first."""
    found = rows(
        service_graph(db),
        "MATCH (a:AuditRecord {tenant: $tenant}) RETURN a.id, a.at, a.action, a.who, a.key_id, a.what "
        "ORDER BY a.serial SKIP $offset LIMIT $limit",
        {"tenant": tenant, "offset": offset, "limit": limit},
    )
    records = []
    for key, at, action, who, key_id, what in found:
        try:
            detail = json.loads(what)
        except (TypeError, ValueError):
            detail = what
        records.append(
            {
                "id": key,
                "at": at,
                "tenant": tenant,
                "action": action,
                "who": who,
                "key_id": key_id,
                "what": detail,
            }
        )
    return records
