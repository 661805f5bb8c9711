"""Lighthouse: temporal, graph-native memory for AI agents on FalkorDB."""

from .algorithms.connection import connection
from .algorithms.groups import groups
from .algorithms.ranking import between, important
from .clock import now, stamp
from .conversation import (
    context,
    embed_said,
    forget_session,
    forget_user,
    messages,
    said,
    said_about,
    said_like,
    said_waiting,
    say,
    sessions,
    summarize,
)
from .diff import diff_between
from .embedding_progress import embedding_progress, keep_embedding_error, keep_embedding_progress
from .episodes import close_episode, episode, episodes_about, open_episode, record
from .errors import (
    EmbedderError,
    ExtractorFailed,
    ExtractorUnavailable,
    LighthouseError,
    ReceiptMismatch,
    Refused,
    SchemaNotReady,
    TooSlow,
    WrongType,
)
from .evidence import cited_by, entries_by_id
from .extraction import extract, extract_again
from .graphs import WORLD, ensure_schema, read_query, tenant, tenant_graph_name, tenant_ids, world
from .handoffs import accept, hand_off, handoffs_for
from .impact import impact_of_entry, impact_of_state, invalidate_entry
from .indexes import ensure_indexes
from .kinds import SELF, Kind
from .lessons import learn, lesson, lessons_about, retire, used, weigh
from .listing import conversation_users, entities_now, kinds_holding, recent_episodes, recent_notes
from .model_layout import upgrade_waiting
from .neighbourhood import neighbourhood
from .note_extraction import (
    finish_note,
    give_note_back,
    hold_note_back,
    keep_extraction_error,
    keep_note_answer,
    leave_note_waiting,
    notes_to_extract,
    set_note_aside,
    skip_note,
)
from .note_extraction_hold import hold_extraction, leave_extraction
from .note_extraction_reads import extraction_progress, extraction_states, notes_set_aside
from .note_extraction_round import extract_notes
from .note_extraction_rows import write_note_rows
from .notes import note, notes
from .notes_waiting import notes_after, notes_by_id, notes_waiting
from .once import Once, once, once_settled
from .overview import overview
from .playbooks import playbook, playbooks_for, ran, switch, write_playbook
from .promotion import promote
from .read import as_of, entity_keys, history, related, state_values
from .recall.answer import recall
from .recall.entry_vectors import embed_entries, entry_dimensions, nearest_entries, vectors_waiting
from .recall.rank import fuse
from .recall.text import search, search_entries, search_history
from .recall.traverse import pointing_at, similar
from .recall.vector import embed, nearest
from .review import candidates, confirm, reject
from .review_context import review_context
from .tasks import add_task, claim, complete, release, task, tasks
from .trust import agent_trust
from .versions import entity_diff, recent_history, relation_windows, version_diff
from .whatif import what_if
from .write.batches import remember
from .write.failures import failures, record_failure
from .write.partial import update

# The names of the published API (lighthouse-graph 0.1.1), in the order of its specification.
__all__ = [
    "Kind",
    "SELF",
    "WORLD",
    "stamp",
    "now",
    "world",
    "tenant",
    "ensure_schema",
    "remember",
    "update",
    "history",
    "as_of",
    "related",
    "open_episode",
    "record",
    "close_episode",
    "episode",
    "episodes_about",
    "hand_off",
    "accept",
    "handoffs_for",
    "add_task",
    "claim",
    "complete",
    "release",
    "say",
    "messages",
    "sessions",
    "said_about",
    "said",
    "embed_said",
    "said_like",
    "said_waiting",
    "summarize",
    "context",
    "forget_session",
    "forget_user",
    "pointing_at",
    "similar",
    "search",
    "search_history",
    "search_entries",
    "embed",
    "nearest",
    "embed_entries",
    "nearest_entries",
    "fuse",
    "extract",
    "learn",
    "weigh",
    "used",
    "retire",
    "lesson",
    "lessons_about",
    "write_playbook",
    "playbooks_for",
    "ran",
    "switch",
    "playbook",
    "promote",
    "impact_of_state",
    "impact_of_entry",
    "invalidate_entry",
    "diff_between",
    "what_if",
    "agent_trust",
    "groups",
    "important",
    "between",
    "connection",
    "record_failure",
    # Ours besides: reads of what the API writes, one more extraction call, and the exceptions.
    "failures",
    "task",
    "tasks",
    "extract_again",
    # A call of the writes done once for a request, through a crash of its caller.
    "once",
    "once_settled",
    "Once",
    # Free text in: notes, the review of what a model drew from them, and recall over both.
    "note",
    "notes",
    "candidates",
    "confirm",
    "reject",
    "recall",
    # What an application that runs workers and keeps records of its own reads of a graph: the notes as a
    # queue, what waits for vectors, the keys of a kind, the tenants, its own queries and indexes, and
    # whether an upgrade waits for ensure_schema().
    "notes_after",
    "notes_by_id",
    "notes_waiting",
    # The job of reading notes with a model: one worker holds a graph's notes, a round of them over the
    # application's extractor, and its steps: each note's answer kept before its rows, the mark moved
    # with what finishes a note, set-aside notes given back.
    "hold_extraction",
    "leave_extraction",
    "extract_notes",
    "notes_to_extract",
    "keep_note_answer",
    "write_note_rows",
    "finish_note",
    "hold_note_back",
    "set_note_aside",
    "leave_note_waiting",
    "skip_note",
    "keep_extraction_error",
    "give_note_back",
    "notes_set_aside",
    "extraction_progress",
    "extraction_states",
    "vectors_waiting",
    # The job of giving vectors: its count, its last error, whether it fails, kept in the graph.
    "embedding_progress",
    "keep_embedding_progress",
    "keep_embedding_error",
    "entry_dimensions",
    "entity_keys",
    "state_values",
    "tenant_ids",
    "tenant_graph_name",
    "read_query",
    "ensure_indexes",
    "upgrade_waiting",
    # What a person reviewing memory reads: counts, pages of lists, an entity's versions and their
    # differences, its evidence, the graph around it, and a candidate's context.
    "overview",
    "entities_now",
    "kinds_holding",
    "recent_episodes",
    "recent_notes",
    "conversation_users",
    "recent_history",
    "relation_windows",
    "entity_diff",
    "version_diff",
    "entries_by_id",
    "cited_by",
    "neighbourhood",
    "review_context",
    "LighthouseError",
    "Refused",
    "WrongType",
    "SchemaNotReady",
    "ReceiptMismatch",
    "TooSlow",
    "EmbedderError",
    "ExtractorFailed",
    "ExtractorUnavailable",
]
