"""Lessons: what was learned from episodes that ended, weighed by the episodes for it and against it.

learn() stores a statement with the ended episodes it was learned from; weigh() adds one for or against
it; used() counts a use that helped or not; retire() stops it being given out; lesson() and
lessons_about() read them back. (l:Lesson {id, statement, by, learned_at, touched_at, support, against,
helped, failed, weight, retired_at, retired_by}) with (l)-[:SUPPORTED_BY {by, at}]->(:Episode),
(l)-[:CONTRADICTED_BY {by, at}]->(:Episode), (l)-[:USED_IN {by, at, helped}]->(:Episode) and
(l)-[:ABOUT]->(entity). weight = support - against + helped - failed. Each count changes in the query
that makes its edge, and only when that query made it (MERGE ... ON CREATE SET): FalkorDB runs one
write of a graph at a time, so eight agents that add one episode at once count it once. (Only once the
graph has the relation type: writers that MERGE at once a type it never had can each create an edge.)

An episode counts once for a lesson: for it or against it, never both; a use is a third, separate
edge. touched_at is when the library last made one of those edges: since= in lessons_about() reads it.

Receipts: learned, weighed, unchanged, used, retired; refusals, each kept as a WriteFailure: invalid,
missing (an episode or an entity it is about does not exist), open (an episode has not ended), unknown
(no such lesson), conflict (another statement under the id, or an episode already counted the other
way), failed (FalkorDB refused the query).
"""

from __future__ import annotations

from redis.exceptions import ResponseError

from . import clock, references
from . import values as limits
from .episodes import checked_episode_id, checked_episodes, not_ended
from .graphs import read
from .values import Refused
from .write.failures import refuse

KIND = "Lesson"
MAX_LIMIT = 1_000
ATTEMPTS = 2  # a write that found nothing wrong on a second look is tried again once


def checked_statement(given: object) -> str:
    statement = limits.text(given, "a statement")
    if not statement.strip():
        raise Refused("a lesson needs a statement")
    return statement


def checked_about(given: object) -> list[references.Reference]:
    """What a lesson is about: entities only, each once."""
    found = references.parse_all(given, "about")
    for label, _key in found:
        if references.is_record(label):
            raise Refused(f"a lesson is about entities, not a {label}")
    return found


# Counts episodes for and against a lesson, and adds what it is about, only when every episode exists
# and has ended, every entity exists, the statement is the stored one, and no episode is already
# counted the other way. An edge that exists changes no count.
_COUNT = (
    "WITH found WHERE size(found) = $about_expected "
    "CALL { UNWIND $pro AS pro_id MATCH (pro_ep:Episode {id: pro_id}) WHERE pro_ep.closed_at IS NOT NULL "
    "  RETURN collect(pro_ep) AS pros } "
    "CALL { UNWIND $con AS con_id MATCH (con_ep:Episode {id: con_id}) WHERE con_ep.closed_at IS NOT NULL "
    "  RETURN collect(con_ep) AS cons } "
    "WITH found, pros, cons WHERE size(pros) = size($pro) AND size(cons) = size($con) "
    "OPTIONAL MATCH (old:Lesson {id: $id}) "
    "WITH found, pros, cons, old "
    "WHERE (old IS NULL AND $create) OR (old IS NOT NULL AND ($statement IS NULL OR old.statement = $statement)) "
    "CALL { WITH old OPTIONAL MATCH (old)-[:CONTRADICTED_BY]->(clash_pro:Episode) WHERE clash_pro.id IN $pro "
    "  RETURN count(clash_pro) AS clashes_pro } "
    "CALL { WITH old OPTIONAL MATCH (old)-[:SUPPORTED_BY]->(clash_con:Episode) WHERE clash_con.id IN $con "
    "  RETURN count(clash_con) AS clashes_con } "
    "CALL { WITH old OPTIONAL MATCH (old)-[:ABOUT]->(known) RETURN count(known) AS about_before } "
    "WITH found, pros, cons, old, about_before, old.support AS support_before, old.against AS against_before "
    "WHERE clashes_pro + clashes_con = 0 "
    "MERGE (l:Lesson {id: $id}) "
    "ON CREATE SET l.statement = $statement, l.by = $by, l.learned_at = localdatetime($now), "
    "  l.touched_at = localdatetime($now), l.support = 0, l.against = 0, l.helped = 0, l.failed = 0, "
    "  l.weight = 0 "
    "FOREACH (agreeing IN pros | MERGE (l)-[agree:SUPPORTED_BY]->(agreeing) "
    "  ON CREATE SET agree.by = $by, agree.at = localdatetime($now), l.support = l.support + 1, "
    "    l.weight = l.weight + 1, l.touched_at = localdatetime($now)) "
    "FOREACH (disagreeing IN cons | MERGE (l)-[disagree:CONTRADICTED_BY]->(disagreeing) "
    "  ON CREATE SET disagree.by = $by, disagree.at = localdatetime($now), l.against = l.against + 1, "
    "    l.weight = l.weight - 1, l.touched_at = localdatetime($now)) "
    "FOREACH (subject IN [pair IN found | pair[0]] | MERGE (l)-[:ABOUT]->(subject)) "
    "WITH l, old, about_before, support_before, against_before "
    "OPTIONAL MATCH (l)-[:ABOUT]->(known_after) "
    "RETURN old IS NULL, coalesce(support_before, 0), coalesce(against_before, 0), l.support, l.against, "
    "  about_before, count(known_after)"
)

