"""recall through the service, timed over 10,000 notes, and the embedding worker's rate.

    uv run python bench/run.py recall_latency [--notes N] [--questions Q] [--embed-seconds S]

Starts the real `lighthouse serve` with the bundled embedder (a free loopback port, a temporary data
directory), keeps N notes (default 10,000) over HTTP, lets its embedding worker give them their
vectors and measures the worker's rate (notes embedded a second, from the status it reports), then
asks Q questions (default 200) of `recall` over HTTP and times each: p50 and p99 against the targets
of issue 36 (p50 under 50 ms, p99 under 200 ms, at least 50 notes embedded a second), beside
`search_notes` over HTTP and `recall()` of the library on the same graph in this process, so what the
transport adds shows. Each answer must hold the note the question names by its own word (n<number>),
and each line counts those where that note came first. The service is stopped whatever happens. --embed-seconds S stops waiting for the worker after S seconds
(the questions then meet notes of which only some have vectors: the line says how many).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx
from lighthouse import recall, tenant
from lighthouse_server import keys
from lighthouse_server.operations import TABLE
from processes import Serve, WrongWork, expect

P50_TARGET_MS, P99_TARGET_MS, EMBED_TARGET = 50.0, 200.0, 50.0
TENANT, AGENT = "recall", "bench"
KINDS = TABLE["declare_kinds"].example["kinds"]
TOPICS = [
    "pump",
    "seal",
    "bearing",
    "valve",
    "boiler",
    "chiller",
    "compressor",
    "filter",
    "belt",
    "conveyor",
    "forklift",
    "battery",
    "generator",
    "sister",
    "dentist",
    "marathon",
    "garden",
    "guitar",
    "lesson",
    "flight",
    "hotel",
    "dinner",
    "museum",
    "salary",
    "rent",
    "doctor",
    "phone",
    "recipe",
    "piano",
    "bicycle",
    "passport",
    "wedding",
    "birthday",
    "camera",
    "library",
    "invoice",
    "meeting",
    "contract",
    "kitchen",
]
COMMON = [
    "i",
    "we",
    "my",
    "the",
    "a",
    "to",
    "of",
    "and",
    "in",
    "on",
    "for",
    "with",
    "about",
    "at",
    "from",
    "was",
    "were",
    "is",
    "are",
    "had",
    "have",
    "said",
    "told",
    "went",
    "got",
]


def note_text(rng: random.Random, number: int) -> str:
    """A note of 12 to 40 words: common words, two topics, and a word of its own (n<number>)."""
    chosen = rng.sample(TOPICS, 2)
    words = [rng.choice(COMMON) for _ in range(rng.randint(10, 38))] + chosen + [f"n{number}"]
    rng.shuffle(words)
    return " ".join(words)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def _embedded(http: httpx.Client) -> tuple[int, int]:
    found = http.get("/v1/status").json()["result"]["embedding"]
    return found.get("embedded") or 0, found.get("waiting") or 0


def measure(serve: Serve, count: int, questions: int, embed_seconds: float) -> int:
    db = serve.db()
    secret = keys.create(db, TENANT, AGENT, list(keys.SCOPES))["key"]
    http = httpx.Client(base_url=serve.url, headers={"Authorization": f"Bearer {secret}"}, timeout=120)
    declared = http.post("/v1/declare_kinds", json={"kinds": KINDS})  # the tenant's schema, as an agent's
    expect(declared.status_code == 200, f"declare_kinds gave {declared.text}")
    rng = random.Random(36)
    texts = [note_text(rng, number) for number in range(count)]
    began = time.perf_counter()
    ids = []
    for start in range(0, count, 1_000):
        items = [{"text": text, "at": "2026-06-01T00:00:00Z"} for text in texts[start : start + 1_000]]
        receipts = http.post("/v1/notes", json={"items": items}).json()["result"]
        expect(all(one["status"] == "recorded" for one in receipts), f"notes refused: {receipts[:1]}")
        ids += [one["id"] for one in receipts]
    print(f"{count:,} notes kept over HTTP in {time.perf_counter() - began:.1f} s", flush=True)
    began, first = time.perf_counter(), _embedded(http)[0]
    while True:
        done, waiting = _embedded(http)
        if waiting == 0 or time.perf_counter() - began > embed_seconds:
            break
        time.sleep(1.0)
    seconds = time.perf_counter() - began
    rate = (done - first) / seconds if seconds else 0.0
    verdict = "PASS" if rate >= EMBED_TARGET else "MISS"
    print(
        f"embedding worker: {done - first:,} notes in {seconds:.1f} s, {rate:.1f} a second {verdict} "
        f"(target {EMBED_TARGET:.0f}); {waiting:,} still waiting",
        flush=True,
    )
    from lighthouse_server.embedders import local_embedder  # the optional extra

    embedder, model, _ = local_embedder()
    graph = tenant(db, TENANT)
    asked = [rng.randrange(count) for _ in range(questions)]
    ways = {
        "recall over HTTP": lambda n: http.post(
            "/v1/recall", json={"question": f"what did i say about n{n}"}
        ),
        "search_notes over HTTP": lambda n: http.post("/v1/search_notes", json={"question": f"n{n}"}),
        "recall() in this process": lambda n: recall(
            graph, [], f"what did i say about n{n}", embedder=embedder, model=model
        ),
    }
    missed = 0
    for name, call in ways.items():
        for number in asked[:10]:
            call(number)  # warm: connections, plans, the model
        spent, firsts = [], 0
        for number in asked:
            started = time.perf_counter()
            answer = call(number)
            spent.append((time.perf_counter() - started) * 1000)
            answer = answer.json()["result"] if isinstance(answer, httpx.Response) else answer
            found = [one["id"] for one in answer["notes"]]
            expect(ids[number] in found, f"{name}: n{number} did not find its note")
            firsts += found[0] == ids[number]
        p50, p99 = statistics.median(spent), percentile(spent, 0.99)
        line = f"{name:26} p50 {p50:7.1f} ms  p99 {p99:7.1f} ms  its note first {firsts}/{len(asked)}"
        if name == "recall over HTTP":
            ok = p50 < P50_TARGET_MS and p99 < P99_TARGET_MS
            missed += not ok
            line += (
                f"  {'PASS' if ok else 'MISS'} (targets p50 < {P50_TARGET_MS:.0f}, p99 < {P99_TARGET_MS:.0f})"
            )
        print(line, flush=True)
    return missed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--embed-seconds", type=float, default=3_600.0)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        serve = Serve(Path(folder) / "data", embedder="local").start()
        try:
            measure(serve, args.notes, args.questions, args.embed_seconds)
        except WrongWork as error:
            print(f"WRONG WORK: {error}", file=sys.stderr)
            return 1
        finally:
            serve.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
