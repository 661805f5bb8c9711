"""Signing in to the console: a key checked once, a session kept on the server, a CSRF token per session.

The cookie holds only a random token of 256 bits; the key itself is never stored (the session keeps the
key's id). Every request asks the key store for the key as it is now, so a revoked key ends its sessions
at their next request. Sessions live in this process: a restart signs everyone out.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from dataclasses import dataclass, field

from .. import keys
from ..problems import Problem

COOKIE = "lh_console"
IDLE_SECONDS = 8 * 3600  # a session nobody used for this long is over
MOST_SESSIONS = 10_000  # past this the oldest sessions are dropped: memory stays bounded
MOST_PER_KEY = 20  # past this a key's own oldest session is dropped: one key cannot crowd out the rest
MOST_DECISIONS = 50  # the action records a session keeps to show on its next pages


@dataclass
class Session:
    token: str
    csrf: str
    key_id: str
    tenant: str
    seen: float
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


class Sessions:
    def __init__(self) -> None:
        self._by_token: dict[str, Session] = {}
        self._lock = threading.Lock()

    def start(self, principal: keys.Principal) -> Session:
        session = Session(
            token=secrets.token_urlsafe(32),
            csrf=secrets.token_urlsafe(32),
            key_id=principal.key_id,
            tenant=principal.tenant,
            seen=time.monotonic(),
        )
        with self._lock:
            own = [one for one in self._by_token.values() if one.key_id == principal.key_id]
            if len(own) >= MOST_PER_KEY:
                for one in sorted(own, key=lambda one: one.seen)[: len(own) - MOST_PER_KEY + 1]:
                    del self._by_token[one.token]
            if len(self._by_token) >= MOST_SESSIONS:
                oldest = sorted(self._by_token.values(), key=lambda one: one.seen)[: MOST_SESSIONS // 10]
                for one in oldest:
                    del self._by_token[one.token]
            self._by_token[session.token] = session
        return session

    def find(self, token: object) -> Session | None:
        if type(token) is not str or not token or len(token) > 100:
            return None
        with self._lock:
            session = self._by_token.get(token)
            if session is None:
                return None
            if time.monotonic() - session.seen > IDLE_SECONDS:
                del self._by_token[token]
                return None
            session.seen = time.monotonic()
            return session

    def end(self, token: object) -> None:
        with self._lock:
            self._by_token.pop(token, None)  # type: ignore[arg-type]


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
