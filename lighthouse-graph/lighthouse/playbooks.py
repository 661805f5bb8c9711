"""Playbooks: what to do when a situation comes again, drawn from episodes that ended, with four guards.

write_playbook() writes a version; playbooks_for() gives the playbooks whose trigger fits a situation;
ran() judges a run; switch() turns a playbook off or on; playbook() reads one.

One node per version: (p:Playbook {id: "<name>#<version>", name, version, trigger, steps (canonical
JSON text), t_<name> per trigger value, by, written_at, needs, enabled, switched_by, switched_at,
failures_in_row, runs, succeeded, failed}), (p)-[:DRAWN_FROM]->(:Episode), (newer)-[:REPLACES]->(older),
and a run (p)-[:RAN_IN {by, at, succeeded}]->(:Episode).

The four guards: a version needs evidence of at least `needs` episodes that ended (3 by default); a
version is never changed, a new one replaces it; a run is judged once per version and episode; three
failed runs in a row switch the version off (switched_by "library"). Steps that were switched off are
not written again.

Receipts: written, unchanged, judged, switched; refusals, each kept as a WriteFailure: invalid, missing
(an episode does not exist), open (an episode has not ended), switched_off (these steps were switched
off), unknown (no such playbook), conflict (a run judged the other way before), failed.
"""

from __future__ import annotations

import json

from redis.exceptions import ResponseError

from . import clock
from . import values as limits
from .episodes import checked_episodes, not_ended
from .graphs import read
from .kinds import PLAIN_NAME
from .values import Refused
from .write.failures import refuse

KIND = "Playbook"
NEEDS = 3  # episodes a version needs by default
FAILURES_TO_SWITCH_OFF = 3
SWITCHED_BY_LIBRARY = "library"
TRIGGER_PREFIX = "t_"
MAX_STEPS = limits.MAX_VALUES
MAX_LIMIT = 1_000
MAX_NAME = limits.MAX_NAME - 12  # room for "#" and the version in the id


def checked_name(given: object) -> str:
    name = limits.name(given, "a playbook name")
    if "#" in name:
        raise Refused("a playbook name cannot hold #: it separates the name from the version in an id")
    if len(name) > MAX_NAME:
        raise Refused(f"a playbook name is at most {MAX_NAME} characters")
    return name


def checked_reference(given: object) -> tuple[str | None, str | None]:
    """(id, None) for "name#version", (None, name) for a name: the newest version."""
    if isinstance(given, str) and "#" in given:
        name, _mark, version = given.rpartition("#")
        checked_name(name)
        if not version.isdigit() or not version.isascii() or version.startswith("0"):
            raise Refused(f"a playbook id is name#version, with a version from 1: {given[:80]!r}")
        return f"{name}#{int(version)}", None
    return None, checked_name(given)


def _plain_key(given: object, what: str) -> str:
    if not isinstance(given, str) or not PLAIN_NAME.match(given):
        shown = ascii(given[:80]) if isinstance(given, str) else type(given).__name__
        raise Refused(f"{what} must be a plain name (a letter, then letters, digits or _): {shown}")
    return str.__str__(given)


def checked_conditions(given: object, what: str, allow_empty: bool = False) -> dict:
    """A trigger or a situation: plain names to single values (text, number, bool), at most 200."""
    if not isinstance(given, dict):
        raise Refused(f"{what} must be a dict of names to values, not {type(given).__name__}")
    if not given and not allow_empty:
        raise Refused(f"{what} needs at least one condition: an empty one would fit every situation")
    if len(given) > limits.MAX_VALUES:
        raise Refused(f"{what} holds more than {limits.MAX_VALUES} conditions")
    checked = {}
    for name, item in given.items():
        plain = _plain_key(name, f"a name in {what}")
        if isinstance(item, list | tuple | dict) or item is None:
            raise Refused(f"the value {plain!r} of {what} is text, a number or a bool")
        checked[plain] = limits.scalar(item, f"the value {plain!r} of {what}")
    return checked


