"""Callers that race: eight at the same moment, each through a connection of its own, as agents would."""

from __future__ import annotations

import threading

from test_batches import in_eight_threads

CALLERS = 8


def at_once(db, graph, call) -> list:
    """call(number, graph) from eight threads released together; what each call gave back, by number.

    An error in any of them fails the test (a thread that cannot start breaks the barrier for all)."""
    start = threading.Barrier(CALLERS, timeout=60)
    answers: list = [None] * CALLERS

    def work(number: int, own) -> None:
        start.wait()
        answers[number] = call(number, own)

    in_eight_threads(db, graph, work)
    return answers