# Why _COUNT wrote nothing: the lesson, each episode named, and those already counted the other way.
_WHY_NOT = (
    "OPTIONAL MATCH (l:Lesson {id: $id}) "
    "CALL { UNWIND $episodes AS wanted OPTIONAL MATCH (named:Episode {id: wanted}) "
    "  RETURN collect([wanted, named IS NOT NULL, named.closed_at IS NOT NULL]) AS seen } "
    "CALL { WITH l OPTIONAL MATCH (l)-[:CONTRADICTED_BY]->(against_ep:Episode) WHERE against_ep.id IN $pro "
    "  RETURN collect(against_ep.id) AS clash_pro } "
    "CALL { WITH l OPTIONAL MATCH (l)-[:SUPPORTED_BY]->(for_ep:Episode) WHERE for_ep.id IN $con "
    "  RETURN collect(for_ep.id) AS clash_con } "
    "RETURN l IS NOT NULL, l.statement, seen, clash_pro, clash_con"
)


def _why_not(graph, params: dict, about: list) -> tuple[str, str] | None:
    found = read(graph, _WHY_NOT, {**params, "episodes": params["pro"] + params["con"]})
    exists, statement, seen, clash_pro, clash_con = found[0]
    lesson_id = params["id"]
    if not exists and not params["create"]:
        return "unknown", f"there is no lesson {lesson_id!r}"
    if exists and params["statement"] is not None and statement != params["statement"]:
        return "conflict", f"the lesson {lesson_id!r} was learned with another statement"
    unusable = not_ended(seen)
    if unusable is not None:
        return unusable
    unknown_about = references.missing(graph, about)
    if unknown_about:
        shown = ", ".join(references.describe(one) for one in unknown_about[:5])
        return "missing", f"an entity the lesson is about does not exist: {shown}"
    if clash_pro or clash_con:
        shown = ", ".join(map(repr, (clash_pro + clash_con)[:5]))
        return "conflict", f"an episode already counted the other way for {lesson_id!r}: {shown}"
    return None


