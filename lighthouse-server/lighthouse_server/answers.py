"""Idempotency: the first answer of a write, kept under its key in the tenant's own graph.

The same key again, from the same API key, gets that answer back and writes nothing; it is kept in
the database, so a restart changes nothing. The same key with other arguments is refused.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
import uuid
from contextlib import contextmanager

from lighthouse import now
from lighthouse.once import once, once_settled

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


# How long one call may hold its idempotency key on the server: a process that died holding it frees it
# then. A write is bounded (the library splits it), so a live call is done long before.
HOLD_MS = 60_000


UNSETTLED = ("failed", "busy")  # a database error or other writers: the same call again may well succeed


def settled(answer: object) -> bool:
    """False when a receipt of the answer says the write did not happen for a passing reason: that
    answer is not kept, so the client's retry with the same key writes instead of getting it back."""
    receipts = answer if isinstance(answer, list) else [answer]
    return not any(isinstance(receipt, dict) and receipt.get("status") in UNSETTLED for receipt in receipts)


class Answers:
    def __init__(self) -> None:
        # (graph, ident) -> [its lock, how many calls hold or wait for it]: an entry goes when its last
        # caller leaves, never while another call still relies on it.
        self._locks: dict[tuple[str, str], list] = {}
        self._lock = threading.Lock()

    @contextmanager
    def held(self, graph, ident: str):
        """One call at a time per idempotency key: in this process (a lock) and across every process on
        the same database (a key on the server, taken with SET NX): the second waits for the first."""
        name = (graph.name, ident)
        with self._lock:
            entry = self._locks.setdefault(name, [threading.Lock(), 0])
            entry[1] += 1
        try:
            with entry[0], _held_on_server(graph, ident):
                yield
        finally:
            with self._lock:
                entry[1] -= 1
                if not entry[1]:
                    del self._locks[name]

    @staticmethod
    def ident(key_id: str, idempotency_key: str) -> str:
        return f"{key_id}\x1f{idempotency_key}"

    @staticmethod
    def request(ident: str) -> str:
        """The name under which once() keeps the replies of the call of an idempotency key."""
        return "idem:" + hashlib.sha256(ident.encode()).hexdigest()

    def once(self, graph, ident: str):
        """The tenant's graph as the call of this idempotency key writes on it: once (lighthouse.once)."""
        return once(graph, self.request(ident))

    def settle(self, graph, ident: str) -> None:
        """The replies once() kept for this key dropped: its answer is kept, or its retry must write."""
        once_settled(graph, self.request(ident))

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


@contextmanager
def _held_on_server(graph, ident: str):
    turn = uuid.uuid4().hex
    held = "lighthouse:answer:" + hashlib.sha256(f"{graph.name}\x1f{ident}".encode()).hexdigest()
    deadline = time.monotonic() + HOLD_MS / 1000
    while not graph.execute_command("SET", held, turn, "NX", "PX", HOLD_MS):
        if time.monotonic() >= deadline:
            raise Problem("database_unavailable", "another call held this idempotency key too long")
        time.sleep(0.002)
    try:
        yield
    finally:
        # Only our own hold is given back: one that ran out and was taken by another call stays theirs.
        if graph.execute_command("GET", held) in (turn, turn.encode()):
            graph.execute_command("DEL", held)
