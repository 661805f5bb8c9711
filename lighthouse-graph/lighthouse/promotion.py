"""promote(): what repeats in episodes that ended becomes lessons and playbooks, by the application's rule.

The library cannot tell what a repeat is, so the application passes a rule: a function of one ended
episode (as episode() gives it) that answers a list of the claims the episode shows:

    {"lesson": id, "statement": text, "about": [(Kind, key), ...], "agrees": bool}   (about optional)
    {"playbook": name, "trigger": {name: value}, "steps": [{...}, ...]}
    {"ran": name, "succeeded": bool}

Each call asks the rule about every episode that ended, in the order they ended (by the serial of the
outcome entry), so a rule that changed, or another agent, sees them all, and the receipts say where each
lesson and playbook stands. What the claims ask for is written only where the graph does not hold it
yet: a lesson is learned when at_least episodes agree with it, resting on the first 200 of them, and
then weighed by the episodes for it and against it that it does not count yet; a playbook version is
written when at_least episodes show the same trigger and steps, and the next one when more episodes show
other steps than the newest version rests on (steps that were switched off are not written again); a run
is judged once, by ran(). What each lesson and playbook already counts is read in one query per sort,
so a repeat call writes nothing and costs the reading of the episodes and the rule.
"""

from __future__ import annotations

from . import lessons, playbooks, references
from . import values as limits
from .episodes import episodes_by_id
from .errors import Refused, WrongType
from .graphs import read
from .tally_layout import EPISODE_COUNT, EPISODE_END
from .write.failures import refused

MAX_CLAIMS = limits.MAX_VALUES  # claims one episode may show
READ_AT_ONCE = 1_000  # episodes read for the rule in one query
CHUNK = limits.MAX_REFERENCES  # episodes a lesson or a playbook rests on when it is written
REFUSALS = ("invalid", "missing", "unknown", "retired", "unsupported", "failed")
NO_STEPS = "a playbook has 1 to 50 steps, not 0"

# Every episode that ended (its count and end on the node, or on a tally a graph written before kept),
# then its outcome, its last entry, by id: ordered by the outcome's serial, the order they ended. A scan of
# the episodes, not of every entry.
_ENDED = (
    "MATCH (ep:Episode) OPTIONAL MATCH (ep)-[tally:LH_TALLY]->(ep) "
    "WITH ep, collect(tally) AS tallies "
    f"WITH ep, {EPISODE_COUNT} AS count, {EPISODE_END} AS ended "
    "WITH ep, count, ended WHERE ended IS NOT NULL "
    "MATCH (outcome:Entry {id: ep.id + '/' + toString(count)}) "
    "RETURN ep.id ORDER BY outcome.serial"
)


def _ended(graph) -> list[str]:
    """Every episode that ended, in the order it ended."""
    return [episode_id for (episode_id,) in read(graph, _ENDED)]


def _claim_error(episode_id: str, place: int, why: str) -> Refused:
    return Refused(
        f"the rule gave episode {episode_id!r} something that is not a claim (item {place}): {why}"
    )


def _keys(claim: dict, required: set[str], optional: set[str]) -> None:
    if not required <= set(claim) <= required | optional:
        raise Refused(
            f"a claim has {sorted(required)} and may have {sorted(optional)}: it has {sorted(claim)[:10]}"
        )


def _flag(given: object, what: str) -> bool:
    if type(given) is bool:
        return given
    raise Refused(f"{what} must be True or False")


def _as_given(about: list) -> list[tuple]:
    """A claim's about (checked) as learn() takes it, (Kind, key) as the rule gave it, each entity once."""
    pairs, seen = [], set()
    for one in about:
        label, key = references.parse(one)
        if (label, type(key).__name__, key) not in seen:
            seen.add((label, type(key).__name__, key))
            pairs.append((one[0], key))
    return pairs