def weigh_in(graph, lesson_id, by, pro, con, statement=None, about=(), create=False, content=None) -> dict:
    """Counts checked episodes for (pro) and against (con) a lesson in one query; creates it when asked.

    Every argument is checked already: learn(), weigh() and promote() call it. statement None: any.
    """
    about = list(about)
    clause, params = references.finding(about) if about else ("WITH [] AS found ", {})
    params.update(
        {
            "about_expected": len(about),
            "id": lesson_id,
            "by": by,
            "statement": statement,
            "pro": pro,
            "con": con,
            "create": create,
            "now": clock.now(),
        }
    )
    for _attempt in range(ATTEMPTS):
        try:
            result = graph.query(clause + _COUNT, params).result_set
        except ResponseError as error:
            return refuse(graph, KIND, lesson_id, content, "failed", str(error), by)
        if result:
            created, support_before, against_before, support, against, about_before, about_after = result[0]
            if created:
                return {"id": lesson_id, "status": "learned"}
            changed = (support, against, about_after) != (support_before, against_before, about_before)
            return {"id": lesson_id, "status": "weighed" if changed else "unchanged"}
        why = _why_not(graph, params, about)
        if why is not None:
            return refuse(graph, KIND, lesson_id, content, why[0], why[1], by)
    return refuse(graph, KIND, lesson_id, content, "failed", "the lesson changed while it was written", by)


def learn(
    graph,
    id: object,
    by: object,
    statement: object,
    supported_by: object = None,
    about: object = None,
    against: object = None,
) -> dict:
    """Stores what was learned from episodes that ended: {"id", "status": "learned"}.

    supported_by: the ids of the episodes it was learned from, at least one, each of which must exist
    ("missing") and have ended ("open"). against: episodes that ended and contradict it. about: the
    entities it is about, (Kind, key) or (label, key). The same id again with the same statement weighs
    in the episodes not counted yet and adds what it is about: "weighed", or "unchanged" when there was
    nothing new. Another statement under the id is a "conflict". Refusals are kept as WriteFailures.
    """
    content = {"id": id, "by": by, "statement": statement, "supported_by": supported_by}
    content.update({"about": about, "against": against})
    try:
        lesson_id = limits.name(id, "a lesson id")
        writer = limits.name(by, "by")
        checked = checked_statement(statement)
        pro = checked_episodes(supported_by, "supported_by")
        if not pro:
            raise Refused("a lesson needs at least one episode that ended: supported_by is empty")
        con = checked_episodes(against, "against")
        both = set(pro) & set(con)
        if both:
            raise Refused(f"an episode cannot be for and against a lesson: {sorted(both)[0]!r}")
        if len(pro) + len(con) > limits.MAX_REFERENCES:
            raise Refused(f"a call names at most {limits.MAX_REFERENCES} episodes")
        subjects = checked_about(about)
        limits.measured({"statement": checked, "pro": pro, "con": con, "about": subjects}, "a lesson")
    except Refused as error:
        return refuse(graph, KIND, id, content, error.reason, str(error), by)
    return weigh_in(graph, lesson_id, writer, pro, con, checked, subjects, True, content)


def _checked_verdict(id: object, by: object, episode: object, verdict: object, what: str) -> tuple:
    """What weigh() and used() are given: a lesson id, the agent, an episode id, and the verdict (what),
    True or False."""
    lesson_id = limits.name(id, "a lesson id")
    writer = limits.name(by, "by")
    episode_id = checked_episode_id(episode)
    if not isinstance(verdict, bool):
        raise Refused(f"{what} is True or False, not {type(verdict).__name__}")
    return lesson_id, writer, episode_id, verdict


def weigh(graph, id: object, by: object, episode: object, agrees: object) -> dict:
    """Counts one more episode that ended for the lesson (agrees=True) or against it: "weighed".

    The episode counted already the same way: "unchanged"; the other way: "conflict". No such lesson:
    "unknown". Refusals are kept as WriteFailures.
    """
    content = {"id": id, "by": by, "episode": episode, "agrees": agrees}
    try:
        lesson_id, writer, episode_id, agreeing = _checked_verdict(id, by, episode, agrees, "agrees")
    except Refused as error:
        return refuse(graph, KIND, id, content, error.reason, str(error), by)
    pro, con = ([episode_id], []) if agreeing else ([], [episode_id])
    return weigh_in(graph, lesson_id, writer, pro, con, content=content)


