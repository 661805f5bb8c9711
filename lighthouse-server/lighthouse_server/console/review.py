"""Review of what a model drew: the candidates, oldest first, each beside the note it came from, and
confirming or rejecting one or several at once (a rejection needs a reason).

Every decision goes through the service's confirm and reject operations (scope, gate, the same checks
as the API); the library keeps who, when and why on the State. Every item of a form is checked before
the first decision is written, so a form with one bad item changes nothing. The record shown after a
decision is read back with one as_of() at the State's start.
"""

from __future__ import annotations

import json

from lighthouse import Refused, WrongType, as_of, candidates, clock, values
from starlette.responses import RedirectResponse

from ..problems import Problem
from . import reads
from .actions import keep_record
from .pages import declared, graph_of, values_of
from .rendering import page
from .session import check_scope

SHOWN = 100  # candidates one page shows
MOST_PICKED = 100  # decisions one post makes
MOST_WHY = 2_000  # characters of a reason, as the library keeps them


def review_page(service, who, query):
    kinds = declared(service, who)
    graph = graph_of(service, who)
    found = candidates(graph, list(kinds.values()), limit=SHOWN) if kinds else []
    evidence = reads.entries(graph, [item["state"]["entry"] for item in found if item["state"].get("entry")])
    items = []
    for number, item in enumerate(found):
        state = item["state"]
        items.append(
            {
                "number": number,
                "kind": item["kind"],
                "key": item["key"],
                "state": state,
                "values": values_of(state),
                "evidence": evidence.get(state.get("entry")),
                "token": json.dumps([item["kind"], item["key"], state["valid_from"].isoformat()]),
            }
        )
    return page("review.html", who, items=items, kinds=kinds)


def _described(form, number: str) -> tuple[object, object, object]:
    try:
        label, key, valid_from = json.loads(form.get(f"item-{number}") or "null")
    except (TypeError, ValueError):
        raise Problem("invalid_argument", "the form names a candidate it does not describe") from None
    return label, key, valid_from


def _checked(service, who, decision: str, label, key, valid_from, why) -> tuple:
    """One item as the operation would check it (kind, key, time, reason); Problem if it would refuse."""
    if type(label) is not str or type(valid_from) is not str:
        raise Problem("invalid_argument", "the form names a candidate it does not describe")
    kind = service.kinds.kind(who.tenant, label)  # Problem not_found for a kind not declared
    try:
        key = values.key(key)
        moment = clock.parse(valid_from)
    except (Refused, WrongType) as error:
        raise Problem("invalid_argument", f"a candidate of the form: {str(error)[:300]}") from None
    if decision == "reject" and why is None:
        raise Problem("invalid_argument", "a rejection needs a reason: nothing was changed")
    if why is not None and (len(why) > MOST_WHY or "\x00" in why):
        raise Problem("invalid_argument", f"a reason is at most {MOST_WHY:,} characters of text")
    return kind, key, valid_from, moment, why


def _chosen(service, who, form) -> tuple[str, list[tuple]]:
    """The decision and the States it names, each (kind, key, valid_from, moment, why), every one checked
    before anything is written: Problem when any item would be refused, so no batch is half done."""
    act = form.get("act")
    decision, _, which = (act or "").partition(":")
    if decision not in ("confirm", "reject") or not which:
        raise Problem("invalid_argument", "the form names no decision: confirm or reject")
    numbers = form.getlist("pick") if which == "picked" else [which]
    if not numbers:
        raise Problem("invalid_argument", "pick at least one candidate")
    if len(numbers) > MOST_PICKED:
        raise Problem("invalid_argument", f"at most {MOST_PICKED} candidates at once")
    decisions = []
    for number in numbers:
        label, key, valid_from = _described(form, number)
        why = (form.get(f"why-{number}") or "").strip() or (form.get("why") or "").strip() or None
        decisions.append(_checked(service, who, decision, label, key, valid_from, why))
    return decision, decisions


def _review_record(graph, kind, key, moment) -> dict | None:
    """The review the State that began at moment carries now: one as_of() at its start."""
    state = as_of(graph, kind, key, moment)
    if state is None or state["valid_from"] != moment:
        return None
    return state.get("review")


def decide(service, who, form):
    check_scope(who, "review", "confirming or rejecting a fact")
    decision, decisions = _chosen(service, who, form)
    graph = graph_of(service, who)
    for kind, key, valid_from, moment, why in decisions:
        arguments = {"kind": kind.label, "key": key, "valid_from": valid_from, "why": why}
        receipt = service.run(who.principal, decision, arguments)
        reviewed = receipt.get("status") in ("confirmed", "rejected")
        keep_record(
            who,
            {
                "action": decision,
                "what": f"{kind.label} {key} from {valid_from}",
                "why": why,
                "status": receipt.get("status"),
                "reason": receipt.get("reason"),
                "record": _review_record(graph, kind, key, moment) if reviewed else None,
                "link": (kind.label, key),
            },
        )
    return RedirectResponse("/console/review", status_code=303)
