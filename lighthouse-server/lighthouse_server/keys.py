"""API keys: random, shown once, kept only as a sha256 hash in the service's own graph.

Each key is bound to one tenant, one agent name and a set of scopes. The key's agent is the `by` of
every write made with it. The service graph's name is one no tenant() or world() can give.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
from dataclasses import dataclass

from lighthouse import ensure_indexes, now, tenant

from .problems import InvalidArgument
from .reading import rows

SERVICE_GRAPH = "lighthouse:service"  # tenant() names "tenant:<id>", world() "world": never this
SCOPES = ("read", "write", "review", "admin")
PREFIX = "lh_"
REMEMBERED_FOR = 2.0  # seconds a checked key is trusted without asking the database again


class KeyRefused(InvalidArgument, ValueError):
    """A key request that cannot be done as asked: the message says why."""


@dataclass(frozen=True)
class Principal:
    """Who a request acts as: the key's id, tenant, agent and scopes."""

    key_id: str
    tenant: str
    agent: str
    scopes: frozenset[str]


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def service_graph(db):
    return db.select_graph(SERVICE_GRAPH)


def _checked(db, tenant_id: object, agent: object, scopes: object) -> list[str]:
    tenant(db, tenant_id)  # the one check of a tenant id: the library's
    if (
        type(agent) is not str
        or not 1 <= len(agent) <= 200
        or agent != agent.strip()
        or not agent.isprintable()
    ):
        raise KeyRefused("the agent must be a name: 1 to 200 printable characters, no space at either end")
    if not isinstance(scopes, list | tuple) or not scopes:
        raise KeyRefused(f"scopes must be a non-empty list of {', '.join(SCOPES)}")
    unknown = [scope for scope in scopes if scope not in SCOPES]
    if unknown:
        raise KeyRefused(f"no scope {unknown[0]!r}: the scopes are {', '.join(SCOPES)}")
    return sorted(set(scopes), key=SCOPES.index)


ID_ATTEMPTS = 5


def create(db, tenant_id: str, agent: str, scopes: list[str]) -> dict:
    """A new key: {"id", "key", "tenant", "agent", "scopes", "created_at"}. The key itself is only here."""
    chosen = _checked(db, tenant_id, agent, scopes)
    created = now()
    for _attempt in range(ID_ATTEMPTS):
        key_id = secrets.token_hex(6)
        secret = f"{PREFIX}{key_id}_{secrets.token_urlsafe(24)}"  # 192 random bits
        # The id is the one a revoke and the audit name: made only when no key holds it yet (write
        # queries run one at a time, so the check and the create cannot be split by another writer).
        # count(), not "WITH taken WHERE taken IS NULL": FalkorDB 4.22.1 let that row through.
        made = (
            service_graph(db)
            .query(
                "OPTIONAL MATCH (taken:ApiKey {id: $id}) WITH count(taken) AS holders WHERE holders = 0 "
                "CREATE (:ApiKey {id: $id, hash: $hash, tenant: $tenant, agent: $agent, scopes: $scopes, "
                "created_at: $at}) RETURN 1",
                {
                    "id": key_id,
                    "hash": digest(secret),
                    "tenant": tenant_id,
                    "agent": agent,
                    "scopes": chosen,
                    "at": created,
                },
            )
            .result_set
        )
        if made:
            break
    else:
        raise RuntimeError(f"no free key id in {ID_ATTEMPTS} draws")  # 48 random bits each: not seen
    return {
        "id": key_id,
        "key": secret,
        "tenant": tenant_id,
        "agent": agent,
        "scopes": chosen,
        "created_at": created,
    }


def listed(db, tenant_id: str | None = None) -> list[dict]:
    """Every key (never the key itself nor its hash), oldest first; only one tenant's when named."""
    found = rows(
        service_graph(db),
        "MATCH (k:ApiKey) WHERE $tenant IS NULL OR k.tenant = $tenant RETURN k.id, k.tenant, k.agent, "
        "k.scopes, k.created_at, k.revoked_at ORDER BY k.created_at, k.id",
        {"tenant": tenant_id},
    )
    names = ("id", "tenant", "agent", "scopes", "created_at", "revoked_at")
    return [
        {name: value for name, value in zip(names, row, strict=True) if value is not None} for row in found
    ]


def revoke(db, key_id: str) -> dict | None:
    """Revokes a key; its details ("already": it was revoked before, and keeps that first time), or None
    for an unknown id."""
    if type(key_id) is not str or not key_id:
        raise KeyRefused("a key id is text")
    revoked = (
        service_graph(db)
        .query(
            "MATCH (k:ApiKey {id: $id}) WITH k, k.revoked_at IS NOT NULL AS already "
            "SET k.revoked_at = coalesce(k.revoked_at, $at) "
            "RETURN k.id, k.tenant, k.agent, k.revoked_at, already",
            {"id": key_id, "at": now()},
        )
        .result_set
    )
    forget_checked()
    if not revoked:
        return None
    return dict(zip(("id", "tenant", "agent", "revoked_at", "already"), revoked[0], strict=True))


_checked_keys: dict[str, tuple[float, Principal | None]] = {}
_checked_lock = threading.Lock()


def forget_checked() -> None:
    with _checked_lock:
        _checked_keys.clear()


def _remembered(cache_key: str, lookup) -> Principal | None:
    """lookup()'s principal, asked of the database at most once per REMEMBERED_FOR seconds."""
    with _checked_lock:
        known = _checked_keys.get(cache_key)
    if known is not None and time.monotonic() - known[0] < REMEMBERED_FOR:
        return known[1]
    hits = lookup()
    found = Principal(hits[0][0], hits[0][1], hits[0][2], frozenset(hits[0][3])) if hits else None
    with _checked_lock:
        if len(_checked_keys) > 10_000:
            _checked_keys.clear()
        _checked_keys[cache_key] = (time.monotonic(), found)
    return found


def principal(db, secret: object) -> Principal | None:
    """The principal of a key, or None for no key, an unknown one or a revoked one."""
    if type(secret) is not str or not secret.startswith(PREFIX) or len(secret) > 200:
        return None
    hashed = digest(secret)
    return _remembered(
        hashed,
        lambda: rows(
            service_graph(db),
            "MATCH (k:ApiKey {hash: $hash}) WHERE k.revoked_at IS NULL "
            "RETURN k.id, k.tenant, k.agent, k.scopes",
            {"hash": hashed},
        ),
    )


def current(db, key_id: str) -> Principal | None:
    """The principal of a key id as it is now, None once revoked: a long session (stdio MCP) checked
    its key once at the start and asks here before each call, so a revoke reaches it too."""
    return _remembered(
        f"id:{key_id}",  # a hash is 64 hex digits: never this
        lambda: rows(
            service_graph(db),
            "MATCH (k:ApiKey {id: $id}) WHERE k.revoked_at IS NULL RETURN k.id, k.tenant, k.agent, k.scopes",
            {"id": key_id},
        ),
    )


_schema_done = threading.Event()


def ensure_service_schema(db) -> None:
    """The index the lookup by hash uses; once per process."""
    if _schema_done.is_set():
        return
    # In the server's schema turn, one index at a time (FalkorDB's indexer crashed on a task handed to it
    # while it ran another).
    indexes = (("ApiKey", "hash"), ("ApiKey", "id"), ("AuditRecord", "tenant"))
    ensure_indexes(service_graph(db), indexes)
    _schema_done.set()
