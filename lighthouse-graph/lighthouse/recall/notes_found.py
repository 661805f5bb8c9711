"""The notes a question finds, for recall(): by words and meaning, fused; the time the question names
read against when each note was said; of notes that say nearly the same thing, the newest first; and
the episodes (sessions) they were said in, each with the notes said beside the ones found.

Rankings fused by place (rank.fuse()): "words" (search_entries() of the question's words less its
function words, question.asked_words()), "meaning" (nearest_entries() of the question's vector moved
toward the notes it finds first, feedback.py: a long note by its nearest part) and, when the question
names a time, "time" (the notes said in that window, nearest in meaning first, then the note a time
like "two weeks before my marathon" is relative to: of the ANCHORS nearest to those words, the one
whose window holds the note nearest to the question).
Then each group of notes that say the same thing of what is asked (the same words of the question, or
vectors closer than SAME_MEANING) keeps the places it holds, newest first: what was said last about a
thing is what holds. Then, when the question names a time, the best note said in it goes first, then
the note the time is relative to, then the others said in it (with meaning: the TIME_LEAD nearest and
those that words or meaning found too). Nothing is written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from .. import clock
from ..errors import Refused
from ..graphs import read
from ..kinds import VECTOR, VECTOR_MODEL
from ..values import words
from .entry_vectors import CHUNK_WORDS, entry_dimensions, nearest_entries
from .feedback import nearest_with_feedback
from .question import FUNCTION_WORDS, Anchored, Window, asked_words, time_asked
from .rank import fuse
from .text import entry_fields, entry_shown, search_entries

NOTE = "note"
# Cosine of two notes' vectors that makes them say the same thing, whatever their words: of the pairs of
# statements a later one replaces in bench/recall (all-MiniLM-L6-v2), about half are above it; unrelated
# statements of one user were at most 0.35.
SAME_MEANING = 0.45
OTHER_MEANING = 0.4  # cosine under which two notes say different things, whatever their words
STEM = 4  # letters of a word compared: "lives" and "live", "sister's" and "sister" are one
COMPARED = 30  # notes of the fused ranking compared with each other for what says the same
ANCHORS = 10  # notes nearest to the words of what a time is relative to, among which the anchor is chosen
TIME_LEAD = 3  # notes of a window nearest in meaning to the question that go first, whatever else found them
BESIDE = 1  # notes before and after each found one that its episode brings
# What a place in each ranking counts for: a question is mostly put in other words than the note that
# answers it, so its words find much that does not answer it.
# On bench/recall, session recall@5 with words at 0.5 / 0.25 / 0: small seed 7 0.784 / 0.828 / 0.838,
# small seed 8 0.838 / 0.858 / 0.873, default seed 7 0.720 / 0.735. Its questions share no key word with
# their evidence by construction, so there every word matched is a note that does not answer; words
# keep a quarter for the questions people put in the notes' own words, and NAMING for exact tokens.
WEIGHTS = {"words": 0.25, "meaning": 1.0, "time": 1.0}
# A question that names something by an exact token (a code, a number, a name) is answered by its words:
# there the first note its words find comes before the first that meaning alone finds.
# The places of the words ranking that count, unless the question names an exact token: deeper, a note
# shares a common word of the question ("use", "called") and nothing more, and its small share still
# lifted it above the first that meaning found. On bench/recall (small): all 0.774, 10 0.784, 5 0.799.
WORDS_READ = 10
NAMING = {"words": 1.5, "meaning": 1.0, "time": 1.0}
_NAMED = re.compile(r"\w*\d\w*|(?<=\s)[A-Z]\w+")


def weights_for(question: str) -> dict:
    """WEIGHTS, or NAMING when the question holds a word with a digit or a capitalised word past its
    first (E47, n3590, SK4410, Lisbon)."""
    named = [word for word in _NAMED.findall(question) if word.lower() not in FUNCTION_WORDS]
    return NAMING if named else WEIGHTS


def _entries_embedded(graph) -> int:
    """The dimensions of the entries' vectors, 0 while they have no index (notes found by words only)."""
    try:
        return entry_dimensions(graph) or 0
    except Refused:  # no index for entries' vectors yet
        return 0


