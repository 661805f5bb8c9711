"""Writes the conversations as an agent keeps them, into throwaway graphs, and embeds them, timed.

Each user's memory is a graph of its own (as a tenant of the service has one), so a question is asked
only of its user's notes: "turns" holds one note per turn, "sessions" one note per session (the whole
transcript, thousands of words for a long one). A note's episode is its session, so a note's id,
"<session>/<seq>", names its session. The messages of every user go to one graph by say(), each to its
user's session, as a service keeps its conversations; said() must find only the asking user's.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from lighthouse import embed_entries, embed_said, ensure_schema, notes, say

from .conversations import Conversations, Session

BY = "recall-evaluation"
NOTES_PER_CALL = 1_000  # notes() takes at most this many
EMBED_PER_CALL = 500  # entries one embed_entries() call gives vectors to
LAYOUTS = ("turns", "sessions", "messages")


class WrongWork(RuntimeError):
    """A write or an embedding did not do what it claims: the figures would be worthless."""


@dataclass
class Ingest:
    """What one layout's writing and embedding took."""

    layout: str
    written: int = 0
    write_seconds: float = 0.0
    embedded: int = 0
    embed_seconds: float = 0.0
    from_cache: int = 0  # vectors a CachedEmbedder answered without the model (a long note's parts each)
    modelled: int | None = None  # vectors the model made behind a CachedEmbedder (None without one)

    def figures(self) -> dict:
        return {
            "layout": self.layout,
            "written": self.written,
            "write_seconds": round(self.write_seconds, 3),
            "written_per_second": round(self.written / self.write_seconds, 1) if self.write_seconds else None,
            "embedded": self.embedded,
            "embed_seconds": round(self.embed_seconds, 3),
            "embedded_per_second": round(self.embedded / self.embed_seconds, 1)
            if self.embed_seconds
            else None,
            "from_cache": self.from_cache,
            # the vectors the model made, a second of embed_entries() (its reads and writes included)
            # texts, not notes: a long note is embedded as several parts
            "model_per_second": round(
                (self.embedded if self.modelled is None else self.modelled) / self.embed_seconds, 1
            )
            if self.embed_seconds
            else None,
        }


@dataclass
class Memory:
    """The graphs the questions are asked of."""

    graphs: dict[tuple[str, str], object] = field(default_factory=dict)  # (layout, user) -> graph
    messages: object | None = None
    ingests: list[Ingest] = field(default_factory=list)
    made: list[object] = field(default_factory=list)  # every graph, to delete at the end

    def graph(self, layout: str, user: str):
        return self.messages if layout == "messages" else self.graphs[(layout, user)]


def session_of(note_id: str) -> str:
    """The session a note belongs to: its episode, the id before the last "/"."""
    return note_id.rsplit("/", 1)[0]


def transcript(session: Session) -> str:
    return "\n".join(f"{turn.role}: {turn.text}" for turn in session.turns)


def _items(layout: str, sessions: list[Session]) -> list[dict]:
    if layout == "turns":
        return [
            {"text": turn.text, "source": turn.role, "at": turn.at, "episode": session.id}
            for session in sessions
            for turn in session.turns
        ]
    return [{"text": transcript(s), "source": "transcript", "at": s.began, "episode": s.id} for s in sessions]


def _write_notes(graph, items: list[dict]) -> int:
    for start in range(0, len(items), NOTES_PER_CALL):
        chunk = items[start : start + NOTES_PER_CALL]
        receipts = notes(graph, chunk, BY)
        refused = [receipt for receipt in receipts if receipt["status"] != "recorded"]
        if refused:
            raise WrongWork(f"notes() refused {len(refused)} of {len(chunk)} notes: {refused[0]}")
    return len(items)


def _embed_all(graph, embedder: Callable, model: str) -> int:
    embedded = 0
    while True:
        answer = embed_entries(graph, embedder, model, limit=EMBED_PER_CALL)
        embedded += answer["embedded"]
        if answer["waiting"] == 0 or answer["embedded"] == 0:
            return embedded


def write_notes(memory: Memory, client, run_id: str, data: Conversations, layout: str, embedder) -> Ingest:
    """One graph per user with the notes of a layout ("turns" or "sessions"), embedded with
    embedder = (function, model, dimensions) unless it is None."""
    ingest = Ingest(layout)
    for user in data.users:
        graph = client.select_graph(f"recall_{run_id}_{layout}_{user}")
        memory.made.append(graph)
        ensure_schema(graph, [], entry_dimensions=embedder[2] if embedder else 0)
        items = _items(layout, data.of(user))
        began = time.perf_counter()
        ingest.written += _write_notes(graph, items)
        ingest.write_seconds += time.perf_counter() - began
        if embedder is not None:
            began, taken = time.perf_counter(), getattr(embedder[0], "taken", 0)
            before = getattr(embedder[0], "modelled", None)
            embedded = _embed_all(graph, embedder[0], embedder[1])
            ingest.embed_seconds += time.perf_counter() - began
            ingest.from_cache += getattr(embedder[0], "taken", 0) - taken
            if before is not None:
                ingest.modelled = (ingest.modelled or 0) + embedder[0].modelled - before
            if embedded != len(items):
                raise WrongWork(f"{layout} of {user}: {embedded} notes embedded, not {len(items)}")
            ingest.embedded += embedded
        memory.graphs[(layout, user)] = graph
    memory.ingests.append(ingest)
    return ingest


def write_messages(memory: Memory, client, run_id: str, data: Conversations, embedder=None) -> Ingest:
    """Every user's turns as messages of one graph, one say() each, in their sessions; then, with
    embedder = (function, model, dimensions), their vectors (embed_said())."""
    graph = client.select_graph(f"recall_{run_id}_messages")
    memory.made.append(graph)
    ensure_schema(graph, [])
    ingest = Ingest("messages")
    began = time.perf_counter()
    for session in data.sessions.values():
        for turn in session.turns:
            receipt = say(graph, session.user, session.id, turn.role, turn.text, BY, at=turn.at)
            if receipt["status"] != "said":
                raise WrongWork(f"say() in {session.id}: {receipt}")
            ingest.written += 1
    ingest.write_seconds = time.perf_counter() - began
    if embedder is not None:
        began, taken = time.perf_counter(), getattr(embedder[0], "taken", 0)
        before = getattr(embedder[0], "modelled", None)
        while True:
            answer = embed_said(graph, embedder[0], embedder[1], limit=EMBED_PER_CALL)
            ingest.embedded += answer["embedded"]
            if answer["waiting"] == 0 or answer["embedded"] == 0:
                break
        ingest.embed_seconds = time.perf_counter() - began
        ingest.from_cache = getattr(embedder[0], "taken", 0) - taken
        ingest.modelled = None if before is None else embedder[0].modelled - before
        if ingest.embedded != ingest.written:
            raise WrongWork(f"messages: {ingest.embedded} embedded, not {ingest.written}")
    memory.messages = graph
    memory.ingests.append(ingest)
    return ingest


def delete(memory: Memory) -> None:
    for graph in memory.made:
        try:
            graph.delete()
        except Exception:  # noqa: BLE001 - a graph never written does not exist; the rest still go
            continue
