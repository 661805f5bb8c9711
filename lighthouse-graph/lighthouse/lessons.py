"""Lessons: what was learned from episodes that ended, weighed by the episodes for it and against it.

learn(), weigh(), used() (and whether it helped), retire(); lesson() and lessons_about() read them.
(l:Lesson {id, statement, by, at, recorded_at, touched_at, support, against, used, helped, failed,
retired_at, retired_by, retired_why, ...values}) with (l)-[:SUPPORTED_BY {by, at}]->(:Episode),
(l)-[:CONTRADICTED_BY {by, at}]->(:Episode), (l)-[:USED_IN {by, at, helped}]->(:Episode) and
(l)-[:ABOUT]->(entity). Every property the library writes is a name the API reserves for lessons, so
every other value name is free. weight = support - against + helped - failed, computed when read.

Each write is one query that checks what it needs and writes only when all is well: the receipt comes
from its answer. FalkorDB runs one write of a graph at a time, so an episode is counted once.
"""

from __future__ import annotations

from functools import lru_cache

from redis.exceptions import ResponseError

from . import clock, references
from . import values as limits
from .episodes import closed_at
from .errors import Refused, WrongType
from .graphs import read
from .kinds import is_kind
from .write.failures import refused

KIND = "Lesson"
# The value names the API reserves for a lesson: what the library stores on it, and its read-back lists.
TIMES = ("at", "recorded_at", "touched_at", "retired_at")
COUNTS = ("weight", "support", "against", "used", "helped", "failed")
RESERVED = frozenset(("id", "statement", "by", "retired_by", "retired_why", "about", *TIMES, *COUNTS))
RESERVED |= {"supported_by", "contradicted_by"}
EPISODE_MISSING = "an episode it rests on does not exist or has not ended"
ENTITY_MISSING = "something it refers to does not exist"
RETIRED = "the lesson is retired"
WEIGHT_BOUND = 2**62  # beyond any weight a lesson can reach, and inside what a query parameter holds


def checked_statement(given: object) -> str:
    statement = limits.text(given, "a statement")
    if not statement.strip():
        raise Refused("a lesson needs a statement: it is blank")
    return statement


def checked_about(given: object) -> list[references.Reference]:
    """What a lesson is about: entities only, each named by its Kind, (Kind, key) (API 1.2: a label as
    text names no entity), each once."""
    found = references.parse_all(given, "about")
    for label, _key in found:
        if references.is_record(label):
            raise Refused(f"a lesson is about entities, not a {label}")
    for one in given:  # a list or tuple of pairs: parse_all() took it
        if not is_kind(one[0]):
            raise Refused(
                f"about: an entity is named by its Kind, (Kind, key), not {limits.printable(one[0])}"
            )
    return found


def checked_episode_ids(given: object, what: str = "supported_by") -> list[str]:
    """Episode ids, each once in the order given: a list or tuple of 1 to 200 names."""
    if type(given) not in (list, tuple):
        raise Refused(f"{what} must be a list of episode ids, not {type(given).__name__}")
    if not given:
        raise Refused(f"{what} is empty: a lesson rests on at least one episode that ended")
    if len(given) > limits.MAX_REFERENCES:
        raise Refused(f"{what} holds more than {limits.MAX_REFERENCES} episodes")
    return list(dict.fromkeys(limits.name(one, "an episode id") for one in given))


def _checked_flag(given: object, what: str, optional: bool = False) -> bool | None:
    if type(given) is bool or (optional and given is None):
        return given
    raise WrongType(f"{what} must be True, False{' or None' if optional else ''}, not {type(given).__name__}")


