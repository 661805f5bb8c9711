"""Operations on episodes (a piece of work with its entries), and on entries found wrong."""

from __future__ import annotations

from lighthouse import (
    close_episode,
    episode,
    episodes_about,
    impact_of_entry,
    invalidate_entry,
    open_episode,
    record,
)

from ..problems import Problem
from .rows import KEY, KIND
from .table import PAGE_DEFAULT, PAGE_MOST, Operation, Param, paged

EPISODE = Param("episode_id", "text", "the episode's id, chosen by you", required=True)
AT = Param("at", "time", "when it happened; now if not given")
CITES = Param("cites", "refs", "what this rests on: references to entities or records")


def _episode_page(call, arguments: dict) -> dict | None:
    """The episode with one page of its entries (an episode holds up to 5,000, too many for a model's
    context): "entries" from the cursor on, at most limit of them, and "next_cursor" (None on the
    last page), the same cursor and limit as the paged operations'."""
    cursor, size = arguments.pop("cursor", None), arguments.pop("page_size", PAGE_DEFAULT)
    if cursor is not None and (not (cursor.isdecimal() and cursor.isascii()) or len(cursor) > 12):
        raise Problem("invalid_argument", "cursor must be the next_cursor of an earlier page")
    if not 1 <= size <= PAGE_MOST:
        raise Problem("invalid_argument", f"limit must be a whole number from 1 to {PAGE_MOST}")
    found = episode(graph=call.graph, **arguments)
    if found is None:
        return None
    page = paged(found["entries"], (int(cursor or 0), size))
    return {**found, "entries": page["items"], "next_cursor": page["next_cursor"]}


OPERATIONS = [
    Operation(
        "open_episode",
        open_episode,
        "write",
        (EPISODE, Param("about", "refs", "the entities the episode is about, as [kind, key]"), AT),
        '{"id", "status": "opened" or "exists"}, or a refusal {"id": null, "status", "reason"}',
        "Start an episode: a named piece of work (a task, an investigation) that entries are written into.",
        example={"episode_id": "ep1", "about": [["Device", "d1"]], "at": "2026-01-01T01:00:00Z"},
        agent_as="by",
        writes=True,
    ),
    Operation(
        "record",
        record,
        "write",
        (
            EPISODE,
            Param("entry_type", "text", "what sort of entry: observation, decision, note...", required=True),
            Param("values", "object", "the entry's content"),
            CITES,
            AT,
        ),
        '{"id": "<episode>/<seq>", "seq", "status": "recorded"}, or a refusal',
        "Write an entry (an observation, a decision, a note) into an open episode.",
        example={
            "episode_id": "ep1",
            "entry_type": "observation",
            "values": {"text": "small leak at the pump"},
            "at": "2026-01-01T01:05:00Z",
        },
        agent_as="by",
        writes=True,
        idempotent=False,
    ),
    Operation(
        "close_episode",
        close_episode,
        "write",
        (EPISODE, Param("outcome", "object", "what came of it"), CITES, AT),
        '{"id": "<episode>/<seq>", "seq", "status": "recorded"}, or a refusal',
        "End an episode with its outcome.",
        example={"episode_id": "ep1", "outcome": {"result": "sealed"}, "at": "2026-01-01T02:00:00Z"},
        agent_as="by",
        writes=True,
        idempotent=False,
    ),
    Operation(
        "episode",
        episode,
        "read",
        (
            EPISODE,
            Param("cursor", "text", "where to go on in the entries: the next_cursor of the page before"),
            Param(
                "limit",
                "int",
                f"entries per page, 1 to {PAGE_MOST} (default {PAGE_DEFAULT})",
                to="page_size",
                also=("page_size",),
            ),
        ),
        "the episode: id, by, opened_at, recorded_at, entry_count, closed_at, about, one page of its "
        "entries in order, and next_cursor (null on the last page); or null",
        "Read one episode with its entries in order, a page at a time: pass next_cursor as cursor for more.",
        example={"episode_id": "ep1"},
        answer=_episode_page,
    ),
    Operation(
        "episodes_about",
        episodes_about,
        "read",
        (KIND, KEY),
        "the episodes about the entity, newest first, each with its outcome",
        "The episodes that were about an entity, newest first.",
        example={"kind": "Device", "key": "d1"},
        paged=True,
    ),
    Operation(
        "invalidate_entry",
        invalidate_entry,
        "review",
        (
            Param("entry_id", "text", "the entry's id, <episode>/<seq>", required=True),
            Param("reason", "text", "why it is wrong", required=True),
            AT,
        ),
        '{"id", "status": "invalidated", "impact"} or {"id", "status": "exists"}, or a refusal',
        "Mark an entry as wrong (nothing is deleted) and get what rested on it.",
        example={"entry_id": "ep1/1", "reason": "the sensor was miscalibrated"},
        agent_as="by",
        writes=True,
    ),
    Operation(
        "impact_of_entry",
        impact_of_entry,
        "read",
        (Param("entry_id", "text", "the entry's id", required=True),),
        "what rests on the entry: downstream entries, derived states, episodes, handoffs, lessons, playbooks",
        "What would be affected if an entry were wrong.",
        example={"entry_id": "ep1/1"},
    ),
]
