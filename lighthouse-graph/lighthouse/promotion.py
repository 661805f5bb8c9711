"""promote(): what repeats in episodes that ended becomes lessons and playbooks, by the application's rule.

The library cannot tell what a repeat is, so the application passes a rule: a function of one ended
episode that gives the claims the episode shows:

    {"lesson": id, "statement": text, "about": [(Kind, key), ...], "agrees": bool}
    {"playbook": name, "trigger": {name: value}, "steps": [{...}, ...]}
    {"ran": "name" or "name#version", "succeeded": bool}

The rule sees the episode as episode() gives it, with one addition: each entry also holds its values
under their own names, so episode["entries"][-1]["cause"] reads the outcome's value "cause". The
entry's own fields (id, seq, type, by, at, values, cites) win over a value of the same name, which stays
under "values".

What each episode showed is kept as a vote: (c:Candidate {key, sort, name, statement | trigger, steps,
by, first_at})-[:SHOWN_IN {agrees, by, at}]->(:Episode), one edge per episode, made by MERGE. So a count
carries over from one call to the next and an episode counts once. A lesson is learned when at_least
episodes agree with it, from those (and those against it so far); after that each episode weighs it. A
playbook is written when at_least episodes show the same trigger and steps; when more episodes show
other steps than the newest version has, the next version is written. A run is judged with ran().

Ended episodes are found by the serial of their outcome entry, past a mark that the Stamp keeps for
each promoting agent, so a call costs what ended since the last one; each promoted episode gets
(ep)-[:PROMOTED_BY {at}]->(:Agent {name: by}). The mark moves only after every write, and every write
counts an episode once, so a call that stopped half way is done again without counting twice.
"""

from __future__ import annotations

import hashlib

from . import clock, lessons, playbooks
from . import values as limits
from .episodes import OUTCOME, episodes_by_id
from .graphs import read
from .values import Refused

MAX_CLAIMS = limits.MAX_VALUES  # claims one episode may show
MAX_LIMIT = 1_000
SLICE = 10_000  # serials read in one query while looking for ended episodes
CHUNK = limits.MAX_REFERENCES  # episodes one write of a lesson or a playbook names


def _mark_name(by: str) -> str:
    """The Stamp property that holds how far this agent's promotion has come."""
    return "promote_" + hashlib.sha256(by.encode()).hexdigest()[:16]


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()


# Each episode by its id after the entries are found: written as {id: n.episode} in a second MATCH,
# FalkorDB 4.22 joined the entries with a scan of every Episode of the graph.
_ENDED = (
    "MATCH (n:Entry) WHERE n.serial > $after AND n.serial <= $upto AND n.type = $outcome "
    "WITH n MATCH (ep:Episode) WHERE ep.id = n.episode AND NOT (ep)-[:PROMOTED_BY]->(:Agent {name: $by}) "
    "RETURN ep.id, n.serial ORDER BY n.serial"
)


def _ended_since(graph, by: str, limit: int) -> tuple[list[str], int]:
    """Up to `limit` episodes that ended past the mark, in the order they ended, and the new mark."""
    mark = _mark_name(by)
    found = read(graph, f"MATCH (st:Stamp) RETURN coalesce(st.`{mark}`, 0), coalesce(st.serial, 0)")
    if not found:
        return [], 0
    after, last = found[0]
    ended: list[str] = []
    while after < last:
        upto = min(after + SLICE, last)
        rows = read(graph, _ENDED, {"after": after, "upto": upto, "outcome": OUTCOME, "by": by})
        for episode_id, serial in rows:
            if len(ended) == limit:
                return ended, serial - 1
            ended.append(episode_id)
        after = upto
    return ended, after


def rule_view(found: dict) -> dict:
    """An episode as a rule sees it: episode(), each entry's values also under their own names."""
    return {**found, "entries": [{**entry["values"], **entry} for entry in found["entries"]]}


def _flag(claim: dict, name: str) -> bool:
    if not isinstance(claim.get(name), bool):
        raise Refused(f"{name} is True or False")
    return claim[name]


def _exact_keys(claim: dict, required: set[str], optional: set[str] = frozenset()) -> None:
    missing = required - set(claim)
    extra = set(claim) - required - optional
    if missing or extra:
        shown = sorted(key if isinstance(key, str) else type(key).__name__ for key in claim)[:10]
        raise Refused(f"a claim needs {sorted(required)}, may have {sorted(optional)}: it has {shown}")