@lru_cache(maxsize=256)
def _learn_query(labels: tuple[str, ...], names: tuple[str, ...]) -> str:
    """Learns only when there is no lesson of the id, every episode exists and has ended, and every
    entity exists; the verdict says which held, so the receipt needs no second look. Plain lookups and
    the values in the CREATE itself: a CALL {} or a SET += cost FalkorDB 4.22 more than the write.
    labels and names are plain names (references.parse(), PLAIN_NAME), so they may go into the text."""
    parts = [
        "OPTIONAL MATCH (old:Lesson {id: $id}) "
        "OPTIONAL MATCH (rest_ep:Episode) WHERE rest_ep.id IN $episodes "
        f"WITH old, rest_ep, {closed_at('rest_ep')} AS rest_closed "
        "WITH old, collect(CASE WHEN rest_closed IS NULL THEN null ELSE rest_ep END) AS rests "
    ]
    carried = ["old", "rests"]
    for number, label in enumerate(labels):
        parts.append(
            f"OPTIONAL MATCH (about_{number}:`{label}`) WHERE about_{number}.key IN $about_{number} "
        )
        parts.append(f"WITH {', '.join(carried)}, collect(about_{number}) AS found_{number} ")
        carried.append(f"found_{number}")
    found = " + ".join(carried[2:]) or "[]"
    own = "".join(f", `{name}`: $value_{number}" for number, name in enumerate(names))
    parts.append(
        f"WITH old, rests, {found} AS found "
        "WITH old, rests, found, CASE WHEN old IS NOT NULL THEN 'exists' "
        "  WHEN size(rests) < size($episodes) THEN 'missing' "
        "  WHEN size(found) < $about_expected THEN 'absent' ELSE 'learned' END AS verdict "
        "FOREACH (go IN CASE WHEN verdict = 'learned' THEN [1] ELSE [] END | "
        "  CREATE (l:Lesson {id: $id, statement: $statement, by: $by, at: localdatetime($at), "
        "    recorded_at: localdatetime($now), touched_at: localdatetime($at), support: size(rests), "
        f"    against: 0, used: 0, helped: 0, failed: 0{own}}}) "
        "  FOREACH (rest IN rests | CREATE (l)-[:SUPPORTED_BY {by: $by, at: localdatetime($at)}]->(rest)) "
        "  FOREACH (subject IN found | CREATE (l)-[:ABOUT]->(subject))) "
        "RETURN verdict"
    )
    return "".join(parts)


def learn(
    graph,
    lesson_id: object,
    by: object,
    statement: object,
    supported_by: object,
    about: object = (),
    values: object = None,
    at: object = None,
) -> dict:
    """Stores what was learned from episodes that ended: {"id", "status": "learned" | "exists"}.

    supported_by: 1 to 200 ids of episodes that ended; about: the entities it is about; values: its own
    values (not a reserved name); at: when it was learned (now when not given). "exists" changes
    nothing. Arguments are checked first: a lesson_id or by that is not a name raises Refused ("must be
    text") and nothing is written. The content never raises: it gives {"id": None, "status", "reason"}
    ("invalid", "missing", "failed") and a stored WriteFailure. One round trip when it is learned.
    """
    checked_id = limits.name(lesson_id, "a lesson id")
    writer = limits.name(by, "by")
    content: object = {"statement": statement, "supported_by": supported_by, "about": about}
    content.update({"values": values, "at": at})
    try:
        content = given = limits.plain(content, "a lesson")
        text = checked_statement(given["statement"])
        episodes = checked_episode_ids(given["supported_by"])
        subjects = checked_about(given["about"])
        own = limits.record_values(given["values"], RESERVED, "lesson")
        moment = clock.written_at(given["at"])
        limits.measured([text, episodes, subjects, own], "a lesson")
    except Refused as error:
        return refused(graph, KIND, checked_id, content, error.reason, str(error), writer)
    keys: dict[str, list] = {}
    for label, key in subjects:
        keys.setdefault(label, []).append(key)
    params = {f"about_{number}": listed for number, listed in enumerate(keys.values())}
    params.update({f"value_{number}": item for number, item in enumerate(own.values())})
    params.update({"id": checked_id, "by": writer, "statement": text, "episodes": episodes})
    params.update({"about_expected": len(subjects), "at": moment, "now": clock.now()})
    query = _learn_query(tuple(keys), tuple(own))
    try:
        verdict = graph.query(query, params).result_set[0][0]
    except ResponseError as error:
        return refused(graph, KIND, checked_id, content, "failed", str(error), writer)
    if verdict in ("learned", "exists"):
        return {"id": checked_id, "status": verdict}
    reason = EPISODE_MISSING if verdict == "missing" else ENTITY_MISSING
    return refused(graph, KIND, checked_id, content, "missing", reason, writer)


