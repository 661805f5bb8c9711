"""add_task(), claim(), complete(), release(), tasks(), task(): work that agents take in order, on a lease.

A task is free when it is open, or claimed with a lease that ran out, and every task it comes after
is done. claim() takes the oldest free task of a kind in one query; the database runs write queries
one at a time, so two agents never get the same claim. Every claim stays as a CLAIMED_BY edge,
numbered by the task's claims counter; the task's owner names the agent of the last one.
"""

from __future__ import annotations

from datetime import timedelta

from redis.exceptions import ResponseError

from . import clock
from . import values as limits
from .graphs import read
from .values import MAX_REFERENCES, Refused
from .write.failures import refuse
from .write.rows import typed

LABEL = "Task"
STATES = ("open", "claimed", "done")
DEFAULT_LEASE = 300  # seconds
MAX_LISTED = 1_000  # tasks that one call of tasks() gives

# Properties the library writes on a task, and on a claim edge: values and results may not use them.
TASK_NAMES = frozenset(
    {
        "id",
        "kind",
        "state",
        "created_at",
        "serial",
        "by",
        "owner",
        "lease_until",
        "claims",
        "done_at",
        "pending",
        "waits",
    }
)
CLAIM_NAMES = frozenset({"at", "until", "n", "released_at", "done_at"})
_TASK_TIMES = ("created_at", "lease_until", "done_at")
_CLAIM_TIMES = ("at", "until", "released_at", "done_at")

# One query: written only when the id is new, every earlier task exists and the graph has its Stamp.
# The Stamp counts tasks, so the order of tasks is explicit and never taken from internal ids.
_ADD = (
    "OPTIONAL MATCH (old:Task {id: $id}) "
    "OPTIONAL MATCH (old)-[:AFTER]->(was:Task) "
    "WITH old, collect(was.id) AS old_after "
    "OPTIONAL MATCH (before:Task) WHERE before.id IN $after "
    "WITH old, old_after, collect(before) AS befores "
    "OPTIONAL MATCH (st:Stamp) "
    "FOREACH (go IN CASE WHEN old IS NULL AND st IS NOT NULL AND size(befores) = size($after) "
    "  THEN [1] ELSE [] END | "
    "  SET st.tasks = coalesce(st.tasks, 0) + 1 "
    "  CREATE (t:Task {id: $id, kind: $kind, pending: $kind, state: 'open', by: $by, claims: 0, "
    "    created_at: localdatetime($now), waits: size([earlier IN befores WHERE earlier.state <> 'done'])}) "
    "  SET t += $values, t.serial = st.tasks "
    "  FOREACH (earlier IN befores | CREATE (t)-[:AFTER]->(earlier))) "
    "RETURN old IS NULL, properties(old), old_after, [found IN befores | found.id], st IS NOT NULL"
)

# pending holds the kind until the task is done: with its index, a claim reads only unfinished tasks.
_CLAIM = (
    "MATCH (t:Task {pending: $kind}) "
    # waits counts the tasks before it that are not done (complete() counts it down), so a claim reads
    # no AFTER edge: following them for every open task cost 4.9 ms a claim with 500 open tasks.
    "WHERE (t.state = 'open' OR (t.state = 'claimed' AND t.lease_until < localdatetime($now))) "
    "  AND coalesce(t.waits, 0) = 0 "
    "WITH t ORDER BY t.serial LIMIT 1 "
    "MERGE (a:Agent {name: $agent}) "
    "SET t.state = 'claimed', t.owner = $agent, t.lease_until = localdatetime($until), "
    "  t.claims = coalesce(t.claims, 0) + 1 "
    "CREATE (t)-[:CLAIMED_BY {at: localdatetime($now), until: localdatetime($until), n: t.claims}]->(a) "
    "RETURN properties(t)"
)

# complete() and release() read what they need for a refusal in the same query that writes:
# the values are taken (WITH) before the conditional write changes them.
_LAST_CLAIM = (
    "OPTIONAL MATCH (t:Task {id: $id}) "
    "OPTIONAL MATCH (t)-[c:CLAIMED_BY]->(a:Agent) WHERE c.n = t.claims "
    "WITH t, c, t.state AS was, t.owner AS owner, a.name AS last_agent, properties(c) AS last_claim "
)

_COMPLETE = _LAST_CLAIM + (
    "OPTIONAL MATCH (later:Task)-[:AFTER]->(t) "
    "WITH t, c, was, owner, last_agent, last_claim, collect(later) AS laters "
    "FOREACH (go IN CASE WHEN was = 'claimed' AND owner = $agent THEN [1] ELSE [] END | "
    "  SET t.state = 'done', t.pending = null, t.done_at = localdatetime($now), "
    "      c += $result, c.done_at = localdatetime($now) "
    "  FOREACH (waiting IN laters | SET waiting.waits = waiting.waits - 1)) "
    "RETURN t IS NOT NULL, was, owner, last_agent, last_claim"
)

