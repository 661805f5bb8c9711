"""Calls per key and minute for the heavy operations: a sliding window, in this process."""

from __future__ import annotations

import math
import threading
import time
from collections import deque

from .problems import Problem

WINDOW = 60.0


class PerMinute:
    def __init__(self, most: int) -> None:
        self.most = most
        self._calls: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def take(self, key_id: str, what: str) -> None:
        """Counts one call of the key, or raises Problem rate_limited with the seconds to wait."""
        moment = time.monotonic()
        with self._lock:
            calls = self._calls.setdefault(key_id, deque())
            while calls and moment - calls[0] >= WINDOW:
                calls.popleft()
            if len(calls) >= self.most:
                wait = max(1, math.ceil(WINDOW - (moment - calls[0])))
                raise Problem(
                    "rate_limited",
                    f"{what} is heavy: {self.most} calls per key and minute; try again in {wait} s",
                    retry_after=wait,
                )
            calls.append(moment)
