"""One command to FalkorDB and its reply, on a connection the calling thread keeps from the client's pool.

The client's execute_command() takes a connection from the pool and gives it back for every command:
the pool's lock, a poll() of the socket to see that nothing is left unread (kept here), counters for its metrics,
and a retry wrapper made for each call. On a read of one node that is some 70 µs of the 150 µs of CPU a
call costs the client (measured with time.thread_time() on the 2-core machine). Here a thread takes one
connection from the pool once and sends on it while it lives; the connection goes back to the pool when
the thread ends, or when the thread turns to other pools (a thread keeps at most a few).

What the pool's checks guard against is kept: a connection is never left with a reply unread (any
failure but an error reply disconnects it, and the next command connects again), a forked process never
uses its parent's, and a connection the pool marked to reconnect is reconnected. A connection error or
timeout is retried by the connection's own retry policy, as the client's execute_command() retries it, so
a command (a write among them) is never sent more often than through the client. Anything but a plain redis.Redis on a
plain ConnectionPool (a cluster, a single-connection client, client-side caching, RESP3) goes the
client's way every time.
"""

from __future__ import annotations

import contextlib
import os
import threading

from redis.exceptions import ConnectionError as LostConnection
from redis.exceptions import ResponseError

KEPT_POOLS = 4  # pools one thread keeps a connection of: a graph and a replica or two


def _is_class(found: object, module: str, name: str) -> bool:
    """Exactly the client's class of that name, not a subclass (the library imports only redis.exceptions)."""
    sort = type(found)
    return sort.__module__ == module and sort.__qualname__ == name


class _Kept:
    """A connection of one pool, taken by one thread: back to the pool when the thread ends."""

    __slots__ = ("connection", "pid", "pool")

    def __init__(self, pool) -> None:
        self.pool = pool
        self.pid = os.getpid()
        self.connection = pool.get_connection()

    def give_back(self) -> None:
        connection, self.connection = self.connection, None
        if connection is not None and self.pid == os.getpid():  # a fork's copy is not its to give
            self.pool.release(connection)

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # the pool is gone with the interpreter: nothing to give back
            self.give_back()


class _Thread(threading.local):
    def __init__(self) -> None:
        self.kept: dict[int, _Kept] = {}


_thread = _Thread()


def _plain_pool(client: object):
    """The ConnectionPool of a client whose commands this module may send itself, or None."""
    if not _is_class(client, "redis.client", "Redis") or client.connection is not None:
        return None
    pool = client.connection_pool
    if not _is_class(pool, "redis.connection", "ConnectionPool") or getattr(pool, "cache", None) is not None:
        return None
    if pool.connection_kwargs.get("protocol") not in (None, 2, "2"):
        return None
    enabled = getattr(pool, "maint_notifications_enabled", None)
    return None if enabled is not None and enabled() else pool


def _kept(pool) -> _Kept:
    kept = _thread.kept
    found = kept.get(id(pool))
    if found is not None and found.pool is pool and found.pid == os.getpid() and found.connection is not None:
        return found
    if found is not None:
        del kept[id(pool)]
    if len(kept) >= KEPT_POOLS:
        kept.pop(next(iter(kept))).give_back()
    found = kept[id(pool)] = _Kept(pool)
    return found


def sent(graph, *command: object) -> object:
    """The reply to one command on the graph's client, as graph.execute_command(*command) gives it (an
    error reply raises ResponseError); on a connection this thread keeps where the client allows it."""
    pool = _plain_pool(getattr(graph.execute_command, "__self__", None))
    if pool is None:
        return graph.execute_command(*command)
    connection = _kept(pool).connection
    try:  # the pool's check on every checkout: a kept connection the server closed (EOF) connects again
        if connection.can_read():
            connection.disconnect()
    except LostConnection:
        connection.disconnect()

    def once_sent() -> object:
        connection.send_command(*command)
        return connection.read_response()

    try:  # the connection's own retry policy, as the client's execute_command() applies it: no extra send
        reply = connection.retry.call_with_retry(once_sent, lambda _error: connection.disconnect())
    except ResponseError:  # an error reply: read whole, the connection is clean
        raise
    except BaseException:  # lost, timed out or stopped between command and reply: never read a stale reply
        connection.disconnect()
        raise
    if connection.should_reconnect():
        connection.disconnect()  # connects again on the next command, as the client's call does
    return reply