_RELEASE = _LAST_CLAIM + (
    "FOREACH (go IN CASE WHEN was = 'claimed' AND owner = $agent THEN [1] ELSE [] END | "
    "  SET t.state = 'open', t.owner = null, t.lease_until = null, c.released_at = localdatetime($now)) "
    "RETURN t IS NOT NULL, was, owner, last_agent, last_claim"
)


def _listing(where: str) -> str:
    return (
        f"MATCH (t:Task{where}) "
        "WITH t ORDER BY t.serial LIMIT $limit "
        "OPTIONAL MATCH (t)-[c:CLAIMED_BY]->(a:Agent) "
        "WITH t, c, a ORDER BY t.serial, c.n "
        "WITH t, collect(CASE WHEN c IS NULL THEN null ELSE [a.name, properties(c)] END) AS claimed "
        "WITH t, claimed, [(t)-[:AFTER]->(earlier:Task) | earlier.id] AS after "
        "RETURN properties(t), after, claimed ORDER BY t.serial"
    )


def _named_values(given: object, reserved: frozenset[str], what: str) -> dict:
    checked = limits.values(given, what)
    for name in checked:
        if name in reserved:
            raise Refused(f"the name {name!r} in {what} belongs to the task")
    return checked


def _after(given: object, task_id: str) -> list[str]:
    if given is None:
        return []
    if not isinstance(given, list | tuple):
        raise Refused(f"after must be a list of task ids, not {type(given).__name__}")
    if len(given) > MAX_REFERENCES:
        raise Refused(f"after names more than {MAX_REFERENCES} tasks")
    earlier: list[str] = []
    for named in given:
        checked = limits.name(named, "a task id in after")
        if checked == task_id:
            raise Refused("a task cannot come after itself")
        if checked not in earlier:
            earlier.append(checked)
    return earlier


def _stored_values(props: dict) -> dict:
    return {name: item for name, item in props.items() if name not in TASK_NAMES}


def _same_values(stored: dict, given: dict) -> bool:
    """The same names with values of the same types: 1, 1.0 and True are three values, as stored."""
    return stored.keys() == given.keys() and all(typed(stored[name]) == typed(given[name]) for name in given)


def _shown_task(props: dict) -> dict:
    """A task as the calls give it: its own fields, with times as aware datetimes, and its values."""
    shown = {name: props.get(name) for name in sorted(TASK_NAMES - {"claims", "pending", "waits"})}
    for name in _TASK_TIMES:
        shown[name] = clock.from_store(shown[name])
    shown["values"] = _stored_values(props)
    return shown


def _shown_claim(agent: str, props: dict) -> dict:
    shown = {"agent": agent, "n": props.get("n")}
    for name in _CLAIM_TIMES:
        shown[name] = clock.from_store(props.get(name))
    return shown


def add_task(
    graph, id: str, kind: str, by: str, after: list | None = None, values: dict | None = None
) -> dict:
    """A new open task of a kind, after the tasks it names; {"id", "status"}: added, unchanged or a refusal.

    The same id again with the same kind, after and values is unchanged; with others, a conflict.
    A task can only come after tasks that exist (else missing), so the order has no cycle.
    """
    raw = {"id": id, "kind": kind, "by": by, "after": after, "values": values}
    try:
        task_id = limits.name(id, "a task id")
        task_kind = limits.name(kind, "a task kind")
        agent = limits.name(by, "by")
        earlier = _after(after, task_id)
        given = _named_values(values, TASK_NAMES, "values")
        limits.measured(raw, "a task")
        result = graph.query(
            _ADD,
            {
                "id": task_id,
                "kind": task_kind,
                "by": agent,
                "after": earlier,
                "values": given,
                "now": clock.now(),
            },
        ).result_set
        is_new, old, old_after, found, stamped = result[0]
        if not is_new:
            same = (
                old.get("kind") == task_kind
                and sorted(old_after) == sorted(earlier)
                and _same_values(_stored_values(old), given)
            )
            if not same:
                raise Refused(f"the task {task_id!r} exists with other content", "conflict")
            return {"id": task_id, "status": "unchanged"}
        absent = [named for named in earlier if named not in set(found)]
        if absent:
            shown = ", ".join(repr(named) for named in absent[:10])
            raise Refused(f"after names tasks that do not exist: {shown}", "missing")
        if not stamped:
            raise Refused("the graph has no Stamp: run ensure_schema() before the first task")
        return {"id": task_id, "status": "added"}
    except Refused as error:
        return refuse(graph, LABEL, id, raw, error.reason, str(error), by)
    except ResponseError as error:
        return refuse(graph, LABEL, id, raw, "failed", str(error), by)


