"""Signing in to the console: a key checked once, a session kept on the server, a CSRF token per session.

The cookie holds only a random token of 256 bits; the key itself is never stored (the session keeps the
key's id). Every request asks the key store for the key as it is now, so a revoked key ends its sessions
at their next request. The console's sessions (Sessions(db), built with the app) live in the database,
beside the tenant's graph (its hash tag): a session started on one serve process holds on every other on
the same database, and across restarts. The decisions a session shows stay in the process that made
them.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from dataclasses import dataclass, field

from lighthouse import Refused, tenant_graph_name

from .. import keys
from ..problems import Problem
from ..topology import tagged

COOKIE = "lh_console"
IDLE_SECONDS = 8 * 3600  # a session nobody used for this long is over
MOST_SESSIONS = 10_000  # sessions whose decisions this process keeps to show: past this its oldest go
MOST_PER_KEY = 20  # past this a key's own oldest session is dropped: one key cannot crowd out the rest
MOST_DECISIONS = 50  # the action records a session keeps to show on its next pages


@dataclass
class Session:
    token: str
    csrf: str
    key_id: str
    tenant: str
    decisions: list[dict] = field(default_factory=list)


@dataclass(frozen=True)
class Visitor:
    """A signed-in person: the session and the key's principal as it is now."""

    session: Session
    principal: keys.Principal

    @property
    def tenant(self) -> str:
        return self.principal.tenant

    def can(self, scope: str) -> bool:
        return scope in self.principal.scopes


def _names(token: str) -> tuple[str, str, str] | None:
    """(the session's key, its key's index prefix, the token's hash): beside the tenant's graph; None for
    a token whose tenant part is no tenant id (a cookie is what a browser sent)."""
    try:
        graph = tenant_graph_name(token.partition(".")[0])
    except Refused:
        return None
    hashed = hashlib.sha256(token.encode()).hexdigest()
    return tagged(graph, f"lighthouse:console-session:{hashed}"), graph, hashed


class Sessions:
    """The console's sessions, kept in db (a FalkorDB client)."""

    def __init__(self, db) -> None:
        self._lock = threading.Lock()
        self._db = db
        self._decisions: dict[str, list[dict]] = {}  # of the sessions kept in the database, shown here

    def start(self, principal: keys.Principal) -> Session:
        # The tenant opens the token (ids have no dot): it names the shard its session lives on.
        session = Session(
            token=f"{principal.tenant}.{secrets.token_urlsafe(32)}",
            csrf=secrets.token_urlsafe(32),
            key_id=principal.key_id,
            tenant=principal.tenant,
        )
        self._kept(session)
        return session

    def _kept(self, session: Session) -> None:
        """The session in the database, and the oldest of its key's past MOST_PER_KEY dropped."""
        name, graph, hashed = _names(session.token)
        index = tagged(graph, f"lighthouse:console-sessions:{session.key_id}")
        connection = self._db.connection
        fields = {"csrf": session.csrf, "key_id": session.key_id, "tenant": session.tenant}
        connection.hset(name, mapping=fields)
        connection.pexpire(name, IDLE_SECONDS * 1000)
        connection.zadd(index, {hashed: time.time()})
        connection.pexpire(index, IDLE_SECONDS * 1000)
        for dropped, _ in connection.zpopmin(index, max(0, connection.zcard(index) - MOST_PER_KEY)):
            connection.delete(tagged(graph, f"lighthouse:console-session:{dropped}"))

    def _found(self, token: str) -> Session | None:
        named = _names(token)
        if named is None:
            return None
        name, graph, hashed = named
        connection = self._db.connection
        fields = connection.hgetall(name)
        if not fields:
            self._decisions.pop(hashed, None)
            return None
        connection.pexpire(name, IDLE_SECONDS * 1000)  # idle time counts from the last request
        connection.zadd(
            tagged(graph, f"lighthouse:console-sessions:{fields['key_id']}"), {hashed: time.time()}
        )
        with self._lock:
            if hashed not in self._decisions and len(self._decisions) >= MOST_SESSIONS:
                self._decisions.pop(next(iter(self._decisions)))
            decisions = self._decisions.setdefault(hashed, [])
        return Session(token, fields["csrf"], fields["key_id"], fields["tenant"], decisions)

    def find(self, token: object) -> Session | None:
        if type(token) is not str or not token or len(token) > 120:
            return None
        return self._found(token)

    def end(self, token: object) -> None:
        named = _names(token) if type(token) is str else None
        if named is None:
            return
        name, graph, hashed = named
        key_id = self._db.connection.hget(name, "key_id")
        self._db.connection.delete(name)
        if key_id:
            self._db.connection.zrem(tagged(graph, f"lighthouse:console-sessions:{key_id}"), hashed)
        self._decisions.pop(hashed, None)


def signed_in_key(service, secret: object) -> keys.Principal:
    """The principal of a key given at sign-in; Problem unauthorized for a bad key, forbidden without read."""
    if type(secret) is not str or not secret.strip():
        raise Problem("unauthorized", "give an API key to sign in")
    principal = service.principal(secret.strip())
    if "read" not in principal.scopes:
        raise Problem("forbidden", "this key has no read scope: the console needs it")
    return principal


def visitor(service, sessions: Sessions, cookies) -> Visitor | None:
    """Who the request's session cookie belongs to, or None; a revoked key (or one that lost read) ends
    the session here."""
    token = cookies.get(COOKIE)
    session = sessions.find(token)
    if session is None:
        return None
    try:
        principal = service.still(keys.Principal(session.key_id, session.tenant, "", frozenset()))
    except Problem as problem:
        if problem.code == "unauthorized":
            sessions.end(token)
            return None
        raise
    if principal.tenant != session.tenant or "read" not in principal.scopes:
        sessions.end(token)
        return None
    return Visitor(session, principal)


def check_csrf(visitor: Visitor, given: object) -> None:
    """Problem forbidden unless the form carries this session's CSRF token."""
    if type(given) is not str or not hmac.compare_digest(given.encode(), visitor.session.csrf.encode()):
        raise Problem("forbidden", "the form's CSRF token is missing or wrong: reload the page and try again")


def check_scope(visitor: Visitor, scope: str, what: str) -> None:
    if not visitor.can(scope):
        raise Problem("forbidden", f"{what} needs the {scope!r} scope, which this key does not have")


def cookie_header(token: str, *, secure: bool, clear: bool = False) -> str:
    """The Set-Cookie value: HttpOnly, SameSite=Strict, only under /console."""
    parts = [f"{COOKIE}={'' if clear else token}", "Path=/console", "HttpOnly", "SameSite=Strict"]
    if clear:
        parts.append("Max-Age=0")
    if secure:
        parts.append("Secure")
    return "; ".join(parts)
