"""The console's actions besides review: invalidating an entry (its page shows the impact first) and
forgetting a user or a session (admin, behind a confirmation page where the user's name is typed again).

Every action is a POST that app.py let through only with the session's CSRF token; the scope is checked
here whatever the page sent, and again by the service's operation table, which also keeps the audit
record of a forget.
"""

from __future__ import annotations

from lighthouse import impact_of_entry, now, sessions
from starlette.responses import RedirectResponse

from ..problems import Problem
from .pages import evidence_of, graph_of
from .rendering import link, page
from .session import MOST_DECISIONS, check_scope


def keep_record(who, record: dict) -> None:
    """An action's record, shown on the visitor's next pages (the graph keeps the lasting one)."""
    who.session.decisions.insert(0, {"by": who.principal.agent, "at": now(), **record})
    del who.session.decisions[MOST_DECISIONS:]


def _text(form, name: str, what: str, most: int = 2_000) -> str:
    given = form.get(name)
    if type(given) is not str or not given.strip():
        raise Problem("invalid_argument", f"{what} is needed")
    if len(given) > most:
        raise Problem("invalid_argument", f"{what} is at most {most:,} characters")
    return given


def entry_page(console, who, query):
    entry_id = query.get("id", "")
    if not entry_id:
        raise Problem("invalid_argument", "an entry is named by its id")
    graph = graph_of(console, who)
    entry = evidence_of(graph, [entry_id]).get(entry_id)
    if entry is None:
        raise Problem("not_found", "there is no such entry in this tenant")
    return page("entry.html", who, entry=entry, impact=impact_of_entry(graph, entry_id))


def entry_again(console, who, form):
    return entry_page(console, who, {"id": form.get("entry_id") or ""})


def invalidate(console, who, form):
    check_scope(who, "review", "invalidating an entry")
    entry_id = _text(form, "entry_id", "the entry's id", 400)
    reason = _text(form, "reason", "a reason")
    receipt = console.service.run(who.principal, "invalidate_entry", {"entry_id": entry_id, "reason": reason})
    keep_record(
        who,
        {
            "action": "invalidate",
            "what": entry_id,
            "why": reason,
            "status": receipt.get("status"),
            "reason": receipt.get("reason"),
        },
    )
    return RedirectResponse(link("/console/entry", id=entry_id), status_code=303)


MOST_SESSIONS_READ = 1_000  # sessions the confirmation page reads; at this many it says "or more"


def forget_page(console, who, query):
    user = query.get("user", "")
    if not user:
        raise Problem("invalid_argument", "a user is needed")
    session_id = query.get("session") or None
    found = sessions(graph_of(console, who), user, limit=MOST_SESSIONS_READ)
    at_limit = len(found) >= MOST_SESSIONS_READ
    if session_id is not None:
        found = [one for one in found if one["id"] == session_id]
    return page(
        "forget.html",
        who,
        status=200 if who.can("admin") else 403,
        user=user,
        session_id=session_id,
        sessions=found,
        at_limit=at_limit and session_id is None,
        messages=sum(one["messages"] or 0 for one in found),
    )


def forget_again(console, who, form):
    return forget_page(console, who, {"user": form.get("user") or "", "session": form.get("session")})


def _forgotten(receipt: dict, session_id: str | None) -> tuple[str, str]:
    """(status, what went) of a forget's receipt: "unknown" when it found nothing to delete."""
    if session_id is not None:
        status = receipt.get("status") or "unknown"
        return status, f"{receipt.get('messages', 0):,} messages deleted"
    status = "forgotten" if receipt.get("sessions") else "unknown"
    return (
        status,
        f"{receipt.get('sessions', 0):,} sessions and {receipt.get('messages', 0):,} messages deleted",
    )


def forget(console, who, form):
    check_scope(who, "admin", "forgetting a user or a session")
    user = _text(form, "user", "the user", 400)
    if form.get("confirm") != user:
        raise Problem("invalid_argument", "type the user's name to confirm: nothing was forgotten")
    session_id = form.get("session") or None
    if session_id is None:
        receipt = console.service.run(who.principal, "forget_user", {"user": user})
    else:
        receipt = console.service.run(
            who.principal, "forget_session", {"user": user, "session_id": session_id}
        )
    status, gone = _forgotten(receipt, session_id)
    keep_record(
        who,
        {
            "action": "forget",
            "what": user if session_id is None else f"{user} / {session_id}",
            "why": None,
            "status": status,
            "reason": gone,
            "receipt": receipt,
        },
    )
    return RedirectResponse(link("/console/conversations", done=status), status_code=303)