# Counts a use once per episode: the edge and the count are made in one query, and only by the query
# that made the edge. It gives back what a use before said, to compare.
_USED = (
    "MATCH (l:Lesson {id: $id}) "
    "MATCH (ep:Episode {id: $episode}) WHERE ep.closed_at IS NOT NULL "
    "OPTIONAL MATCH (l)-[before:USED_IN]->(ep) "
    "WITH l, ep, before.helped AS helped_before, before IS NULL AS fresh "
    "MERGE (l)-[use:USED_IN]->(ep) "
    "ON CREATE SET use.by = $by, use.at = localdatetime($now), use.helped = $helped, "
    "  l.helped = l.helped + CASE WHEN $helped THEN 1 ELSE 0 END, "
    "  l.failed = l.failed + CASE WHEN $helped THEN 0 ELSE 1 END, "
    "  l.weight = l.weight + CASE WHEN $helped THEN 1 ELSE -1 END, l.touched_at = localdatetime($now) "
    "RETURN fresh, helped_before"
)


def used(graph, id: object, by: object, episode: object, helped: object) -> dict:
    """Counts a use of the lesson in an episode that ended: helped=True when it led to a correct result.

    {"id", "status": "used"}; once per episode: the same again is "unchanged", the other way a
    "conflict". Refusals (invalid, unknown, missing, open, conflict, failed) are kept as WriteFailures.
    """
    content = {"id": id, "by": by, "episode": episode, "helped": helped}
    try:
        lesson_id, writer, episode_id, helping = _checked_verdict(id, by, episode, helped, "helped")
    except Refused as error:
        return refuse(graph, KIND, id, content, error.reason, str(error), by)
    params = {"id": lesson_id, "episode": episode_id, "by": writer, "helped": helping, "now": clock.now()}
    try:
        result = graph.query(_USED, params).result_set
    except ResponseError as error:
        return refuse(graph, KIND, lesson_id, content, "failed", str(error), writer)
    if not result:
        why = _why_not(
            graph, {**params, "statement": None, "pro": [episode_id], "con": [], "create": False}, []
        )
        status, reason = why or ("failed", "the lesson or the episode changed while it was written")
        return refuse(graph, KIND, lesson_id, content, status, reason, writer)
    fresh, helped_before = result[0]
    if fresh:
        return {"id": lesson_id, "status": "used"}
    if helped_before != helping:
        reason = f"the use of {lesson_id!r} in {episode_id!r} was counted the other way"
        return refuse(graph, KIND, lesson_id, content, "conflict", reason, writer)
    return {"id": lesson_id, "status": "unchanged"}


_RETIRE = (
    "MATCH (l:Lesson {id: $id}) "
    "WITH l, l.retired_at IS NOT NULL AS before "
    "FOREACH (mark IN CASE WHEN before THEN [] ELSE [1] END | "
    "  SET l.retired_at = localdatetime($now), l.retired_by = $by) "
    "RETURN before"
)


def retire(graph, id: object, by: object) -> dict:
    """The lesson is no longer given out by lessons_about(): {"id", "status": "retired"}, once.

    Retired again: "unchanged" (the first time and agent stay). No such lesson: "unknown".
    """
    content = {"id": id, "by": by}
    try:
        lesson_id = limits.name(id, "a lesson id")
        writer = limits.name(by, "by")
    except Refused as error:
        return refuse(graph, KIND, id, content, error.reason, str(error), by)
    try:
        result = graph.query(_RETIRE, {"id": lesson_id, "by": writer, "now": clock.now()}).result_set
    except ResponseError as error:
        return refuse(graph, KIND, lesson_id, content, "failed", str(error), writer)
    if not result:
        return refuse(graph, KIND, lesson_id, content, "unknown", f"there is no lesson {lesson_id!r}", writer)
    return {"id": lesson_id, "status": "unchanged" if result[0][0] else "retired"}


