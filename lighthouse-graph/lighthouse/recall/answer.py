"""recall(): the answer to a question for an agent: the facts valid at a time, with their evidence and
trust, and the notes that matched, fused over words, meaning and the graph around what was found.

What is current is decided by comparing with the time, never by a missing end: a State holds from its
valid_from until the next State that counts begins, so a fact whose end lies ahead is still current. A
rejected State does not count (unless asked for): the State before it holds on through its window, as
if the rejected row had never come. A replaced State (one whose window ended before the time) is left
out unless past=True.

Rankings, each fused by reciprocal rank (rank.fuse()): "words" (search_history() of each kind with text:
past and current versions, so a fact is found by the words it had), "meaning" (nearest() of each kind
with dimensions, with the caller's embedder), "graph" (similar(): the entities that share the most
relation targets with the best hit of each kind with relations), "notes" (the facts drawn from the notes
that matched: the graph around a note is what was drawn from it). The matched notes come back beside
the facts.

The rule: every argument is checked before anything is asked, Refused (a ValueError) or WrongType (a
TypeError); nothing is written; database errors pass as ResponseError (a search past its time: TooSlow).
"""

from __future__ import annotations

import json
from datetime import datetime
from functools import lru_cache

from .. import clock, values
from ..errors import Refused, WrongType
from ..graphs import read
from ..kinds import STATE_KIND, TRUST, Kind
from ..read import shown
from .notes_found import episodes_of, found_notes
from .question import asked_words
from .rank import fuse
from .text import checked_kind, checked_limit, search_history
from .traverse import similar
from .vector import EmbedderError, nearest, vectors_of

STATES_READ = 1_000  # States of one entity the answer reads (the newest)
MAX_KINDS = 200


def _checked_kinds(kinds: object) -> list[Kind]:
    if type(kinds) not in (list, tuple):
        raise WrongType(f"kinds is a list of Kind, not {values.sort_of(kinds)}")
    if len(kinds) > MAX_KINDS:
        raise Refused(f"at most {MAX_KINDS} kinds")
    found: dict[str, Kind] = {}
    for kind in kinds:
        found.setdefault(checked_kind(kind).label, kind)
    return list(found.values())


@lru_cache(maxsize=256)
def _states_query(kind: Kind) -> str:
    return (
        f"UNWIND $keys AS wanted MATCH (e:`{kind.label}` {{key: wanted}})-[:HAS_STATE]->(s) "
        "WITH wanted, s ORDER BY s.valid_from DESC "
        "WITH wanted, collect(s)[..$most] AS states UNWIND states AS s "
        "OPTIONAL MATCH (s)-[:FROM]->(n:Entry) "
        "RETURN wanted, properties(s), [n.id, n.episode, n.type, n.at, n.by, n.content]"
    )


def _evidence(listed: list) -> dict | None:
    entry_id, episode, entry_type, at, by, content = listed
    if entry_id is None:
        return None
    held = json.loads(content) if content else {}
    text = held.get("text") if isinstance(held.get("text"), str) else None
    return {
        "id": entry_id,
        "text": text,
        "values": held,
        "episode": episode,
        "type": entry_type,
        "at": clock.from_store(at),
        "by": by,
    }


def _windows(states: list[dict], rejected: bool) -> list[tuple[dict, datetime | None]]:
    """Each State that counts, oldest first, with the end of the window it holds: the start of the next
    State that counts; a rejected State never counts. With rejected=True the rejected States are given
    beside them, each with the window it was stored with."""
    counted = sorted(
        (state for state in states if state["trust"] != "rejected"),
        key=lambda state: state["state"]["valid_from"],
    )
    windows = [
        (state, counted[place + 1]["state"]["valid_from"] if place + 1 < len(counted) else None)
        for place, state in enumerate(counted)
    ]
    if rejected:
        windows += [
            (state, state["state"].get("valid_to")) for state in states if state["trust"] == "rejected"
        ]
    return windows


def _facts_of(graph, kind: Kind, keys: list, at: datetime, past: bool, rejected: bool) -> dict:
    """(kind, key, valid_from) -> fact, for the States of these entities that the answer may give."""
    found: dict = {}
    if not keys:
        return found
    by_key: dict = {}
    for key, props, entry in read(graph, _states_query(kind), {"keys": keys, "most": STATES_READ}):
        # The trust of a State is its mark, never a value of the same name a structured row may hold.
        by_key.setdefault(key, []).append(
            {
                "state": shown(kind, props),
                "trust": props.get(TRUST) or "confirmed",
                "evidence": _evidence(entry),
            }
        )
    for key, states in by_key.items():
        for state, ends in _windows(states, rejected):
            began = state["state"]["valid_from"]
            if began > at or (not past and ends is not None and ends <= at):
                continue
            found[(kind.label, key, began)] = {
                "kind": kind.label,
                "key": key,
                "state": state["state"],
                "valid_from": began,
                "valid_to": ends,
                "current": ends is None or ends > at,
                "trust": state["trust"],
                "evidence": state["evidence"],
            }
    return found


def _current_of(facts: dict, label: str, key) -> tuple | None:
    """The identity of the fact of an entity that holds at the time (what a hit on the entity means)."""
    for identity, fact in facts.items():
        if identity[0] == label and identity[1] == key and fact["current"]:
            return identity
    return None