_IN_WINDOW = (
    "MATCH (n:Entry) WHERE n.type = $type AND n.at >= localdatetime($start) AND n.at < localdatetime($end) "
    f"WITH n, CASE WHEN $vector IS NOT NULL AND n.`{VECTOR_MODEL}` = $model "
    f"  THEN vec.cosineDistance(n.`{VECTOR}`, vecf32($vector)) ELSE 2.0 END AS far "
    "WITH n, far ORDER BY far, n.at DESC, n.id LIMIT $limit "
    f"RETURN n.id, {entry_fields('n')}"
)


def _in_window(graph, window: Window, vector: list | None, model, limit: int) -> list[dict]:
    """The notes said in a window, nearest in meaning first (newest first without a vector)."""
    start, end = max(window.start, clock.EARLIEST), min(window.end, clock.LATEST)
    if start >= end:
        return []
    params = {
        "type": NOTE,
        "start": clock.stamp_of(start),
        "end": clock.stamp_of(end),
        "vector": vector,
        "model": model,
        "limit": limit,
    }
    return [
        {"id": entry_id, "entry": entry_shown(listed)} for entry_id, listed in read(graph, _IN_WINDOW, params)
    ]


def _anchor(graph, anchored: Anchored, embedder, model, embedded: int, vector: list | None) -> dict | None:
    """The note an anchored time is relative to: of the ANCHORS nearest in meaning to the anchor's words
    (a person names the event in other words than the note that tells it), the one whose window holds
    the note nearest to the question (vector), as both the anchor and the event must be there; else the
    best by those words."""
    found = []
    if embedder is not None and embedded:
        found = nearest_entries(graph, anchored.about, embedder, model, limit=ANCHORS, types=[NOTE])
    if len(found) > 1 and vector is not None:
        windows = [anchored.around(one["entry"]["at"]) for one in found]
        nearest = _best_in_windows(graph, windows, vector, model)
        return max(found, key=lambda one: one["score"] + nearest.get(found.index(one), -1.0))
    if not found:
        found = search_entries(graph, asked_words(anchored.about), limit=1, match="any", types=[NOTE])
    return found[0] if found else None


# The cosine of the note nearest to a vector in each of several windows, in one pass over the notes.
_BEST_IN_WINDOWS = (
    "MATCH (n:Entry) WHERE n.type = $type AND n.at >= localdatetime($start) AND n.at < localdatetime($end) "
    f"AND n.`{VECTOR_MODEL}` = $model "
    f"WITH n, 1.0 - vec.cosineDistance(n.`{VECTOR}`, vecf32($vector)) AS near "
    "UNWIND range(0, size($starts) - 1) AS place "
    "WITH place, near, n WHERE n.at >= localdatetime($starts[place]) AND n.at < localdatetime($ends[place]) "
    "RETURN place, max(near)"
)


def _best_in_windows(graph, windows: list[Window], vector: list, model) -> dict[int, float]:
    """place of a window -> the cosine of its note nearest to the vector (windows with none are left out)."""
    starts = [clock.stamp_of(max(window.start, clock.EARLIEST)) for window in windows]
    ends = [clock.stamp_of(min(window.end, clock.LATEST)) for window in windows]
    params = {
        "type": NOTE,
        "start": min(starts),
        "end": max(ends),
        "starts": starts,
        "ends": ends,
        "vector": vector,
        "model": model,
    }
    return {place: near for place, near in read(graph, _BEST_IN_WINDOWS, params)}


def _stems(text: object) -> set[str]:
    """The words of a text less the function words, each cut to its first STEM letters."""
    found = words(text if isinstance(text, str) else "").split()
    return {word[:STEM] for word in found if word not in FUNCTION_WORDS}


def _same(one: dict, other: dict, asked: set[str], cosine: float | None) -> bool:
    """Two notes that say the same thing of what is asked: their vectors close (cosine), or (unless
    their vectors are far apart) the same words of the question in both, two of them at least when it
    has two. A long note (more than one part: a whole talk) says many things, and is compared with none:
    the vector of its first part says nothing of the rest."""
    if one["long"] or other["long"]:
        return False
    if cosine is not None:
        if cosine >= SAME_MEANING:
            return True
        if cosine < OTHER_MEANING:
            return False
    matched = asked & one["stems"]
    return bool(matched) and matched == asked & other["stems"] and len(matched) >= min(2, len(asked))