# From a bound `l`: its episodes and what it is about, each list from its own aggregation.
_DETAILS = (
    "OPTIONAL MATCH (l)-[:SUPPORTED_BY]->(pro_ep:Episode) "
    "WITH l, collect(pro_ep.id) AS pros "
    "OPTIONAL MATCH (l)-[:CONTRADICTED_BY]->(con_ep:Episode) "
    "WITH l, pros, collect(con_ep.id) AS cons "
    "OPTIONAL MATCH (l)-[use:USED_IN]->(use_ep:Episode) "
    "WITH l, pros, cons, collect(CASE WHEN use_ep IS NULL THEN null ELSE [use_ep.id, use.helped] END) AS uses "
    "OPTIONAL MATCH (l)-[:ABOUT]->(subject) "
    "WITH l, pros, cons, uses, "
    "  collect(CASE WHEN subject IS NULL THEN null ELSE [labels(subject), subject.id, subject.key] END) AS about "
    "RETURN l.id, l.statement, l.by, l.learned_at, l.touched_at, l.support, l.against, l.helped, l.failed, "
    "  l.weight, l.retired_at, l.retired_by, pros, cons, uses, about"
)


_FIELDS = ("id", "statement", "by", "learned_at", "touched_at", "support", "against", "helped", "failed")
_FIELDS += ("weight", "retired_at", "retired_by")


def _lesson(row: list) -> dict:
    found = dict(zip(_FIELDS, row[: len(_FIELDS)], strict=True))
    pros, cons, uses, about = row[len(_FIELDS) :]
    for moment in ("learned_at", "touched_at", "retired_at"):
        found[moment] = clock.from_store(found[moment])
    found["supported_by"], found["against_episodes"] = sorted(pros), sorted(cons)
    found["used_in"] = [
        {"episode": one, "helped": good} for one, good in sorted(item for item in uses if item)
    ]
    found["about"] = references.shown(about)
    return found


def lesson(graph, id: object) -> dict | None:
    """A lesson: id, statement, by, learned_at, touched_at, weight and its four counts, supported_by,
    against_episodes (episode ids, sorted), used_in ({episode, helped}), about (references), retired_at,
    retired_by. None when there is no such lesson.
    """
    result = read(graph, "MATCH (l:Lesson {id: $id}) " + _DETAILS, {"id": limits.name(id, "a lesson id")})
    return _lesson(result[0]) if result else None


def _checked_count(given: object, what: str, low: int, high: int) -> int:
    if isinstance(given, bool) or not isinstance(given, int) or not low <= given <= high:
        raise Refused(f"{what} is a whole number from {low:,} to {high:,}")
    return int(given)


def lessons_about(
    graph, kind: object, key: object, at_least: int = 1, since: object = None, limit: int = 20
) -> list[dict]:
    """The lessons about an entity that are not retired and weigh at least at_least, heaviest first,
    then by id; each as lesson() gives it. since leaves out those that no episode supported,
    contradicted or used since that time. One round trip.
    """
    label, checked_key = references.parse((kind, key))
    if references.is_record(label):
        raise Refused(f"a lesson is about entities, not a {label}")
    weight = _checked_count(at_least, "at_least", *limits.INT_RANGE)
    count = _checked_count(limit, "limit", 1, MAX_LIMIT)
    try:
        after = None if since is None else clock.stamp(since)
    except clock.TimeError as error:
        raise Refused(str(error)) from None
    query = (
        # The entity first: with the filters on l in the same MATCH, FalkorDB 4.22 read every Lesson.
        f"MATCH {references.pattern(label, 'thing', '$key')} WITH thing MATCH (thing)<-[:ABOUT]-(l:Lesson) "
        "WHERE l.retired_at IS NULL AND l.weight >= $at_least "
        "  AND ($since IS NULL OR l.touched_at >= localdatetime($since)) "
        "WITH DISTINCT l ORDER BY l.weight DESC, l.id LIMIT $limit " + _DETAILS
    )
    params = {"key": checked_key, "at_least": weight, "since": after, "limit": count}
    found = [_lesson(row) for row in read(graph, query, params)]
    return sorted(found, key=lambda item: (-item["weight"], item["id"]))
