"""promote(): what repeats in episodes that ended becomes lessons and playbooks, by the application's rule.

The library cannot tell what a repeat is, so the application passes a rule: a function of one ended
episode (as episode() gives it) that answers a list of the claims the episode shows:

    {"lesson": id, "statement": text, "about": [(Kind, key), ...], "agrees": bool}   (about optional)
    {"playbook": name, "trigger": {name: value}, "steps": [{...}, ...]}
    {"ran": name, "succeeded": bool or None}                                       (succeeded optional)

What each episode showed is kept as a vote: (c:Candidate {key, sort, name, statement, by, first_at})
-[:SHOWN_IN {agrees, order, about, by, at}]->(:Episode), one edge per candidate and episode, so a count
carries over from one call to the next and an episode counts once. A lesson is learned when at_least
episodes agree with it, resting on the first 200 of them; the others, and those against it, weigh it
then. A playbook version is written when at_least episodes show the same trigger and steps, and the next
one when more episodes show other steps than the newest version has; steps that were switched off are
not written again.

Ended episodes are found by the serial of their outcome entry (the order they ended), past a mark that
the Stamp keeps for each promoting agent, so a call costs what ended since the last one; each promoted
episode gets (ep)-[:PROMOTED_BY {at}]->(:Agent {name: by}). The mark moves only after every write, and
every write counts an episode once, so a call that stopped half way is done again without counting twice.
"""

from __future__ import annotations

import hashlib
import json

from . import clock, lessons, playbooks
from . import values as limits
from .episodes import OUTCOME, closed_at, episodes_by_id
from .errors import Refused, WrongType
from .graphs import STAMP_SERIAL, read

MAX_CLAIMS = limits.MAX_VALUES  # claims one episode may show
SLICE = 10_000  # serials read in one query while looking for ended episodes
READ_AT_ONCE = 1_000  # episodes read for the rule in one query
CHUNK = limits.MAX_REFERENCES  # episodes a lesson or a playbook rests on when it is written
REFUSALS = ("invalid", "missing", "unknown", "retired", "unsupported", "failed")


def _mark_name(by: str) -> str:
    """The Stamp property that holds how far this agent's promotion has come."""
    return "promote_" + hashlib.sha256(by.encode()).hexdigest()[:16]


# The entries first, through the index on serial, then each one's episode along its HAS edge.
_ENDED = (
    "MATCH (n:Entry) WHERE n.serial > $after AND n.serial <= $upto AND n.type = $outcome "
    "WITH n MATCH (ep:Episode)-[:HAS]->(n) "
    f"WITH n, ep, {closed_at('ep')} AS ended "
    # Filtered by a WITH of its own: beside the pattern comprehension, FalkorDB 4.22.1 failed on the path.
    "WITH n, ep, ended WHERE ended IS NOT NULL AND NOT (ep)-[:PROMOTED_BY]->(:Agent {name: $by}) "
    "RETURN ep.id, n.serial ORDER BY n.serial"
)


def _ended_since(graph, by: str, limit: int | None) -> tuple[list[tuple[str, int]], int]:
    """Episodes that ended past the mark, (id, serial) in the order they ended, and the new mark."""
    found = read(
        graph, f"MATCH (st:Stamp) {STAMP_SERIAL}RETURN coalesce(st.`{_mark_name(by)}`, 0), last_serial"
    )
    if not found:
        return [], 0
    after, last = found[0]
    ended: list[tuple[str, int]] = []
    while after < last:
        upto = min(after + SLICE, last)
        for episode_id, serial in read(
            graph, _ENDED, {"after": after, "upto": upto, "outcome": OUTCOME, "by": by}
        ):
            if limit is not None and len(ended) == limit:
                return ended, serial - 1
            ended.append((episode_id, serial))
        after = upto
    return ended, after


def _claim_error(episode_id: str, place: int, why: str) -> Refused:
    return Refused(
        f"the rule gave episode {episode_id!r} something that is not a claim (item {place}): {why}"
    )


def _keys(claim: dict, required: set[str], optional: set[str]) -> None:
    if not required <= set(claim) <= required | optional:
        raise Refused(
            f"a claim has {sorted(required)} and may have {sorted(optional)}: it has {sorted(claim)[:10]}"
        )


def _flag(given: object, what: str, optional: bool = False) -> bool | None:
    if (given is None and optional) or type(given) is bool:
        return given
    raise Refused(f"{what} must be True or False{' or None' if optional else ''}")