# The cosine of each pair of the notes named, computed where the vectors are (none travels).
_PAIRS = (
    f"UNWIND $ids AS wanted MATCH (n:Entry {{id: wanted}}) WHERE n.`{VECTOR_MODEL}` = $model "
    "WITH collect(n) AS found "
    "UNWIND range(0, size(found) - 2) AS i UNWIND range(i + 1, size(found) - 1) AS j "
    "WITH found[i] AS one, found[j] AS other "
    f"RETURN one.id, other.id, 1.0 - vec.cosineDistance(one.`{VECTOR}`, other.`{VECTOR}`)"
)


def cosines(graph, ids: list[str], model) -> dict[tuple[str, str], float]:
    """(id, id) -> the cosine of the two notes' vectors of `model`, both ways round."""
    found = {}
    for one, other, cosine in read(graph, _PAIRS, {"ids": ids, "model": model}):
        found[(one, other)] = found[(other, one)] = cosine
    return found


def newest_first(found: list[dict], asked: set[str], cosine: dict | None = None) -> list[dict]:
    """The ranking with each group of notes that say the same thing of what is asked (_same(), among the
    first COMPARED; asked: the question's _stems(); cosine: cosines() of them, when they have vectors)
    reordered newest first in the places the group holds; the rest keep their places."""
    head = [
        {**item, "stems": _stems(item["text"]), "long": len(str(item["text"]).split()) > CHUNK_WORDS}
        for item in found[:COMPARED]
    ]
    cosine = cosine or {}
    group = list(range(len(head)))

    def root(place: int) -> int:
        while group[place] != place:
            group[place] = group[group[place]]
            place = group[place]
        return place

    for first in range(len(head)):
        for second in range(first + 1, len(head)):
            pair = cosine.get((head[first]["key"], head[second]["key"]))
            if root(first) != root(second) and _same(head[first], head[second], asked, pair):
                group[root(second)] = root(first)
    members: dict[int, list[int]] = {}
    for place in range(len(head)):
        members.setdefault(root(place), []).append(place)
    ordered = list(found[: len(head)])
    for places in members.values():
        newest = sorted(places, key=lambda place: (-_seconds(head[place]["at"]), place))
        for slot, place in zip(places, newest, strict=True):
            ordered[slot] = found[place]
    return ordered + found[COMPARED:]


def _seconds(moment: datetime | None) -> float:
    return moment.timestamp() if moment is not None else float("-inf")


def _shown(entry_id: str, entry: dict, score: float | None = None) -> dict:
    """A note as recall() shows it; its episode is what its id holds before the last "/"."""
    shown = {"id": entry_id} if score is None else {"id": entry_id, "score": score}
    shown |= {name: entry.get(name) for name in ("text", "source", "at", "by")}
    return shown | {"episode": entry_id.rpartition("/")[0]}


@dataclass
class Candidates:
    """What a question's rankings found before they are fused: rankings (name -> hits, each {"id",
    "entry", ...} best first, as fused), the weights they are fused with, the window of the time the
    question names (None without one), the notes said in it (timed) and the note it is relative to."""

    rankings: dict[str, list[dict]]
    weights: dict
    window: Window | None
    timed: list[dict]
    anchor: dict | None
    meaningful: bool


def candidates(graph, question: str, at: datetime, wide: int, asked, embedder, model) -> Candidates:
    """Each ranking's notes, `wide` deep (words: its first WORDS_READ unless a token is named): all that
    any fusion of them could put in order. Arguments as found_notes() takes them."""
    weights = weights_for(question)
    words_found = search_entries(graph, asked_words(question), limit=wide, match="any", types=[NOTE])
    rankings = {"words": words_found if weights is NAMING else words_found[:WORDS_READ]}
    embedded = _entries_embedded(graph)
    meaningful = asked is not None and embedded == len(asked[0])
    if meaningful:
        rankings["meaning"] = nearest_with_feedback(graph, question, asked[0], model, wide, [NOTE], cosines)
    window, anchor, timed = time_asked(question, at), None, []
    if isinstance(window, Anchored):
        anchor = _anchor(
            graph, window, embedder if meaningful else None, model, embedded, asked[0] if meaningful else None
        )
        window = window.around(anchor["entry"]["at"]) if anchor is not None else None
    if window is not None:  # the notes said in that time, then the note the time is relative to
        timed = _in_window(graph, window, asked[0] if meaningful else None, model, wide)
        rankings["time"] = timed + (
            [anchor] if anchor is not None and anchor["id"] not in {one["id"] for one in timed} else []
        )
    return Candidates(rankings, weights, window, timed, anchor, meaningful)