def claim(graph, kind: str, agent: str, lease: int = DEFAULT_LEASE) -> dict | None:
    """The oldest free task of a kind, claimed by agent for lease seconds (1 to seven days), or None.

    The task comes as task() gives it, with "status": "claimed"; a refused call gives a receipt.
    """
    raw = {"kind": kind, "agent": agent, "lease": lease}
    try:
        task_kind = limits.name(kind, "a task kind")
        claimer = limits.name(agent, "agent")
        seconds = limits.lease(lease)
        present = clock.present()
        result = graph.query(
            _CLAIM,
            {
                "kind": task_kind,
                "agent": claimer,
                "now": clock.stamp(present),
                "until": clock.stamp(present + timedelta(seconds=seconds)),
            },
        ).result_set
    except Refused as error:
        return refuse(graph, LABEL, None, raw, error.reason, str(error), agent)
    except ResponseError as error:
        return refuse(graph, LABEL, None, raw, "failed", str(error), agent)
    if not result:
        return None
    return {**_shown_task(result[0][0]), "status": "claimed"}


def _held(query: str, graph, id: object, agent: object, extra: dict, what: str) -> tuple[str, list]:
    """Runs complete() or release(): the checked id and the row of the query, or a refusal."""
    task_id = limits.name(id, "a task id")
    claimer = limits.name(agent, "agent")
    row = graph.query(query, {"id": task_id, "agent": claimer, "now": clock.now(), **extra}).result_set[0]
    exists, was, owner, _last_agent, _last_claim = row
    if not exists:
        raise Refused(f"there is no task {task_id!r}", "unknown")
    if was == "claimed" and owner != claimer:
        raise Refused(
            f"the task {task_id!r} is claimed by another agent: only its owner can {what}", "conflict"
        )
    return task_id, row


def complete(graph, id: str, agent: str, result: dict | None = None) -> dict:
    """Marks a claimed task done, by its owner, even after the lease ran out while nobody claimed it since.

    result: values kept on the claim that completed it. {"id", "status"}: done, unchanged (the same
    owner with the same result again) or a refusal.
    """
    raw = {"id": id, "agent": agent, "result": result}
    try:
        given = _named_values(result, CLAIM_NAMES, "result")
        limits.measured(raw, "a result")
        task_id, (_, was, _owner, last_agent, last_claim) = _held(
            _COMPLETE, graph, id, agent, {"result": given}, "complete it"
        )
        if was == "claimed":
            return {"id": task_id, "status": "done"}
        if was == "done" and last_agent == agent:
            kept = {name: item for name, item in last_claim.items() if name not in CLAIM_NAMES}
            if _same_values(kept, given):
                return {"id": task_id, "status": "unchanged"}
            raise Refused(f"the task {task_id!r} is done with another result", "conflict")
        if was == "done":
            raise Refused(f"the task {task_id!r} was done by another agent", "conflict")
        raise Refused(f"the task {task_id!r} is not claimed: claim it before completing it", "conflict")
    except Refused as error:
        return refuse(graph, LABEL, id, raw, error.reason, str(error), agent)
    except ResponseError as error:
        return refuse(graph, LABEL, id, raw, "failed", str(error), agent)


def release(graph, id: str, agent: str) -> dict:
    """Gives a claimed task back, open again, by its owner; {"id", "status"}: released, unchanged or a refusal."""
    raw = {"id": id, "agent": agent}
    try:
        task_id, (_, was, _owner, last_agent, last_claim) = _held(
            _RELEASE, graph, id, agent, {}, "release it"
        )
        if was == "claimed":
            return {"id": task_id, "status": "released"}
        if was == "open" and last_agent == agent and (last_claim or {}).get("released_at") is not None:
            return {"id": task_id, "status": "unchanged"}
        raise Refused(f"the task {task_id!r} is {was}, not claimed by {agent!r}", "conflict")
    except Refused as error:
        return refuse(graph, LABEL, id, raw, error.reason, str(error), agent)
    except ResponseError as error:
        return refuse(graph, LABEL, id, raw, "failed", str(error), agent)


def _listed(row: list) -> dict:
    props, after, claimed = row
    shown = _shown_task(props)
    shown["after"] = sorted(after)
    shown["claims"] = [_shown_claim(agent, claim_props) for agent, claim_props in claimed]
    last = claimed[-1][1] if claimed else {}
    done = shown["state"] == "done"
    shown["result"] = {k: v for k, v in last.items() if k not in CLAIM_NAMES} if done else None
    return shown


def tasks(graph, kind: str | None = None, state: str | None = None, limit: int = 100) -> list[dict]:
    """Tasks in the order they were added: their fields, values, after, every claim, and the result.

    Reading tasks changes nothing; an argument that cannot be used raises Refused.
    """
    filters: dict = {}
    if kind is not None:
        filters["kind"] = limits.name(kind, "a task kind")
    if state is not None:
        if state not in STATES:
            raise Refused(f"a task's state is one of {', '.join(STATES)}")
        filters["state"] = state
    where = " {" + ", ".join(f"{name}: ${name}" for name in filters) + "}" if filters else ""
    limit = limits.whole(limit, "limit", 1, MAX_LISTED)
    return [_listed(row) for row in read(graph, _listing(where), {**filters, "limit": limit})]


def task(graph, id: str) -> dict | None:
    """One task as tasks() gives it, or None when there is none with that id."""
    found = read(graph, _listing(" {id: $id}"), {"id": limits.name(id, "a task id"), "limit": 1})
    return _listed(found[0]) if found else None
