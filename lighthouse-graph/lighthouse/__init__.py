"""Lighthouse: temporal, graph-native memory for AI agents on FalkorDB."""

from .algorithms.connection import connection
from .algorithms.groups import groups
from .algorithms.ranking import between, important
from .clock import now, stamp
from .conversation import (
    context,
    forget_session,
    forget_user,
    messages,
    said,
    said_about,
    say,
    sessions,
    summarize,
)
from .diff import diff_between
from .episodes import close_episode, episode, episodes_about, open_episode, record
from .extraction import extract, extract_again
from .graphs import ensure_schema, tenant, world
from .handoffs import accept, hand_off, handoffs_for
from .impact import impact_of_entry, impact_of_state, invalidate_entry
from .kinds import SELF, Kind
from .lessons import learn, lesson, lessons_about, retire, used, weigh
from .playbooks import playbook, playbooks_for, ran, switch, write_playbook
from .promotion import promote
from .read import as_of, history, related
from .recall.text import TooSlow, search, search_entries, search_history
from .recall.traverse import pointing_at, similar
from .tasks import add_task, claim, complete, release, task, tasks
from .trust import agent_trust
from .values import Refused
from .whatif import what_if
from .write.batches import remember
from .write.failures import failures
from .write.partial import update

__all__ = [
    "Kind",
    "Refused",
    "SELF",
    "TooSlow",
    "accept",
    "add_task",
    "agent_trust",
    "as_of",
    "between",
    "claim",
    "close_episode",
    "complete",
    "connection",
    "context",
    "diff_between",
    "ensure_schema",
    "episode",
    "episodes_about",
    "extract",
    "extract_again",
    "failures",
    "forget_session",
    "forget_user",
    "groups",
    "hand_off",
    "handoffs_for",
    "history",
    "impact_of_entry",
    "impact_of_state",
    "important",
    "invalidate_entry",
    "learn",
    "lesson",
    "lessons_about",
    "messages",
    "now",
    "open_episode",
    "playbook",
    "playbooks_for",
    "pointing_at",
    "promote",
    "ran",
    "record",
    "related",
    "release",
    "remember",
    "retire",
    "said",
    "said_about",
    "say",
    "search",
    "search_entries",
    "search_history",
    "sessions",
    "similar",
    "stamp",
    "summarize",
    "switch",
    "task",
    "tasks",
    "tenant",
    "update",
    "used",
    "weigh",
    "what_if",
    "world",
    "write_playbook",
]
