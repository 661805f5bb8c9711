"""add_task(), claim(), complete(), release(), task(), tasks(): work that agents take in order, on a lease.

A task is free when it is open, or claimed with a lease that ran out, and every task it comes after is
done. claim() takes the oldest free task of a kind (created_at, then id) in one query; the database runs
write queries one at a time, so two agents never get the same claim.

(:Task {id, kind, ref, state, created_at, owner, until, done_at, claims, pending, waits})-[:AFTER]->(:Task),
(task)-[:CLAIMED_BY {at, until, n}]->(:Agent). Every claim stays as an edge, numbered by claims; owner
and until are those of the current claim. pending holds the kind until the task is done, so a claim reads
only unfinished tasks through its index; waits counts the tasks before it that are not done (complete()
counts it down), so a claim follows no AFTER edge.
"""

from __future__ import annotations

from . import clock
from . import values as limits
from .errors import Refused
from .graphs import read
from .leases import Lease

STATES = ("open", "claimed", "done")
MAX_LISTED = 1_000  # tasks that one call of tasks() gives
CLAIMED = Lease(time="until", until=True)  # a claim lapses at its until; without one, never (leases.py)


def _after(given: object) -> list[str]:
    """The tasks a new one comes after: names, each once, in the order given; at most 200."""
    copied = limits.plain(given, "after")
    if type(copied) not in (list, tuple):
        raise Refused(f"after must be a list or tuple of task ids, not {type(given).__name__}")
    if len(copied) > limits.MAX_REFERENCES:
        raise Refused(f"after names more than {limits.MAX_REFERENCES} tasks")
    earlier: list[str] = []
    for named in copied:
        checked = limits.name(named, "a task id in after")
        if checked not in earlier:
            earlier.append(checked)
    return earlier


# Written only when the id is new and every earlier task exists; every property in the CREATE (a SET
# after a CREATE cost FalkorDB 4.22 time for each node of the graph). Names inside CALL {} are its own:
# one bound there clashed with the same name in a later FOREACH.
_ADD = (
    "OPTIONAL MATCH (old:Task {id: $id}) "
    "CALL { UNWIND $after AS wanted MATCH (earlier_task:Task {id: wanted}) "
    "  RETURN collect(earlier_task) AS befores } "
    "WITH old, befores, size(befores) = size($after) AS complete "
    "FOREACH (adding IN CASE WHEN old IS NULL AND complete THEN [1] ELSE [] END | "
    "  CREATE (t:Task {id: $id, kind: $kind, ref: $ref, state: 'open', pending: $kind, claims: 0, "
    "    created_at: localdatetime($now), waits: size([one IN befores WHERE one.state <> 'done'])}) "
    "  FOREACH (before IN befores | CREATE (t)-[:AFTER]->(before))) "
    "RETURN old IS NOT NULL, complete"
)


def add_task(graph, task_id: object, kind: object, ref: object = None, after: object = ()) -> bool:
    """Adds an open task of a kind: True, or False when the id exists (then nothing changes, whatever
    after names). ref: a key the task is about (a name or a 64-bit int), or None. after: the ids of tasks
    it comes after, each of which must exist, so the order has no cycle.

    Every argument is checked before anything is written: a task_id or kind that is not a name, a bad
    ref, an after that is not a list or tuple of at most 200 names, or one that names a task that does
    not exist (the task itself included) raises Refused (a ValueError), and nothing is written. A database
    error raises redis.exceptions.ResponseError. One query.
    """
    checked_id = limits.name(task_id, "a task id")
    checked_kind = limits.name(kind, "a task kind")
    checked_ref = None if ref is None else limits.key(ref, "ref")
    earlier = _after(after)
    params = {
        "id": checked_id,
        "kind": checked_kind,
        "ref": checked_ref,
        "after": earlier,
        "now": clock.now(),
    }
    existed, complete = graph.query(_ADD, params).result_set[0]
    if existed:
        return False
    if not complete:
        raise Refused(f"after names a task that does not exist: the task {checked_id!r} comes after tasks")
    return True


# A task is taken when it has no owner or its claim lapsed (leases.py); a claim never renews the claimer's own.
_CLAIM = (
    "MATCH (t:Task {pending: $kind}) "
    f"WHERE t.waits = 0 AND {CLAIMED.free('t', own=False)} "
    "WITH t ORDER BY t.created_at, t.id LIMIT 1 "
    "MERGE (a:Agent {name: $owner}) "
    f"SET t.state = 'claimed', t.claims = t.claims + 1, {CLAIMED.taking('t')} "
    "CREATE (t)-[:CLAIMED_BY {at: localdatetime($now), until: t.until, n: t.claims}]->(a) "
    "RETURN t.id, t.kind, t.ref, t.until"
)


def claim(graph, agent: object, kind: object, lease: object = None) -> dict | None:
    """The oldest free task of a kind (created_at, then id), claimed by agent: {"id", "kind", "ref",
    "until"}, until a datetime lease seconds from now, or None without a lease (the claim then never runs
    out). None when no task is free, and then nothing is written.

    A bad agent or kind, or a lease that is not None or a whole number from 1 to 604,800, raises Refused
    (a ValueError) before anything is written. A database error raises ResponseError. One query.
    """
    claimer = limits.name(agent, "agent")
    checked_kind = limits.name(kind, "a task kind")
    seconds = None if lease is None else limits.lease(lease)
    params = {"kind": checked_kind, **CLAIMED.params(claimer, seconds)}
    found = graph.query(_CLAIM, {**params, "now": params["lapse_point"]}).result_set
    if not found:
        return None
    task_id, task_kind, task_ref, task_until = found[0]
    return {"id": task_id, "kind": task_kind, "ref": task_ref, "until": clock.from_store(task_until)}


