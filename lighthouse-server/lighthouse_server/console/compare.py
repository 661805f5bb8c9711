"""The differences of an entity: between two of its versions (named by their start), or between what
held at two times (the States that count then, and the relations valid then). Both come from the
library (version_diff(), entity_diff()); without a choice the page compares the two newest versions, and
with only b, b and the version before it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from lighthouse import as_of, entity_diff, recent_history, version_diff

from ..problems import Problem
from .pages import BadChoice, as_time, graph_of, key_of
from .rendering import page

EARLIEST = datetime(2000, 1, 1, tzinfo=UTC)  # the first time the library stores
VERSIONS_OFFERED = 500  # the newest versions the form offers to choose from


def diff_page(console, who, query):
    kind = console.kinds.kind(who.tenant, query.get("kind"))
    key = key_of(query)
    graph = graph_of(console, who)
    offered = recent_history(graph, kind, key, VERSIONS_OFFERED)["states"]
    if not offered:
        raise Problem(
            "not_found", f"there is no {kind.label} with key {str(key)[:200]!r} and versions in this tenant"
        )
    mode = "times" if query.get("t1") or query.get("t2") else "versions"
    if mode == "times":
        try:
            first, second = as_time(query.get("t1", ""), "t1"), as_time(query.get("t2", ""), "t2")
        except BadChoice as refused:  # the two times are one choice: the page goes back to versions
            raise BadChoice(refused.message, names=("t1", "t2")) from None
        changes = entity_diff(graph, kind, key, first, second)
        chosen = (first, second)
    else:
        starts = [state["valid_from"] for state in offered]
        default_a, default_b = starts[-2] if len(starts) > 1 else starts[-1], starts[-1]
        second = as_time(query["b"], "b") if query.get("b") else default_b
        if query.get("a"):
            first = as_time(query["a"], "a")
        elif query.get("b"):  # the version before b: the one whose window holds b's previous second
            before = as_of(graph, kind, key, second - timedelta(seconds=1)) if second > EARLIEST else None
            first = before["valid_from"] if before else second
        else:
            first = default_a
        try:
            changes = version_diff(graph, kind, key, first, second)
        except ValueError as error:
            raise BadChoice(str(error)[:300], names=("a", "b")) from None
        chosen = (first, second)
    return page(
        "diff.html", who, kind=kind, key=key, versions=offered, mode=mode, chosen=chosen, changes=changes
    )
