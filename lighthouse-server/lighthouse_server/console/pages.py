"""The console's reading pages: the overview of a tenant, search across kinds, a kind's entities, and an
entity's page with its timeline, its States, their evidence and what cites it.

Each takes the Console (app.py: the service, the tenants' kinds, the embedder), the visitor and the
query, and gives a response. The worker status and the
search answer come from the service's operations (status, recall), as the API gives them.
"""

from __future__ import annotations

import json
from bisect import bisect_left
from datetime import UTC, datetime

from lighthouse import (
    as_of,
    cited_by,
    entities_now,
    entries_by_id,
    failures,
    kinds_holding,
    now,
    overview,
    recent_history,
    relation_windows,
    stamp,
)

from ..problems import InvalidArgument, Problem
from . import entity_markup, timeline
from .rendering import link, page

PAGE_SIZE = 50
MOST_FROM = 100_000  # how far a list pages by offset; past it, search finds what is wanted
STATES_SHOWN = 2_000  # the newest States an entity's page shows
# What a State shows besides its values: shown in columns of their own, never as values.
NOT_VALUES = frozenset(
    {"valid_from", "valid_to", "seen_last", "recorded_at", "by", "fp", "entry", "trust", "review"}
)


class BadChoice(InvalidArgument):
    """A choice a read page refuses (a time, a page's offset, a filter), naming the query parameters it
    came from: app.py shows the page again without them, with the reason at its top, so the person
    stays on the page they were on."""

    def __init__(self, message: str, names: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.names = names


def values_of(state: dict) -> dict:
    return {name: value for name, value in state.items() if name not in NOT_VALUES}


def entry_text(values: dict) -> str:
    """The words of an entry: a note's text, else its text values one per line, else its values as JSON."""
    if isinstance(values.get("text"), str):
        return values["text"]
    texts = [f"{name}: {value}" for name, value in sorted(values.items()) if isinstance(value, str)]
    return "\n".join(texts) if texts else json.dumps(values, ensure_ascii=False, default=str)


def evidence_of(graph, ids: list) -> dict[str, dict]:
    """The entries of these ids with their words ("text") beside their values."""
    found = entries_by_id(graph, [one for one in ids if one])
    for entry in found.values():
        given = entry["values"]
        entry["text"] = entry_text(given) if isinstance(given, dict) else str(given)
    return found


def as_time(given: object, what: str) -> datetime:
    """A time a person gave (ISO text, or "2026-01-01 00:00:00Z" as the pages show times), in UTC."""
    try:
        text = stamp(given.strip() if isinstance(given, str) else given)
    except (ValueError, TypeError) as error:
        raise BadChoice(f"{what}: {str(error)[:300]}", names=(what,)) from None
    if text is None:
        raise BadChoice(f"{what} is needed: a time", names=(what,))
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def graph_of(console, who):
    """The tenant's graph for the console's reads: on a replica with read_replicas = "lagging", except
    right after the key's own decisions (Service.reading())."""
    return console.service.reading(who.principal, lagging=True)


def declared(console, who) -> dict:
    return console.kinds.declared(who.tenant)[1]


def offset_of(query) -> int:
    given = query.get("from", "0")
    if not (given.isdecimal() and given.isascii()) or len(given) > 9:
        raise BadChoice("from must be a whole number", names=("from",))
    if int(given) > MOST_FROM:
        raise BadChoice(f"from is at most {MOST_FROM:,}: search finds what lies further", names=("from",))
    return int(given)


def key_of(query) -> str | int:
    key = query.get("key")
    if key is None or key == "":
        raise Problem("invalid_argument", "an entity is named by kind and key")
    if query.get("int") == "1":
        if not (key.lstrip("-").isdecimal() and key.isascii()) or len(key) > 19:
            raise Problem("invalid_argument", "this key must be a whole number")
        return int(key)
    return key


def overview_page(console, who, query):
    graph, kinds = graph_of(console, who), declared(console, who)
    status, status_problem = None, None
    try:
        status = console.service.run(who.principal, "status", {})
    except Problem as problem:
        status_problem = problem.message
    counted = overview(graph, list(kinds.values()))
    return page(
        "overview.html",
        who,
        kinds=kinds,
        counts=counted["entities"],
        embeddings=counted["embeddings_waiting"],
        notes=counted["notes"],
        by_reason=counted["failures_by_reason"],
        recent=failures(graph, limit=10),
        candidates_waiting=counted["candidates_waiting"],
        worker_status=status,
        status_problem=status_problem,
    )


def _by_key(graph, kinds: dict, question: str) -> list[dict]:
    found = []
    keys: list[object] = [question]
    if question.lstrip("-").isdecimal() and len(question) < 19:
        keys.append(int(question))
    for key in keys:
        try:
            found += [
                {"kind": label, "key": key} for label in kinds_holding(graph, list(kinds.values()), key)
            ]
        except ValueError:  # no entity can have this key (too long, say)
            continue
    return found


TRUSTS = ("confirmed", "candidate")  # what the search's trust filter offers (a rejected fact never shows)


def _recalled(console, who, question: str, chosen: dict) -> tuple[list[dict], list[dict], str]:
    """Facts and notes for a question from the recall operation (words, and meaning where the configured
    embedder fits a kind), shaped as its JSON answer gives them, in its order (its fused scores rank and
    mean nothing alone, so the page shows the rank); then filtered by trust and writer."""
    try:
        configured = console.embedder.load()
    except Exception:  # noqa: BLE001 - recall below says why it cannot run
        configured = None
    arguments = {"question": question, "limit": 50 if chosen.get("trust") or chosen.get("by") else 20}
    if chosen.get("kind"):
        arguments["kinds"] = [chosen["kind"]]
    if chosen.get("when"):
        arguments["when"] = chosen["when"].isoformat()
    answer = console.service.run(who.principal, "recall", arguments)
    facts = [
        {
            "kind": fact["kind"],
            "key": fact["key"],
            "values": values_of(fact.get("state") or {}),
            "by": (fact.get("state") or {}).get("by"),
            "since": (fact.get("state") or {}).get("valid_from"),
            "trust": fact.get("trust") or "confirmed",
        }
        for fact in answer["facts"]
    ]
    facts = [
        fact
        for fact in facts
        if (not chosen.get("trust") or fact["trust"] == chosen["trust"])
        and (not chosen.get("by") or fact["by"] == chosen["by"])
    ][:20]
    how = "recall: words, and meaning where the embedder fits a kind" if configured else "recall: words"
    return facts, answer["notes"], how


def search_page(console, who, query):
    question = query.get("q", "").strip()[:1000]
    graph, kinds = graph_of(console, who), declared(console, who)
    chosen = {
        "kind": query.get("kind") if query.get("kind") in kinds else None,
        "trust": query.get("trust") if query.get("trust") in TRUSTS else None,
        "by": (query.get("by") or "").strip()[:200] or None,
        "when": as_time(query["when"], "when") if query.get("when") else None,
    }
    facts, notes, by_key, how, refused = [], [], [], "", None
    if question:
        by_key = _by_key(graph, kinds, question)
        try:
            facts, notes, how = _recalled(console, who, question, chosen)
        except Problem as problem:  # the keys found still show; the page says why recall refused
            refused = problem.message
    return page(
        "search.html",
        who,
        question=question,
        facts=facts,
        notes=notes,
        by_key=by_key,
        how=how,
        kinds=kinds,
        refused=refused,
        chosen=chosen,
        trusts=TRUSTS,
        when_given=query.get("when", ""),
    )


LIST_TRUSTS = ("confirmed", "candidate")  # what a kind's list filters the value that holds now by


WINDOW_AND_WRITER = ("by", "since", "until")


def writer_and_window(query) -> dict:
    """A list's filters of writer (by) and time window [since, until), each checked; a bad one is a
    BadChoice, so the list is shown without it."""
    chosen: dict = {}
    by = (query.get("by") or "").strip()
    if by:
        if len(by) > 200:
            raise BadChoice("by is a writer's name of at most 200 characters", names=("by",))
        chosen["by"] = by
    for name in ("since", "until"):
        if query.get(name):
            chosen[name] = as_time(query[name], name)
    return chosen


def given_filters(query, names=("trust", *WINDOW_AND_WRITER)) -> dict:
    """The filters as the person gave them, for a list's form and its links."""
    return {name: query[name] for name in names if query.get(name)}


def list_filters(query) -> dict:
    """The filters of a kind's list: trust of the value that holds now, and writer_and_window() of it."""
    chosen: dict = {}
    if query.get("trust"):
        if query["trust"] not in LIST_TRUSTS:
            raise BadChoice(f"trust is {' or '.join(LIST_TRUSTS)}", names=("trust",))
        chosen["trust"] = query["trust"]
    return {**chosen, **writer_and_window(query)}


def kind_page(console, who, query):
    graph, kinds = graph_of(console, who), declared(console, who)
    kind = console.kinds.kind(who.tenant, query.get("kind"))
    offset = offset_of(query)
    chosen = list_filters(query)
    try:
        listed = entities_now(graph, kind, offset, PAGE_SIZE, **chosen)
    except ValueError as error:  # a writer's name the library refuses
        raise BadChoice(str(error)[:300], names=("by",)) from None
    shown = [{**one, "values": values_of(one["state"] or {})} for one in listed[:PAGE_SIZE]]
    return page(
        "kind.html",
        who,
        kind=kind,
        kinds=kinds,
        chosen=chosen,
        given=given_filters(query),
        trusts=LIST_TRUSTS,
        entities=shown,
        offset=offset,
        next_from=offset + PAGE_SIZE if len(listed) > PAGE_SIZE else None,
        previous_from=max(offset - PAGE_SIZE, 0) if offset else None,
    )


def _quoted_time(state: dict) -> str:
    """A State's start as the diff page's query takes it (UTC, whole seconds, "+" never needed)."""
    return state["valid_from"].isoformat(timespec="seconds")[:19] + "Z"


def _cited_during(cites: list[dict], moments: list, state: dict) -> list[dict]:
    """The citations whose as_of falls in the State's window; cites sorted by as_of, moments their times."""
    low = bisect_left(moments, state["valid_from"])
    high = len(moments) if state.get("valid_to") is None else bisect_left(moments, state["valid_to"])
    return cites[low:high]


def entity_facts(console, who, label: object, key: object) -> dict:
    """Everything an entity's page shows, read in a handful of queries."""
    graph = graph_of(console, who)
    kind = console.kinds.kind(who.tenant, label)
    newest = recent_history(graph, kind, key, STATES_SHOWN)
    states, total = newest["states"], newest["total"]
    if not states and not kinds_holding(graph, [kind], key):
        raise Problem("not_found", f"there is no {kind.label} with key {str(key)[:200]!r} in this tenant")
    late = timeline.late_flags(states)
    compare = link("/console/diff", kind=kind.label, key=key, int="1" if type(key) is int else None)
    windows = relation_windows(graph, kind, key)
    evidence = evidence_of(graph, [state.get("entry") for state in states])
    cites = [cite for cite in cited_by(graph, kind, key) if cite["as_of"] is not None]
    moments = [cite["as_of"] for cite in cites]
    # Rows beside the States, never inside them: a value may be named like anything the page adds.
    rows = [
        {
            "state": state,
            "values": values_of(state),
            "late": late[place],
            "cited_by": _cited_during(cites, moments, state),
            "evidence": evidence.get(state.get("entry")),
            # The difference from the version before it (the diff page's choice when only b is named).
            "compare": compare + "&b=" + _quoted_time(state) if place else None,
        }
        for place, state in enumerate(states)
    ]
    # What holds now by the library's rule: a rejected State never counts.
    current = as_of(graph, kind, key, now(), rejected=False)
    drawn = timeline.drawn(states, windows, late, datetime.now(UTC))
    return {
        "kind": kind,
        "key": key,
        "current": current,
        "current_values": values_of(current or {}),
        "rows": rows,
        "states_not_shown": total - len(states),
        "windows": windows,
        "cites": cites,
        "timeline": drawn,
        "lane_bars": [entity_markup.lane_bars(lane) for lane in drawn.lanes],
        "state_rows": entity_markup.state_rows(rows),
        "window_rows": entity_markup.window_rows(windows),
    }


def entity_page(console, who, query):
    return page("entity.html", who, **entity_facts(console, who, query.get("kind"), key_of(query)))
