"""Idempotency: the first answer of a write, kept under its key in the tenant's own graph.

The same key again, from the same API key, gets that answer back and writes nothing; it is kept in
the database, so a restart changes nothing. The same key with other arguments is refused.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
import uuid
from contextlib import contextmanager

from lighthouse import now, once, once_settled

from .problems import Problem
from .reading import rows
from .topology import tagged

_log = logging.getLogger(__name__)
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


# A hold on an idempotency key on the server is a lease: taken for HOLD_MS and renewed every RENEW_MS by
# the process that holds it, so it ends within HOLD_MS of that process' death (kill -9 included) and a
# retry after a restart waits that long at most. A call waits for another's hold at most WAIT_MOST_S,
# looking again after a pause that doubles from the first to the last of WAITS_S.
HOLD_MS = 3_000
RENEW_MS = 1_000
WAIT_MOST_S = 120.0
WAITS_S = (0.005, 0.25)

# KEYS[1] the hold; ARGV[1] the holder's turn, ARGV[2] the lease in ms: renewed (1) only while it is ours.
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""
# Given back only while it is ours: a hold that ran out and was taken by another call stays theirs.
_GIVE_BACK = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


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
    def request(ident: str, print_: str) -> str:
        """The name under which once() keeps the replies of a call of an idempotency key: of that call
        only (its fingerprint is in it), so another call with the key never gets this one's replies."""
        return "idem:" + hashlib.sha256(f"{ident}\x1f{print_}".encode()).hexdigest()

    def once(self, graph, ident: str, print_: str):
        """The tenant's graph as this call of the idempotency key writes on it (lighthouse.once())."""
        return once(graph, self.request(ident, print_))

    def settle(self, graph, ident: str, print_: str) -> None:
        """The replies once() kept for this call dropped: its answer is kept, or its retry must write."""
        once_settled(graph, self.request(ident, print_))

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


class _Renewer:
    """One thread per process that renews every hold this process has on the server, each RENEW_MS."""

    def __init__(self) -> None:
        self._holds: dict[str, tuple[object, str]] = {}  # hold -> (graph, turn)
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def add(self, held: str, graph, turn: str) -> None:
        with self._lock:
            self._holds[held] = (graph, turn)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="idempotency-holds", daemon=True)
                self._thread.start()

    def remove(self, held: str) -> None:
        with self._lock:
            self._holds.pop(held, None)

    def _run(self) -> None:
        while True:
            time.sleep(RENEW_MS / 1000)
            with self._lock:
                holds = list(self._holds.items())
            for held, (graph, turn) in holds:
                try:
                    graph.execute_command("EVAL", _RENEW, 1, held, turn, HOLD_MS)
                except Exception:  # noqa: BLE001 - a database away: the next round tries again
                    _log.warning("the hold of an idempotency key could not be renewed", exc_info=True)


_RENEWER = _Renewer()


def held_key(graph_name: str, ident: str) -> str:
    """The key of a hold, with the hash tag of the tenant's graph: on a cluster, on its shard."""
    return tagged(
        graph_name, "lighthouse:answer:" + hashlib.sha256(f"{graph_name}\x1f{ident}".encode()).hexdigest()
    )


@contextmanager
def _held_on_server(graph, ident: str):
    turn = uuid.uuid4().hex
    held = held_key(graph.name, ident)
    deadline = time.monotonic() + WAIT_MOST_S
    pause = WAITS_S[0]
    while not graph.execute_command("SET", held, turn, "NX", "PX", HOLD_MS):
        if time.monotonic() >= deadline:
            raise Problem("database_unavailable", "another call held this idempotency key too long")
        time.sleep(pause)
        pause = min(pause * 2, WAITS_S[1])
    _RENEWER.add(held, graph, turn)
    try:
        yield
    finally:
        _RENEWER.remove(held)
        graph.execute_command("EVAL", _GIVE_BACK, 1, held, turn)
