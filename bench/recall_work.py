"""Recall over the fleet: search() by words, pointing_at() by relation, embed() and nearest() by meaning.

Questions are two or three of the vocabulary words a device's note holds (fleet.VOCABULARY), so each
finds that device and a few others. Answers are checked against the fleet: the devices whose current
note has every word, the devices whose relation held at the time, and for nearest() the cosine of the
same test embedder computed here over every device.

search() with match="all" asks the full-text index once with every word required, and returns each result
as one map without its words and vector. pointing_at() is limited by the size of its answer: a team is
used by 750 devices, so one call in six returns 750 keys. nearest() spends its time on the values of the
ten nodes it returns (0.22 of 0.38 ms inside FalkorDB), not in the vector index (0.12 ms).
"""

from __future__ import annotations

import hashlib
import math
import time
from datetime import datetime

from breakdown import unwatched
from fleet import DEVICE, DIMENSIONS, Fleet
from lighthouse import embed, nearest, pointing_at, search
from lighthouse.kinds import VECTOR, VECTOR_MODEL, VECTOR_OF
from lighthouse.values import words
from lighthouse.write.rows import text_of
from registry import Context, Measured, expect, timed_calls, workload

QUESTIONS = 500
LIMIT = 10  # results asked of search() and nearest()
MODEL = "bench-bag-64"
EMBED_BATCH = 1_000  # entities one embed() call gives vectors to: the library's most
SCORE_SLACK = 1e-3  # FalkorDB computes cosine in float32
LEAST_RECALL = 0.8  # nearest() goes through an approximate index (HNSW): the share of exact top 10 found


def bag(texts: list[str]) -> list[list[float]]:
    """The test embedder: each word adds 1 at a place its hash picks; the same in every process."""
    found = []
    for text in texts:
        vector = [0.0] * DIMENSIONS
        vector[0] = 0.01  # so a text whose words all fall elsewhere still has a direction
        for word in words(text).split():
            vector[1 + int(hashlib.sha256(word.encode()).hexdigest(), 16) % (DIMENSIONS - 1)] += 1.0
        found.append(vector)
    return found


def _unit(vector: list[float]) -> list[float]:
    length = math.sqrt(sum(x * x for x in vector))
    return [x / length for x in vector]


def _questions(ctx: Context) -> list[list[str]]:
    """Two or three words of a random device's note, in a random order."""
    asked = []
    for _ in range(QUESTIONS):
        chosen = ctx.fleet.words[ctx.rng.randrange(ctx.fleet.count)]
        asked.append(ctx.rng.sample(chosen, ctx.rng.choice((2, 3))))
    return asked


def _current_notes(fleet: Fleet) -> dict[str, str]:
    notes = {}
    for key in fleet.keys:
        state = fleet.current(key)
        if state is not None:
            notes[key] = state.values["note"]
    return notes


@workload(
    "search",
    "calls",
    needs=("create",),
    floor="indexed_match",
    target=0.87,  # issue 35: at least the published package, which reached 87 % of this floor
    about="search() of 2 or 3 words over the devices' notes, every word must match, 10 results",
)
def search_calls(ctx: Context) -> Measured:
    """500 search() calls: each result holds every word, and as many as the devices that match (at most 10)."""
    questions = _questions(ctx)
    answers, seconds = timed_calls(
        lambda question: search(ctx.graph, DEVICE, " ".join(question), limit=LIMIT), questions
    )
    notes = _current_notes(ctx.fleet)
    held = {key: set(words(note).split()) for key, note in notes.items()}
    for question, answer in zip(questions, answers, strict=True):
        matching = {key for key, found in held.items() if set(question) <= found}
        asked = " ".join(question)
        expect(
            len(answer) == min(LIMIT, len(matching)),
            f"search({asked!r}): {len(answer)} results, {len(matching)} devices match",
        )
        keys = [one["key"] for one in answer]
        expect(
            set(keys) <= matching,
            f"search({asked!r}) gave {sorted(set(keys) - matching)}, which do not match",
        )
        expect(len(set(keys)) == len(keys), f"search({asked!r}) gave a device twice: {keys}")
        scores = [one["score"] for one in answer]
        expect(scores == sorted(scores, reverse=True), f"search({asked!r}): scores out of order {scores}")
        for one in answer:
            shown = one["values"]["note"]
            expect(shown == notes[one["key"]], f"search({asked!r}): {one['key']} shows {shown!r}")
    return Measured(len(questions), seconds, len(answers))


BROAD = ("sensor", "checked weekly", "sensor watched")  # words every device's note holds


@workload(
    "search_broad",
    "calls",
    needs=("create",),
    floor="indexed_match",
    about="search() of words every device's note holds: the index answers every device, 10 results",
)
def search_broad_calls(ctx: Context) -> Measured:
    """300 search() calls whose words every note holds: 10 results, each a device, best first."""
    questions = [BROAD[n % len(BROAD)] for n in range(300)]
    answers, seconds = timed_calls(
        lambda question: search(ctx.graph, DEVICE, question, limit=LIMIT), questions
    )
    notes = _current_notes(ctx.fleet)
    for question, answer in zip(questions, answers, strict=True):
        expect(len(answer) == min(LIMIT, len(notes)), f"search({question!r}): {len(answer)} results")
        scores = [one["score"] for one in answer]
        expect(scores == sorted(scores, reverse=True), f"search({question!r}): scores out of order {scores}")
        expect(all(one["key"] in notes for one in answer), f"search({question!r}): a device it cannot hold")
    return Measured(len(questions), seconds, len(answers))