_TOUCH = (
    "l.touched_at = CASE WHEN l.touched_at > localdatetime($at) THEN l.touched_at ELSE localdatetime($at) END"
)


def _weigh_query(edge: str, count: str) -> str:
    """Counts an ended episode once for or against a live lesson (edge and count: that side's), in the
    query that makes its edge. A text for each side, so one FOREACH writes: two, each behind its own
    condition, cost FalkorDB 4.22.1 0.024 ms more a call (0.215 against 0.191 ms: bench/README.md)."""
    return (
        "OPTIONAL MATCH (l:Lesson {id: $id}) "
        "OPTIONAL MATCH (ep:Episode {id: $episode}) "
        # Two single-type matches: one of SUPPORTED_BY|CONTRADICTED_BY costs FalkorDB 4.22 twice as much.
        "OPTIONAL MATCH (l)-[pro:SUPPORTED_BY]->(ep) "
        "OPTIONAL MATCH (l)-[con:CONTRADICTED_BY]->(ep) "
        f"WITH l, ep, pro, con, {closed_at('ep')} AS ended "
        "WITH l, ep, CASE WHEN l IS NULL THEN 'unknown' WHEN l.retired_at IS NOT NULL THEN 'retired' "
        "  WHEN ep IS NULL OR ended IS NULL THEN 'missing' WHEN pro IS NOT NULL OR con IS NOT NULL THEN 'exists' "
        "  ELSE 'weighed' END AS verdict "
        "FOREACH (go IN CASE WHEN verdict = 'weighed' THEN [1] ELSE [] END | "
        f"  CREATE (l)-[:{edge} {{by: $by, at: localdatetime($at)}}]->(ep) "
        f"  SET l.{count} = l.{count} + 1, {_TOUCH}) "
        "RETURN verdict"
    )


_WEIGHED = {True: _weigh_query("SUPPORTED_BY", "support"), False: _weigh_query("CONTRADICTED_BY", "against")}


def weigh(
    graph, lesson_id: object, by: object, episode_id: object, agrees: object, at: object = None
) -> dict:
    """Counts an episode that ended for the lesson (agrees=True) or against it: {"id", "status":
    "weighed" | "exists"}. An episode counts once, for or against.

    lesson_id, by and episode_id that are not names raise Refused ("must be text"); agrees that is not
    a bool raises WrongType; nothing is written then. Otherwise a refusal is a receipt with a stored
    WriteFailure: "missing" (the episode is unknown or has not ended), "retired", "unknown" (no such
    lesson), "invalid" (a bad at), "failed". One round trip when it is weighed.
    """
    checked_id = limits.name(lesson_id, "a lesson id")
    writer = limits.name(by, "by")
    episode = limits.name(episode_id, "an episode id")
    agreeing = _checked_flag(agrees, "agrees")
    params = {"id": checked_id, "episode": episode, "by": writer}
    content = {"episode": episode, "agrees": agreeing, "at": at}
    return _write(graph, _WEIGHED[agreeing], params, content, ("weighed", "exists"))


def _write(
    graph, query: str, params: dict, content: dict, done: tuple, missing: str = EPISODE_MISSING
) -> dict:
    """Sends the one query of weigh(), used() or retire() (its time content["at"]): the receipt from the
    verdict it returns, a refusal stored as a WriteFailure."""
    lesson_id, writer = params["id"], params["by"]
    try:
        content = limits.plain(content, "a write of a lesson")
        params["at"] = clock.written_at(content["at"])
        verdict = graph.query(query, params).result_set[0][0]
    except Refused as error:
        return refused(graph, KIND, lesson_id, content, error.reason, str(error), writer)
    except ResponseError as error:
        return refused(graph, KIND, lesson_id, content, "failed", str(error), writer)
    if verdict in done:
        return {"id": lesson_id, "status": verdict}
    reasons = {"unknown": f"there is no lesson {lesson_id!r}", "retired": RETIRED, "missing": missing}
    return refused(graph, KIND, lesson_id, content, verdict, reasons[verdict], writer)


