"""--diagnose: where the evidence is before recall() fuses, so a miss is explained by a measurement.

For every question with an answer, on its user's graph of one note a turn, and per ability:

- each ranking recall() fuses, asked alone as recall() asks it, `DEEP` notes deep: "words" (the
  question's words, all its places; recall() counts only its first WORDS_READ unless a token is named),
  "meaning" (the question's vector moved toward its first notes, locally scaled: feedback.py), "time"
  (the notes said in the time the question names, then the note it is relative to; questions that name
  no time have none), and "cosine" (nearest_entries() of the plain question vector). At each depth of
  DEPTHS: the share of evidence sessions that have a note among the ranking's first that many notes.
  The graph and the facts drawn from notes rank nothing here: the evaluation writes notes only, no
  kind and no fact, so recall()'s "graph" and "notes" rankings are empty.
- the ceiling: the share of evidence sessions that have a note among the candidates recall() fuses
  (notes_found.candidates(), as deep as recall(limit=depth) reads): no order of those candidates can put
  more of the evidence in the first five, so recall@5 is at most the ceiling of all of them; the same
  of the first 5 and the first 10 notes of each ranking says how near the top the evidence lies;
- the cosine rank of each evidence turn among all the user's notes under the model alone (exact, every
  vector read: 1 is the nearest note), and for a time relative to an event, the anchor turn's rank
  among the notes nearest the words that name the event ("my job interview").
"""

from __future__ import annotations

import statistics

from lighthouse import nearest_entries, search_entries
from lighthouse.graphs import read
from lighthouse.kinds import ENTRY_PARTS, VECTOR, VECTOR_MODEL, VECTOR_OF
from lighthouse.recall.feedback import nearest_with_feedback
from lighthouse.recall.notes_found import ANCHORS, candidates, cosines
from lighthouse.recall.question import Anchored, asked_words, time_asked
from lighthouse.values import words

from .conversations import ABILITIES, Question
from .ingest import WrongWork, session_of

NOTE = "note"
DEPTHS = (5, 10, 50, 100)
DEEP = max(DEPTHS)
RETRIEVERS = ("words", "meaning", "time", "cosine")
RANKS = (1, 5, 10, 50, 100)  # the cosine ranks counted: at or above each
CEILINGS = (5, 10, 1_000)  # the candidates of each ranking counted for the ceiling: its first 5, 10, all
ANSWERABLE = tuple(ability for ability in ABILITIES if ability != "abstention")

_VECTORS = (
    f"MATCH (n:Entry) WHERE n.type = $type AND n.`{VECTOR_MODEL}` = $model RETURN n.id, n.`{VECTOR}`, n.words"
)
_PART_VECTORS = (
    f"MATCH (n:Entry)-[:{VECTOR_OF}]->(p:{ENTRY_PARTS}) WHERE n.type = $type AND p.`{VECTOR_MODEL}` = $model "
    f"RETURN n.id, p.`{VECTOR}`"
)


class _Exact:
    """Every note's vectors of one graph (a long note's parts each), for exact cosine ranks."""

    def __init__(self, numpy, graph, model: str):
        self.numpy = numpy
        rows = read(graph, _VECTORS, {"type": NOTE, "model": model})
        self.words = {row[0]: f" {row[2]} " for row in rows}
        rows += read(graph, _PART_VECTORS, {"type": NOTE, "model": model})
        self.ids = [row[0] for row in rows]
        matrix = numpy.array([list(row[1]) for row in rows], dtype=numpy.float32)
        self.units = matrix / numpy.linalg.norm(matrix, axis=1, keepdims=True)

    def rank(self, vector: list[float], evidence) -> int:
        """The place of the evidence's note (its best part) among every note, by cosine to the vector: 1
        is the nearest. WrongWork when that note does not say what the evidence holds."""
        note_id = _note_id(evidence)
        if f" {words(evidence.holds)} " not in self.words.get(note_id, ""):
            raise WrongWork(f"the note {note_id} does not hold {evidence.holds!r}")
        question = self.numpy.asarray(vector, dtype=self.numpy.float32)
        near = self.units @ (question / self.numpy.linalg.norm(question))
        best: dict[str, float] = {}
        for one, value in zip(self.ids, near.tolist(), strict=True):
            if value > best.get(one, -2.0):
                best[one] = value
        mine = best[note_id]
        return 1 + sum(1 for value in best.values() if value > mine)


