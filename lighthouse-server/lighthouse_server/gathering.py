"""Small remember calls that arrive together, written together: one library call while another is in flight.

A step of the service's pipeline (service.py): every remember call without an idempotency key goes
through the process's Gathering (parts.py).

Many agents writing a row at a time would each cost the database a read and a write query of one row.
Calls of one tenant, kind and agent that arrive while such a call is being written wait, and the next
write takes all of them in one remember() (the library then reads and writes them in one query each):
no call waits for a timer, and one that finds nothing in flight is written at once. Each call gets back
exactly its own receipts, in its own order. Rows of one key from different calls go in the order the
calls arrived, as the write rule's waves keep them. A call of more than GATHER_MOST rows is written on
its own, so a large import never holds small writes back. An error of the library call (not a receipt:
receipts say what each row became) is raised in every call of that write. The library call tells each
receipt what its row ended (remember(..., endings=True)), as the service answers a remember.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from lighthouse import remember

GATHER_MOST = 100  # rows of a call that may wait to be written with others


@dataclass
class _Waiting:
    rows: list
    woken: threading.Event = field(default_factory=threading.Event)
    receipts: list | None = None
    error: BaseException | None = None


@dataclass
class _Group:
    pending: list[_Waiting] = field(default_factory=list)
    writing: bool = False


def remember_telling_endings(graph, kind, rows, by) -> list[dict]:
    """remember() whose receipts name what each row ended: the write the service gathers."""
    return remember(graph, kind, rows, by, endings=True)


class Gathering:
    def __init__(self, write=remember_telling_endings) -> None:
        self._write = write
        self._lock = threading.Lock()
        self._groups: dict[tuple, _Group] = {}

    def remember(self, graph, kind, rows: list, by: str) -> list[dict]:
        """remember(graph, kind, rows, by), written with the calls of the same graph, kind and by that
        arrive while one is being written."""
        if type(rows) is not list or len(rows) > GATHER_MOST:
            return self._write(graph, kind, rows, by)
        waiting = _Waiting(rows)
        name = (graph.name, id(kind), by)
        with self._lock:
            group = self._groups.setdefault(name, _Group())
            group.pending.append(waiting)
            leads = not group.writing
            group.writing = True
        if not leads:
            waiting.woken.wait()
            leads = waiting.receipts is None and waiting.error is None  # woken to write the next batch
        if leads:
            self._write_pending(name, group, graph, kind, by)
        if waiting.error is not None:
            raise waiting.error
        return waiting.receipts  # type: ignore[return-value]

    def _write_pending(self, name: tuple, group: _Group, graph, kind, by: str) -> None:
        """Writes every call waiting in the group as one call, then wakes the first that came since (it
        writes the next batch) or marks the group idle."""
        with self._lock:
            batch, group.pending = group.pending, []
        try:
            receipts = self._write(graph, kind, [row for one in batch for row in one.rows], by)
        except BaseException as error:  # noqa: BLE001 - given to every call of the batch, raised there
            for one in batch:
                one.error = error
        else:
            start = 0
            for one in batch:
                one.receipts = receipts[start : start + len(one.rows)]
                start += len(one.rows)
        with self._lock:
            if group.pending:
                group.pending[0].woken.set()  # it writes what gathered meanwhile
            else:
                group.writing = False
                if self._groups.get(name) is group:
                    del self._groups[name]
        for one in batch:
            one.woken.set()
