"""The ways of asking that the evaluation compares: each a setting, one row of the table.

A setting reads one layout of the memory (ingest.LAYOUTS) and answers a question with hits best first,
each (session id, score). A step of recall is measured by adding a setting here: a name, its layout,
what it asks, and the score above which its first hit counts as an answer (None where its scores do
not say that: abstention is then not judged).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from lighthouse import nearest_entries, recall, said, search_entries

from .conversations import Question
from .ingest import Memory, session_of

NOTE = "note"


@dataclass(frozen=True)
class Asking:
    """What a setting asks with: the memory, the embedder (function, model, dimensions) and how deep."""

    memory: Memory
    embedder: tuple | None
    depth: int  # notes or messages asked for; their sessions are ranked in the order found


@dataclass(frozen=True)
class Setting:
    name: str
    layout: str
    about: str
    ask: Callable[[Asking, Question, object], list[tuple[str, float]]]
    threshold: float | None  # a first hit at or below it is no answer
    needs_embedder: bool = False


def _notes(found: list[dict]) -> list[tuple[str, float]]:
    return [(session_of(note["id"]), float(note["score"])) for note in found]


def _recall(asking: Asking, question: Question, graph) -> list[tuple[str, float]]:
    function, model, _ = asking.embedder
    answer = recall(
        graph, [], question.text, when=question.asked_at, limit=asking.depth, embedder=function, model=model
    )
    return _notes(answer["notes"])


def _recall_words(asking: Asking, question: Question, graph) -> list[tuple[str, float]]:
    return _notes(recall(graph, [], question.text, when=question.asked_at, limit=asking.depth)["notes"])


def _meaning(asking: Asking, question: Question, graph) -> list[tuple[str, float]]:
    function, model, _ = asking.embedder
    return _notes(nearest_entries(graph, question.text, function, model, limit=asking.depth, types=[NOTE]))


def _words(asking: Asking, question: Question, graph) -> list[tuple[str, float]]:
    return _notes(search_entries(graph, question.text, limit=asking.depth, match="any", types=[NOTE]))


def _messages(asking: Asking, question: Question, graph) -> list[tuple[str, float]]:
    found = said(graph, question.user, question.text, limit=asking.depth, match="any")
    return [(message["session"], float(message["score"])) for message in found]


def _messages_meaning(asking: Asking, question: Question, graph) -> list[tuple[str, float]]:
    function, model, _ = asking.embedder
    found = said(
        graph, question.user, question.text, limit=asking.depth, match="any", embedder=function, model=model
    )
    return [(message["session"], float(message["score"])) for message in found]


# recall()'s notes score weight / (60 + place) summed over its rankings (notes_found.WEIGHTS: words a
# quarter, meaning and a named time one each; words one and a half for a question that names something,
# NAMING). Above 0.032 a first note is near the top of meaning and of the time the question names
# (2.25 / 61 = 0.037), or of meaning and words for a question that names something (2.5 / 61 = 0.041):
# meaning alone (1.25 / 61 = 0.020) is no answer. The table's `apart` says how far any threshold of
# these scores could tell the questions with an answer from those without.
FUSED_THRESHOLD = 0.032
COSINE_THRESHOLD = 0.5  # nearest_entries() gives the cosine similarity

SETTINGS = {
    setting.name: setting
    for setting in (
        Setting(
            "recall",
            "turns",
            "recall() of the notes, one per turn, with the local embedder",
            _recall,
            FUSED_THRESHOLD,
            True,
        ),
        Setting(
            "recall_words",
            "turns",
            "recall() without an embedder: the notes' words only",
            _recall_words,
            None,
        ),
        Setting("words", "turns", "search_entries(match=any): the notes' words alone", _words, None),
        Setting(
            "meaning",
            "turns",
            "nearest_entries(): the notes' meaning alone",
            _meaning,
            COSINE_THRESHOLD,
            True,
        ),
        Setting(
            "recall_sessions",
            "sessions",
            "recall() of the notes, one per session (a whole transcript)",
            _recall,
            FUSED_THRESHOLD,
            True,
        ),
        Setting(
            "meaning_sessions",
            "sessions",
            "nearest_entries() of the notes, one per session",
            _meaning,
            COSINE_THRESHOLD,
            True,
        ),
        Setting("messages", "messages", "said(match=any): the user's messages by words", _messages, None),
        Setting(
            "messages_meaning",
            "messages",
            "said(match=any, embedder=): the user's messages by words and meaning (embed_said())",
            _messages_meaning,
            None,
            True,
        ),
    )
}
DEFAULT_SETTINGS = ("recall", "recall_words", "meaning", "recall_sessions", "messages")