def _note_id(evidence) -> str:
    return f"{evidence.session}/{evidence.turn + 1}"  # a session's notes have seqs from 1, in turn order


def _found_at(ids: list[str], evidence: set[str], depth: int) -> float:
    sessions = {session_of(one) for one in ids[:depth]}
    return len(evidence & sessions) / len(evidence)


def _sessions_at_5(ids: list[str], evidence: set[str]) -> float:
    """Session recall@5 of the ranking alone: its sessions in the order of their first note."""
    sessions = list(dict.fromkeys(session_of(one) for one in ids))
    return len(evidence & set(sessions[:5])) / len(evidence)


def diagnose_question(question: Question, graph, embedder, exact: _Exact, wide: int) -> dict:
    """One question's figures: {"ability", "found": {retriever: {depth: share}}, "ceiling",
    "cosine_ranks": [rank of each evidence turn], "anchor_rank": rank or None}."""
    function, model, _ = embedder
    vector = function([question.text])[0]

    def again(texts: list[str]) -> list[list[float]]:
        return [vector for _ in texts]

    evidence = {one.session for one in question.evidence}
    words = search_entries(graph, asked_words(question.text), limit=DEEP, match="any", types=[NOTE])
    rankings = {
        "words": [one["id"] for one in words],
        "meaning": [
            one["id"]
            for one in nearest_with_feedback(graph, question.text, vector, model, DEEP, [NOTE], cosines)
        ],
        "cosine": [
            one["id"] for one in nearest_entries(graph, question.text, again, model, DEEP, types=[NOTE])
        ],
    }
    fused = candidates(graph, question.text, question.asked_at, wide, (vector, again), function, model)
    if "time" in fused.rankings:
        timed = candidates(graph, question.text, question.asked_at, DEEP, (vector, again), function, model)
        rankings["time"] = [one["id"] for one in timed.rankings["time"]]
    ceilings = {
        depth: sorted({one["id"] for ranking in fused.rankings.values() for one in ranking[:depth]})
        for depth in CEILINGS
    }
    anchor_rank = None
    asked_time = time_asked(question.text, question.asked_at)
    if isinstance(asked_time, Anchored) and len(question.evidence) > 1:
        anchor_rank = exact.rank(function([asked_time.about])[0], question.evidence[-1])
    return {
        "ability": question.ability,
        "evidence": [one.session for one in question.evidence],
        "found": {
            name: {depth: _found_at(ids, evidence, depth) for depth in DEPTHS}
            | {"sessions@5": _sessions_at_5(ids, evidence)}
            for name, ids in rankings.items()
        },
        "ceiling": {depth: _found_at(ids, evidence, len(ids)) for depth, ids in ceilings.items()},
        "cosine_ranks": [exact.rank(vector, one) for one in question.evidence],
        "anchor_rank": anchor_rank,
    }


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 3) if values else None


def summarise(diagnosed: list[dict]) -> dict:
    """Per ability and overall: each retriever's share at each depth (over the questions it ranks), the
    ceiling, and the evidence turns' cosine ranks (median, share at or above each of RANKS)."""
    groups = {"overall": diagnosed} | {
        ability: [one for one in diagnosed if one["ability"] == ability] for ability in ANSWERABLE
    }
    summary = {}
    for group, members in groups.items():
        if not members:
            continue
        ranks = [rank for one in members for rank in one["cosine_ranks"]]
        anchors = [one["anchor_rank"] for one in members if one["anchor_rank"] is not None]
        summary[group] = {
            "questions": len(members),
            "found": {
                name: {
                    depth: _mean([one["found"][name][depth] for one in members if name in one["found"]])
                    for depth in (*DEPTHS, "sessions@5")
                }
                | {"questions": sum(1 for one in members if name in one["found"])}
                for name in RETRIEVERS
            },
            "ceiling": {depth: _mean([one["ceiling"][depth] for one in members]) for depth in CEILINGS},
            "cosine_rank": {
                "median": statistics.median(ranks),
                **{f"top{most}": _mean([1.0 if rank <= most else 0.0 for rank in ranks]) for most in RANKS},
            },
            "anchor_rank": {
                "anchors": len(anchors),
                "median": statistics.median(anchors) if anchors else None,
                **{
                    f"top{most}": _mean([1.0 if rank <= most else 0.0 for rank in anchors])
                    for most in (1, 10, 50)
                },
            },
        }
    return summary