def _claim(given: object) -> tuple:
    """("lesson", id, statement, about, agrees), ("playbook", name, trigger, steps) or ("ran", name,
    succeeded), from a plain copy of one claim; Refused for anything else."""
    if type(given) is not dict:
        raise Refused(f"a claim is a dict, not {type(given).__name__}")
    sorts = [sort for sort in ("lesson", "playbook", "ran") if sort in given]
    if len(sorts) != 1:
        raise Refused("a claim names one of lesson, playbook or ran")
    if sorts == ["lesson"]:
        _keys(given, {"lesson", "statement", "agrees"}, {"about"})
        lesson_id = limits.name(given["lesson"], "a lesson id")
        statement = lessons.checked_statement(given["statement"])
        about = lessons.checked_about(given.get("about", ()))
        limits.measured({"statement": statement, "about": about}, "a lesson claim")
        return ("lesson", lesson_id, statement, about, _flag(given["agrees"], "agrees"))
    if sorts == ["playbook"]:
        _keys(given, {"playbook", "trigger", "steps"}, set())
        name = limits.name(given["playbook"], "a playbook name")
        trigger, steps = playbooks.checked_trigger(given["trigger"]), playbooks.checked_steps(given["steps"])
        limits.measured({"trigger": trigger, "steps": steps}, "a playbook claim")
        return ("playbook", name, trigger, steps)
    _keys(given, {"ran"}, {"succeeded"})
    return (
        "ran",
        limits.name(given["ran"], "a playbook name"),
        _flag(given.get("succeeded"), "succeeded", True),
    )


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


def _variant_key(name: str, trigger: str, steps: str) -> str:
    return "playbook:" + hashlib.sha256("\x1f".join((name, trigger, steps)).encode()).hexdigest()


def _votes(shown: list[tuple[str, int, list[tuple]]]) -> tuple[dict, dict, list]:
    """Lesson candidates by id and playbook variants by name, each in the order first claimed; and runs."""
    lesson_votes: dict[str, dict] = {}
    playbook_votes: dict[str, dict[str, dict]] = {}
    runs: list[tuple[str, tuple]] = []
    for episode_id, serial, claims in shown:
        for claim in claims:
            if claim[0] == "ran":
                runs.append((episode_id, claim))
                continue
            if claim[0] == "lesson":
                _sort, name, statement, about, agrees = claim
                vote = lesson_votes.setdefault(
                    name,
                    {
                        "key": "lesson:" + name,
                        "sort": "lesson",
                        "name": name,
                        "statement": statement,
                        "shown": [],
                    },
                )
                about_text = json.dumps([list(one) for one in about])
            else:
                _sort, name, trigger, steps = claim
                texts = (playbooks.canonical(trigger), playbooks.canonical(steps))
                key = _variant_key(name, *texts)
                vote = playbook_votes.setdefault(name, {}).setdefault(
                    key, {"key": key, "sort": "playbook", "name": name, "statement": None, "shown": []}
                )
                vote.update({"trigger": trigger, "steps": steps, "texts": texts})
                agrees, about_text = True, "[]"
            vote["shown"].append(
                {"episode": episode_id, "agrees": agrees, "order": serial, "about": about_text}
            )
    return lesson_votes, playbook_votes, runs


_VOTE = (
    "UNWIND $votes AS vote "
    "MERGE (c:Candidate {key: vote.key}) "
    "ON CREATE SET c.sort = vote.sort, c.name = vote.name, c.statement = vote.statement, c.by = $by, "
    "  c.first_at = localdatetime($now) "
    "WITH c, vote UNWIND vote.shown AS shown "
    "MATCH (ep:Episode {id: shown.episode}) "
    "MERGE (c)-[s:SHOWN_IN]->(ep) ON CREATE SET s.agrees = shown.agrees, s.order = shown.order, "
    "  s.about = shown.about, s.by = $by, s.at = localdatetime($now)"
)

# Per candidate: the episodes that showed it ([order, id]), for and against, what they said it is
# about, and whether its lesson exists.
_TALLY = (
    "UNWIND $keys AS wanted "
    "MATCH (c:Candidate {key: wanted}) "
    "OPTIONAL MATCH (c)-[s:SHOWN_IN]->(ep:Episode) "
    "WITH c, collect(CASE WHEN s.agrees THEN [s.order, ep.id] END) AS pros, "
    "  collect(CASE WHEN s.agrees = false THEN [s.order, ep.id] END) AS cons, collect(s.about) AS abouts "
    "OPTIONAL MATCH (l:Lesson {id: c.name}) WHERE c.sort = 'lesson' "
    "RETURN c.key, c.statement, pros, cons, abouts, l IS NOT NULL"
)

