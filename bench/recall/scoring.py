"""The scores: session recall@k, hit@k, all@k and MRR on the ranking of sessions a setting's hits give,
the order of an update's statements, abstention against a threshold, and latency percentiles.

A setting's hits (session, score), best first, become a ranking of sessions: each session at the place
of its first hit. recall@k is the share of the evidence sessions among the first k (LongMemEval's
retrieval score), hit@k whether any is, all@k whether all are, and the reciprocal rank is 1 / the place
of the first evidence session (0 when none is found).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

KS = (1, 5, 10)


def ranked_sessions(hits: list[tuple[str, float]]) -> list[str]:
    seen: dict[str, None] = {}
    for session, _score in hits:
        seen.setdefault(session, None)
    return list(seen)


def recall_at(ranking: list[str], evidence: set[str], k: int) -> float:
    return len(evidence & set(ranking[:k])) / len(evidence)


def hit_at(ranking: list[str], evidence: set[str], k: int) -> float:
    return 1.0 if evidence & set(ranking[:k]) else 0.0


def all_at(ranking: list[str], evidence: set[str], k: int) -> float:
    return 1.0 if evidence <= set(ranking[:k]) else 0.0


def reciprocal_rank(ranking: list[str], evidence: set[str]) -> float:
    for place, session in enumerate(ranking, start=1):
        if session in evidence:
            return 1.0 / place
    return 0.0


def newest_first(ranking: list[str], newer: set[str], older: set[str]) -> bool:
    """Whether a newer statement's session comes before every older one (an older one not found is below)."""
    places = {session: place for place, session in enumerate(ranking)}
    best_newer = min((places[s] for s in newer if s in places), default=math.inf)
    best_older = min((places[s] for s in older if s in places), default=math.inf)
    return best_newer < best_older


def answers(hits: list[tuple[str, float]], threshold: float) -> bool:
    """Whether the first hit scores above the threshold: an answer rather than nothing."""
    return bool(hits) and hits[0][1] > threshold


def separation(answerable: list[float | None], unanswerable: list[float | None]) -> float | None:
    """How well the first hit's score tells a question with an answer from one without: the chance that
    an answerable question's first score is above an unanswerable one's (ties count half; no hit is the
    lowest score). 0.5: no threshold of these scores tells them apart; 1.0: one threshold does."""
    if not answerable or not unanswerable:
        return None
    low = -math.inf
    above = 0.0
    for one in answerable:
        one = low if one is None else one
        for other in unanswerable:
            other = low if other is None else other
            above += 1.0 if one > other else 0.5 if one == other else 0.0
    return round(above / (len(answerable) * len(unanswerable)), 4)


def percentile(values: list[float], share: float) -> float:
    """The nearest-rank percentile (share from 0 to 1) of the values."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


@dataclass
class Scored:
    """One question's scores under one setting."""

    question: str
    ability: str
    seconds: float
    ranking: list[str]
    top: float | None  # the first hit's score
    scores: dict  # metric -> value, for questions with evidence
    answered: bool | None  # the first hit above the threshold; None without a threshold
    newest_first: bool | None  # updates only


def score(question, hits: list[tuple[str, float]], seconds: float, threshold: float | None) -> Scored:
    ranking = ranked_sessions(hits)
    evidence = {one.session for one in question.evidence}
    scores: dict = {}
    if evidence:
        for k in KS:
            scores[f"recall@{k}"] = recall_at(ranking, evidence, k)
            scores[f"hit@{k}"] = hit_at(ranking, evidence, k)
            scores[f"all@{k}"] = all_at(ranking, evidence, k)
        scores["mrr"] = reciprocal_rank(ranking, evidence)
    older = {one.session for one in question.older} - evidence
    return Scored(
        question.id,
        question.ability,
        seconds,
        ranking[:10],
        hits[0][1] if hits else None,
        scores,
        answers(hits, threshold) if threshold is not None else None,
        newest_first(ranking, evidence, older) if older else None,
    )


def _mean(values: list[float]) -> float | None:
    return round(math.fsum(values) / len(values), 4) if values else None


def summary(scored: list[Scored], abilities: tuple[str, ...]) -> dict:
    """Means per ability and over every answerable question, abstention, update order, latency."""
    answerable = [one for one in scored if one.scores]
    metrics = sorted({name for one in answerable for name in one.scores})
    groups = {
        "overall": answerable,
        **{a: [one for one in answerable if one.ability == a] for a in abilities},
    }
    found = {
        group: {name: _mean([one.scores[name] for one in members]) for name in metrics}
        | {"questions": len(members)}
        for group, members in groups.items()
        if members
    }
    judged = [one for one in scored if one.answered is not None]
    unanswerable = [one for one in judged if one.ability == "abstention"]
    others = [one for one in judged if one.ability != "abstention"]
    ordered = [one.newest_first for one in scored if one.newest_first is not None]
    seconds = [one.seconds for one in scored]
    return {
        "by_ability": found,
        "abstained": _mean([0.0 if one.answered else 1.0 for one in unanswerable]),
        "answered": _mean([1.0 if one.answered else 0.0 for one in others]),
        "newest_first": _mean([1.0 if one else 0.0 for one in ordered]),
        "separation": separation(
            [one.top for one in scored if one.ability != "abstention"],
            [one.top for one in scored if one.ability == "abstention"],
        ),
        "latency_ms": {
            "p50": round(percentile(seconds, 0.5) * 1000, 2) if seconds else None,
            "p99": round(percentile(seconds, 0.99) * 1000, 2) if seconds else None,
            "mean": round(math.fsum(seconds) / len(seconds) * 1000, 2) if seconds else None,
        },
    }