def checked_steps(given: object) -> list[dict]:
    """Ordered steps: a list of 1 to 200 dicts, each of plain names to stored values."""
    if not isinstance(given, list | tuple):
        raise Refused(f"steps must be a list of dicts, not {type(given).__name__}")
    if not given or len(given) > MAX_STEPS:
        raise Refused(f"a playbook has 1 to {MAX_STEPS} steps")
    checked = []
    for place, step in enumerate(given, start=1):
        if not isinstance(step, dict) or not step:
            raise Refused(f"step {place} must be a dict with at least one value")
        if len(step) > limits.MAX_VALUES:
            raise Refused(f"step {place} holds more than {limits.MAX_VALUES} values")
        checked.append(
            {
                _plain_key(name, f"a name in step {place}"): limits.value(item, f"the value of step {place}")
                for name, item in step.items()
            }
        )
    return checked


def canonical(given: object) -> str:
    """One JSON text for one content: names sorted, no spaces. 1, 1.0 and true stay apart."""
    return json.dumps(given, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _episodes_why(graph, wanted: list[str]) -> tuple[str, str]:
    seen = read(
        graph,
        "UNWIND $wanted AS wanted OPTIONAL MATCH (named:Episode {id: wanted}) "
        "RETURN wanted, named IS NOT NULL, named.closed_at IS NOT NULL",
        {"wanted": wanted},
    )
    return not_ended(seen) or ("failed", "the episodes changed while the playbook was written")


# Reads the versions of the name and writes the next one in the same query, so two writers never take
# one version. The verdict says why nothing was written.
_WRITE = (
    "CALL { UNWIND $episodes AS drawn_id MATCH (drawn_ep:Episode {id: drawn_id}) "
    "  WHERE drawn_ep.closed_at IS NOT NULL RETURN collect(drawn_ep) AS drawn } "
    "OPTIONAL MATCH (prior:Playbook {name: $name}) "
    "WITH drawn, collect(prior) AS priors "
    "WITH drawn, priors, reduce(top = null, one IN priors | "
    "  CASE WHEN top IS NULL OR one.version > top.version THEN one ELSE top END) AS newest "
    "WITH drawn, newest, coalesce(newest.version, 0) + 1 AS next_version, "
    "  CASE WHEN size(drawn) < size($episodes) THEN 'missing' "
    "    WHEN newest IS NOT NULL AND newest.enabled AND newest.trigger = $trigger "
    "      AND newest.steps = $steps THEN 'unchanged' "
    "    WHEN any(off IN priors WHERE off.enabled = false AND off.steps = $steps) THEN 'switched_off' "
    "    ELSE 'written' END AS verdict "
    "FOREACH (go IN CASE WHEN verdict = 'written' THEN [1] ELSE [] END | "
    "  CREATE (p:Playbook {id: $name + '#' + toString(next_version), name: $name, version: next_version, "
    "    trigger: $trigger, steps: $steps, by: $by, written_at: localdatetime($now), needs: $needs, "
    "    enabled: true, failures_in_row: 0, runs: 0, succeeded: 0, failed: 0}) "
    "  SET p += $conditions "
    "  FOREACH (source IN drawn | CREATE (p)-[:DRAWN_FROM]->(source)) "
    "  FOREACH (older IN CASE WHEN newest IS NULL THEN [] ELSE [newest] END | "
    "    CREATE (p)-[:REPLACES]->(older))) "
    "RETURN verdict, next_version, newest.id, newest.version"
)


def write_playbook(
    graph,
    name: object,
    by: object,
    trigger: object,
    steps: object,
    supported_by: object = None,
    needs: object = NEEDS,
) -> dict:
    """Writes a version of a playbook: {"id": "name#version", "version", "status": "written"}.

    trigger: the situation it is for, plain names to single values (text, number, bool). steps: a list
    of dicts, in order. supported_by: the episodes it was drawn from, at least `needs` of them, each of
    which must exist ("missing") and have ended ("open"). Other trigger or steps than the newest version
    write the next version, which replaces it; the same again is "unchanged". Steps of a version that
    was switched off are refused ("switched_off"). Refusals are kept as WriteFailures.
    """
    content = {"name": name, "by": by, "trigger": trigger, "steps": steps}
    content.update({"supported_by": supported_by, "needs": needs})
    try:
        playbook_name = checked_name(name)
        writer = limits.name(by, "by")
        conditions = checked_conditions(trigger, "a trigger")
        ordered = checked_steps(steps)
        if isinstance(needs, bool) or not isinstance(needs, int) or not 1 <= needs <= limits.MAX_REFERENCES:
            raise Refused(f"needs is a whole number from 1 to {limits.MAX_REFERENCES}")
        drawn = checked_episodes(supported_by, "supported_by")
        if len(drawn) < needs:
            raise Refused(f"a playbook needs at least {needs} episodes that ended, not {len(drawn)}")
        limits.measured({"trigger": conditions, "steps": ordered, "drawn": drawn}, "a playbook")
    except Refused as error:
        return refuse(graph, KIND, name, content, error.reason, str(error), by)
    params = {
        "episodes": drawn,
        "name": playbook_name,
        "by": writer,
        "trigger": canonical(conditions),
        "steps": canonical(ordered),
        "conditions": {TRIGGER_PREFIX + key: item for key, item in conditions.items()},
        "needs": needs,
        "now": clock.now(),
    }
    try:
        verdict, version, newest_id, newest_version = graph.query(_WRITE, params).result_set[0]
    except ResponseError as error:
        return refuse(graph, KIND, playbook_name, content, "failed", str(error), writer)
    if verdict == "written":
        return {"id": f"{playbook_name}#{version}", "version": version, "status": "written"}
    if verdict == "unchanged":
        return {"id": newest_id, "version": newest_version, "status": "unchanged"}
    if verdict == "switched_off":
        reason = f"these steps of {playbook_name!r} were switched off: they are not written again"
        return refuse(graph, KIND, playbook_name, content, "switched_off", reason, writer)
    status, reason = _episodes_why(graph, drawn)
    return refuse(graph, KIND, playbook_name, content, status, reason, writer)


def _finding(reference: object, into: str) -> tuple[str, dict]:
    """Cypher that binds `into` to the version named: an id, or the newest version of a name."""
    playbook_id, name = checked_reference(reference)
    if playbook_id is not None:
        return f"MATCH ({into}:Playbook {{id: $playbook}}) ", {"playbook": playbook_id}
    return (
        f"MATCH (named:Playbook {{name: $playbook}}) WITH named ORDER BY named.version DESC LIMIT 1 "
        f"WITH named AS {into} ",
        {"playbook": name},
    )


# Judges a run once: the edge and the counts are made together, and only when this query made the
# edge; the third failure in a row switches the version off in the same query.
_RAN = (
    "MATCH (ep:Episode {id: $episode}) WHERE ep.closed_at IS NOT NULL "
    "OPTIONAL MATCH (p)-[before:RAN_IN]->(ep) "
    "WITH p, ep, before IS NULL AS fresh, before.succeeded AS judged_before "
    "FOREACH (judge IN CASE WHEN fresh THEN [1] ELSE [] END | "
    "  CREATE (p)-[:RAN_IN {by: $by, at: localdatetime($now), succeeded: $succeeded}]->(ep) "
    "  SET p.runs = p.runs + 1, "
    "    p.succeeded = p.succeeded + CASE WHEN $succeeded THEN 1 ELSE 0 END, "
    "    p.failed = p.failed + CASE WHEN $succeeded THEN 0 ELSE 1 END, "
    "    p.failures_in_row = CASE WHEN $succeeded THEN 0 ELSE p.failures_in_row + 1 END) "
    "WITH p, fresh, judged_before "
    "FOREACH (off IN CASE WHEN fresh AND p.enabled AND p.failures_in_row >= $limit THEN [1] ELSE [] END | "
    "  SET p.enabled = false, p.switched_by = $library, p.switched_at = localdatetime($now)) "
    "RETURN p.id, fresh, judged_before, p.enabled"
)


def ran(graph, playbook_id: object, episode: object, succeeded: object, by: object) -> dict:
    """Judges a run of a playbook in an episode that ended: {"id", "status": "judged", "enabled"}.

    playbook_id: "name#version", or a name for its newest version. Judged once per version and episode:
    the same again is "unchanged", the other way a "conflict". The third failure in a row switches the
    version off (enabled False, switched_by "library"). Refusals are kept as WriteFailures.
    """
    content = {"playbook": playbook_id, "episode": episode, "succeeded": succeeded, "by": by}
    try:
        clause, params = _finding(playbook_id, "p")
        writer = limits.name(by, "by")
        episode_id = checked_episodes([episode], "episode")[0]
        if not isinstance(succeeded, bool):
            raise Refused(f"succeeded is True or False, not {type(succeeded).__name__}")
    except Refused as error:
        return refuse(graph, KIND, playbook_id, content, error.reason, str(error), by)
    params.update(
        {
            "episode": episode_id,
            "by": writer,
            "succeeded": bool(succeeded),
            "now": clock.now(),
            "limit": FAILURES_TO_SWITCH_OFF,
            "library": SWITCHED_BY_LIBRARY,
        }
    )
    try:
        result = graph.query(clause + _RAN, params).result_set
    except ResponseError as error:
        return refuse(graph, KIND, playbook_id, content, "failed", str(error), writer)
    if not result:
        if not read(graph, clause + "RETURN p.id", params):
            reason = f"there is no playbook {params['playbook']!r}"
            return refuse(graph, KIND, playbook_id, content, "unknown", reason, writer)
        status, reason = _episodes_why(graph, [episode_id])
        return refuse(graph, KIND, playbook_id, content, status, reason, writer)
    found_id, fresh, judged_before, enabled = result[0]
    if fresh:
        return {"id": found_id, "status": "judged", "enabled": enabled}
    if judged_before != succeeded:
        reason = f"the run of {found_id!r} in {episode_id!r} was judged the other way"
        return refuse(graph, KIND, found_id, content, "conflict", reason, writer)
    return {"id": found_id, "status": "unchanged", "enabled": enabled}


_SWITCH = (
    "WITH p, p.enabled AS was "
    "FOREACH (flip IN CASE WHEN was = $on THEN [] ELSE [1] END | "
    "  SET p.enabled = $on, p.switched_by = $by, p.switched_at = localdatetime($now), "
    "    p.failures_in_row = CASE WHEN $on THEN 0 ELSE p.failures_in_row END) "
    "RETURN p.id, was"
)


def switch(graph, playbook_id: object, on: object, by: object) -> dict:
    """Switches a version on or off: {"id", "status": "switched", "enabled"}; as it is already:
    "unchanged". A name switches its newest version. Switching on starts the count of failures in a row
    again. Only the last switch is kept (switched_by, switched_at). No such playbook: "unknown".
    """
    content = {"playbook": playbook_id, "on": on, "by": by}
    try:
        clause, params = _finding(playbook_id, "p")
        writer = limits.name(by, "by")
        if not isinstance(on, bool):
            raise Refused(f"on is True or False, not {type(on).__name__}")
    except Refused as error:
        return refuse(graph, KIND, playbook_id, content, error.reason, str(error), by)
    params.update({"on": bool(on), "by": writer, "now": clock.now()})
    try:
        result = graph.query(clause + _SWITCH, params).result_set
    except ResponseError as error:
        return refuse(graph, KIND, playbook_id, content, "failed", str(error), writer)
    if not result:
        reason = f"there is no playbook {params['playbook']!r}"
        return refuse(graph, KIND, playbook_id, content, "unknown", reason, writer)
    found_id, was = result[0]
    return {"id": found_id, "status": "unchanged" if was == on else "switched", "enabled": bool(on)}


# From a bound `p`: the episodes it was drawn from and the version it replaces.
_DETAILS = (
    "OPTIONAL MATCH (p)-[:DRAWN_FROM]->(source:Episode) "
    "WITH p, collect(source.id) AS sources "
    "OPTIONAL MATCH (p)-[:REPLACES]->(older:Playbook) "
    "RETURN p.id, p.name, p.version, p.trigger, p.steps, p.by, p.written_at, p.needs, p.enabled, "
    "  p.switched_by, p.switched_at, p.failures_in_row, p.runs, p.succeeded, p.failed, sources, older.id"
)
_FIELDS = ("id", "name", "version", "trigger", "steps", "by", "written_at", "needs", "enabled")
_FIELDS += ("switched_by", "switched_at", "failures_in_row", "runs", "succeeded", "failed")


def _playbook(row: list) -> dict:
    found = dict(zip(_FIELDS, row[: len(_FIELDS)], strict=True))
    found["trigger"] = json.loads(found["trigger"])
    found["steps"] = json.loads(found["steps"])
    found["written_at"] = clock.from_store(found["written_at"])
    found["switched_at"] = clock.from_store(found["switched_at"])
    found["drawn_from"] = sorted(row[-2])
    found["replaces"] = row[-1]
    return found


def playbook(graph, playbook_id: object) -> dict | None:
    """A version: id, name, version, trigger, steps, by, written_at, needs, enabled, switched_by,
    switched_at, failures_in_row, runs, succeeded, failed, drawn_from (episode ids), replaces (the id
    of the version before, or None). A name gives its newest version. None when there is none.
    """
    clause, params = _finding(playbook_id, "p")
    result = read(graph, clause + _DETAILS, params)
    return _playbook(result[0]) if result else None


# The newest enabled version of each name, kept when each of its trigger's names is in the situation
# with an equal value of the same type: the query does the comparing, so 1 does not fit true or "1".
_FOR = (
    "MATCH (enabled_version:Playbook) WHERE enabled_version.enabled = true "
    "WITH enabled_version.name AS name, collect(enabled_version) AS versions "
    "WITH reduce(top = null, one IN versions | "
    "  CASE WHEN top IS NULL OR one.version > top.version THEN one ELSE top END) AS p "
    "WITH p, [prop IN keys(p) WHERE prop STARTS WITH $prefix] AS conditions "
    "WHERE size(conditions) > 0 AND all(prop IN conditions WHERE prop IN $given "
    "  AND p[prop] = $situation[prop] AND typeOf(p[prop]) = typeOf($situation[prop])) "
    "OPTIONAL MATCH (p)-[:DRAWN_FROM]->(evidence:Episode) "
    "WITH p, size(conditions) AS specificity, count(evidence) AS drawn "
    "WITH p, specificity, drawn ORDER BY specificity DESC, drawn DESC, p.name LIMIT $limit "
)


def playbooks_for(graph, situation: object, limit: int = 20) -> list[dict]:
    """The playbooks for a situation: of each name, its newest version that is switched on, when every
    condition of its trigger is in the situation with an equal value of the same type (true does not fit
    1, nor "1" fit 1, nor 1.0 fit 1). The most specific first (the most conditions), then the one drawn
    from the most episodes, then by name; each as playbook() gives it. One round trip.
    """
    given = checked_conditions(situation, "a situation", allow_empty=True)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise Refused(f"limit is a whole number from 1 to {MAX_LIMIT:,}")
    params = {
        "prefix": TRIGGER_PREFIX,
        "given": [TRIGGER_PREFIX + key for key in given],
        "situation": {TRIGGER_PREFIX + key: item for key, item in given.items()},
        "limit": limit,
    }
    found = [_playbook(row) for row in read(graph, _FOR + _DETAILS, params)]
    # The query chose them in this order; an aggregation after it need not keep it.
    return sorted(found, key=lambda item: (-len(item["trigger"]), -len(item["drawn_from"]), item["name"]))
