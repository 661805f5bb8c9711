"""The one prompt of a note: every kind the tenant declared, the note with its said-time, and what
memory already holds that the note's words (and meaning, with an embedder) find.

The said-time is the reference for relative dates: "yesterday" in a note said on a Friday is the
Thursday, whenever the worker reads it. The entities found are given with their keys and the values
they held when the note was said (a rejected State not counting), so the model names what memory holds
by its key instead of inventing a near-duplicate. The model names only what the note says changes:
the library keeps the rest (lighthouse.write_note_rows()).
"""

from __future__ import annotations

import json
import logging
import re
from datetime import UTC, datetime

from lighthouse import Kind, as_of, entity_keys, nearest, search, stamp

from ..embedders import Embedder
from .items import own_values

MAX_KEY_WORDS = 50  # words of a note tried as keys of entities
MAX_SHOWN_TEXT = 500  # characters of one current value shown in a prompt
_log = logging.getLogger(__name__)
_KEY_WORD = re.compile(r"[\w][\w.:/-]*[\w]|[\w]")

INSTRUCTIONS = """You turn one note into facts about entities of the kinds below.
Answer with one JSON object and nothing else:
{"facts": [{"kind": "<a kind's label>", "key": "<the entity's key>", "t": "<ISO 8601 time the fact became true>",
"values": {"<name>": <value>, ...}, "relations": {"<RELATION>": "<target key>" or ["<target key>", ...]}}]}
Rules:
- Use only the kinds, values, times and relations declared below; a relation's targets are keys of its target kind.
- Name only what the note says changes: the values and relations a fact gives change, the rest is kept.
  Do not repeat what is known and unchanged.
- An entity memory already holds (listed under "known") keeps its key: use that key, do not make a new one.
- "t" is when the fact became true. Resolve relative dates ("yesterday", "last week", "next June") against the
  note's said_at, never against today. Leave "t" out when the note says nothing of when: it is then said_at.
- Times of values are ISO 8601 too. Text values are text.
- No fact in the note: {"facts": []}."""


def kind_described(kind: Kind) -> dict:
    """A kind as the prompt declares it: label, key name, times, text values, relations and targets."""
    return {
        "label": kind.label,
        "key": kind.key,
        "times": list(kind.times),
        "text": list(kind.text),
        "relations": {relation: target.label for relation, target in kind.relations.items()},
    }


def _shown_value(item: object) -> object:
    if isinstance(item, str) and len(item) > MAX_SHOWN_TEXT:
        return item[:MAX_SHOWN_TEXT] + "..."
    return item


def _values_of(kind: Kind, state: dict) -> dict:
    return {name: _shown_value(item) for name, item in sorted(own_values(kind, state).items())}


def _key_words(text: str) -> list:
    """The words of a note that could be keys, each once: as text, and as a number when they are one."""
    found: list = []
    for word in _KEY_WORD.findall(text):
        for candidate in (word, int(word) if word.isdecimal() and len(word) < 19 else None):
            if candidate is not None and candidate not in found and len(str(candidate)) <= 200:
                found.append(candidate)
        if len(found) >= 2 * MAX_KEY_WORDS:
            break
    return found


def _named_by_key(graph, kind: Kind, words: list, limit: int) -> list:
    """Keys of entities of a kind that the note names word for word."""
    if not words or limit <= 0:
        return []
    return entity_keys(graph, kind, among=words, limit=limit)


def _held_then(graph, kind: Kind, key: object, at: datetime, chosen: dict) -> None:
    """Adds the entity as it was at the said-time (a rejected State not counting), if it was then."""
    if (kind.label, key) in chosen:
        return
    state = as_of(graph, kind, key, at, rejected=False)
    if state is not None:
        chosen[(kind.label, key)] = {"kind": kind.label, "key": key, "values": _values_of(kind, state)}


def found_entities(
    graph,
    kinds: dict[str, Kind],
    text: str,
    most: int,
    meaning: Embedder | None = None,
    *,
    at: datetime | None = None,
    troubles: list[str] | None = None,
) -> list[dict]:
    """At most `most` entities the note finds, [{"kind", "key", "values"}], as they were at `at` (the
    note's said-time; now without one): those it names by key first, then by the words of their text,
    then (meaning: the Embedder) by meaning. An entity that held nothing then is left out. A search that
    fails leaves the prompt with less; an embedder that fails does too, and its error is added to
    `troubles` (the worker keeps it as its last error, so the status shows a broken embedder)."""
    if most <= 0:
        return []
    chosen: dict[tuple, dict] = {}
    words = _key_words(text)
    at = at or datetime.now(UTC)
    for kind in kinds.values():
        for key in _named_by_key(graph, kind, words, most):
            _held_then(graph, kind, key, at, chosen)
    for kind in kinds.values():
        if len(chosen) >= most:
            break
        hits = []
        try:
            if kind.text:
                hits += search(graph, kind, text, limit=most, match="any")
        except Exception as error:  # noqa: BLE001 - a slow search: the prompt carries less
            _log.warning("the entities a note's words find in %s were not all read: %s", kind.label, error)
        if meaning is not None and kind.dimensions and kind.dimensions == meaning.dimensions:
            try:
                hits += nearest(graph, kind, text, embedder=meaning.function, model=meaning.model, limit=most)
            except Exception as error:  # noqa: BLE001 - the prompt carries what words find; the status says why
                said = f"the embedder failed on a prompt's entities of {kind.label}: {type(error).__name__}: {error}"
                _log.warning("%s", said)
                if troubles is not None:
                    troubles.append(said[:2_000])
        for hit in hits:  # the search finds by what is held now; the prompt shows what was held then
            if len(chosen) >= most:
                break
            _held_then(graph, kind, hit["key"], at, chosen)
    return list(chosen.values())[:most]


def messages(kinds: dict[str, Kind], note: dict, known: list[dict]) -> list[dict]:
    """The chat messages of one note: the instructions and the kinds, then the note and what is known."""
    declared = [kind_described(kinds[label]) for label in sorted(kinds)]
    system = f"{INSTRUCTIONS}\n\nThe kinds:\n{json.dumps(declared, ensure_ascii=False)}"
    user = {
        "said_at": stamp(note["at"]) + "Z",
        "source": note.get("source"),
        "note": note.get("text", ""),
        "known": known,
    }
    return [
        {"role": "system", "content": system},
        {"role": "user", "content": json.dumps(user, ensure_ascii=False, default=str)},
    ]
