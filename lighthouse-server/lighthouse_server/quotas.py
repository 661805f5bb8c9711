"""Calls per key and minute for the heavy operations: a sliding window kept on the database server.

The window of each key is a sorted set of its calls' times under `lighthouse:heavy:<key id>:{tenant:<id>}`
(the hash tag of its tenant's graph: on a cluster, on that graph's shard), trimmed,
counted and added to by one script that the server runs whole, so every process serving the same
database counts the same calls and two of them cannot both take the last one. Times are the callers'
wall clocks (one machine, or machines in step).
"""

from __future__ import annotations

import math
import time
import uuid

from lighthouse import tenant_graph_name

from .problems import Problem
from .topology import tagged

WINDOW = 60.0
PREFIX = "lighthouse:heavy:"

# KEYS[1] the key's window; ARGV: now (seconds), window, most, a unique member. {1} when the call is
# taken, {0, oldest} when the window is full.
_TAKE = """
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {0, oldest[2]}
end
redis.call('ZADD', KEYS[1], now, ARGV[4])
redis.call('PEXPIRE', KEYS[1], math.ceil(window * 1000))
return {1}
"""


class PerMinute:
    def __init__(self, db, most: int) -> None:
        self.db = db
        self.most = most

    def window(self, key_id: str, tenant_id: str) -> str:
        return tagged(tenant_graph_name(tenant_id), PREFIX + key_id)

    def take(self, key_id: str, what: str, tenant_id: str) -> str:
        """Counts one call of the key (its mark in the window, for give_back()), or raises Problem
        rate_limited with the seconds to wait."""
        moment = time.time()
        mark = uuid.uuid4().hex
        answer = self.db.connection.eval(
            _TAKE, 1, self.window(key_id, tenant_id), repr(moment), repr(WINDOW), str(self.most), mark
        )
        if int(answer[0]) == 1:
            return mark
        oldest = float(answer[1])
        wait = max(1, math.ceil(WINDOW - (moment - oldest)))
        raise Problem(
            "rate_limited",
            f"{what} is heavy: {self.most} calls per key and minute; try again in {wait} s",
            retry_after=wait,
        )

    def give_back(self, key_id: str, mark: str, tenant_id: str) -> None:
        """Uncounts a call that was refused for its arguments: a malformed call costs none of the budget."""
        self.db.connection.zrem(self.window(key_id, tenant_id), mark)
