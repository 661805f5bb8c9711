"""Idempotency: the first answer of a write, kept under its key in the tenant's own graph.

The same key again, from the same API key, gets that answer back and writes nothing; it is kept in
the database, so a restart changes nothing. The same key with other arguments is refused.
"""

from __future__ import annotations

import hashlib
import json
import threading
from contextlib import contextmanager

from lighthouse import now

from .problems import Problem
from .reading import rows

ANSWER = "`lh.Answer`"  # no Kind label can hold a dot


def checked(idempotency_key: object) -> str:
    if (
        type(idempotency_key) is not str
        or not 1 <= len(idempotency_key) <= 200
        or not idempotency_key.isprintable()
    ):
        raise Problem("invalid_argument", "an idempotency key is 1 to 200 printable characters")
    return idempotency_key


def fingerprint(operation: str, arguments: dict) -> str:
    text = json.dumps([operation, arguments], sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


class Answers:
    def __init__(self) -> None:
        self._locks: dict[tuple[str, str], threading.Lock] = {}
        self._lock = threading.Lock()

    @contextmanager
    def held(self, graph_name: str, ident: str):
        """One call at a time per idempotency key in this process: the second waits for the first."""
        with self._lock:
            lock = self._locks.setdefault((graph_name, ident), threading.Lock())
        with lock:
            yield
        with self._lock:
            if len(self._locks) > 10_000:
                self._locks.clear()

    @staticmethod
    def ident(key_id: str, idempotency_key: str) -> str:
        return f"{key_id}\x1f{idempotency_key}"

    def found(self, graph, ident: str, operation: str, print_: str) -> tuple[bool, object]:
        found = rows(
            graph,
            f"MATCH (a:{ANSWER} {{id: $id}}) RETURN a.operation, a.fingerprint, a.answer",
            {"id": ident},
        )
        if not found:
            return False, None
        stored_operation, stored_print, answer = found[0]
        if stored_operation != operation or stored_print != print_:
            raise Problem(
                "invalid_argument",
                "this idempotency key was used for another call: choose a new key for a new write",
            )
        return True, json.loads(answer)

    def keep(self, graph, ident: str, operation: str, print_: str, answer: object) -> None:
        graph.query(
            f"MERGE (a:{ANSWER} {{id: $id}}) ON CREATE SET a.operation = $operation, a.fingerprint = $print, "
            "a.answer = $answer, a.at = $at",
            {"id": ident, "operation": operation, "print": print_, "answer": json.dumps(answer), "at": now()},
        )