# Per playbook name: its newest version, the episodes it rests on, and the steps of versions switched off.
_VERSIONS = (
    "UNWIND $names AS wanted "
    "OPTIONAL MATCH (p:Playbook {name: wanted}) "
    "WITH wanted, collect(p) AS versions "
    "WITH wanted, versions, reduce(top = null, one IN versions | "
    "  CASE WHEN top IS NULL OR one.version > top.version THEN one ELSE top END) AS newest "
    "OPTIONAL MATCH (newest)-[:DRAWN_FROM]->(source:Episode) "
    "WITH wanted, versions, newest, collect(source.id) AS drawn "
    "RETURN wanted, newest.id, newest.`lh.trigger`, newest.`lh.steps`, newest.enabled, drawn, "
    "  [one IN versions WHERE one.`lh.off` = true | one.`lh.steps`]"
)


def _in_order(pairs: list) -> list[str]:
    return [episode_id for _order, episode_id in sorted(pair for pair in pairs if pair is not None)]


def _tallies(graph, keys: list[str]) -> dict[str, dict]:
    found = {}
    for key, statement, pros, cons, abouts, exists in read(graph, _TALLY, {"keys": keys}):
        about: list = []
        for text in abouts:
            about.extend(tuple(one) for one in json.loads(text or "[]") if tuple(one) not in about)
        found[key] = {"statement": statement, "pros": _in_order(pros), "cons": _in_order(cons)}
        found[key].update({"about": about[: limits.MAX_REFERENCES], "exists": exists})
    return found


def _put_back(receipt: dict, key: str) -> dict:
    """A refusal in promote's answer names what it was for."""
    return {**receipt, "id": key} if receipt["status"] in REFUSALS else receipt


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


def _promote_lesson(graph, by: str, vote: dict, tally: dict, at_least: int) -> dict:
    lesson_id = vote["name"]
    if not tally["exists"]:
        if len(tally["pros"]) < at_least:
            return {"id": lesson_id, "status": "waiting", "for": len(tally["pros"])}
        statement = tally["statement"] or vote["statement"]
        pros = tally["pros"]
        receipt = lessons.learn(graph, lesson_id, by, statement, pros[:CHUNK], about=tally["about"])
        if receipt["status"] == "learned":
            rest = [(one, True) for one in pros[CHUNK:]] + [(one, False) for one in tally["cons"]]
            new, _refusal = _weigh_all(graph, by, lesson_id, rest)
            return {"id": lesson_id, "status": "learned", "new": new}
        if receipt["status"] != "exists":
            return _put_back(receipt, lesson_id)
    shown = [(one["episode"], one["agrees"]) for one in vote["shown"]]
    new, refusal = _weigh_all(graph, by, lesson_id, shown)
    if new == 0 and refusal is not None:
        return _put_back(refusal, lesson_id)
    return {"id": lesson_id, "status": "weighed" if new else "unchanged", "new": new}


def _promote_playbook(
    graph, by: str, name: str, variants: dict, tallies: dict, newest: dict, at_least: int
) -> dict:
    """Writes the next version when the variants call for it; else says why not."""
    current = (newest["trigger"], newest["steps"])
    writable = [
        vote
        for vote in variants.values()
        if vote["texts"][1] not in newest["off"] and vote["texts"] != current
    ]
    if newest["id"] is None or not newest["enabled"]:
        threshold = at_least
    else:
        support = set(newest["drawn"]) | set(tallies.get(newest["key"], {}).get("pros", []))
        threshold = max(at_least, len(support) + 1)
    best = max(writable, key=lambda vote: len(tallies[vote["key"]]["pros"]), default=None)
    agree = tallies[best["key"]]["pros"] if best is not None else []
    if best is not None and len(agree) >= threshold:
        receipt = playbooks.write_over(
            graph, newest["id"], name, by, best["trigger"], best["steps"], agree[:CHUNK], needs=at_least
        )
        return _put_back(receipt, name)
    if newest["id"] is not None and best is None:
        return {"id": newest["id"], "status": "unchanged"}
    return {"id": name, "status": "waiting", "for": len(agree)}


