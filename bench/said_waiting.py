"""What the embedding worker pays for conversations when nothing waits: said_waiting() and one idle round.

    uv run python bench/run.py said_waiting [--messages N] [--rounds R]

Writes N messages (default 20,000) with say() over 50 users and 400 sessions on a fresh graph of the
embedded FalkorDB (or the one FALKORDB_HOST/PORT name), gives them all vectors through the worker's rounds
(embed_pending() with an in-process embedder, no HTTP), then times R times (default 30) said_waiting(),
an idle embed_pending() round (nothing asked of the embedder) and embedding_status(): medians in ms.
said_waiting() must say 0 and the idle round must embed nothing, else WRONG WORK.
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import sys
import time
import uuid

from lighthouse import Kind, ensure_schema, said_waiting, say
from lighthouse_server.embedders import Configured, Embedder
from lighthouse_server.settings import Settings
from lighthouse_server.worker.embedding import embed_pending, embedding_status
from processes import WrongWork, on_a_server

MEMO = Kind("Memo", key="id", text=("body",), dimensions=16)
MODEL = "bench-bag-16"


def _bag(texts: list[str]) -> list[list[float]]:
    vectors = []
    for text in texts:
        vector = [0.01] + [0.0] * 15
        for word in text.split():
            vector[1 + int(hashlib.sha256(word.encode()).hexdigest(), 16) % 15] += 1.0
        vectors.append(vector)
    return vectors


class InProcess(Configured):
    """The worker's configured embedder, answered in this process."""

    def __init__(self) -> None:
        super().__init__(Settings())
        self.setting = "bench"

    @property
    def model(self) -> str:
        return MODEL

    def load(self) -> Embedder:
        return Embedder(_bag, MODEL, 16)


def _median_ms(call, rounds: int) -> float:
    took = []
    for _ in range(rounds):
        started = time.perf_counter()
        call()
        took.append((time.perf_counter() - started) * 1000)
    return statistics.median(took)


def measure(server, messages: int, rounds: int) -> dict[str, float]:
    graph = server.client().select_graph(f"bench_said_waiting_{uuid.uuid4().hex[:10]}")
    try:
        ensure_schema(graph, [MEMO], entry_dimensions=16)
        started = time.perf_counter()
        for number in range(messages):
            said = say(graph, f"user{number % 50}", f"s{number % 400}", "user", f"message {number}", "bench")
            if said["status"] != "said":
                raise WrongWork(f"say() answered {said}")
        writing = time.perf_counter() - started
        embedder = InProcess()
        while said_waiting(graph, MODEL):
            done = embed_pending(graph, [MEMO], embedder, limit=1_000)
            if done["state"] != "ok":
                raise WrongWork(f"a round failed: {done}")
        idle = embed_pending(graph, [MEMO], embedder)
        if idle["embedded"] or said_waiting(graph, MODEL):
            raise WrongWork(f"an idle round embedded something, or messages still wait: {idle}")
        return {
            "say() a call": writing / messages * 1000,
            "said_waiting()": _median_ms(lambda: said_waiting(graph, MODEL), rounds),
            "an idle round": _median_ms(lambda: embed_pending(graph, [MEMO], embedder), rounds),
            "embedding_status()": _median_ms(lambda: embedding_status(graph, [MEMO], embedder), rounds),
        }
    finally:
        graph.delete()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--messages", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args(argv)

    def work(server) -> None:
        for name, ms in measure(server, args.messages, args.rounds).items():
            print(f"{args.messages:,} messages  {name:20s} {ms:8.2f} ms")

    return on_a_server(work)


if __name__ == "__main__":
    sys.exit(main())
