"""agent_trust(): how far the work of an agent held, from what the graph records of it.

Four kinds of evidence, each counted for and against the agent:
- entries: the entries it wrote (WROTE), against those marked wrong with invalidate_entry();
- episodes: the closed episodes it wrote in that a lesson rests on (SUPPORTED_BY), against those that
  contradict one (CONTRADICTED_BY);
- runs: the playbook runs it recorded (RAN_IN with by = the agent) that succeeded, against those that
  failed;
- versions: the States it wrote (State.by, through its index) that held at least a minute, against those
  replaced sooner. A State that still holds counts once it has held a minute.
Each kind gives a rate smoothed as (for + 1) / (for + against + 2), so one piece of evidence moves it
only part of the way. The score is the mean of the rates of the kinds the agent has evidence of: the
many versions of a busy writer count as one kind, not as many votes. With no evidence, it is None.
"""

from __future__ import annotations

from . import clock
from . import values as limits
from .episodes import closed_at
from .graphs import read

HELD = "PT1M"  # how long a version holds to count for its writer (an ISO 8601 duration)
EVIDENCE = ("entries", "episodes", "runs", "versions")

# One query, one part per kind of evidence, each with variables of its own (FalkorDB 4.22 lets a name
# bound inside CALL {} clash with the same name later). Every part gives one row, also with no match.
_TRUST = (
    "CALL { OPTIONAL MATCH (:Agent {name: $agent})-[:WROTE]->(written:Entry) "
    "  RETURN count(written) AS entries_all, "
    "    sum(CASE WHEN written.invalidated_at IS NULL THEN 0 ELSE 1 END) AS entries_wrong } "
    "CALL { OPTIONAL MATCH (:Agent {name: $agent})-[:WROTE]->(:Entry)<-[:HAS]-(written_in:Episode) "
    "  WITH DISTINCT written_in "
    f"  WITH written_in, {closed_at('written_in')} AS written_end "
    "  WITH DISTINCT CASE WHEN written_end IS NULL THEN null ELSE written_in END AS ended "
    "  OPTIONAL MATCH (ended)<-[rests:SUPPORTED_BY]-(:Lesson) "
    "  WITH ended, count(rests) AS supports "
    "  OPTIONAL MATCH (ended)<-[denies:CONTRADICTED_BY]-(:Lesson) "
    "  WITH ended, supports, count(denies) AS contradicts "
    "  RETURN count(ended) AS episodes_closed, "
    "    sum(CASE WHEN ended IS NOT NULL AND supports > 0 THEN 1 ELSE 0 END) AS episodes_for, "
    "    sum(CASE WHEN ended IS NOT NULL AND contradicts > 0 THEN 1 ELSE 0 END) AS episodes_against } "
    "CALL { OPTIONAL MATCH (:Playbook)-[run:RAN_IN]->(:Episode) WHERE run.by = $agent "
    "  RETURN count(run) AS runs_all, sum(CASE WHEN run.succeeded = true THEN 1 ELSE 0 END) AS runs_for, "
    "    sum(CASE WHEN run.succeeded = false THEN 1 ELSE 0 END) AS runs_against } "
    "CALL { OPTIONAL MATCH (version:State {by: $agent}) "
    "  RETURN count(version) AS versions_all, sum(CASE WHEN version IS NULL THEN 0 "
    "      WHEN coalesce(version.valid_to, localdatetime($now)) >= version.valid_from + duration($held) "
    "      THEN 1 ELSE 0 END) AS versions_for, "
    "    sum(CASE WHEN version.valid_to IS NOT NULL "
    "      AND version.valid_to < version.valid_from + duration($held) THEN 1 ELSE 0 END) AS versions_against } "
    "RETURN entries_all - entries_wrong, entries_wrong, episodes_for, episodes_against, runs_for, "
    "  runs_against, versions_for, versions_against, entries_all, episodes_closed, runs_all, versions_all"
)


def _rate(support: int, against: int) -> float | None:
    return None if support + against == 0 else (support + 1) / (support + against + 2)


def agent_trust(graph, agent: object) -> dict:
    """What the graph records of an agent's work, and how far it held.

    {"agent", "score": the mean of the rates of the kinds of evidence it has, rounded to 4 places, or
    None with no evidence; "entries_written", "entries_invalidated", "closed_episodes",
    "corroborated_episodes", "contradicted_episodes", "playbook_runs", "runs_succeeded",
    "runs_failed", "states_written", "states_short_lived": counts}. A rate is (for + 1) / (for +
    against + 2). One query; it reads every playbook run to find the agent's. An agent that is not a
    name raises Refused (a ValueError) before anything is read; database errors propagate.
    """
    checked = limits.name(agent, "an agent")
    result = read(graph, _TRUST, {"agent": checked, "now": clock.now(), "held": HELD})
    counts = [int(item or 0) for item in result[0]] if result else [0] * 12
    rates = [_rate(counts[2 * place], counts[2 * place + 1]) for place in range(len(EVIDENCE))]
    given = [rate for rate in rates if rate is not None]
    return {
        "agent": checked,
        "score": round(sum(given) / len(given), 4) if given else None,
        "entries_written": counts[8],
        "entries_invalidated": counts[1],
        "closed_episodes": counts[9],
        "corroborated_episodes": counts[2],
        "contradicted_episodes": counts[3],
        "playbook_runs": counts[10],
        "runs_succeeded": counts[4],
        "runs_failed": counts[5],
        "states_written": counts[11],
        "states_short_lived": counts[7],
    }