def recall(
    graph,
    kinds,
    question: str,
    *,
    when=None,
    past: bool = False,
    rejected: bool = False,
    limit: int = 10,
    embedder=None,
    model: str | None = None,
) -> dict:
    """Answers a question with facts and notes: {"facts": [...], "notes": [...]}, best first.

    Each fact: {"kind", "key", "score", "places" ({ranking: place}), "state" (as history() gives it), "valid_from", "valid_to" (the
    end of its window, None while open), "current", "trust" ("confirmed", "candidate" or "rejected"),
    "evidence": {"id", "text", "values", "episode", "type", "at", "by"} or None}. Each note: {"id", "score",
    "places", "text", "source", "at", "by", "episode"}, found as notes_found.py says: by words and
    meaning (a long note by its best part), the notes said in a time the question names first, and of
    notes that say nearly the same the newest first. "episodes": the episodes of those notes, in the
    order of their best note, each {"id", "score", "found": [note ids], "beside": [the notes said just
    before and after the ones found]}. kinds: the Kinds to look in. when: the time asked about (now without
    one). past=True adds the facts replaced before then; rejected=True the rejected ones. limit (1 to
    1,000) bounds each list. embedder and model: a function as embed() takes, asked once for the
    question's vector, for the meaning ranking of the kinds with that many dimensions and of the notes
    once embedded with it (other kinds are found by words only). Nothing is written.
    """
    chosen = _checked_kinds(kinds)
    if type(question) is not str:
        raise WrongType(f"a question is a str, not {values.sort_of(question)}")
    at = clock.looked_at(when, "when") if when is not None else clock.present()
    limit = checked_limit(limit)
    if type(past) is not bool or type(rejected) is not bool:
        raise WrongType("past and rejected are True or False")
    if embedder is not None and not callable(embedder):
        raise WrongType("embedder is a function")
    wide = min(1_000, limit * 3)  # each ranking reads more than it gives: some hits do not count at the time
    asked = _asked(embedder, question)
    by_label = {kind.label: kind for kind in chosen}
    hits: dict[str, list] = {}  # ranking -> [(label, key, valid_from or None)]
    for kind in chosen:
        if kind.text:
            for hit in search_history(graph, kind, asked_words(question), limit=wide, match="any"):
                hits.setdefault("words", []).append((kind.label, hit["key"], hit["state"]["valid_from"]))
        if asked is not None and kind.dimensions == len(asked[0]):
            for hit in nearest(graph, kind, question, asked[1], model, limit=wide):
                hits.setdefault("meaning", []).append((kind.label, hit["key"], None))
    # The graph around what was found: the entities that share the most relation targets with the best
    # hit of each kind with relations.
    for kind in chosen:
        best = next((hit for ranking in hits.values() for hit in ranking if hit[0] == kind.label), None)
        if kind.relations and best is not None:
            for hit in similar(graph, kind, best[1], limit=wide):
                hits.setdefault("graph", []).append((kind.label, hit["key"], None))
    notes = found_notes(graph, question, at, limit, asked, embedder, model)
    for label, key, began in _drawn_from(graph, [item["id"] for item in notes], list(by_label)):
        hits.setdefault("notes", []).append((label, key, began))
    facts: dict = {}
    for label, kind in by_label.items():
        keys = sorted(
            {key for ranking in hits.values() for found, key, _ in ranking if found == label}, key=str
        )
        facts.update(_facts_of(graph, kind, keys, at, past, rejected))
    # fuse() ranks by a key: each fact that counts gets the number of its place in `facts`.
    numbers = {identity: number for number, identity in enumerate(facts)}
    rankings = {}
    for name, listed in hits.items():
        identities: list[tuple] = []
        for label, key, began in listed:
            identity = (label, key, began) if began is not None else _current_of(facts, label, key)
            if identity in numbers and identity not in identities:
                identities.append(identity)
        rankings[name] = [{"key": numbers[identity]} for identity in identities]
    identities_by_number = list(facts)
    fused = fuse(rankings=rankings, limit=limit) if rankings else []
    answer = [
        {**facts[identities_by_number[item["key"]]], "score": item["score"], "places": item["places"]}
        for item in fused
    ]
    notes = notes[:limit]
    return {"facts": answer, "notes": notes, "episodes": episodes_of(graph, notes)}


def _asked(embedder, question: str) -> tuple[list, object] | None:
    """The question's vector, asked of the embedder once, and a function that gives it again: every
    ranking by meaning (of each kind whose dimensions it has, and of the notes) uses the one answer."""
    if embedder is None or not question.strip():
        return None
    answer = embedder([question])
    # Checked as embed() and nearest() check an answer (a list or tuple of one vector per text, each of
    # finite numbers): its size is what each ranking by meaning compares with its own.
    first = answer[0] if type(answer) in (list, tuple) and len(answer) == 1 else None
    if type(first) not in (list, tuple) or not first:
        raise EmbedderError("an embedder answers with one vector (a list or tuple of numbers) for each text")
    vector = vectors_of(answer, 1, len(first))[0]
    return vector, lambda texts: [vector for _text in texts]


_DRAWN_QUERY = (
    "UNWIND range(0, size($ids) - 1) AS place MATCH (s:State)-[:FROM]->(:Entry {id: $ids[place]}) "
    f"WHERE s.`{STATE_KIND}` IN $labels "
    f"RETURN s.`{STATE_KIND}`, s.key, s.valid_from ORDER BY place, s.`{STATE_KIND}`, s.key, s.valid_from"
)


def _drawn_from(graph, note_ids: list[str], labels: list[str]) -> list[tuple]:
    """(label, key, valid_from) of the States drawn from these notes, in the notes' order."""
    if not note_ids:
        return []
    rows = read(graph, _DRAWN_QUERY, {"ids": note_ids, "labels": labels})
    return [(label, key, clock.from_store(began)) for label, key, began in rows]