def _newest_versions(graph, names: list[str]) -> dict[str, dict]:
    newest = {}
    for name, found_id, trigger, steps, enabled, drawn, off in read(graph, _VERSIONS, {"names": names}):
        key = _variant_key(name, trigger, steps) if found_id is not None else None
        newest[name] = {"id": found_id, "trigger": trigger, "steps": steps, "enabled": enabled is True}
        newest[name].update({"drawn": drawn, "off": set(off), "key": key})
    return newest


def promote(graph, by: object, rule: object, at_least: int = 3, *, limit: int | None = None) -> dict:
    """Reads the episodes that ended since this agent's last call, in the order they ended, asks the
    rule what each shows, and counts it into runs, lessons and playbooks.

    Returns {"episodes": n, "lessons": [...], "playbooks": [...], "runs": [...]}: a receipt for each
    lesson (in the order of the first claim naming it: waiting with "for", learned, weighed or unchanged
    with "new", or the library's refusal with the lesson id), for each playbook name (waiting with
    "for", unchanged, write_playbook()'s receipt, or a refusal with the name), and ran()'s receipt for
    each run claim (a refusal with the name). Arguments are checked first: by not a name or at_least
    not 1 to 200 raises Refused, a rule that is not callable raises WrongType. Every claim of every
    episode is checked before anything is written: an answer that is not a list raises WrongType, a
    malformed claim Refused (both say "claim"); what the rule raises passes unchanged. limit (ours):
    at most this many episodes a call (None: all of them).
    """
    writer = limits.name(by, "by")
    if not callable(rule):
        raise WrongType("rule must be a function of one episode that gives its claims")
    at_least = limits.whole(at_least, "at_least", 1, CHUNK)
    if limit is not None:
        limit = limits.whole(limit, "limit", 1, 1_000_000)
    ended, mark = _ended_since(graph, writer, limit)
    read_at_once: dict[str, dict] = {}
    for start in range(0, len(ended), READ_AT_ONCE):
        read_at_once.update(
            episodes_by_id(graph, [one for one, _serial in ended[start : start + READ_AT_ONCE]])
        )
    shown = [
        (episode_id, serial, claims_of(rule(read_at_once[episode_id]), episode_id))
        for episode_id, serial in ended
    ]
    lesson_votes, playbook_votes, runs = _votes(shown)
    run_receipts = [
        _put_back(playbooks.ran(graph, claim[1], writer, episode_id, claim[2]), claim[1])
        for episode_id, claim in runs
    ]
    every = list(lesson_votes.values()) + [
        vote for variants in playbook_votes.values() for vote in variants.values()
    ]
    if every:
        fields = ("key", "sort", "name", "statement", "shown")
        votes = [{field: vote[field] for field in fields} for vote in every]
        graph.query(_VOTE, {"votes": votes, "by": writer, "now": clock.now()})
    newest = _newest_versions(graph, list(playbook_votes)) if playbook_votes else {}
    keys = [vote["key"] for vote in every] + [one["key"] for one in newest.values() if one["key"] is not None]
    tallies = _tallies(graph, keys) if keys else {}
    lesson_receipts = [
        _promote_lesson(graph, writer, vote, tallies[vote["key"]], at_least) for vote in lesson_votes.values()
    ]
    playbook_receipts = [
        _promote_playbook(graph, writer, name, variants, tallies, newest[name], at_least)
        for name, variants in playbook_votes.items()
    ]
    _mark(graph, writer, mark, [one for one, _serial in ended])
    return {
        "episodes": len(ended),
        "lessons": lesson_receipts,
        "playbooks": playbook_receipts,
        "runs": run_receipts,
    }


def _mark(graph, by: str, mark: int, ended: list[str]) -> None:
    """Moves the agent's mark (never back) and marks each episode it promoted, in one query."""
    name = _mark_name(by)
    graph.query(
        f"MATCH (st:Stamp) SET st.`{name}` = CASE WHEN coalesce(st.`{name}`, 0) > $mark THEN st.`{name}` "
        "ELSE $mark END "
        "WITH st UNWIND $ended AS done "
        "MATCH (ep:Episode {id: done}) MERGE (promoter:Agent {name: $by}) "
        "MERGE (ep)-[marked:PROMOTED_BY]->(promoter) ON CREATE SET marked.at = localdatetime($now)",
        {"mark": mark, "ended": ended, "by": by, "now": clock.now()},
    )