def _holders(fleet: Fleet) -> dict[tuple[str, str], list[tuple[str, datetime, datetime | None]]]:
    """(relation, target) -> the devices that held it, each with when it began and ended."""
    found: dict = {}
    for key in fleet.keys:
        for state in fleet.states(key):
            for relation, targets in state.relations.items():
                for target in targets:
                    found.setdefault((relation, target), []).append((key, state.valid_from, state.valid_to))
    return found


@workload(
    "pointing_at",
    "calls",
    needs=("create",),
    floor="indexed_match",
    target=0.60,
    about="pointing_at() a random room (LOCATED_IN) or team (USED_BY) at a random time",
)
def pointing_at_calls(ctx: Context) -> Measured:
    """500 pointing_at() calls; each must be the devices whose relation to the target held then."""
    holders = _holders(ctx.fleet)
    targets = sorted(holders)
    asked = []
    for _ in range(QUESTIONS):
        relation, target = ctx.rng.choice(targets)
        asked.append((relation, target, ctx.fleet.moment(ctx.rng)))
    answers, seconds = timed_calls(
        lambda one: pointing_at(ctx.graph, DEVICE, one[0], one[1], when=one[2]), asked
    )
    for (relation, target, moment), answer in zip(asked, answers, strict=True):
        wanted = sorted(
            {
                key
                for key, began_at, ended in holders[(relation, target)]
                if began_at <= moment and (ended is None or moment < ended)
            }
        )
        expect(
            answer == wanted,
            f"pointing_at({relation}, {target}, {moment}): {len(answer)} keys, not {len(wanted)}",
        )
    return Measured(len(asked), seconds, len(answers))


@workload(
    "embed",
    "rows",
    needs=("create",),
    floor="unwind_create",
    about="embed() of every device's note with the test embedder (hashed bag of words), 1,000 a call",
)
def embed_rows(ctx: Context) -> Measured:
    """embed() until nothing waits: every device gets one vector of the model."""
    embedded, calls = 0, 0
    began = time.perf_counter()
    while True:
        answer = embed(ctx.graph, DEVICE, bag, MODEL, limit=EMBED_BATCH)
        embedded, calls = embedded + answer["embedded"], calls + 1
        if answer["waiting"] == 0 or calls > ctx.fleet.count // EMBED_BATCH + 2:
            break
    seconds = time.perf_counter() - began
    expect(answer["waiting"] == 0, f"embed: {answer['waiting']} devices still wait after {calls} calls")
    expect(embedded == ctx.fleet.count, f"embed: {embedded} vectors stored, not {ctx.fleet.count}")
    stored = (
        unwatched(ctx.graph)
        .ro_query(
            f"MATCH (e:{DEVICE.label})-[:{VECTOR_OF}]->(v:{DEVICE.vector_label}) "
            f"WHERE v.`{VECTOR_MODEL}` = $model AND v.`{VECTOR}` IS NOT NULL RETURN count(DISTINCT e)",
            {"model": MODEL},
        )
        .result_set[0][0]
    )
    expect(
        stored == ctx.fleet.count, f"embed: {stored} devices hold a vector of {MODEL}, not {ctx.fleet.count}"
    )
    return Measured(embedded, seconds, stored)


@workload(
    "nearest",
    "calls",
    needs=("embed",),
    floor="indexed_match",
    target=0.60,
    about="nearest() of 2 or 3 words by the test embedder, 10 results from the vector index",
)
def nearest_calls(ctx: Context) -> Measured:
    """500 nearest() calls: scores are the cosine computed here, in order, and most of the exact top 10."""
    questions = [" ".join(question) for question in _questions(ctx)]
    answers, seconds = timed_calls(
        lambda question: nearest(ctx.graph, DEVICE, question, bag, MODEL, limit=LIMIT), questions
    )
    notes = _current_notes(ctx.fleet)
    keys = sorted(notes)
    stored = [_unit(vector) for vector in bag([text_of(DEVICE, {"note": notes[key]}) for key in keys])]
    # One list per dimension: a question has few words, so its cosine reads only a few of them.
    columns = [[vector[place] for vector in stored] for place in range(DIMENSIONS)]
    found_exact = 0
    for question, answer in zip(questions, answers, strict=True):
        asked = _unit(bag([question])[0])
        sums = [0.0] * len(keys)
        for place, weight in enumerate(asked):
            if weight:
                sums = [total + weight * item for total, item in zip(sums, columns[place], strict=True)]
        cosine = dict(zip(keys, sums, strict=True))
        expect(len(answer) == min(LIMIT, len(keys)), f"nearest({question!r}): {len(answer)} results")
        scores = [one["score"] for one in answer]
        expect(scores == sorted(scores, reverse=True), f"nearest({question!r}): scores out of order {scores}")
        for one in answer:
            expect(
                abs(one["score"] - cosine[one["key"]]) <= SCORE_SLACK,
                f"nearest({question!r}): {one['key']} scored {one['score']}, its cosine is {cosine[one['key']]}",
            )
            shown = one["values"]["note"]
            expect(shown == notes[one["key"]], f"nearest({question!r}): {one['key']} shows {shown!r}")
        # Ties are many (notes share most words): a result as close as the exact tenth counts as found.
        tenth = sorted(cosine.values(), reverse=True)[min(LIMIT, len(keys)) - 1]
        found_exact += sum(1 for one in answer if cosine[one["key"]] >= tenth - SCORE_SLACK)
    recall = found_exact / (min(LIMIT, len(keys)) * len(questions))
    expect(
        recall >= LEAST_RECALL, f"nearest: {recall:.2f} of the exact top {LIMIT} found, under {LEAST_RECALL}"
    )
    return Measured(len(questions), seconds, len(answers))
