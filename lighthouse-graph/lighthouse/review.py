"""confirm(), reject(), candidates(): a person's word on what a model drew from free text.

A State written by remember(..., candidate=True) carries the mark "candidate" (kinds.TRUST). A review
sets the mark to "confirmed" or "rejected" with who, when and why, in one query, and changes nothing
else: no State is deleted or cut, so history() still shows a rejected State, marked. What a rejected
State means for the present is decided where the present is read (recall.answer: a rejected State does
not count, and the one before it holds on through its window). A structured State can be reviewed too.

The rule: every argument is checked before anything is written. A bad one raises Refused (a ValueError)
or WrongType (a TypeError). A State that does not exist, or whose values use the names a review is shown
under (trust, review), gives a receipt with status "unknown" or "invalid", kept as a WriteFailure.
Database errors pass as ResponseError.
"""

from __future__ import annotations

from functools import lru_cache

from . import clock, values
from .errors import Refused, WrongType
from .graphs import read
from .kinds import REVIEW_WHY, REVIEWED_AT, REVIEWED_BY, STATE_KIND, TRUST, Kind
from .read import checked_entity, shown
from .recall.text import checked_kind, checked_limit
from .write.failures import refuse

MAX_WHY = 2_000  # characters of the reason a review keeps
CANDIDATE, CONFIRMED, REJECTED = "candidate", "confirmed", "rejected"


@lru_cache(maxsize=256)
def _review_query(kind: Kind) -> str:
    # The State is named by its entity and start; a State whose values hold trust or review is left
    # alone, so a read never shows a value where it shows the mark.
    return (
        f"MATCH (:`{kind.label}` {{key: $key}})-[:HAS_STATE]->(s) WHERE s.valid_from = localdatetime($from) "
        "WITH s, s.trust IS NULL AND s.review IS NULL AS free "
        f"FOREACH (marking IN CASE WHEN free THEN [1] ELSE [] END | SET s.`{TRUST}` = $trust, "
        f"  s.`{REVIEWED_BY}` = $by, s.`{REVIEWED_AT}` = localdatetime($now), s.`{REVIEW_WHY}` = $why) "
        "RETURN free"
    )


def _why(why: object, required: bool) -> str | None:
    if why is None or (type(why) is str and not why.strip()):
        if required:
            raise Refused("a rejection needs a reason (why)")
        return None
    if type(why) is not str:
        raise WrongType(f"why is text, not {values.sort_of(why)}")
    if len(why) > MAX_WHY or "\x00" in why:
        raise Refused(f"why is at most {MAX_WHY:,} characters of text without NUL")
    return why


def _review(graph, kind, key, valid_from, by, why, trust: str) -> dict:
    key = checked_entity(kind, key)
    moment = clock.parse(valid_from)
    began = clock.stamp_of(moment)
    reviewer = values.name(by, "by")
    reason = _why(why, required=trust == REJECTED)
    params = {"key": key, "from": began, "trust": trust, "by": reviewer, "now": clock.now(), "why": reason}
    found = graph.query(_review_query(kind), params).result_set
    receipt = {"key": key, "valid_from": moment}
    content = {"key": key, "valid_from": began, "trust": trust, "why": reason}
    if not found:
        failed = refuse(
            graph, kind.label, key, content, "unknown", f"no State of {key!r} began at {began}", reviewer
        )
        return {**receipt, "status": "unknown", "reason": failed["reason"]}
    if not found[0][0]:
        why_not = "the State holds a value named trust or review, the names its review is shown under"
        refuse(graph, kind.label, key, content, "invalid", why_not, reviewer)
        return {**receipt, "status": "invalid", "reason": why_not}
    return {**receipt, "status": trust}


def confirm(graph, kind: Kind, key, valid_from, by, why=None) -> dict:
    """Marks the State of the entity that began at valid_from as confirmed, with who (by), when (now)
    and why (optional). Receipt {"key", "valid_from", "status": "confirmed" | "unknown" | "invalid"}
    ("reason" with the last two, each kept as a WriteFailure). Arguments raise Refused or WrongType."""
    return _review(graph, kind, key, valid_from, by, why, CONFIRMED)


def reject(graph, kind: Kind, key, valid_from, by, why) -> dict:
    """Marks the State of the entity that began at valid_from as rejected, with who, when and why (a
    reason is required). Nothing is deleted: history() shows the State with trust "rejected"; recall()
    leaves it out unless asked. Receipt {"key", "valid_from", "status": "rejected" | "unknown" |
    "invalid"}. Arguments raise Refused or WrongType."""
    return _review(graph, kind, key, valid_from, by, why, REJECTED)


_CANDIDATES_QUERY = (
    f"MATCH (s:State) WHERE s.`{TRUST}` = 'candidate' AND s.`{STATE_KIND}` IN $labels "
    "AND ($by IS NULL OR s.by = $by) AND ($since IS NULL OR s.valid_from >= localdatetime($since)) "
    "AND ($until IS NULL OR s.valid_from < localdatetime($until)) "
    f"WITH s ORDER BY s.recorded_at, s.`{STATE_KIND}`, s.key, s.valid_from LIMIT $limit "
    f"RETURN s.`{STATE_KIND}`, s.key, properties(s)"
)


def candidates(graph, kinds, limit: int = 100, *, by=None, since=None, until=None) -> list[dict]:
    """The States still waiting for a review, oldest recorded first: [{"kind": label, "key", "state"}],
    state shaped as history() gives it. kinds: the Kinds to look in (a list or tuple of Kind). limit 1 to
    1,000. by: only those this writer drew; since, until: only those that begin in [since, until).
    Arguments raise Refused or WrongType; nothing is written."""
    if type(kinds) not in (list, tuple):
        raise WrongType(f"kinds is a list of Kind, not {values.sort_of(kinds)}")
    by_label = {}
    for kind in kinds:
        by_label[checked_kind(kind).label] = kind
    limit = checked_limit(limit)
    chosen = {
        "by": None if by is None else values.name(by, "by"),
        "since": None if since is None else clock.stamp_of(clock.looked_at(since, "since")),
        "until": None if until is None else clock.stamp_of(clock.looked_at(until, "until")),
    }
    if not by_label:
        return []
    rows = read(graph, _CANDIDATES_QUERY, {"labels": sorted(by_label), "limit": limit, **chosen})
    return [{"kind": label, "key": key, "state": shown(by_label[label], props)} for label, key, props in rows]