def _claim(given: object) -> tuple:
    """("lesson", id, statement, about, agrees), ("playbook", name, trigger, steps) or ("ran", name,
    succeeded), from a plain copy of one claim; Refused for anything else. A playbook claim with no steps
    is a claim (steps None): what it asks for is refused in the receipt of its name, not here."""
    if type(given) is not dict:
        raise Refused(f"a claim is a dict, not {type(given).__name__}")
    sorts = [sort for sort in ("lesson", "playbook", "ran") if sort in given]
    if len(sorts) != 1:
        raise Refused("a claim names one of lesson, playbook or ran")
    if sorts == ["lesson"]:
        _keys(given, {"lesson", "statement", "agrees"}, {"about"})
        lesson_id = limits.name(given["lesson"], "a lesson id")
        statement = lessons.checked_statement(given["statement"])
        shown = given.get("about", ())
        about = lessons.checked_about(shown)
        limits.measured({"statement": statement, "about": about}, "a lesson claim")
        return ("lesson", lesson_id, statement, _as_given(shown), _flag(given["agrees"], "agrees"))
    if sorts == ["playbook"]:
        _keys(given, {"playbook", "trigger", "steps"}, set())
        name = limits.name(given["playbook"], "a playbook name")
        trigger = playbooks.checked_trigger(given["trigger"])
        shown = given["steps"]
        steps = None if type(shown) in (list, tuple) and not shown else playbooks.checked_steps(shown)
        limits.measured({"trigger": trigger, "steps": steps}, "a playbook claim")
        return ("playbook", name, trigger, steps)
    _keys(given, {"ran", "succeeded"}, set())
    return ("ran", limits.name(given["ran"], "a playbook name"), _flag(given["succeeded"], "succeeded"))


def claims_of(answer: object, episode_id: str) -> list[tuple]:
    """The claims a rule gave for one episode (the first of each lesson, playbook and run counts).

    Raises WrongType when the answer is not a list, Refused for anything in it that is not a claim."""
    if type(answer) is not list:
        raise WrongType(
            f"the rule's answer for episode {episode_id!r} must be a list of claims, not {type(answer).__name__}"
        )
    if len(answer) > MAX_CLAIMS:
        raise Refused(f"the rule gave episode {episode_id!r} more than {MAX_CLAIMS} claims")
    checked: dict[tuple, tuple] = {}
    for place, given in enumerate(answer):
        try:
            claim = _claim(limits.plain(given, "a claim"))
        except Refused as error:
            raise _claim_error(episode_id, place, str(error)) from None
        checked.setdefault(claim[:2], claim)
    return list(checked.values())


def _votes(shown: list[tuple[str, list[tuple]]]) -> tuple[dict, dict, list]:
    """Lessons by id and playbooks by name, each in the order first claimed, with what each episode
    showed of them; and the runs, in order."""
    lesson_votes: dict[str, dict] = {}
    playbook_votes: dict[str, dict] = {}
    runs: list[tuple[str, str, bool]] = []
    for episode_id, claims in shown:
        for claim in claims:
            if claim[0] == "ran":
                runs.append((episode_id, claim[1], claim[2]))
            elif claim[0] == "lesson":
                _sort, name, statement, about, agrees = claim
                vote = lesson_votes.setdefault(
                    name, {"statement": statement, "about": [], "seen": set(), "shown": []}
                )
                for kind, key in about:  # each entity once, whichever Kind object named it
                    if (kind.label, type(key).__name__, key) not in vote["seen"]:
                        vote["seen"].add((kind.label, type(key).__name__, key))
                        vote["about"].append((kind, key))
                vote["shown"].append((episode_id, agrees))
            else:
                _sort, name, trigger, steps = claim
                vote = playbook_votes.setdefault(name, {"variants": {}, "trigger": trigger})
                if steps is None:
                    continue
                texts = (playbooks.canonical(trigger), playbooks.canonical(steps))
                variant = vote["variants"].setdefault(
                    texts, {"trigger": trigger, "steps": steps, "texts": texts, "pros": []}
                )
                variant["pros"].append(episode_id)
    return lesson_votes, playbook_votes, runs


# Per lesson: whether it exists, whether it is retired, and the episodes it counts, for or against.
_LESSONS = (
    "UNWIND $ids AS wanted OPTIONAL MATCH (l:Lesson {id: wanted}) "
    "OPTIONAL MATCH (l)-[:SUPPORTED_BY]->(pro:Episode) "
    "WITH wanted, l, collect(pro.id) AS pros "
    "OPTIONAL MATCH (l)-[:CONTRADICTED_BY]->(con:Episode) "
    "WITH wanted, l, pros, collect(con.id) AS cons "
    "RETURN wanted, l IS NOT NULL, l IS NOT NULL AND l.retired_at IS NOT NULL, pros + cons"
)

