"""Review of what a model drew: the candidates, oldest first, each beside the note it came from, and
confirming or rejecting one or several at once (a rejection needs a reason).

The library's candidates(), confirm() and reject() keep who, when and why on the State; this module
reads that record back after each decision and shows it. Until the library has those functions the
page says so and the action refuses.
"""

from __future__ import annotations

import json
from datetime import datetime

from lighthouse import history
from starlette.responses import RedirectResponse

from ..problems import Problem
from . import reads
from .actions import keep_record
from .pages import declared, graph_of, library, values_of
from .rendering import page
from .session import check_scope

SHOWN = 100  # candidates one page shows
MOST_PICKED = 100  # decisions one post makes


def review_page(service, who, query):
    candidates = library("candidates")
    kinds = declared(service, who)
    if candidates is None or library("confirm") is None or library("reject") is None:
        return page("review.html", who, available=False, items=[], kinds=kinds)
    graph = graph_of(service, who)
    found = candidates(graph, list(kinds.values()), limit=SHOWN) if kinds else []
    evidence = reads.entries(graph, [item["state"]["entry"] for item in found if item["state"].get("entry")])
    items = []
    for number, item in enumerate(found):
        state = item["state"]
        label = item["kind"].label if hasattr(item["kind"], "label") else item["kind"]
        items.append(
            {
                "number": number,
                "kind": label,
                "key": item["key"],
                "state": state,
                "values": values_of(state),
                "evidence": evidence.get(state.get("entry")),
                "token": json.dumps([label, item["key"], state["valid_from"].isoformat()]),
            }
        )
    return page("review.html", who, available=True, items=items, kinds=kinds)


def _chosen(form) -> tuple[str, list[tuple[str, object, str, str | None]]]:
    """The decision and the States it names: (label, key, valid_from, why) each; Problem before anything
    is written when the form is not one the review page makes."""
    act = form.get("act")
    decision, _, which = (act or "").partition(":")
    if decision not in ("confirm", "reject") or not which:
        raise Problem("invalid_argument", "the form names no decision: confirm or reject")
    numbers = form.getlist("pick") if which == "picked" else [which]
    if not numbers:
        raise Problem("invalid_argument", "pick at least one candidate")
    if len(numbers) > MOST_PICKED:
        raise Problem("invalid_argument", f"at most {MOST_PICKED} candidates at once")
    chosen = []
    for number in numbers:
        try:
            label, key, valid_from = json.loads(form.get(f"item-{number}") or "null")
        except (TypeError, ValueError):
            raise Problem("invalid_argument", "the form names a candidate it does not describe") from None
        if type(label) is not str or type(key) not in (str, int) or type(valid_from) is not str:
            raise Problem("invalid_argument", "the form names a candidate it does not describe")
        try:  # every time is checked before the first decision is written: no half-done batch
            datetime.fromisoformat(valid_from)
        except ValueError:
            raise Problem(
                "invalid_argument", "the form names a candidate by a time that is not one"
            ) from None
        why = (form.get(f"why-{number}") or "").strip() or (form.get("why") or "").strip() or None
        if decision == "reject" and why is None:
            raise Problem("invalid_argument", "a rejection needs a reason: nothing was changed")
        if why is not None and len(why) > 2_000:
            raise Problem("invalid_argument", "a reason is at most 2,000 characters")
        chosen.append((label, key, valid_from, why))
    return decision, chosen


def _review_record(graph, kind, key, valid_from: str) -> dict | None:
    for state in history(graph, kind, key):
        if state["valid_from"].isoformat() == valid_from:
            return state.get("review")
    return None


def decide(service, who, form):
    check_scope(who, "review", "confirming or rejecting a fact")
    decision, chosen = _chosen(form)
    function = library(decision)
    if function is None:
        raise Problem("not_found", f"this library has no {decision}(): review is not available yet")
    graph = graph_of(service, who)
    kinds = [(service.kinds.kind(who.tenant, label), key, since, why) for label, key, since, why in chosen]
    for kind, key, valid_from, why in kinds:
        with service.kinds.gate(who.tenant).writing():
            receipt = function(graph, kind, key, valid_from, by=who.principal.agent, why=why)
        keep_record(
            who,
            {
                "action": decision,
                "what": f"{kind.label} {key} from {valid_from}",
                "why": why,
                "status": receipt.get("status"),
                "reason": receipt.get("reason"),
                "record": _review_record(graph, kind, key, valid_from),
                "link": (kind.label, key),
            },
        )
    return RedirectResponse("/console/review", status_code=303)