def _claim(given: object) -> tuple:
    """One claim checked: ("lesson", id, statement, about, agrees), ("playbook", name, trigger, steps),
    or ("ran", reference, succeeded)."""
    if not isinstance(given, dict):
        raise Refused(f"a claim is a dict, not {type(given).__name__}")
    sorts = [sort for sort in ("lesson", "playbook", "ran") if sort in given]
    if len(sorts) != 1:
        raise Refused("a claim names one of lesson, playbook or ran")
    if sorts == ["lesson"]:
        _exact_keys(given, {"lesson", "statement", "agrees"}, {"about"})
        lesson_id = limits.name(given["lesson"], "a lesson id")
        statement = lessons.checked_statement(given["statement"])
        about = lessons.checked_about(given.get("about"))
        limits.measured({"statement": statement, "about": about}, "a lesson claim")
        return ("lesson", lesson_id, statement, about, _flag(given, "agrees"))
    if sorts == ["playbook"]:
        _exact_keys(given, {"playbook", "trigger", "steps"})
        name = playbooks.checked_name(given["playbook"])
        trigger = playbooks.checked_conditions(given["trigger"], "a trigger")
        steps = playbooks.checked_steps(given["steps"])
        limits.measured({"trigger": trigger, "steps": steps}, "a playbook claim")
        return ("playbook", name, trigger, steps)
    _exact_keys(given, {"ran", "succeeded"})
    playbook_id, name = playbooks.checked_reference(given["ran"])
    return ("ran", playbook_id or name, _flag(given, "succeeded"))


def claims_of(answer: object, episode_id: str) -> list[tuple]:
    """The claims a rule gave for one episode, each once; raises Refused for anything that is not one."""
    if not isinstance(answer, list | tuple) or len(answer) > MAX_CLAIMS:
        raise Refused(
            f"the rule gave episode {episode_id!r} {type(answer).__name__}: it answers a list of at most "
            f"{MAX_CLAIMS} claims"
        )
    checked: dict[tuple, tuple] = {}
    for place, given in enumerate(answer):
        try:
            claim = _claim(given)
        except Refused as error:
            raise Refused(
                f"the rule gave episode {episode_id!r} something that is not a claim (item {place}): {error}"
            ) from None
        what = claim[:2]
        earlier = checked.get(what)
        if earlier is not None and earlier != claim:
            raise Refused(
                f"the rule gave episode {episode_id!r} two different claims for {claim[0]} {claim[1]!r}"
            )
        checked[what] = claim
    return list(checked.values())


def _votes(shown: list[tuple[str, list[tuple]]]) -> tuple[dict, dict, list[tuple[str, tuple]]]:
    """The claims of every episode grouped into candidates (by key, in the order first shown), and runs."""
    lesson_votes: dict[str, dict] = {}
    playbook_votes: dict[str, dict] = {}
    runs: list[tuple[str, tuple]] = []
    for episode_id, claims in shown:
        for claim in claims:
            if claim[0] == "ran":
                runs.append((episode_id, claim))
                continue
            if claim[0] == "lesson":
                _sort, name, statement, about, agrees = claim
                key, content = "lesson:" + _digest(name, statement), {"statement": statement, "about": []}
                votes = lesson_votes
            else:
                _sort, name, trigger, steps = claim
                content = {"trigger": playbooks.canonical(trigger), "steps": playbooks.canonical(steps)}
                key, about, agrees, votes = (
                    "playbook:" + _digest(name, *content.values()),
                    [],
                    True,
                    playbook_votes,
                )
                content["given"] = claim
            vote = votes.setdefault(key, {"key": key, "sort": claim[0], "name": name, "shown": [], **content})
            vote["shown"].append({"episode": episode_id, "agrees": agrees})
            if about:
                vote["about"].extend(one for one in about if one not in vote["about"])
    return lesson_votes, playbook_votes, runs


_VOTE = (
    "UNWIND $votes AS vote "
    "MERGE (c:Candidate {key: vote.key}) "
    "ON CREATE SET c.sort = vote.sort, c.name = vote.name, c.statement = vote.statement, "
    "  c.trigger = vote.trigger, c.steps = vote.steps, c.by = $by, c.first_at = localdatetime($now) "
    "WITH c, vote UNWIND vote.shown AS shown "
    "MATCH (ep:Episode {id: shown.episode}) "
    "MERGE (c)-[s:SHOWN_IN]->(ep) ON CREATE SET s.agrees = shown.agrees, s.by = $by, s.at = localdatetime($now)"
)