_NEWEST = (
    "UNWIND $names AS wanted "
    "OPTIONAL MATCH (p:Playbook {name: wanted}) "
    "WITH wanted, collect(p) AS versions "
    "WITH wanted, versions, reduce(top = null, one IN versions | "
    "  CASE WHEN top IS NULL OR one.version > top.version THEN one ELSE top END) AS newest "
)

# Per playbook name: its newest version, the episodes it rests on, and the steps of versions switched off.
_VERSIONS = (
    _NEWEST + f"OPTIONAL MATCH (newest)-[:{playbooks.RESTS_ON}]->(source:Episode) "
    "WITH wanted, versions, newest, collect(source.id) AS drawn "
    f"RETURN wanted, newest.id, newest.`{playbooks.TRIGGER}`, newest.`{playbooks.STEPS}`, newest.enabled, "
    f"  drawn, [one IN versions WHERE one.`{playbooks.OFF}` = true | one.`{playbooks.STEPS}`]"
)

# Per playbook name: its newest version, whether it is enabled, and the episodes of its judged runs.
_RUNS = (
    _NEWEST + "OPTIONAL MATCH (newest)-[run:RAN_IN]->(ran_in:Episode) "
    "RETURN wanted, newest.id, newest.enabled, "
    "  collect(CASE WHEN run.succeeded IS NULL THEN null ELSE ran_in.id END)"
)


def _put_back(receipt: dict, key: str) -> dict:
    """A refusal in promote's answer names what it was for."""
    return {**receipt, "id": key} if receipt["status"] in REFUSALS else receipt


def _run_receipts(graph, by: str, runs: list[tuple[str, str, bool]]) -> list[dict]:
    """ran() for each run the graph does not hold judged on the newest version; "exists" for the others."""
    if not runs:
        return []
    newest = {
        name: {"id": found_id, "enabled": enabled, "judged": set(judged)}
        for name, found_id, enabled, judged in read(graph, _RUNS, {"names": list({run[1] for run in runs})})
    }
    receipts = []
    for episode_id, name, succeeded in runs:
        version = newest[name]
        if version["id"] is not None and episode_id in version["judged"]:
            receipts.append({"id": version["id"], "status": "exists", "enabled": version["enabled"]})
            continue
        receipt = _put_back(playbooks.ran(graph, name, by, episode_id, succeeded), name)
        if receipt["status"] in ("recorded", "judged") and receipt["id"] == version["id"]:
            version["enabled"] = receipt["enabled"]
            version["judged"].add(episode_id)
        receipts.append(receipt)
    return receipts


def _weigh_all(graph, by: str, lesson_id: str, episodes: list[tuple[str, bool]]) -> tuple[int, dict | None]:
    """Weighs the lesson with each (episode, agrees): how many were new, and the first refusal."""
    new, first_refusal = 0, None
    for episode_id, agrees in episodes:
        receipt = lessons.weigh(graph, lesson_id, by, episode_id, agrees)
        if receipt["status"] == "weighed":
            new += 1
        elif receipt["status"] != "exists" and first_refusal is None:
            first_refusal = receipt
    return new, first_refusal


def _promote_lesson(graph, by: str, lesson_id: str, vote: dict, state: tuple, at_least: int) -> dict:
    exists, retired, counted = state
    shown = vote["shown"]
    if not exists:
        pros = [episode_id for episode_id, agrees in shown if agrees]
        if len(pros) < at_least:
            return {"id": lesson_id, "status": "waiting", "for": len(pros)}
        about = vote["about"][: limits.MAX_REFERENCES]
        receipt = lessons.learn(graph, lesson_id, by, vote["statement"], pros[:CHUNK], about=about)
        if receipt["status"] == "learned":
            resting = set(pros[:CHUNK])
            new, _refusal = _weigh_all(graph, by, lesson_id, [one for one in shown if one[0] not in resting])
            return {"id": lesson_id, "status": "learned", "new": new}
        if receipt["status"] != "exists":
            return _put_back(receipt, lesson_id)
        counted = set()  # learned by another writer meanwhile: weigh() tells what it counts
    fresh = shown[:1] if retired else [one for one in shown if one[0] not in counted]
    new, refusal = _weigh_all(graph, by, lesson_id, fresh)
    if new == 0 and refusal is not None:
        return _put_back(refusal, lesson_id)
    return {"id": lesson_id, "status": "weighed" if new else "unchanged", "new": new}


