"""Playbooks: what to do when a situation comes again, drawn from episodes that ended.

write_playbook() writes the next version of a name and switches the one before off; playbooks_for()
gives the enabled playbooks whose trigger fits a situation; ran() records a run of the newest version
(and judges it once); switch() turns the newest version on or off; playbook() reads a version.

One node per version: (p:Playbook {id: "<name>#<version>", name, version, by, at, recorded_at, enabled,
runs, succeeded, failed, failed_in_a_row, stopped_at, switched_at, switched_by}), its trigger
(p)-[:HAS]->(:Trigger {...its properties}), its steps (p)-[:HAS]->(:Step {seq, ...its values}) numbered
from 1, and the episodes it was drawn from (p)-[:SUPPORTED_BY]->(:Episode); (newer)-[:REPLACES]->(older),
and a run (p)-[:RAN_IN {by, at, succeeded}]->(:Episode). Beside them on the version, under names no value
can take: `lh.trigger` and `lh.steps` (canonical JSON, what reads give back and promotion compares), one
`lh.when.<name>` per trigger property (the canonical JSON of its value, which is what playbooks_for()
compares, so true never fits 1, nor 3 fit "3") and `lh.off` (switched off by switch() or by failures:
those steps are not promoted again).

The guards: a version rests on at least `needs` episodes that ended (3 by default); a version is never
changed, the next one replaces it; a run is judged once; stop_after failures in a row switch it off.
"""

from __future__ import annotations

import json

from redis.exceptions import ResponseError

from . import clock
from . import values as limits
from .episodes import closed_at
from .errors import Refused, WrongType
from .graphs import read
from .kinds import PLAIN_NAME
from .write.failures import refused

KIND = "Playbook"
NEEDS = 3  # episodes a version rests on by default
STOP_AFTER = 3  # failures in a row that switch a playbook off by default
MAX_TRIGGER = 20  # properties of a trigger
MAX_STEPS = 50
WHEN = "lh.when."  # the prefix of a trigger property as the query compares it
TRIGGER, STEPS, OFF = "lh.trigger", "lh.steps", "lh.off"
RESTS_ON = "SUPPORTED_BY"  # the edge from a version to each episode it was drawn from
TIMES = ("at", "recorded_at", "stopped_at", "switched_at")
EPISODE_MISSING = "an episode it rests on does not exist or has not ended"
COUNT_BOUND = 2**62  # beyond any count a playbook reaches, and inside what a query parameter holds


def _zero_unsigned(given: object) -> object:
    """-0.0 as 0.0 (they are equal, and their JSON texts are not), in a value or the lists of one."""
    if type(given) is float and given == 0.0:
        return 0.0
    if type(given) is list:
        return [_zero_unsigned(item) for item in given]
    if type(given) is dict:
        return {name: _zero_unsigned(item) for name, item in given.items()}
    return given


