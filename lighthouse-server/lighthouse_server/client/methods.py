"""The client's methods, one per operation of the service, with the operation's arguments.

Written by `python -m lighthouse_server.client.writing` from the operations table: do not edit by hand.
Required arguments come first, in the table's order; the others are keyword-only and left out when None.
A time may be ISO 8601 text or a datetime (one without a zone is UTC). Each method returns the
operation's result and raises ServiceError with the service's code, message and status.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any


class Methods:
    """The operations as methods; Client gives them _send()."""

    def _send(self, operation: str, arguments: dict, writes: bool, idempotency_key: str | None) -> Any:
        raise NotImplementedError

    def declare_kinds(self, kinds: list[dict], *, idempotency_key: str | None = None) -> Any:
        """Declare (or change) the kinds of entities this tenant keeps. Every call that names a kind needs it declared first. A kind's key cannot change. Scope: admin. Result: [{"label", "status": "declared" or "unchanged"}]. A retry sends the same Idempotency-Key (idempotency_key, else one made for the call)."""
        return self._send("declare_kinds", {"kinds": kinds}, True, idempotency_key)

    def kinds(self) -> Any:
        """The kinds this tenant declared, with their keys, times, text and relations. Scope: read. Result: the declarations of the tenant's kinds, sorted by label."""
        return self._send("kinds", {}, False, None)

    def audit(self, *, cursor: str | None = None, limit: int | None = None) -> Any:
        """The tenant's audit records: keys created and revoked, kinds declared, forgetting. Nothing edits them. Scope: admin. Result: [{"id", "at", "action", "who", "key_id", "what"}] oldest first."""
        return self._send("audit", {"cursor": cursor, "limit": limit}, False, None)

    def export(self, *, cursor: str | None = None, limit: int | None = None) -> Any:
        """Every node and edge of this tenant's graph with its properties, for a copy outside Lighthouse. Page through it with the cursor; the command line's `lighthouse export` writes it whole. Scope: admin. Result: [{"type": "node", "id", "labels", "properties"} or {"type": "edge", "id", "relation", "from", "to", "properties"}], nodes first, paged."""
        return self._send("export", {"cursor": cursor, "limit": limit}, False, None)

    def remember(self, kind: str, rows: list[dict], *, idempotency_key: str | None = None) -> Any:
        """FULL PICTURE WRITE: each row replaces its entity's whole state from time t on. Every value and relation the row leaves out ENDS at t (it stays in the history). To change only some values or relations and keep the rest, use update_rows. A row equal to the current state changes nothing; bad rows are refused one by one with a reason, the others are still stored. Scope: write. Result: a list of receipts, one per row in order: {"key", "status"}, status created, changed, inserted, unchanged, stale, conflict, missing, invalid, failed or busy (a reason with the last five); a row that ended values or relations has "ended": {"values": [names], "relations": {type: [keys]}}. A retry sends the same Idempotency-Key (idempotency_key, else one made for the call)."""
        return self._send("remember", {"kind": kind, "rows": rows}, True, idempotency_key)

    def update_rows(self, kind: str, rows: list[dict], *, idempotency_key: str | None = None) -> Any:
        """Change what each row names (values, relations) from time t on and keep everything else its entity holds; a value or a relation type set to null ends it. An entity not known yet is created with what the row names. Use it for one entity or many. Scope: write. Result: a list of receipts, one per row in order: {"key", "status"}, status created, changed, inserted, unchanged, stale, conflict, missing, invalid, failed or busy (a reason with the last five). A retry sends the same Idempotency-Key (idempotency_key, else one made for the call)."""
        return self._send("update_rows", {"kind": kind, "rows": rows}, True, idempotency_key)

    def update(self, kind: str, key: str | int, t: str | datetime, *, values: dict | None = None, relations: dict | None = None, entry: str | None = None, idempotency_key: str | None = None) -> Any:
        """Change some values or relations of one entity from time t on, keeping the rest as they are. Scope: write. Result: one receipt {"key", "status"}, status as remember gives, or busy. A retry sends the same Idempotency-Key (idempotency_key, else one made for the call)."""
        return self._send("update", {"kind": kind, "key": key, "t": t, "values": values, "relations": relations, "entry": entry}, True, idempotency_key)

    def history(self, kind: str, key: str | int, *, cursor: str | None = None, limit: int | None = None) -> Any:
        """Every version an entity has had, oldest first, each with the time it became true and the time it stopped being true (absent while current), and its trust: what a model drew is a candidate until a person confirms or rejects it. Scope: read. Result: the versions (States) of the entity, oldest first: its values, valid_from, valid_to once replaced, recorded_at, by, fp, entry when it rests on one, trust ("confirmed", "candidate" or "rejected") and review (who, when, why) once reviewed, and relations: {type: [keys]} valid from its start."""
        return self._send("history", {"kind": kind, "key": key, "cursor": cursor, "limit": limit}, False, None)

    def as_of(self, kind: str, key: str | int, *, at: str | datetime | None = None) -> Any:
        """What was true about one entity at a given time. Scope: read. Result: the version that was true at that time, shaped as history gives it (its relations too), or null."""
        return self._send("as_of", {"kind": kind, "key": key, "at": at}, False, None)

    def related(self, kind: str, key: str | int, relation: str, *, at: str | datetime | None = None, cursor: str | None = None, limit: int | None = None) -> Any:
        """The entities one entity points at through a relation, now or at a given time. Scope: read. Result: the keys the relation points at, sorted."""
        return self._send("related", {"kind": kind, "key": key, "relation": relation, "at": at, "cursor": cursor, "limit": limit}, False, None)

    def diff_between(self, kinds: list[str], since: str | datetime, until: str | datetime) -> Any:
        """What changed between two times: entities that appeared, values that changed, relations opened and closed, episodes opened and closed. Scope: read. Result: entities_added, values_changed, relations_opened, relations_closed, episodes_opened, episodes_closed."""
        return self._send("diff_between", {"kinds": kinds, "since": since, "until": until}, False, None)

    def entity(self, kind: str, key: str | int) -> Any:
        """The current values of one entity (a version a person rejected does not count: the one before it holds on). Scope: read. Result: {"key", "current": the version true now (shaped as history gives it), or null, "relations": {type: [keys]} it points at now}."""
        return self._send("entity", {"kind": kind, "key": key}, False, None)

    def entities(self, kind: str, *, cursor: str | None = None, limit: int | None = None) -> Any:
        """List the keys of the entities of a kind, a page at a time. Scope: read. Result: the keys of the kind's entities, sorted."""
        return self._send("entities", {"kind": kind, "cursor": cursor, "limit": limit}, False, None)

    def search(self, kind: str, question: str, *, limit: int | None = None, match: str | None = None) -> Any:
        """Find entities of a kind whose current text values hold the words of a question. Scope: read. Result: [{"key", "score", "values"}] best first."""
        return self._send("search", {"kind": kind, "question": question, "limit": limit, "match": match}, False, None)

    def search_history(self, kind: str, question: str, *, limit: int | None = None, match: str | None = None) -> Any:
        """Find past and current versions of entities whose text held the words. Scope: read. Result: [{"key", "score", "state"}] best first; state shaped as history gives it."""
        return self._send("search_history", {"kind": kind, "question": question, "limit": limit, "match": match}, False, None)

    def search_entries(self, question: str, *, limit: int | None = None, match: str | None = None) -> Any:
        """Find entries of episodes (notes, observations) whose values hold the words. Scope: read. Result: [{"id", "score", "entry"}] best first."""
        return self._send("search_entries", {"question": question, "limit": limit, "match": match}, False, None)

    def pointing_at(self, kind: str, relation: str, key: str | int, *, at: str | datetime | None = None, cursor: str | None = None, limit: int | None = None) -> Any:
        """Which entities of a kind point at a given entity through a relation (for example every device LOCATED_IN a room). Scope: read. Result: the sorted keys of the entities of the kind whose relation points at the key."""
        return self._send("pointing_at", {"kind": kind, "relation": relation, "key": key, "at": at, "cursor": cursor, "limit": limit}, False, None)

    def similar(self, kind: str, key: str | int, *, relations: list[str] | None = None, limit: int | None = None) -> Any:
        """Entities of the same kind that share the most relation targets with a given one. Scope: read. Result: [{"key", "shared", "through": [[relation, target], ...]}] most shared first."""
        return self._send("similar", {"kind": kind, "key": key, "relations": relations, "limit": limit}, False, None)

    def embed(self, kind: str, *, limit: int | None = None, idempotency_key: str | None = None) -> Any:
        """Give the entities of a kind with dimensions their meaning vectors (the configured embedder), so recall finds them by meaning. Needs an embedder (embedder = local or http). Scope: write. Result: {"embedded", "waiting"}: how many got their vectors now and how many still wait. A retry sends the same Idempotency-Key (idempotency_key, else one made for the call)."""
        return self._send("embed", {"kind": kind, "limit": limit}, True, idempotency_key)

    def candidates(self, *, kinds: list[str] | None = None, limit: int | None = None) -> Any:
        """List the facts a model drew from notes that no person has confirmed or rejected yet, oldest first. Each names its State by kind, key and valid_from; state.entry is the note it came from. Scope: read. Result: [{"kind", "key", "state"}] oldest recorded first; state as history gives it, with trust "candidate"."""
        return self._send("candidates", {"kinds": kinds, "limit": limit}, False, None)

    def confirm(self, kind: str, key: str | int, valid_from: str | datetime, *, why: str | None = None, idempotency_key: str | None = None) -> Any:
        """Confirm a fact a model drew (or any State): it is marked confirmed with who (the key's agent), when and why. Nothing else changes. Scope: review. Result: {"key", "valid_from", "status": "confirmed" | "unknown" | "invalid"} (and a reason for the last two). A retry sends the same Idempotency-Key (idempotency_key, else one made for the call)."""
        return self._send("confirm", {"kind": kind, "key": key, "valid_from": valid_from, "why": why}, True, idempotency_key)

    def reject(self, kind: str, key: str | int, valid_from: str | datetime, why: str, *, idempotency_key: str | None = None) -> Any:
        """Reject a fact a model drew: it is marked rejected with who, when and why, and recall leaves it out (the version before it holds on). Nothing is deleted: history still shows it, marked. Scope: review. Result: {"key", "valid_from", "status": "rejected" | "unknown" | "invalid"} (and a reason for the last two). A retry sends the same Idempotency-Key (idempotency_key, else one made for the call)."""
        return self._send("reject", {"kind": kind, "key": key, "valid_from": valid_from, "why": why}, True, idempotency_key)

    def recall(self, question: str, *, kinds: list[str] | None = None, at: str | datetime | None = None, past: bool | None = None, rejected: bool | None = None, limit: int | None = None) -> Any:
        """Answer a question from memory: the facts valid now (or at `at`) about what the question's words and meaning find, across the declared kinds, each with its validity window, its trust (confirmed, candidate, rejected) and its evidence (the note or entry it came from, with its text), and the notes that matched (a time the question names, such as 'last month' or 'two weeks before the trip', is read against when each note was said; of notes that say the same, the newest first), with the episodes they were said in and the notes said beside them. Use it first when you do not know which search fits. Scope: read. Result: {"facts": [{"kind", "key", "score", "places", "state", "valid_from", "valid_to", "current", "trust", "evidence": {"id", "text", "episode", "at", "by"} or null}], "notes": [{"id", "score", "places", "text", "source", "at", "by", "episode"}], "episodes": [{"id", "score", "found": [note ids], "beside": [notes]}], "meaning": "used" | "not configured" | "failing: <why>"}, best first."""
        return self._send("recall", {"question": question, "kinds": kinds, "at": at, "past": past, "rejected": rejected, "limit": limit}, False, None)

    def open_episode(self, episode_id: str, *, about: list | None = None, at: str | datetime | None = None, idempotency_key: str | None = None) -> Any:
        """Start an episode: a named piece of work (a task, an investigation) that entries are written into. Scope: write. Result: {"id", "status": "opened" or "exists"}, or a refusal {"id": null, "status", "reason"}. A retry sends the same Idempotency-Key (idempotency_key, else one made for the call)."""
        return self._send("open_episode", {"episode_id": episode_id, "about": about, "at": at}, True, idempotency_key)

    def record(self, episode_id: str, entry_type: str, *, values: dict | None = None, cites: list | None = None, at: str | datetime | None = None, idempotency_key: str | None = None) -> Any:
        """Write an entry (an observation, a decision, a note) into an open episode. Scope: write. Result: {"id": "<episode>/<seq>", "seq", "status": "recorded"}, or a refusal. A retry sends the same Idempotency-Key (idempotency_key, else one made for the call)."""
        return self._send("record", {"episode_id": episode_id, "entry_type": entry_type, "values": values, "cites": cites, "at": at}, True, idempotency_key)

    def close_episode(self, episode_id: str, *, outcome: dict | None = None, cites: list | None = None, at: str | datetime | None = None, idempotency_key: str | None = None) -> Any:
        """End an episode with its outcome. Scope: write. Result: {"id": "<episode>/<seq>", "seq", "status": "recorded"}, or a refusal. A retry sends the same Idempotency-Key (idempotency_key, else one made for the call)."""
        return self._send("close_episode", {"episode_id": episode_id, "outcome": outcome, "cites": cites, "at": at}, True, idempotency_key)

    def episode(self, episode_id: str, *, cursor: str | None = None, limit: int | None = None) -> Any:
        """Read one episode with its entries in order, a page at a time: pass next_cursor as cursor for more. Scope: read. Result: the episode: id, by, opened_at, recorded_at, entry_count, closed_at, about, one page of its entries in order, and next_cursor (null on the last page); or null."""
        return self._send("episode", {"episode_id": episode_id, "cursor": cursor, "limit": limit}, False, None)

    def episodes_about(self, kind: str, key: str | int, *, cursor: str | None = None, limit: int | None = None) -> Any:
        """The episodes that were about an entity, newest first. Scope: read. Result: the episodes about the entity, newest first, each with its outcome."""
        return self._send("episodes_about", {"kind": kind, "key": key, "cursor": cursor, "limit": limit}, False, None)

    def invalidate_entry(self, entry_id: str, reason: str, *, at: str | datetime | None = None, idempotency_key: str | None = None) -> Any:
        """Mark an entry as wrong (nothing is deleted) and get what rested on it. Scope: review. Result: {"id", "status": "invalidated", "impact"} or {"id", "status": "exists"}, or a refusal. A retry sends the same Idempotency-Key (idempotency_key, else one made for the call)."""
        return self._send("invalidate_entry", {"entry_id": entry_id, "reason": reason, "at": at}, True, idempotency_key)

    def impact_of_entry(self, entry_id: str) -> Any:
        """What would be affected if an entry were wrong. Scope: read. Result: what rests on the entry: downstream entries, derived states, episodes, handoffs, lessons, playbooks."""
        return self._send("impact_of_entry", {"entry_id": entry_id}, False, None)

    def hand_off(self, handoff_id: str, to: str, points_to: list, *, values: dict | None = None, at: str | datetime | None = None, idempotency_key: str | None = None) -> Any:
        """Hand work over to another agent, pointing at what it is about. Scope: write. Result: {"id", "status": "given" or "exists"}, or a refusal. A retry sends the same Idempotency-Key (idempotency_key, else one made for the call)."""
        return self._send("hand_off", {"handoff_id": handoff_id, "to": to, "points_to": points_to, "values": values, "at": at}, True, idempotency_key)

    def accept(self, handoff_id: str, *, idempotency_key: str | None = None) -> Any:
        """Accept a handoff given to you. Scope: write. Result: {"id", "status": "accepted" or "exists"}, or a refusal (refused: you are not the receiver). A retry sends the same Idempotency-Key (idempotency_key, else one made for the call)."""
        return self._send("accept", {"handoff_id": handoff_id}, True, idempotency_key)

    def handoffs_for(self, *, agent: str | None = None, waiting_only: bool | None = None, cursor: str | None = None, limit: int | None = None) -> Any:
        """The handoffs given to an agent (you, by default) that wait to be accepted. Scope: read. Result: the handoffs given to the agent, oldest first, each with points_to."""
        return self._send("handoffs_for", {"agent": agent, "waiting_only": waiting_only, "cursor": cursor, "limit": limit}, False, None)

    def add_task(self, task_id: str, kind: str, *, ref: str | int | None = None, after: list[str] | None = None, idempotency_key: str | None = None) -> Any:
        """Put a task in the queue, optionally after other tasks. Scope: write. Result: true when added, false when the id exists already. A retry sends the same Idempotency-Key (idempotency_key, else one made for the call)."""
        return self._send("add_task", {"task_id": task_id, "kind": kind, "ref": ref, "after": after}, True, idempotency_key)

    def tasks(self, *, kind: str | None = None, state: str | None = None, limit: int | None = None) -> Any:
        """The task queue: who holds what, what is open, what is done. Scope: read. Result: [{"id", "kind", "state", "created_at", "ref"?, "owner"?, "until"?, "done_at"?, "after", "claims"}] in the order claim takes them."""
        return self._send("tasks", {"kind": kind, "state": state, "limit": limit}, False, None)

    def claim(self, kind: str, *, lease: int | None = None, idempotency_key: str | None = None) -> Any:
        """Take the oldest free task of a sort. Give a lease: once it runs out another agent may take the task. Scope: write. Result: {"id", "kind", "ref", "until"} of the task you now hold, or null when none is free. A retry sends the same Idempotency-Key (idempotency_key, else one made for the call)."""
        return self._send("claim", {"kind": kind, "lease": lease}, True, idempotency_key)

    def complete(self, task_id: str, *, idempotency_key: str | None = None) -> Any:
        """Mark a task you hold as done. Scope: write. Result: true when you held the task and it is now done. A retry sends the same Idempotency-Key (idempotency_key, else one made for the call)."""
        return self._send("complete", {"task_id": task_id}, True, idempotency_key)

    def release(self, task_id: str, *, idempotency_key: str | None = None) -> Any:
        """Give a task you hold back to the queue. Scope: write. Result: true when you held the task and it is free again. A retry sends the same Idempotency-Key (idempotency_key, else one made for the call)."""
        return self._send("release", {"task_id": task_id}, True, idempotency_key)

    def say(self, user: str, session_id: str, role: str, text: str, *, mentions: list | None = None, values: dict | None = None, at: str | datetime | None = None, idempotency_key: str | None = None) -> Any:
        """Keep one message of a conversation. Scope: write. Result: {"id": session_id, "seq", "status": "said"}, or a refusal. A retry sends the same Idempotency-Key (idempotency_key, else one made for the call)."""
        return self._send("say", {"user": user, "session_id": session_id, "role": role, "text": text, "mentions": mentions, "values": values, "at": at}, True, idempotency_key)

    def messages(self, user: str, session_id: str, *, limit: int | None = None, before: int | None = None) -> Any:
        """Read the messages of a session. Scope: read. Result: the messages, oldest first."""
        return self._send("messages", {"user": user, "session_id": session_id, "limit": limit, "before": before}, False, None)

    def context(self, user: str, session_id: str, *, limit: int | None = None) -> Any:
        """What an assistant needs to go on with a session: its summary and the messages after it. Scope: read. Result: {"summary", "upto", "messages": those after the summary, "waiting"}."""
        return self._send("context", {"user": user, "session_id": session_id, "limit": limit}, False, None)

    def summarize(self, user: str, session_id: str, text: str, upto: int, *, idempotency_key: str | None = None) -> Any:
        """Keep a summary of a session up to a message. Scope: write. Result: {"id", "upto", "status": "summed"}, or a refusal. A retry sends the same Idempotency-Key (idempotency_key, else one made for the call)."""
        return self._send("summarize", {"user": user, "session_id": session_id, "text": text, "upto": upto}, True, idempotency_key)

    def sessions(self, user: str, *, limit: int | None = None) -> Any:
        """The sessions of a user. Scope: read. Result: [{"id", "opened_at", "active_at", "messages"}] most recent first."""
        return self._send("sessions", {"user": user, "limit": limit}, False, None)

    def said_about(self, user: str, reference: str | list, *, limit: int | None = None) -> Any:
        """What a user said about an entity or a record, across the user's sessions. Scope: read. Result: the user's messages that mention it, newest first, shaped as messages gives them."""
        return self._send("said_about", {"user": user, "reference": reference, "limit": limit}, False, None)

    def said(self, user: str, question: str, *, limit: int | None = None, match: str | None = None) -> Any:
        """Find what a user said, across the user's sessions, by the words of a question and, with an embedder configured, by its meaning; only that user's messages are ever read. Scope: read. Result: the user's messages best first, shaped as messages gives them, with a "score" (and "places": {"words", "meaning"} when an embedder is configured)."""
        return self._send("said", {"user": user, "question": question, "limit": limit, "match": match}, False, None)

    def forget_session(self, user: str, session_id: str, *, idempotency_key: str | None = None) -> Any:
        """Delete a session of a user and its messages for good (recorded in the audit). Scope: admin. Result: {"id", "status": "forgotten" or "unknown", "messages"}. A retry sends the same Idempotency-Key (idempotency_key, else one made for the call)."""
        return self._send("forget_session", {"user": user, "session_id": session_id}, True, idempotency_key)

    def forget_user(self, user: str, *, idempotency_key: str | None = None) -> Any:
        """Delete every session and message of a user for good (recorded in the audit). Scope: admin. Result: {"user", "sessions", "messages"}: how many were deleted. A retry sends the same Idempotency-Key (idempotency_key, else one made for the call)."""
        return self._send("forget_user", {"user": user}, True, idempotency_key)

    def learn(self, lesson_id: str, statement: str, supported_by: list[str], *, about: list | None = None, values: dict | None = None, at: str | datetime | None = None, idempotency_key: str | None = None) -> Any:
        """Keep a lesson drawn from ended episodes, about some entities. Scope: write. Result: {"id", "status": "learned" or "exists"}, or a refusal. A retry sends the same Idempotency-Key (idempotency_key, else one made for the call)."""
        return self._send("learn", {"lesson_id": lesson_id, "statement": statement, "supported_by": supported_by, "about": about, "values": values, "at": at}, True, idempotency_key)

    def weigh(self, lesson_id: str, episode_id: str, agrees: bool, *, at: str | datetime | None = None, idempotency_key: str | None = None) -> Any:
        """Count an ended episode for or against a lesson. Scope: review. Result: {"id", "status": "weighed" or "exists"}, or a refusal. A retry sends the same Idempotency-Key (idempotency_key, else one made for the call)."""
        return self._send("weigh", {"lesson_id": lesson_id, "episode_id": episode_id, "agrees": agrees, "at": at}, True, idempotency_key)

    def lessons_about(self, kind: str, key: str | int, *, at_least: int | None = None, since: str | datetime | None = None, cursor: str | None = None, limit: int | None = None) -> Any:
        """What was learned about an entity. Scope: read. Result: the lessons about the entity, heaviest first, each with its weight."""
        return self._send("lessons_about", {"kind": kind, "key": key, "at_least": at_least, "since": since, "cursor": cursor, "limit": limit}, False, None)

    def write_playbook(self, name: str, trigger: dict, steps: list[dict], supported_by: list[str], *, needs: int | None = None, at: str | datetime | None = None, idempotency_key: str | None = None) -> Any:
        """Write a new version of a playbook: the steps to take in a situation. Scope: write. Result: {"id": "<name>#<version>", "version", "status": "written"}, or a refusal. A retry sends the same Idempotency-Key (idempotency_key, else one made for the call)."""
        return self._send("write_playbook", {"name": name, "trigger": trigger, "steps": steps, "supported_by": supported_by, "needs": needs, "at": at}, True, idempotency_key)

    def playbooks_for(self, situation: dict, *, cursor: str | None = None, limit: int | None = None) -> Any:
        """Which playbooks fit a situation. Scope: read. Result: the enabled playbooks whose trigger fits the situation, best first."""
        return self._send("playbooks_for", {"situation": situation, "cursor": cursor, "limit": limit}, False, None)

    def groups(self, kinds: list[str], *, relations: list[str] | None = None, records: list[str] | None = None, at_least: int | None = None, limit: int | None = None, show: int | None = None, at: str | datetime | None = None) -> Any:
        """Groups of entities connected to each other. Heavy: limited per key and minute. Scope: read. Result: [{"size", "members": [[label, key], ...]}] largest first."""
        return self._send("groups", {"kinds": kinds, "relations": relations, "records": records, "at_least": at_least, "limit": limit, "show": show, "at": at}, False, None)

    def important(self, kinds: list[str], *, relation: str | None = None, limit: int | None = None, at: str | datetime | None = None) -> Any:
        """The most central entities (PageRank). Heavy: limited per key and minute. Scope: read. Result: [{"entity": [label, key], "score"}] highest first."""
        return self._send("important", {"kinds": kinds, "relation": relation, "limit": limit, "at": at}, False, None)

    def between(self, kinds: list[str], *, relations: list[str] | None = None, limit: int | None = None, sample: int | None = None, seed: int | None = None, at: str | datetime | None = None) -> Any:
        """The entities most often on the way between others (betweenness). Heavy: limited per key and minute. Scope: read. Result: [{"entity": [label, key], "score"}] highest first."""
        return self._send("between", {"kinds": kinds, "relations": relations, "limit": limit, "sample": sample, "seed": seed, "at": at}, False, None)

    def connection(self, start: str | list, end: str | list, *, kinds: list[str] | None = None, relations: list[str] | None = None, max_hops: int | None = None, at: str | datetime | None = None) -> Any:
        """The shortest way between two entities. Heavy: limited per key and minute. Scope: read. Result: [{"from", "relation", "to", "forward", "current", "since", "until"}], [] for the same end, null for none."""
        return self._send("connection", {"start": start, "end": end, "kinds": kinds, "relations": relations, "max_hops": max_hops, "at": at}, False, None)

    def failures(self, *, kind: str | None = None, reason: str | None = None, limit: int | None = None) -> Any:
        """What was refused and why: every write that could not be stored is kept here. Scope: read. Result: the stored refusals (WriteFailures), newest first: reason, message, kind, key, detail, times."""
        return self._send("failures", {"kind": kind, "reason": reason, "limit": limit}, False, None)

    def agent_trust(self, agent: str) -> Any:
        """How far an agent's work has held up: a score and the counts behind it. Scope: read. Result: {"agent", "score" (0 to 1, or null), counts of its record}."""
        return self._send("agent_trust", {"agent": agent}, False, None)

    def cypher(self, query: str, *, parameters: dict | None = None) -> Any:
        """Run a read-only openCypher query on your tenant's graph, with a time limit. Writes are refused by the database. Entities are nodes labelled Entity and their kind; their versions are State nodes. Scope: read. Result: {"columns", "rows", "truncated"} (at most 10000 rows, truncated true when there were more; nodes as {"labels", "properties"})."""
        return self._send("cypher", {"query": query, "parameters": parameters}, False, None)

    def health(self) -> Any:
        """Whether the service and its database answer. Scope: read. Result: {"status": "ok" or "degraded", "database": "ok" or "unreachable"}."""
        return self._send("health", {}, False, None)

    def status(self) -> Any:
        """What the workers did for this tenant and what waits: notes waiting and the oldest one's age, notes read, rows written by receipt status, items of the model refused, notes set aside, the last error. A phase whose setting is empty says "not configured". Scope: read. Result: {"tenant", "extraction": {"state", "model", "worker", "notes_waiting", "oldest_waiting_s", "notes_read", "rows": {status: count}, "items_refused", "asks_failed", "notes_set_aside", "notes_invalidated", "last_read_at", "last_error", "last_error_at", "last_seen_s"}, "embedding": {"state", "waiting", "embedded", "model", "last_error", "last_error_at", "last_embedded_at"}}; a state is "not configured", "no kinds", "idle", "working", "failing" or "stalled" (extraction), "not configured", "ok" or "failing" (embedding)."""
        return self._send("status", {}, False, None)

    def replay(self, note: str, *, idempotency_key: str | None = None) -> Any:
        """Give a note that was set aside (the model failed on it every time) back to the extraction worker, which reads it again before newer notes. Scope: write. Result: {"note", "status": "replayed" | "unknown" | "not_set_aside"}. A retry sends the same Idempotency-Key (idempotency_key, else one made for the call)."""
        return self._send("replay", {"note": note}, True, idempotency_key)

    def set_aside(self, *, limit: int | None = None) -> Any:
        """The notes the extraction worker set aside after the model failed on them every time, with the last error; replay gives one back. Scope: read. Result: [{"note", "text", "at", "error", "error_at", "asks"}] oldest first."""
        return self._send("set_aside", {"limit": limit}, False, None)

    def note(self, text: str, *, source: str | None = None, at: str | datetime | None = None, episode: str | None = None, idempotency_key: str | None = None) -> Any:
        """Keep one note: anything worth remembering, in plain words, as you work. It is stored at once and returns its entry id; it is found by its words at once and by meaning once embedded, and facts are drawn from it later. Scope: write. Result: {"id": "<episode>/<seq>", "seq", "status": "recorded"}, or a refusal {"id": null, "status": "invalid" | "closed" | "failed", "reason"} kept as a WriteFailure. A retry sends the same Idempotency-Key (idempotency_key, else one made for the call)."""
        return self._send("note", {"text": text, "source": source, "at": at, "episode": episode}, True, idempotency_key)

    def notes(self, items: list[dict], *, idempotency_key: str | None = None) -> Any:
        """Keep many notes in one call. A note that cannot be stored gets its refusal and the others are kept. Scope: write. Result: one receipt per note, in order: {"id": "<episode>/<seq>", "seq", "status": "recorded"}, or a refusal {"id": null, "status": "invalid" | "closed" | "failed", "reason"} kept as a WriteFailure. A retry sends the same Idempotency-Key (idempotency_key, else one made for the call)."""
        return self._send("notes", {"items": items}, True, idempotency_key)

    def search_notes(self, question: str, *, limit: int | None = None) -> Any:
        """Find notes by their words and (with an embedder, once they are embedded) by meaning, fused. Scope: read. Result: {"notes": [{"id", "score", "places": {"words"|"meaning": place}, "entry"}] best first, "meaning": "used" | "not configured" | "not embedded yet" | "failing: <why>"}."""
        return self._send("search_notes", {"question": question, "limit": limit}, False, None)