# Per candidate: the episodes that showed it, for and against, and whether its lesson exists.
_TALLY = (
    "UNWIND $keys AS wanted "
    "MATCH (c:Candidate {key: wanted}) "
    "OPTIONAL MATCH (c)-[s:SHOWN_IN]->(ep:Episode) "
    "WITH c, collect(CASE WHEN s.agrees THEN ep.id ELSE null END) AS pros, "
    "  collect(CASE WHEN s.agrees = false THEN ep.id ELSE null END) AS cons "
    "OPTIONAL MATCH (l:Lesson {id: c.name}) WHERE c.sort = 'lesson' "
    "RETURN c.key, pros, cons, l IS NOT NULL"
)

# Per playbook name: its newest version, and the steps of each version that is switched off.
_VERSIONS = (
    "UNWIND $names AS wanted "
    "OPTIONAL MATCH (p:Playbook {name: wanted}) "
    "WITH wanted, collect(p) AS versions "
    "WITH wanted, versions, reduce(top = null, one IN versions | "
    "  CASE WHEN top IS NULL OR one.version > top.version THEN one ELSE top END) AS newest "
    "RETURN wanted, newest.id, newest.version, newest.trigger, newest.steps, newest.enabled, "
    "  [one IN versions WHERE one.enabled = false | one.steps]"
)

# The episodes behind a version: those it was drawn from and those that showed its trigger and steps.
_SUPPORT = (
    "UNWIND $versions AS one "
    "MATCH (p:Playbook {id: one.id}) "
    "OPTIONAL MATCH (p)-[:DRAWN_FROM]->(source:Episode) "
    "WITH one, collect(source.id) AS drawn "
    "OPTIONAL MATCH (:Candidate {key: one.key})-[:SHOWN_IN]->(showing:Episode) "
    "WITH one, drawn, collect(showing.id) AS shown "
    "RETURN one.id, size(drawn + [other IN shown WHERE NOT other IN drawn])"
)


def _chunks(pro: list[str], con: list[str]):
    """(pro, con) slices that together name at most CHUNK episodes."""
    both = [(one, True) for one in pro] + [(one, False) for one in con]
    for start in range(0, max(len(both), 1), CHUNK):
        part = both[start : start + CHUNK]
        yield [one for one, agrees in part if agrees], [one for one, agrees in part if not agrees]


def _promote_lesson(graph, by: str, vote: dict, pros: list, cons: list, exists: bool, at_least: int) -> dict:
    lesson_id, statement, about = vote["name"], vote["statement"], vote["about"][: limits.MAX_REFERENCES]
    counts = {"agree": len(pros), "against": len(cons)}
    if not exists and len(pros) < at_least:
        return {"id": lesson_id, "status": "waiting", **counts}
    if exists:  # only what this call showed: the rest was counted before
        pro = [one["episode"] for one in vote["shown"] if one["agrees"]]
        con = [one["episode"] for one in vote["shown"] if not one["agrees"]]
    else:
        pro, con = sorted(pros), sorted(cons)
    got = []
    for pro_part, con_part in _chunks(pro, con):
        content = {"promote": lesson_id, "statement": statement, "pro": pro_part, "con": con_part}
        got.append(
            lessons.weigh_in(graph, lesson_id, by, pro_part, con_part, statement, about, not exists, content)
        )
        exists = True  # the first chunk learned it: the others weigh it
    refused = [one for one in got if one["status"] not in ("learned", "weighed", "unchanged")]
    statuses = [one["status"] for one in got]
    status = "learned" if "learned" in statuses else "weighed" if "weighed" in statuses else "unchanged"
    return {**(refused[0] if refused else {"id": lesson_id, "status": status}), **counts}


def _promote_playbook(
    graph, by: str, name: str, shown: list[dict], tallies: dict, newest: dict, at_least: int
) -> dict:
    """Writes the next version when the variants this call showed call for it; else says why not."""
    same = (newest["trigger"], newest["steps"])
    writable = [
        vote
        for vote in shown
        if vote["steps"] not in newest["off"] and (vote["trigger"], vote["steps"]) != same
    ]
    threshold = at_least if not newest["enabled"] else max(at_least, newest["support"] + 1)
    where = {"id": newest["id"] or name, "version": newest["version"]}
    best = max(writable, key=lambda vote: len(tallies[vote["key"]][0]), default=None)
    if best is None:
        receipt = {**where, "status": "unchanged", "agree": len(tallies[shown[0]["key"]][0])}
        if any(vote["steps"] in newest["off"] for vote in shown):
            receipt["reason"] = "the episodes show steps that were switched off"
        return receipt
    agree = sorted(tallies[best["key"]][0])
    if len(agree) < threshold:
        return {**where, "status": "waiting", "agree": len(agree)}
    _sort, _name, trigger, steps = best["given"]
    receipt = playbooks.write_playbook(graph, name, by, trigger, steps, agree[:CHUNK], needs=at_least)
    return {**receipt, "agree": len(agree)}


