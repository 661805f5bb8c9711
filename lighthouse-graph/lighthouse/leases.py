"""The one way the library holds work for an owner: a node names its `owner` and keeps a time that says
when its lease lapses, and taking, renewing and giving it back are each a compare-and-set inside the one
query that writes (the database runs a graph's writes one at a time, so two owners never both win).

Two works use it: a task (tasks.py: claim(), complete(), release(); the time is `until`, when the claim
lapses, none for a claim without a lease) and the job of reading a graph's notes
(note_extraction_hold.py: hold_extraction(), leave_extraction(); the time is `seen_at`, the owner's last
look, which lapses `lease` seconds later, and a node never looked at is free).

A node can be taken by an owner when it has no owner, when (where the work allows it) that owner holds it
already (taking it again renews the lease), when its lease lapsed, or when its owner is one the caller
knows to be gone. Giving it back clears the owner, and a lapse time with it; only its owner gives it back.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from . import clock


@dataclass(frozen=True)
class Lease:
    """How a kind of node keeps its lease: `time` the property it is timed by; `until` True when that
    time is when the lease lapses (set by the taker), False when it is the owner's last look (the lease
    then lapses the given seconds after it)."""

    time: str
    until: bool

    def lapsed(self, node: str) -> str:
        """Cypher: the node's lease lapsed before $lapse_point. No time: a lease without end, or no look."""
        missing = "false" if self.until else "true"
        return f"coalesce({node}.`{self.time}` < localdatetime($lapse_point), {missing})"

    def free(self, node: str, *, own: bool) -> str:
        """Cypher: $owner may take the node: no owner, its own already (own=True), lapsed, or in $gone."""
        mine = f" OR {node}.owner = $owner" if own else ""
        return f"({node}.owner IS NULL{mine} OR {self.lapsed(node)} OR {node}.owner IN $gone)"

    def taking(self, node: str) -> str:
        """Cypher SET items: the node taken (or renewed) by $owner, its time from $timed."""
        return (
            f"{node}.owner = $owner, "
            f"{node}.`{self.time}` = CASE WHEN $timed IS NULL THEN null ELSE localdatetime($timed) END"
        )

    @staticmethod
    def held(node: str) -> str:
        """Cypher: $owner holds the node, its lease lapsed or not (until another takes it)."""
        return f"{node}.owner = $owner"

    def giving_back(self, node: str) -> str:
        """Cypher SET items: the node given back, free for anyone at once."""
        return f"{node}.owner = null" + (f", {node}.`{self.time}` = null" if self.until else "")

    def params(
        self, owner: str, seconds: float | None, gone: list[str] = (), present: datetime | None = None
    ) -> dict:
        """$owner, $gone, $lapse_point and $timed for a take by `owner` with a lease of `seconds` (None: a
        lease without end). A look lapses after `seconds` whole or more: the point is rounded up."""
        present = clock.present() if present is None else present
        if self.until:
            point = present
            timed = None if seconds is None else clock.stamp_of(present + timedelta(seconds=seconds))
        else:
            point = present - timedelta(seconds=int(seconds or 0))
            timed = clock.stamp_of(present)
        return {"owner": owner, "gone": list(gone), "lapse_point": clock.stamp_of(point), "timed": timed}