def _promote_playbook(graph, by: str, name: str, vote: dict, newest: dict, at_least: int) -> dict:
    """Writes the next version when the episodes call for it; else says why not."""
    variants = vote["variants"]
    if not variants:  # every claim of this name came without steps
        content = {"trigger": vote["trigger"], "steps": []}
        return _put_back(refused(graph, playbooks.KIND, name, content, "invalid", NO_STEPS, by), name)
    current = (newest["trigger"], newest["steps"])
    writable = [
        one for one in variants.values() if one["texts"][1] not in newest["off"] and one["texts"] != current
    ]
    if newest["id"] is None or not newest["enabled"]:
        threshold = at_least
    else:
        support = set(newest["drawn"]) | set(variants.get(current, {}).get("pros", []))
        threshold = max(at_least, len(support) + 1)
    best = max(writable, key=lambda one: len(one["pros"]), default=None)
    agree = best["pros"] if best is not None else []
    if best is not None and len(agree) >= threshold:
        receipt = playbooks.write_over(
            graph, newest["id"], name, by, best["trigger"], best["steps"], agree[:CHUNK], needs=at_least
        )
        return _put_back(receipt, name)
    if newest["id"] is not None:
        return {"id": newest["id"], "status": "unchanged"}
    return {"id": name, "status": "waiting", "for": len(agree)}


def _newest_versions(graph, names: list[str]) -> dict[str, dict]:
    newest = {}
    for name, found_id, trigger, steps, enabled, drawn, off in read(graph, _VERSIONS, {"names": names}):
        newest[name] = {"id": found_id, "trigger": trigger, "steps": steps, "enabled": enabled is True}
        newest[name].update({"drawn": drawn, "off": set(off)})
    return newest


def promote(graph, by: object, rule: object, at_least: int = 3) -> dict:
    """Asks the rule what each episode that ended shows, in the order they ended, and brings runs,
    lessons and playbooks to what the claims call for.

    Returns {"episodes": n, "lessons": [...], "playbooks": [...], "runs": [...]}: n episodes read; a
    receipt for each lesson (in the order of the first claim naming it: waiting with "for", learned,
    weighed or unchanged with "new", or the library's refusal with the lesson id), for each playbook
    name (waiting with "for", unchanged with the newest version's id, write_playbook()'s receipt, or a
    refusal with the name: a name whose claims show no steps is invalid), and ran()'s receipt for each
    run claim ("exists" for a run judged before; a refusal with the name). Arguments are checked first:
    by not a name or at_least not 1 to 200 raises Refused, a rule that is not callable raises
    WrongType. Every claim of every episode is checked before anything is written: an answer that is not
    a list raises WrongType, a malformed claim Refused (both say "claim"; a run without succeeded is
    one); what the rule raises passes unchanged.
    """
    writer = limits.name(by, "by")
    if not callable(rule):
        raise WrongType("rule must be a function of one episode that gives its claims")
    at_least = limits.whole(at_least, "at_least", 1, CHUNK)
    ended = _ended(graph)
    shown: list[tuple[str, list[tuple]]] = []
    for start in range(0, len(ended), READ_AT_ONCE):
        some = ended[start : start + READ_AT_ONCE]
        found = episodes_by_id(graph, some)
        shown.extend((episode_id, claims_of(rule(found[episode_id]), episode_id)) for episode_id in some)
    lesson_votes, playbook_votes, runs = _votes(shown)
    run_receipts = _run_receipts(graph, writer, runs)
    states = {}
    if lesson_votes:
        found_lessons = read(graph, _LESSONS, {"ids": list(lesson_votes)})
        states = {one: (exists, retired, set(counted)) for one, exists, retired, counted in found_lessons}
    lesson_receipts = [
        _promote_lesson(graph, writer, lesson_id, vote, states[lesson_id], at_least)
        for lesson_id, vote in lesson_votes.items()
    ]
    newest = _newest_versions(graph, list(playbook_votes)) if playbook_votes else {}
    playbook_receipts = [
        _promote_playbook(graph, writer, name, vote, newest[name], at_least)
        for name, vote in playbook_votes.items()
    ]
    return {
        "episodes": len(ended),
        "lessons": lesson_receipts,
        "playbooks": playbook_receipts,
        "runs": run_receipts,
    }