# A use is counted once per episode, and judged once: a use without a verdict takes one later.
_USED = (
    "OPTIONAL MATCH (l:Lesson {id: $id}) "
    "OPTIONAL MATCH (ep:Episode {id: $episode}) "
    "OPTIONAL MATCH (l)-[use:USED_IN]->(ep) "
    "WITH l, ep, use, CASE WHEN l IS NULL THEN 'unknown' WHEN l.retired_at IS NOT NULL THEN 'retired' "
    "  WHEN ep IS NULL THEN 'missing' WHEN use IS NULL THEN 'used' "
    "  WHEN use.helped IS NULL AND $helped IS NOT NULL THEN 'judged' ELSE 'exists' END AS verdict "
    "FOREACH (go IN CASE WHEN verdict = 'used' THEN [1] ELSE [] END | "
    "  CREATE (l)-[made:USED_IN {by: $by, at: localdatetime($at)}]->(ep) "
    "  SET made.helped = $helped, l.used = l.used + 1) "
    "FOREACH (go IN CASE WHEN verdict = 'judged' THEN [1] ELSE [] END | SET use.helped = $helped) "
    "FOREACH (go IN CASE WHEN verdict IN ['used', 'judged'] AND $helped IS NOT NULL THEN [1] ELSE [] END | "
    "  SET l.helped = l.helped + CASE WHEN $helped THEN 1 ELSE 0 END, "
    "    l.failed = l.failed + CASE WHEN $helped THEN 0 ELSE 1 END) "
    "FOREACH (go IN CASE WHEN verdict IN ['used', 'judged'] THEN [1] ELSE [] END | SET " + _TOUCH + ") "
    "RETURN verdict"
)


def used(
    graph, lesson_id: object, by: object, episode_id: object, helped: object = None, at: object = None
) -> dict:
    """Counts a use of the lesson in an episode (open or ended): {"id", "status": "used" | "judged" |
    "exists"}. helped: True when it led to a correct result, False when not, None when not known yet.

    "used": this call made the use (and judged it when helped was given); "judged": the use was there
    without a verdict and this call gave it; "exists": nothing changed (a use is judged once). Names that
    are not names raise Refused; helped that is not None or a bool raises WrongType. Refusals: "missing"
    (no such episode), "retired", "unknown", "invalid" (a bad at), "failed", each with a WriteFailure.
    """
    checked_id = limits.name(lesson_id, "a lesson id")
    writer = limits.name(by, "by")
    episode = limits.name(episode_id, "an episode id")
    helping = _checked_flag(helped, "helped", optional=True)
    params = {"id": checked_id, "episode": episode, "helped": helping, "by": writer}
    content = {"episode": episode, "helped": helping, "at": at}
    return _write(graph, _USED, params, content, ("used", "judged", "exists"), "the episode does not exist")


_RETIRE = (
    "OPTIONAL MATCH (l:Lesson {id: $id}) "
    "WITH l, CASE WHEN l IS NULL THEN 'unknown' WHEN l.retired_at IS NOT NULL THEN 'exists' "
    "  ELSE 'retired' END AS verdict "
    "FOREACH (go IN CASE WHEN verdict = 'retired' THEN [1] ELSE [] END | "
    "  SET l.retired_at = localdatetime($at), l.retired_by = $by, l.retired_why = $why) "
    "RETURN verdict"
)