def canonical(given: object) -> str:
    """One JSON text for one content: names sorted, no spaces. 1, 1.0 and true stay apart; 0.0 and -0.0
    are one value."""
    return json.dumps(_zero_unsigned(given), sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _property_map(given: object, what: str) -> dict:
    """Plain names to stored values, None values dropped (a plain copy is given)."""
    if type(given) is not dict:
        raise Refused(f"{what} must be a map of names to values, not {type(given).__name__}")
    checked = {}
    for name, item in given.items():
        if type(name) is not str or not PLAIN_NAME.match(name):
            raise Refused(f"a name in {what} must be a property name: {limits.printable(name)}")
        if item is not None:
            checked[name] = limits.value(item, f"the value {name!r} of {what}")
    if len(checked) > limits.MAX_VALUES:
        raise Refused(f"{what} holds more than {limits.MAX_VALUES} values")
    return checked


def checked_trigger(given: object) -> dict:
    """A trigger: 1 to 20 properties once null ones are dropped."""
    trigger = _property_map(given, "a trigger")
    if not 1 <= len(trigger) <= MAX_TRIGGER:
        raise Refused(f"a trigger holds 1 to {MAX_TRIGGER} properties that are not null, not {len(trigger)}")
    return trigger


def checked_steps(given: object) -> list[dict]:
    """Ordered steps: a list of 1 to 50 maps, null values dropped, none of them using seq."""
    if type(given) not in (list, tuple):
        raise Refused(f"steps must be a list of maps, not {type(given).__name__}")
    if not 1 <= len(given) <= MAX_STEPS:
        raise Refused(f"a playbook has 1 to {MAX_STEPS} steps, not {len(given)}")
    steps = [_property_map(step, f"step {place}") for place, step in enumerate(given, start=1)]
    if any("seq" in step for step in steps):
        raise Refused("a step may not use the name 'seq': the library keeps the order")
    return steps


def checked_situation(given: object) -> dict[str, str]:
    """A situation as the query compares it: each property's canonical JSON under its lh.when. name."""
    if type(given) is not dict:
        raise WrongType(f"a situation must be a dict, not {type(given).__name__}")
    situation = _property_map(limits.plain(given, "a situation"), "a situation")
    return {WHEN + name: canonical(item) for name, item in situation.items()}


def _episode_ids(given: object) -> list[str]:
    if type(given) not in (list, tuple):
        raise Refused(f"supported_by must be a list of episode ids, not {type(given).__name__}")
    if len(given) > limits.MAX_REFERENCES:
        raise Refused(f"supported_by holds more than {limits.MAX_REFERENCES} episodes")
    return list(dict.fromkeys(limits.name(one, "an episode id") for one in given))


_NEWEST = (
    "OPTIONAL MATCH (named:Playbook {name: $name}) "
    "WITH collect(named) AS versions "
    "WITH reduce(top = null, one IN versions | "
    "  CASE WHEN top IS NULL OR one.version > top.version THEN one ELSE top END) AS p "
)

# The next version of the name, written in the query that reads the newest, so two writers never take
# one version; it switches the one before off. Guarded, it writes only while the newest is still the one
# the caller read ($over), so promoters deciding at once from one read write one version.
_WRITE = (
    "CALL { UNWIND $episodes AS drawn_id MATCH (drawn_ep:Episode {id: drawn_id}) "
    f"  WITH drawn_ep, {closed_at('drawn_ep')} AS drawn_end WHERE drawn_end IS NOT NULL "
    "  RETURN collect(drawn_ep) AS drawn } "
    "OPTIONAL MATCH (named:Playbook {name: $name}) "
    "WITH drawn, collect(named) AS versions "
    "WITH drawn, reduce(top = null, one IN versions | "
    "  CASE WHEN top IS NULL OR one.version > top.version THEN one ELSE top END) AS p "
    "WITH drawn, p AS newest, coalesce(p.version, 0) + 1 AS next_version, "
    "  CASE WHEN $guarded AND coalesce(p.id, '') <> coalesce($over, '') THEN 'moved' "
    "    WHEN size(drawn) < size($episodes) THEN 'missing' WHEN size(drawn) < $needs THEN 'unsupported' "
    "    ELSE 'written' END AS verdict "
    "FOREACH (go IN CASE WHEN verdict = 'written' THEN [1] ELSE [] END | "
    "  CREATE (made:Playbook {id: $name + '#' + toString(next_version), name: $name, version: next_version, "
    "    by: $by, at: localdatetime($at), recorded_at: localdatetime($now), enabled: true, runs: 0, "
    "    succeeded: 0, failed: 0, failed_in_a_row: 0}) "
    "  SET made += $internal "
)
# After the version's Trigger and Steps (parts_made()).
_WRITE_REST = (
    f"  FOREACH (source IN drawn | CREATE (made)-[:{RESTS_ON}]->(source)) "
    "  FOREACH (older IN CASE WHEN newest IS NULL THEN [] ELSE [newest] END | "
    "    CREATE (made)-[:REPLACES]->(older) SET older.enabled = false)) "
    "RETURN verdict, next_version"
)


def parts_made(trigger: dict, steps: list[dict], params: dict) -> str:
    """The CREATE of a version's Trigger and Steps (seq from 1) from a bound `made`, each value a parameter
    in the CREATE (a node SET beside a CREATE costs FalkorDB 4.22.1 time in proportion to the graph). Names
    are checked property names; params gets the values."""
    created = []
    for place, (label, values) in enumerate([("Trigger", trigger)] + [("Step", step) for step in steps]):
        fields = [f"seq: {place}"] if place else []
        for number, (name, item) in enumerate(values.items()):
            params[f"part{place}_{number}"] = item
            fields.append(f"`{name}`: $part{place}_{number}")
        created.append(f"CREATE (made)-[:HAS]->(:{label} {{{', '.join(fields)}}}) ")
    return "".join(created)


def write_playbook(
    graph,
    name: object,
    by: object,
    trigger: object,
    steps: object,
    supported_by: object,
    needs: object = NEEDS,
    at: object = None,
) -> dict:
    """Writes the next version of a playbook: {"id": "<name>#<version>", "version", "status": "written"}.
    The version before it is switched off.

    trigger: 1 to 20 properties (null ones dropped) a situation must hold, each with a value of the same
    type; steps: 1 to 50 maps, in order (no "seq"); supported_by: ids of at least `needs` (1 to 200)
    episodes that ended. A name or by that is not a name raises Refused ("must be text") and nothing is
    written. The content never raises: "invalid", "missing" (an episode is unknown or has not ended),
    "unsupported" (fewer distinct ended episodes than needs) or "failed", with a stored WriteFailure.
    """
    return _write(graph, name, by, trigger, steps, supported_by, needs, at, (False, None))


def write_over(graph, newest_id, name, by, trigger, steps, supported_by, needs=NEEDS) -> dict:
    """write_playbook(), only while newest_id (None: no version yet) is still the name's newest version.
    When another writer came first, nothing is written: {"id": its newest, "status": "unchanged"}.
    What promote() writes with, so promoters at once write one version. Raises and refuses as
    write_playbook() does."""
    return _write(graph, name, by, trigger, steps, supported_by, needs, None, (True, newest_id))


def _write(graph, name, by, trigger, steps, supported_by, needs, at, guard: tuple[bool, str | None]) -> dict:
    playbook_name = limits.name(name, "a playbook name")
    writer = limits.name(by, "by")
    content: object = {"trigger": trigger, "steps": steps, "supported_by": supported_by}
    try:
        given = limits.plain(
            {"trigger": trigger, "steps": steps, "supported_by": supported_by, "needs": needs, "at": at},
            "a playbook",
        )
        content = given
        conditions = checked_trigger(given["trigger"])
        ordered = checked_steps(given["steps"])
        episodes = _episode_ids(given["supported_by"])
        wanted = limits.whole(given["needs"], "needs", 1, limits.MAX_REFERENCES)
        moment = clock.written_at(given["at"])
        limits.measured({"trigger": conditions, "steps": ordered, "episodes": episodes}, "a playbook")
    except Refused as error:
        return refused(graph, KIND, playbook_name, content, error.reason, str(error), writer)
    internal = {TRIGGER: canonical(conditions), STEPS: canonical(ordered)}
    internal.update({WHEN + key: canonical(item) for key, item in conditions.items()})
    params = {"episodes": episodes, "name": playbook_name, "by": writer, "needs": wanted}
    params.update(
        {"internal": internal, "at": moment, "now": clock.now(), "guarded": guard[0], "over": guard[1]}
    )
    try:
        verdict, version = graph.query(
            _WRITE + parts_made(conditions, ordered, params) + _WRITE_REST, params
        ).result_set[0]
    except ResponseError as error:
        return refused(graph, KIND, playbook_name, content, "failed", str(error), writer)
    if verdict == "written":
        return {"id": f"{playbook_name}#{version}", "version": version, "status": "written"}
    if verdict == "moved":
        return {
            "id": f"{playbook_name}#{version - 1}" if version > 1 else playbook_name,
            "status": "unchanged",
        }
    if verdict == "missing":
        return refused(graph, KIND, playbook_name, content, "missing", EPISODE_MISSING, writer)
    reason = f"a playbook rests on at least {wanted} episodes that ended, not {len(episodes)}"
    return refused(graph, KIND, playbook_name, content, "unsupported", reason, writer)


# A run of the newest version: recorded once per episode, judged once; the failure that makes
# stop_after in a row switches the version off in the same query.
_RAN = (
    _NEWEST + "OPTIONAL MATCH (ep:Episode {id: $episode}) "
    "OPTIONAL MATCH (p)-[run:RAN_IN]->(ep) "
    "WITH p, ep, run, CASE WHEN p IS NULL THEN 'unknown' WHEN ep IS NULL THEN 'missing' "
    "  WHEN run IS NULL THEN 'recorded' WHEN run.succeeded IS NULL AND $succeeded IS NOT NULL THEN 'judged' "
    "  ELSE 'exists' END AS verdict "
    "FOREACH (go IN CASE WHEN verdict = 'recorded' THEN [1] ELSE [] END | "
    "  CREATE (p)-[made:RAN_IN {by: $by, at: localdatetime($at)}]->(ep) "
    "  SET made.succeeded = $succeeded, p.runs = p.runs + 1) "
    "FOREACH (go IN CASE WHEN verdict = 'judged' THEN [1] ELSE [] END | SET run.succeeded = $succeeded) "
    "FOREACH (go IN CASE WHEN verdict IN ['recorded', 'judged'] AND $succeeded IS NOT NULL THEN [1] ELSE [] END | "
    "  SET p.succeeded = p.succeeded + CASE WHEN $succeeded THEN 1 ELSE 0 END, "
    "    p.failed = p.failed + CASE WHEN $succeeded THEN 0 ELSE 1 END, "
    "    p.failed_in_a_row = CASE WHEN $succeeded THEN 0 ELSE p.failed_in_a_row + 1 END) "
    "WITH p, verdict "
    "FOREACH (off IN CASE WHEN verdict IN ['recorded', 'judged'] AND p.enabled = true "
    "  AND p.failed_in_a_row >= $stop_after THEN [1] ELSE [] END | "
    "  SET p.enabled = false, p.stopped_at = localdatetime($at), p.`lh.off` = true) "
    "RETURN verdict, p.id, p.enabled"
)


def ran(
    graph,
    name: object,
    by: object,
    episode_id: object,
    succeeded: object = None,
    stop_after: object = STOP_AFTER,
    at: object = None,
) -> dict:
    """Records a run of the newest version of a playbook in an episode: {"id": "<name>#<v>", "status":
    "recorded" | "judged" | "exists", "enabled"}; enabled is the version's state after this call.

    "recorded": this call made the run (judged at once when succeeded is given); "judged": the run was
    there without a verdict and this call gave it; "exists": nothing changed (a run is judged once).
    stop_after failures in a row switch the version off. Names that are not names, or a stop_after that
    is not an int >= 1, raise Refused; succeeded that is not None or a bool raises WrongType. Refusals:
    "missing" (no such episode), "unknown" (no such playbook), "invalid" (a bad at), each with a stored
    WriteFailure. Database errors propagate.
    """
    playbook_name = limits.name(name, "a playbook name")
    writer = limits.name(by, "by")
    episode = limits.name(episode_id, "an episode id")
    if succeeded is not None and type(succeeded) is not bool:
        raise WrongType(f"succeeded must be True, False or None, not {type(succeeded).__name__}")
    if type(stop_after) is not int or stop_after < 1:
        raise Refused("stop_after must be a whole number from 1")
    content: object = {"episode": episode, "succeeded": succeeded, "at": at}
    try:
        content = limits.plain(content, "a run")
        moment = clock.written_at(content["at"])
    except Refused as error:
        return refused(graph, KIND, playbook_name, content, error.reason, str(error), writer)
    params = {"name": playbook_name, "episode": episode, "succeeded": succeeded, "by": writer}
    params.update({"stop_after": min(stop_after, COUNT_BOUND), "at": moment})
    verdict, found_id, enabled = graph.query(_RAN, params).result_set[0]
    if verdict == "unknown":
        return refused(
            graph, KIND, playbook_name, content, "unknown", f"there is no playbook {playbook_name!r}", writer
        )
    if verdict == "missing":
        return refused(graph, KIND, playbook_name, content, "missing", "the episode does not exist", writer)
    return {"id": found_id, "status": verdict, "enabled": enabled}


_SWITCH = (
    _NEWEST + "WITH p, CASE WHEN p IS NULL THEN 'unknown' WHEN p.enabled = $on THEN 'exists' "
    "  WHEN $on THEN 'on' ELSE 'off' END AS verdict "
    "FOREACH (go IN CASE WHEN verdict IN ['on', 'off'] THEN [1] ELSE [] END | "
    "  SET p.enabled = $on, p.switched_at = localdatetime($now), p.switched_by = $by, p.`lh.off` = NOT $on, "
    "    p.failed_in_a_row = CASE WHEN $on THEN 0 ELSE p.failed_in_a_row END) "
    "RETURN verdict, p.id"
)


def switch(graph, name: object, by: object, on: object) -> dict:
    """Switches the newest version of a playbook on or off: {"id": "<name>#<v>", "status": "on" | "off" |
    "exists"}. Switching on starts the count of failures in a row again; only the last switch is kept
    (switched_at, switched_by).

    Names that are not names raise Refused; on that is not a bool raises WrongType; nothing is written
    then. No such playbook: {"id": None, "status": "unknown", "reason"}, with a WriteFailure. Database
    errors propagate.
    """
    playbook_name = limits.name(name, "a playbook name")
    writer = limits.name(by, "by")
    if type(on) is not bool:
        raise WrongType(f"on must be True or False, not {type(on).__name__}")
    params = {"name": playbook_name, "on": on, "by": writer, "now": clock.now()}
    verdict, found_id = graph.query(_SWITCH, params).result_set[0]
    if verdict == "unknown":
        content = {"on": on}
        return refused(
            graph, KIND, playbook_name, content, "unknown", f"there is no playbook {playbook_name!r}", writer
        )
    return {"id": found_id, "status": verdict}


# From a bound `p`: the episodes it rests on.
_DETAILS = f"OPTIONAL MATCH (p)-[:{RESTS_ON}]->(source:Episode) RETURN properties(p), collect(source.id)"


def _shown(properties: dict, sources: list) -> dict:
    """A version as reads give it: its stored properties, trigger, steps and supported_by."""
    found = {name: item for name, item in properties.items() if not name.startswith("lh.")}
    for name in TIMES:
        if name in found:
            found[name] = clock.from_store(found[name])
    found["trigger"] = json.loads(properties[TRIGGER])
    found["steps"] = json.loads(properties[STEPS])
    found["supported_by"] = sorted(sources)
    return found


def playbook(graph, name: object, version: object = None) -> dict | None:
    """A version of a playbook (the newest when version is None): its stored properties (id, name,
    version, by, at, recorded_at, enabled, runs, succeeded, failed, failed_in_a_row, and stopped_at,
    switched_at, switched_by once set), "trigger" (a dict), "steps" (a list of dicts, in order) and
    "supported_by" (sorted episode ids). None when there is none. Raises Refused for a name that is not
    a name or a version that is not an int. Nothing is written; database errors pass as ResponseError.
    """
    playbook_name = limits.name(name, "a playbook name")
    if version is not None and type(version) is not int:
        raise Refused(f"a version must be a whole number, not {type(version).__name__}")
    if version is not None and not 1 <= version <= COUNT_BOUND:
        return None
    if version is None:
        query = _NEWEST + "WITH p WHERE p IS NOT NULL " + _DETAILS
    else:
        query = "MATCH (p:Playbook {name: $name}) WHERE p.version = $version " + _DETAILS
    result = read(graph, query, {"name": playbook_name, "version": version})
    return _shown(*result[0]) if result else None


_FOR = (
    "MATCH (p:Playbook) WHERE p.enabled = true "
    "WITH p, [prop IN keys(p) WHERE prop STARTS WITH $prefix] AS conditions "
    "WHERE size(conditions) > 0 AND all(prop IN conditions WHERE prop IN $given AND p[prop] = $situation[prop]) "
    + _DETAILS
)


def playbooks_for(graph, situation: object) -> list[dict]:
    """The enabled playbooks whose every trigger property is in the situation with an equal value of
    the same type (true does not fit 1, nor 3 fit "3"), each as playbook() gives it: those that failed
    least against their successes first, then the most runs, then by name. One round trip.

    Raises WrongType when situation is not a dict, Refused for a name or value that cannot be stored.
    Nothing is written; database errors pass as ResponseError.
    """
    compared = checked_situation(situation)
    params = {"prefix": WHEN, "given": list(compared), "situation": compared}
    found = [_shown(*row) for row in read(graph, _FOR, params)]
    found.sort(
        key=lambda item: (item["failed"] - item["succeeded"], -item["runs"], item["name"], item["version"])
    )
    return found