# complete() and release() act only for the current owner of a claimed task: the check and the write
# are one query. A claim that ran out still belongs to its owner until another agent claims the task.
_MINE = f"WITH t, coalesce(t.state = 'claimed' AND {CLAIMED.held('t')}, false) AS mine "
_COMPLETE = (
    f"OPTIONAL MATCH (t:Task {{id: $id}}) {_MINE}"
    "OPTIONAL MATCH (later:Task)-[:AFTER]->(t) WHERE mine "
    "WITH t, mine, collect(later) AS laters "
    "FOREACH (finishing IN CASE WHEN mine THEN [t] ELSE [] END | "
    "  SET finishing.state = 'done', finishing.pending = null, finishing.done_at = localdatetime($now) "
    "  FOREACH (waiting IN laters | SET waiting.waits = waiting.waits - 1)) "
    "RETURN mine"
)

_RELEASE = (
    f"OPTIONAL MATCH (t:Task {{id: $id}}) {_MINE}"
    "FOREACH (giving IN CASE WHEN mine THEN [t] ELSE [] END | "
    f"  SET giving.state = 'open', {CLAIMED.giving_back('giving')}) "
    "RETURN mine"
)


def _held(graph, query: str, agent: object, task_id: object) -> bool:
    claimer = limits.name(agent, "agent")
    checked_id = limits.name(task_id, "a task id")
    params = {"id": checked_id, "owner": claimer, "now": clock.now()}
    return graph.query(query, params).result_set[0][0] is True


def complete(graph, agent: object, task_id: object) -> bool:
    """Marks a claimed task done: True only for its current owner, even after the lease ran out while
    nobody claimed it since; False when it is not claimed, has another owner, is unknown or is done.

    Names that are not names raise Refused (a ValueError); a database error raises ResponseError. One query.
    """
    return _held(graph, _COMPLETE, agent, task_id)


def release(graph, agent: object, task_id: object) -> bool:
    """Gives a claimed task back, open again with no owner and no until: True for its current owner,
    False otherwise. Names raise Refused as in complete(); a database error raises ResponseError. One query.
    """
    return _held(graph, _RELEASE, agent, task_id)


def _listing(where: str) -> str:
    return (
        f"MATCH (t:Task{where}) "
        "WITH t ORDER BY t.created_at, t.id LIMIT $limit "
        "OPTIONAL MATCH (t)-[c:CLAIMED_BY]->(a:Agent) "
        "WITH t, c, a ORDER BY c.n "
        "WITH t, collect(CASE WHEN c IS NULL THEN null ELSE [a.name, c.at, c.until] END) AS claimed "
        "WITH t, claimed, [(t)-[:AFTER]->(earlier:Task) | earlier.id] AS after "
        "RETURN t.id, t.kind, t.ref, t.state, t.created_at, t.owner, t.until, t.done_at, after, claimed "
        "ORDER BY t.created_at, t.id"
    )


def _listed(row: list) -> dict:
    """A task as task() and tasks() give it; a property that is not set is left out."""
    task_id, kind, ref, state, created_at, owner, until, done_at, after, claimed = row
    shown: dict = {"id": task_id, "kind": kind, "state": state, "created_at": clock.from_store(created_at)}
    optional = {
        "ref": ref,
        "owner": owner,
        "until": clock.from_store(until),
        "done_at": clock.from_store(done_at),
    }
    shown.update({name: item for name, item in optional.items() if item is not None})
    shown["after"] = sorted(after)
    shown["claims"] = []
    for claimer, at, claim_until in claimed:
        one = {"agent": claimer, "at": clock.from_store(at)}
        if claim_until is not None:
            one["until"] = clock.from_store(claim_until)
        shown["claims"].append(one)
    return shown


def tasks(graph, kind: object = None, state: object = None, limit: int = 100) -> list[dict]:
    """Tasks in the order a claim takes them (created_at, then id): id, kind, state, created_at, and ref,
    owner, until, done_at when set; after (sorted ids) and every claim in order ({"agent", "at", "until"}).

    A bad kind, a state that is not open, claimed or done, or a limit not from 1 to 1,000 raises
    Refused. Nothing is written; database errors pass as ResponseError.
    """
    filters: dict = {}
    if kind is not None:
        filters["kind"] = limits.name(kind, "a task kind")
    if state is not None:
        if type(state) is not str or state not in STATES:
            raise Refused(f"a task's state is one of {', '.join(STATES)}")
        filters["state"] = state
    where = " {" + ", ".join(f"{name}: ${name}" for name in filters) + "}" if filters else ""
    limit = limits.whole(limit, "limit", 1, MAX_LISTED)
    return [_listed(row) for row in read(graph, _listing(where), {**filters, "limit": limit})]


def task(graph, task_id: object) -> dict | None:
    """One task as tasks() gives it, or None when there is none with that id; a bad id raises Refused.

    Nothing is written; database errors pass as ResponseError.
    """
    found = read(graph, _listing(" {id: $id}"), {"id": limits.name(task_id, "a task id"), "limit": 1})
    return _listed(found[0]) if found else None