def retire(graph, lesson_id: object, by: object, why: object, at: object = None) -> dict:
    """Stops lessons_about() giving the lesson out: {"id", "status": "retired" | "exists"}.

    lesson_id, by and why must be names, else Refused ("must be text") and nothing is written. Retired
    again: "exists" (the first time, agent and why stay). Refusals: "unknown", "invalid" (a bad at),
    "failed", each with a WriteFailure.
    """
    checked_id = limits.name(lesson_id, "a lesson id")
    writer = limits.name(by, "by")
    reason = limits.name(why, "why")
    params = {"id": checked_id, "by": writer, "why": reason}
    return _write(graph, _RETIRE, params, {"why": reason, "at": at}, ("retired", "exists"))


def _stored(properties: dict) -> dict:
    """A lesson's stored properties as reads give them, times as aware datetimes, with its weight."""
    found = dict(properties)
    for name in TIMES:
        if name in found:
            found[name] = clock.from_store(found[name])
    found["weight"] = found["support"] - found["against"] + found["helped"] - found["failed"]
    return found


_LESSON = (
    "MATCH (l:Lesson {id: $id}) "
    "OPTIONAL MATCH (l)-[:SUPPORTED_BY]->(pro_ep:Episode) "
    "WITH l, collect(pro_ep.id) AS pros "
    "OPTIONAL MATCH (l)-[:CONTRADICTED_BY]->(con_ep:Episode) "
    "WITH l, pros, collect(con_ep.id) AS cons "
    "OPTIONAL MATCH (l)-[:ABOUT]->(subject) "
    "RETURN properties(l), pros, cons, "
    "  collect(CASE WHEN subject IS NULL THEN null ELSE [labels(subject), subject.id, subject.key] END)"
)


def lesson(graph, lesson_id: object) -> dict | None:
    """A lesson: its stored properties (id, statement, by, at, touched_at, recorded_at, support, against,
    used, helped, failed, its values, retired_* once retired), "weight", "supported_by" and
    "contradicted_by" (sorted episode ids) and "about" (reference pairs). None when there is none.
    A lesson_id that is not a name raises Refused. Nothing is written; database errors pass as
    ResponseError.
    """
    result = read(graph, _LESSON, {"id": limits.name(lesson_id, "a lesson id")})
    if not result:
        return None
    properties, pros, cons, about = result[0]
    found = _stored(properties)
    found["supported_by"], found["contradicted_by"] = sorted(pros), sorted(cons)
    found["about"] = references.stored_references(about)
    return found


def lessons_about(graph, kind: object, key: object, at_least: int = 1, since: object = None) -> list[dict]:
    """The lessons about an entity that are not retired and weigh at least at_least (any int), touched
    at or after since when given: heaviest first, then the one touched last, then by id. Each holds its
    stored properties and "weight". One round trip.

    Raises Refused for a bad key, an at_least that is not an int, or a since that is blank or not a
    time. Nothing is written; database errors pass as ResponseError.
    """
    label, checked_key = references.parse((kind, key))
    if references.is_record(label):
        raise Refused(f"a lesson is about entities, not a {label}")
    if type(at_least) is not int:
        raise Refused(f"at_least must be a whole number, not {type(at_least).__name__}")
    if at_least > WEIGHT_BOUND:
        return []
    after = None
    if since is not None:
        if not clock.given(since):
            raise Refused("since must be a time, not blank")
        after = clock.stamp_of(clock.looked_at(since))
    query = (
        # The entity first: with the filters on l in the same MATCH, FalkorDB 4.22 read every Lesson.
        f"MATCH {references.pattern(label, 'thing', '$key')} WITH thing MATCH (thing)<-[:ABOUT]-(l:Lesson) "
        "WHERE l.retired_at IS NULL "
        "WITH DISTINCT l "
        "WITH l, l.support - l.against + l.helped - l.failed AS weight "
        "WHERE weight >= $at_least AND ($since IS NULL OR l.touched_at >= localdatetime($since)) "
        "RETURN properties(l)"
    )
    params = {"key": checked_key, "at_least": max(at_least, -WEIGHT_BOUND), "since": after}
    found = [_stored(row[0]) for row in read(graph, query, params)]
    found.sort(key=lambda item: item["id"])
    found.sort(key=lambda item: (item["weight"], item["touched_at"]), reverse=True)
    return found
