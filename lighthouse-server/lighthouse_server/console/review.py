"""Review of what a model drew: the candidates, oldest first, each beside the State it would replace (as
a difference of values and relations), the note it came from with the words that support it marked, and
the earlier rejections it repeats; confirming or rejecting one or several at once (a rejection needs a
reason). After a decision the page opens on the candidate that took the decided one's place.

Every decision goes through the service's confirm and reject operations (scope, gate, the same checks
as the API); the library keeps who, when and why on the State. Every item of a form is checked before
the first decision is written, so a form with one bad item changes nothing. The record shown after a
decision is read back with one as_of() at the State's start.
"""

from __future__ import annotations

import json
import re

from lighthouse import Refused, WrongType, as_of, candidates, review_context
from starlette.responses import RedirectResponse

from ..problems import Problem
from .actions import keep_record
from .compare import EARLIEST
from .pages import (
    WINDOW_AND_WRITER,
    BadChoice,
    as_time,
    declared,
    evidence_of,
    given_filters,
    graph_of,
    values_of,
    writer_and_window,
)
from .rendering import SHOWN_TEXT, link, page
from .session import check_scope

SHOWN = 50  # candidates one page shows, each beside what it would replace
MOST_PHRASES = 40  # what one note is searched for
MOST_PICKED = 100  # decisions one post makes
MOST_WHY = 2_000  # characters of a reason, as the library keeps them


def _phrases(item: dict, changes: dict) -> list[str]:
    """What to look for in the note: the key, each value the candidate adds or changes, and the words of
    those values (three letters or more)."""
    claimed = [
        *changes["values"]["added"].values(),
        *(pair[1] for pair in changes["values"]["changed"].values()),
    ]
    claimed += [link[2] for link in changes["relations"]["added"]]
    found = [str(item["key"])]
    for value in claimed:
        text = value if isinstance(value, str) else str(value) if isinstance(value, int | float) else ""
        if text:
            found.append(text)
            found += [word for word in re.findall(r"\w{3,}", text)]
    return [one for one in dict.fromkeys(found) if one.strip()][:MOST_PHRASES]


def highlighted(text: str, phrases: list[str]) -> list[tuple[str, bool]]:
    """The text in pieces, (piece, whether it is one of the phrases), each found case-insensitively."""
    spans = []
    folded = text.casefold()
    for phrase in phrases:
        wanted, start = phrase.casefold(), 0
        while wanted and (place := folded.find(wanted, start)) >= 0 and len(spans) < 500:
            spans.append((place, place + len(wanted)))
            start = place + len(wanted)
    pieces, at = [], 0
    for begin, end in sorted(spans):
        if end <= at:
            continue
        begin = max(begin, at)
        if begin > at:
            pieces.append((text[at:begin], False))
        pieces.append((text[begin:end], True))
        at = end
    if at < len(text):
        pieces.append((text[at:], False))
    return pieces


def _cursor(query) -> int:
    given = query.get("at", "0")
    return int(given) if given.isdecimal() and given.isascii() and len(given) < 4 else 0


def review_page(console, who, query):
    kinds = declared(console, who)
    graph = graph_of(console, who)
    only = query.get("kind") or None
    looked_in = [kinds[only]] if only in kinds else list(kinds.values())
    chosen = writer_and_window(query)
    try:
        found = candidates(graph, looked_in, limit=SHOWN, **chosen) if looked_in else []
    except ValueError as error:  # a writer's name the library refuses
        raise BadChoice(str(error)[:300], names=("by",)) from None
    evidence = evidence_of(graph, [item["state"].get("entry") for item in found])
    items = []
    for number, item in enumerate(found):
        state = item["state"]
        context = review_context(graph, kinds[item["kind"]], item["key"], state["valid_from"])
        note = evidence.get(state.get("entry"))
        changed = set(context["changes"]["values"]["added"]) | set(context["changes"]["values"]["changed"])
        items.append(
            {
                "number": number,
                "kind": item["kind"],
                "key": item["key"],
                "state": state,
                "values": values_of(state),
                "replaces": context["replaces"],
                "changes": context["changes"],
                "unchanged": {n: v for n, v in values_of(state).items() if n not in changed},
                "repeats": context["repeats"],
                "evidence": note,
                "note_pieces": highlighted(note["text"][:SHOWN_TEXT], _phrases(item, context["changes"]))
                if note
                else [],
                "token": json.dumps([item["kind"], item["key"], state["valid_from"].isoformat()]),
            }
        )
    current = min(_cursor(query), max(len(items) - 1, 0))
    given = given_filters(query, WINDOW_AND_WRITER)
    return page("review.html", who, items=items, kinds=kinds, only=only, given=given, current=current)


def review_again(console, who, form):
    kept = {name: form.get(name) or "" for name in ("kind", *WINDOW_AND_WRITER)}
    return review_page(console, who, {"at": form.get("at") or "0", **kept})


def _described(form, number: str) -> tuple[object, object, object]:
    try:
        label, key, valid_from = json.loads(form.get(f"item-{number}") or "null")
    except (TypeError, ValueError):
        raise Problem("invalid_argument", "the form names a candidate it does not describe") from None
    return label, key, valid_from


def _checked(console, who, decision: str, label, key, valid_from, why) -> tuple:
    """One item as the operation would check it (kind, key, time, reason); Problem if it would refuse."""
    if type(label) is not str or type(valid_from) is not str:
        raise Problem("invalid_argument", "the form names a candidate it does not describe")
    kind = console.kinds.kind(who.tenant, label)  # Problem not_found for a kind not declared
    try:
        moment = as_time(valid_from, "valid_from")
        # The key checked as the library checks it, by a read of what held then; a time before those it
        # stores (which the operation refuses, where a read finds nothing) is refused here.
        as_of(graph_of(console, who), kind, key, moment)
    except (Refused, WrongType) as error:
        raise Problem("invalid_argument", f"a candidate of the form: {str(error)[:300]}") from None
    if moment < EARLIEST:
        raise Problem("invalid_argument", "a candidate of the form: no fact is stored from before 2000")
    if decision == "reject" and why is None:
        raise Problem("invalid_argument", "a rejection needs a reason: nothing was changed")
    if why is not None and (len(why) > MOST_WHY or "\x00" in why):
        raise Problem("invalid_argument", f"a reason is at most {MOST_WHY:,} characters of text")
    return kind, key, valid_from, moment, why


def _chosen(console, who, form) -> tuple[str, list[tuple], list[str]]:
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
        decisions.append(_checked(console, who, decision, label, key, valid_from, why))
    return decision, decisions, [number for number in numbers if number.isdecimal() and len(number) < 4]


def _review_record(graph, kind, key, moment) -> dict | None:
    """The review the State that began at moment carries now: one as_of() at its start."""
    state = as_of(graph, kind, key, moment)
    if state is None or state["valid_from"] != moment:
        return None
    return state.get("review")


def decide(console, who, form):
    check_scope(who, "review", "confirming or rejecting a fact")
    decision, decisions, picked = _chosen(console, who, form)
    graph = graph_of(console, who)
    for kind, key, valid_from, moment, why in decisions:
        arguments = {"kind": kind.label, "key": key, "valid_from": valid_from, "why": why}
        receipt = console.service.run(who.principal, decision, arguments)
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
    # The candidate after the one decided has taken its place: the page opens on it.
    first = min(int(number) for number in picked) if picked else 0
    return RedirectResponse(
        link(
            "/console/review",
            at=first or None,
            **{name: form.get(name) or None for name in ("kind", *WINDOW_AND_WRITER)},
        ),
        status_code=303,
    )
