"""hold_extraction(), leave_extraction(): which worker reads a graph's notes, one at a time, so no note is
asked of a model twice.

The job node (:`lh.Worker` {phase: "extraction"}) names its owner and when it last looked (seen_at). A
worker takes the graph when no one holds it, when it holds it already, when the application's gone()
says the owner is gone (a process of its host that ended: after a kill -9 the next start takes over at
once), or when the owner has not looked for the lease. The take is the compare-and-set of leases.py (the
one the tasks' claims use), so two workers that look at once do not both win; every write of the job's state is guarded by the owner
(note_extraction.py), so a worker that lost the graph anyway writes nothing more.

The rule: the arguments are checked before anything is read or written: an owner that is not a name, a
model that is not text of at most 200 characters, or a lease that is not a number of seconds from 1 to a week, raises Refused (a ValueError); a
gone that cannot be called raises WrongType (a TypeError). What gone() raises passes unchanged.
"""

from __future__ import annotations

from . import values
from .errors import Refused, WrongType
from .graphs import read
from .leases import Lease

WORKER = "`lh.Worker`"  # the job node: the mark, the counts, the last error, the owner and its look
PHASE = "extraction"
LEASE = 300  # seconds without a look after which an owner is taken to be gone
LOOKED = Lease(time="seen_at", until=False)  # the owner's last look times its lease (leases.py)


def checked_owner(owner: object) -> str:
    return values.name(owner, "owner")


def _lease(lease: object) -> float:
    if type(lease) not in (int, float) or not 1 <= lease <= values.MAX_LEASE:
        raise Refused(f"lease must be a number of seconds from 1 to {values.MAX_LEASE:,}")
    return float(lease)


def hold_extraction(graph, owner, model=None, lease=LEASE, gone=None) -> str | None:
    """Takes (or keeps) the graph's note extraction for `owner` and says it looked now: None when the
    owner holds it, else the owner that does. model: the name of the model the owner asks (shown by
    extraction_progress()), or None. lease: seconds without a look after which another owner is gone
    (1 to a week). gone: None, or the application's function of another owner's name that says True
    when it knows that owner is gone (a process of its host that ended), so it is taken over at once.
    """
    owner = checked_owner(owner)
    model = None if model is None else values.text(model, "model", values.MAX_NAME)
    lease = _lease(lease)
    if gone is not None and not callable(gone):
        raise WrongType("gone must be None or a function of an owner's name")
    params = {"phase": PHASE, "model": model, **LOOKED.params(owner, lease)}
    # Read first, so a worker that does not hold the graph writes nothing and gone() is asked only of an
    # owner whose lease holds; the take itself is the compare-and-set of leases.py.
    found = read(graph, f"MATCH (w:{WORKER} {{phase: $phase}}) RETURN w.owner, {LOOKED.lapsed('w')}", params)
    held, lapsed = found[0] if found else (None, True)
    if held not in (None, owner) and not lapsed:
        if gone is None or gone(held) is not True:
            return held
        params["gone"] = [held]
    taken = graph.query(
        f"MERGE (w:{WORKER} {{phase: $phase}}) WITH w WHERE {LOOKED.free('w', own=True)} "
        f"SET {LOOKED.taking('w')}, w.model = $model RETURN w.owner",
        params,
    ).result_set
    if taken:
        return None
    again = read(graph, f"MATCH (w:{WORKER} {{phase: $phase}}) RETURN w.owner", {"phase": PHASE})
    return again[0][0] if again and again[0][0] is not None else "another worker"


def leave_extraction(graph, owner) -> bool:
    """Gives the graph's note extraction up (a clean stop), so the next worker of any host takes it at
    once: True, or False when `owner` did not hold it (nothing changes then)."""
    owner = checked_owner(owner)
    return bool(
        graph.query(
            f"MATCH (w:{WORKER} {{phase: $phase}}) WHERE {LOOKED.held('w')} SET {LOOKED.giving_back('w')} RETURN 1",
            {"phase": PHASE, "owner": owner},
        ).result_set
    )