def _newest_versions(graph, names: list[str]) -> dict[str, dict]:
    newest: dict[str, dict] = {}
    for name, found_id, version, trigger, steps, enabled, off in read(graph, _VERSIONS, {"names": names}):
        newest[name] = {
            "id": found_id,
            "version": version,
            "trigger": trigger,
            "steps": steps,
            "enabled": enabled is not False,
            "off": set(off),
            "support": 0,
        }
    present = [
        {"id": one["id"], "key": "playbook:" + _digest(name, one["trigger"], one["steps"])}
        for name, one in newest.items()
        if one["id"] is not None
    ]
    if present:
        supports = dict(read(graph, _SUPPORT, {"versions": present}))
        for one in newest.values():
            one["support"] = supports.get(one["id"], 0)
    return newest


def _check_call(by: object, rule: object, at_least: object, limit: object) -> str:
    writer = limits.name(by, "by")
    if not callable(rule):
        raise Refused("rule must be a function of one episode that gives its claims")
    if isinstance(at_least, bool) or not isinstance(at_least, int) or not 1 <= at_least <= CHUNK:
        raise Refused(f"at_least is a whole number from 1 to {CHUNK}")
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise Refused(f"limit is a whole number from 1 to {MAX_LIMIT:,}")
    return writer


def promote(graph, by: object, rule, at_least: int = 3, limit: int = 100) -> dict:
    """Reads up to `limit` episodes that ended since this agent's last call, in the order they ended,
    asks the rule what each shows, and counts it into runs, lessons and playbooks.

    Returns {"episodes": n, "lessons": [...], "playbooks": [...], "runs": [...]}: a receipt for each
    lesson and each playbook the episodes named (learned, weighed, written, waiting, unchanged, or the
    library's refusal with the id it was for; with "agree", the episodes that showed it so far), and for
    each run the receipt of ran() with its "episode". Runs are judged first: a run is of the version
    there was when the episode happened, not of one its episode helps to write. Every claim of every
    episode is checked before anything is written: a rule that raises or gives something that is not a
    claim raises Refused, and nothing is written or marked.
    """
    writer = _check_call(by, rule, at_least, limit)
    ended, mark = _ended_since(graph, writer, limit)
    shown: list[tuple[str, list[tuple]]] = []
    read_at_once = episodes_by_id(graph, ended)  # one round trip for the slice, not one per episode
    for episode_id in ended:
        try:
            answer = rule(rule_view(read_at_once[episode_id]))
        except Exception as error:  # the application's code: stop before anything is written
            raise Refused(
                f"the rule raised on episode {episode_id!r}: {type(error).__name__}: {error}"
            ) from error
        shown.append((episode_id, claims_of(answer, episode_id)))
    lesson_votes, playbook_votes, runs = _votes(shown)
    run_receipts = [
        {**playbooks.ran(graph, claim[1], episode_id, claim[2], writer), "episode": episode_id}
        for episode_id, claim in runs
    ]
    every = list(lesson_votes.values()) + list(playbook_votes.values())
    tallies = _tallies(graph, writer, every) if every else {}
    lesson_receipts = [
        _promote_lesson(graph, writer, vote, *tallies[vote["key"]], at_least)
        for vote in lesson_votes.values()
    ]
    by_name: dict[str, list[dict]] = {}
    for vote in playbook_votes.values():
        by_name.setdefault(vote["name"], []).append(vote)
    newest = _newest_versions(graph, list(by_name)) if by_name else {}
    playbook_receipts = [
        _promote_playbook(graph, writer, name, votes, tallies, newest[name], at_least)
        for name, votes in by_name.items()
    ]
    _mark(graph, writer, mark, ended)
    return {
        "episodes": len(ended),
        "lessons": lesson_receipts,
        "playbooks": playbook_receipts,
        "runs": run_receipts,
    }


def _tallies(graph, by: str, votes: list[dict]) -> dict[str, tuple[list, list, bool]]:
    """Stores what each episode showed (once per candidate and episode), then reads every count."""
    fields = ("key", "sort", "name", "statement", "trigger", "steps", "shown")
    graph.query(
        _VOTE,
        {"votes": [{key: vote.get(key) for key in fields} for vote in votes], "by": by, "now": clock.now()},
    )
    found = read(graph, _TALLY, {"keys": [vote["key"] for vote in votes]})
    return {key: (pros, cons, exists) for key, pros, cons, exists in found}


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
