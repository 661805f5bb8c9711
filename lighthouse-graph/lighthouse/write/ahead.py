"""Rows prepared ahead: the rows of a large call are checked and fingerprinted in a thread of their own
while the caller's thread waits on the server for the rows before them.

A thread blocked on its socket holds no GIL, so the checks of the next rows cost the caller nothing
while a query runs. The thread prepares only then (and while the caller waits for rows): prepared while
the caller decides and builds parameters, the two threads would only take turns at the GIL. Each slice
ends by giving the GIL away, so a caller whose reply came waits at most one slice for it, not the
interpreter's switch interval (5 ms).
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from datetime import datetime

from ..kinds import TRUST_SHOWN, Kind
from ..values import Refused
from .plans import content_of
from .rows import Row, prepare

TRUST_SHOWN_SET = frozenset(TRUST_SHOWN)
OVERLAPPED_FROM = 1_000  # rows of a call from which they are prepared ahead: fewer are one or two queries
SLICE = 25  # rows a slice: about half a millisecond of checks
SLICES_AHEAD = 40  # slices waiting at most: two queries' worth of rows (the thread then waits)

Prepared = tuple[int, Row | None, Refused | None]  # (index, the row, or why it is refused)

_CALLER = threading.local()  # the rows being prepared for this thread's call, if any


def prepared_row(
    kind: Kind, index: int, raw: object, present: datetime, candidate: bool, ahead: bool = False
) -> Prepared:
    """One row checked (prepare()) with its fingerprint made, or the refusal that says what is wrong.
    ahead: in the thread ahead, where the content a write takes (plans.content_of()) is made too: a row
    that turns out to repeat what is stored never needs it, but there it costs the caller nothing."""
    try:
        row = prepare(kind, index, raw, present)
        if candidate and TRUST_SHOWN_SET & set(row.values):
            raise Refused("a row a model drew may not hold a value named trust or review")
    except Refused as error:
        return index, None, error
    row.fp  # noqa: B018 - made here, ahead of the queries that send it
    if ahead:
        content_of(kind, row)
    return index, row, None


class _Ahead:
    """The thread that prepares a call's rows, in order, a slice at a time."""

    def __init__(self, kind: Kind, listed: list, present: datetime, candidate: bool) -> None:
        self.kind, self.listed, self.present, self.candidate = kind, listed, present, candidate
        self.slices: queue.Queue = queue.Queue(maxsize=SLICES_AHEAD)
        self.go = threading.Event()  # set while the caller waits: on the server, or for rows
        self.stopped = False
        self.thread = threading.Thread(target=self._prepare, name="lighthouse-rows-ahead", daemon=True)

    def _prepare(self) -> None:
        try:
            for start in range(0, len(self.listed), SLICE):
                self.go.wait()
                if self.stopped:
                    return
                end = min(start + SLICE, len(self.listed))
                self.slices.put(
                    [
                        prepared_row(self.kind, index, self.listed[index], self.present, self.candidate, True)
                        for index in range(start, end)
                    ]
                )
                time.sleep(0)  # the GIL to the caller now, if its reply came
        except BaseException as error:  # a fault of the library: raised in the caller's thread
            self.slices.put(error)

    def rows(self) -> Iterator[Prepared]:
        for _ in range(0, len(self.listed), SLICE):
            try:
                got = self.slices.get_nowait()
            except queue.Empty:
                self.go.set()
                try:
                    got = self.slices.get()
                finally:
                    self.go.clear()
            if isinstance(got, BaseException):
                raise got
            yield from got

    def stop(self) -> None:
        self.stopped = True
        self.go.set()
        while self.thread.is_alive():  # a slice put into a full queue: room for it, until it ends
            with suppress(queue.Empty):
                self.slices.get(timeout=0.01)
        self.thread.join()


@contextmanager
def prepared_ahead(
    kind: Kind, listed: list, present: datetime, candidate: bool
) -> Iterator[Iterator[Prepared]]:
    """The rows of a call prepared in order (prepared_row()): ahead, in a thread of their own, for a call
    of OVERLAPPED_FROM rows or more; else each when it is asked for. The thread ends with the block,
    whatever ends it."""
    if len(listed) < OVERLAPPED_FROM:
        yield (prepared_row(kind, index, raw, present, candidate) for index, raw in enumerate(listed))
        return
    ahead = _Ahead(kind, listed, present, candidate)
    outer = getattr(_CALLER, "ahead", None)
    _CALLER.ahead = ahead
    ahead.thread.start()
    try:
        yield ahead.rows()
    finally:
        _CALLER.ahead = outer
        ahead.stop()


@contextmanager
def server_at_work() -> Iterator[None]:
    """Around a query the caller's thread waits on: the rows of its call are prepared meanwhile."""
    ahead = getattr(_CALLER, "ahead", None)
    if ahead is None:
        yield
        return
    ahead.go.set()
    try:
        yield
    finally:
        ahead.go.clear()