def diagnose(memory, questions: list[Question], embedder, depth: int) -> dict:
    """The diagnosis of the questions with an answer, on the "turns" graphs: summarise()'s figures and
    each question's own."""
    import numpy  # the embedder's own dependency

    wide = min(1_000, max(2 * depth, 30))  # what recall(limit=depth) reads of each ranking
    exact: dict[str, _Exact] = {}
    diagnosed = []
    for question in questions:
        if not question.evidence:
            continue
        graph = memory.graph("turns", question.user)
        if question.user not in exact:
            exact[question.user] = _Exact(numpy, graph, embedder[1])
        found = diagnose_question(question, graph, embedder, exact[question.user], wide)
        diagnosed.append({"question": question.id, **found})
    return {"summary": summarise(diagnosed), "questions": diagnosed}


MISSES = ("anchor", "model", "ranking")


def misses(diagnosed: list[dict], ranked: dict[str, list[str]]) -> dict:
    """Each evidence session a setting left out of its first five (ranked: question id -> its sessions
    best first), by what its measurement says: "anchor" (the event a time is relative to is not among
    the ANCHORS notes nearest its words, so the window read is another), "model" (the evidence turn is
    not among the 10 notes nearest the question under the model alone), "ranking" (it is, and the
    fusion put its session lower). Per ability: {cause: count, "missed", "evidence"}."""
    counted: dict[str, dict] = {}
    for one in diagnosed:
        first = set(ranked.get(one["question"], [])[:5])
        group = counted.setdefault(one["ability"], dict.fromkeys((*MISSES, "missed", "evidence"), 0))
        for session, rank in zip(one["evidence"], one["cosine_ranks"], strict=True):
            group["evidence"] += 1
            if session in first:
                continue
            group["missed"] += 1
            anchored = one["anchor_rank"] is not None
            cause = (
                "anchor" if anchored and one["anchor_rank"] > ANCHORS else "model" if rank > 10 else "ranking"
            )
            group[cause] += 1
    counted["overall"] = {
        name: sum(group[name] for group in counted.values()) for name in (*MISSES, "missed", "evidence")
    }
    return counted


def misses_table(counted: dict) -> str:
    head = ["ability", "evidence", "missed", *MISSES]
    rows = [head] + [[group] + [str(found[name]) for name in head[1:]] for group, found in counted.items()]
    widths = [max(len(row[column]) for row in rows) for column in range(len(head))]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip() for row in rows
    )


def _shown(value) -> str:
    return "-" if value is None else f"{value:.3f}" if isinstance(value, float) else str(value)


def diagnosis_table(summary: dict, recall_at_5: dict | None = None) -> str:
    """The diagnosis as rows: per group, each retriever at each depth, the ceiling beside recall@5 of
    the `recall` setting when it was asked, and the cosine ranks."""
    head = ["ability", "retriever", *(f"@{depth}" for depth in DEPTHS), "sessions@5"]
    rows = [head]
    for group, found in summary.items():
        for name in RETRIEVERS:
            shares = found["found"][name]
            if shares["questions"]:
                label = (
                    f"{name} ({shares['questions']})" if shares["questions"] != found["questions"] else name
                )
                rows.append([group, label, *(_shown(shares[depth]) for depth in (*DEPTHS, "sessions@5"))])
        recalled = (recall_at_5 or {}).get(group)
        ceiling = found["ceiling"]
        rows.append(
            [group, "CEILING (first 5, 10, all)"]
            + [_shown(ceiling[depth]) for depth in CEILINGS]
            + [f"recall@5 {_shown(recalled)}", ""]
        )
        ranks = found["cosine_rank"]
        rows.append(
            [group, "cosine rank", f"median {ranks['median']}"]
            + [f"<={most} {_shown(ranks[f'top{most}'])}" for most in (5, 10, 100)]
            + [""]
        )
        anchors = found["anchor_rank"]
        if anchors["anchors"]:
            rows.append(
                [
                    group,
                    f"anchor rank ({anchors['anchors']})",
                    f"median {anchors['median']}",
                    f"<=1 {_shown(anchors['top1'])}",
                    f"<=10 {_shown(anchors['top10'])}",
                    f"<=50 {_shown(anchors['top50'])}",
                    "",
                ]
            )
    widths = [max(len(row[column]) for row in rows) for column in range(len(head))]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip() for row in rows
    )