def found_notes(graph, question: str, at: datetime, limit: int, asked, embedder, model) -> list[dict]:
    """The notes a question finds, best first, 2 x limit (at least 30) at most: [{"id", "score", "places", "text",
    "source", "at", "by", "episode"}]. asked: the question's vector and an embedder that gives it again (recall._asked()), or
    None; embedder: the application's, for the anchor of a time relative to something said."""
    wide = min(1_000, max(2 * limit, 30))
    found = candidates(graph, question, at, wide, asked, embedder, model)
    rankings, weights, window, meaningful = found.rankings, found.weights, found.window, found.meaningful
    entries = {hit["id"]: hit["entry"] for ranking in rankings.values() for hit in ranking}
    fused = fuse(
        rankings={name: [{"key": hit["id"]} for hit in hits] for name, hits in rankings.items()},
        limit=wide,
        weights=weights,
    )
    ranked = [
        {**item, "at": entries[item["key"]].get("at"), "text": entries[item["key"]].get("text")}
        for item in fused
    ]
    compared = cosines(graph, [item["key"] for item in ranked[:COMPARED]], model) if meaningful else None
    ranked = newest_first(ranked, _stems(question), compared)
    if window is not None:
        ranked = _time_first(ranked, window, found.timed, found.anchor, meaningful)
    return [
        {**_shown(item["key"], entries[item["key"]], item["score"]), "places": item["places"]}
        for item in ranked
    ]


def _time_first(
    ranked: list[dict], window: Window, timed: list[dict], anchor, meaningful: bool
) -> list[dict]:
    """The ranking with what was said in the time the question names first: the best of it, then the
    note the time is relative to (the question names both), then the rest of it, then the others.
    With meaning, of the window only the TIME_LEAD nearest in meaning and those that words or meaning
    found too: a wide window holds much small talk."""
    lead = {one["id"] for one in timed[:TIME_LEAD]} if meaningful else set()
    inside = [
        item["key"]
        for item in ranked
        if window.holds(item["at"])
        and (not meaningful or item["key"] in lead or set(item["places"]) - {"time"})
    ]
    best, first = inside[:1], set(inside)
    then = anchor["id"] if anchor is not None else None

    def place(item: dict) -> int:
        key = item["key"]
        return 0 if key in best else 1 if key == then else 2 if key in first else 3

    return sorted(ranked, key=place)


def _beside_ids(note_id: str) -> list[str]:
    episode, _, seq = note_id.rpartition("/")
    if not seq.isdigit():
        return []
    return [
        f"{episode}/{int(seq) + step}" for step in range(-BESIDE, BESIDE + 1) if step and int(seq) + step > 0
    ]


_BESIDE = (
    "UNWIND $ids AS wanted MATCH (n:Entry {id: wanted}) WHERE n.type = $type "
    f"RETURN n.id, {entry_fields('n')}"
)


def episodes_of(graph, notes: list[dict]) -> list[dict]:
    """The episodes (sessions) the notes were said in, in the order of their best note: [{"id", "score",
    "found": [note ids], "beside": [the notes said just before and after them, as a note is shown]}]."""
    episodes: dict[str, dict] = {}
    for found in notes:
        episode = episodes.setdefault(
            found["episode"], {"id": found["episode"], "score": found["score"], "found": [], "beside": []}
        )
        episode["found"].append(found["id"])
    found_ids = {found["id"] for found in notes}
    wanted = [one for found in notes for one in _beside_ids(found["id"])]
    wanted = [one for one in dict.fromkeys(wanted) if one not in found_ids]
    if wanted:
        for entry_id, listed in read(graph, _BESIDE, {"ids": wanted, "type": NOTE}):
            shown = _shown(entry_id, entry_shown(listed))
            if shown["episode"] in episodes:
                episodes[shown["episode"]]["beside"].append({**shown, "seq": listed[1]})
    for episode in episodes.values():
        episode["beside"].sort(key=lambda shown: shown.pop("seq"))
    return list(episodes.values())
