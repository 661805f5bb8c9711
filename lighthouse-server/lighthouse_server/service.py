"""The service: who a key is, and one operation of the table run for it.

HTTP and MCP both come here, so a scope, a rate limit, an idempotency key or an audit record is
checked and kept the same way whichever way the call came in. The tenant's graph comes only from
lighthouse.tenant() with the key's tenant; no argument can name another.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import os
import signal
import threading
import time

from lighthouse import Once, remember, tenant, tenant_graph_name

from . import audit, keys, topology
from .answers import Answers, checked, fingerprint, settled
from .encoding import jsonable
from .operations import TABLE, Call, converted, paged
from .operations.table import unknown_name
from .parts import Parts
from .problems import InvalidArgument, Problem, problem_of
from .quotas import PerMinute

_log = logging.getLogger(__name__)
AUDIT_ATTEMPTS = 3
LAGGING = frozenset({"search", "search_history", "search_entries", "recall", "search_notes"})
READ_OWN_WRITES_S = 5.0  # after a write, the same key's reads stay on the master this long  # writes of an audit record before the caller is told it was not kept


def _armed(path: str, name: str) -> bool:
    try:
        with open(path) as armed:
            if armed.read().strip() != name:
                return False
        os.unlink(path)
    except OSError:
        return False
    return True


class Service:
    """Who a key is, and one operation of the table run for it, over the process's parts."""

    def __init__(self, parts: Parts) -> None:
        """Over the process's parts, built once at its start (parts.py) and handed as well to what else
        uses them (the console, the MCP server, the workers' loop): the service keeps its own to itself."""
        self._parts = parts
        self._db = parts.db
        self._settings = parts.settings
        self._heavy = PerMinute(parts.db, parts.settings.heavy_per_minute)
        self._answers = Answers()
        # A fault point for the tests alone: LIGHTHOUSE_FAULT_AFTER_WRITE names a file; a call with an
        # idempotency key of the operation that file names kills the process after its write, before its
        # answer is kept (the file is removed first, so the retry goes through).
        self._fault_after_write = os.environ.get("LIGHTHOUSE_FAULT_AFTER_WRITE")
        self._wrote: dict[str, float] = {}  # key id -> when its last write began, in this process
        self._replication = threading.local()  # what the last write of each thread's call waited for

    def principal(self, secret: object, *, tenant_named: str | None = None) -> keys.Principal:
        """The key's principal; Problem unauthorized for no key or a revoked or unknown one, forbidden
        when the request names a tenant that is not the key's."""
        if not secret:
            raise Problem("unauthorized", "an API key is needed: send it as Authorization: Bearer <key>")
        try:
            found = keys.principal(self._db, secret)
        except Exception as error:  # noqa: BLE001 - the database's state, said in the one shape
            raise problem_of(error) from None
        if found is None:
            raise Problem("unauthorized", "this API key is not known or was revoked")
        if tenant_named is not None and tenant_named != found.tenant:
            raise Problem("forbidden", "this API key belongs to another tenant")
        return found

    def still(self, principal: keys.Principal) -> keys.Principal:
        """The principal again, as its key is now; Problem unauthorized once the key is revoked."""
        try:
            found = keys.current(self._db, principal.key_id)
        except Exception as error:  # noqa: BLE001 - the database's state, said in the one shape
            raise problem_of(error) from None
        if found is None:
            raise Problem("unauthorized", "this API key is not known or was revoked")
        return found

    def health(self) -> dict:
        """status and database "ok", or "degraded" and why; the topology (single or cluster) and, on a
        cluster, each shard's slots, nodes and state (topology.py)."""
        return topology.health(self._db)

    def run(
        self, principal: keys.Principal, name: str, arguments: object, idempotency_key: object = None
    ) -> object:
        """The operation's result as JSON values; Problem for every refusal of the service's own.

        With wait_replicas, a write is answered once that many replicas hold it, or wait_ms passed:
        replicated() then says how many did (the HTTP answer's Lighthouse-Replicated header)."""
        self._replication.said = None
        answer = self._answered(principal, name, arguments, idempotency_key)
        wanted = self._settings.wait_replicas
        if wanted and name in TABLE and TABLE[name].writes:
            try:
                acked = topology.replicated(
                    self._db, tenant_graph_name(principal.tenant), wanted, self._settings.wait_ms
                )
            except Exception as error:  # noqa: BLE001 - the write is on its master, its replicas unknown
                raise problem_of(error) from None
            self._replication.said = (acked, wanted)
        return answer

    def reading(self, principal: keys.Principal, *, lagging: bool):
        """The key's tenant graph for a read: on an online replica of its shard when read_replicas =
        "lagging", the read may lag (the heavy questions, search, recall, the console's pages) and the key
        wrote nothing in READ_OWN_WRITES_S (a caller reads its own writes on the master); else on the
        master."""
        graph = tenant(self._db, principal.tenant)
        if not lagging or self._settings.read_replicas != "lagging":
            return graph
        wrote = self._wrote.get(principal.key_id)
        if wrote is not None and time.monotonic() - wrote <= READ_OWN_WRITES_S:
            return graph
        return topology.on_replica(self._db, graph.name) or graph

    def replicated(self) -> tuple[int, int] | None:
        """(replicas that hold it, replicas waited for) of this thread's last write; None when none was
        waited for (wait_replicas 0, or a read)."""
        return getattr(self._replication, "said", None)

    def _answered(
        self, principal: keys.Principal, name: str, arguments: object, idempotency_key: object
    ) -> object:
        operation = TABLE.get(name)
        if operation is None:
            raise Problem("not_found", unknown_name("operation", name, TABLE))
        if operation.scope not in principal.scopes:
            raise Problem(
                "forbidden", f"{name} needs the {operation.scope!r} scope, which this key does not have"
            )
        if idempotency_key is not None and not operation.writes:
            raise Problem("invalid_argument", f"{name} only reads: an idempotency key is for writes")
        if operation.writes:
            self._wrote[principal.key_id] = time.monotonic()
        graph = self.reading(
            principal, lagging=not operation.writes and (operation.name in LAGGING or operation.heavy)
        )
        call = Call(self._parts, principal, graph)
        try:
            library, page = converted(operation, call, arguments if arguments is not None else {})
            call = dataclasses.replace(call, page=page)
            if operation.heavy:  # after the arguments' check, and given back when the library refuses them
                mark = self._heavy.take(principal.key_id, name, principal.tenant)
                try:
                    return self._run(operation, call, library, page, arguments)
                except Exception as error:
                    if isinstance(problem_of(error), InvalidArgument):
                        self._heavy.give_back(principal.key_id, mark, principal.tenant)
                    raise
            if idempotency_key is None:
                return self._run(operation, call, library, page, arguments)
            ident = self._answers.ident(principal.key_id, checked(idempotency_key))
            print_ = fingerprint(name, arguments or {})
            with self._answers.held(graph, ident):
                seen, answer = self._answers.found(graph, ident, name, print_)
                if seen:
                    with contextlib.suppress(Exception):  # replies a crash after the answer left behind
                        self._answers.settle(graph, ident, print_)
                    return answer
                # Every query of the call goes through once(): its writes keep their replies in the same
                # query, so a retry after a crash anywhere in it replays them and gives the first answer.
                call = dataclasses.replace(call, graph=self._answers.once(graph, ident, print_))
                answer = self._run(operation, call, library, page, arguments)
                if self._fault_after_write and _armed(self._fault_after_write, name):
                    os.kill(os.getpid(), signal.SIGKILL)  # the tests' crash between the write and its answer
                try:
                    if settled(answer):
                        self._answers.keep(graph, ident, name, print_, answer)
                    if call.graph.keeps:  # kept, or a failed or busy one: the retry writes
                        self._answers.settle(graph, ident, print_)
                except Exception:  # noqa: BLE001 - the write is done: its answer is given all the same
                    _log.exception("%s: the answer for its idempotency key could not be kept", name)
                return answer
        except Problem:
            raise
        except Exception as error:  # noqa: BLE001 - every other error is said in the one shape
            problem = problem_of(error)
            if problem.unexpected:
                _log.exception("%s failed", name)
            raise problem from None

    def _run(self, operation, call: Call, library: dict, page, arguments) -> object:
        # Every call of the tenant but the administrative ones (a declaration takes the gate itself) waits
        # while its schema changes: FalkorDB 4.22.1 crashed when a query, read or write, used a label's
        # index while a new index of that label was being built.
        if operation.scope != "admin":
            self._parts.kinds.keep_layout(call.principal.tenant)  # before the gate: it may take it to change
        gate = (
            self._parts.kinds.gate(call.principal.tenant).using()
            if operation.scope != "admin"
            else contextlib.nullcontext()
        )
        with gate:
            if operation.answer is not None:
                result = operation.answer(call, library)
            elif operation.function is remember:
                # Each receipt names what its full-picture row ended (endings=True: the write tells it).
                # Small writes arriving together go in one library call (gathering.py). A call with an
                # idempotency key goes alone, on its once() graph, so a retry replays exactly its write.
                if isinstance(call.graph, Once):
                    result = remember(graph=call.graph, **library, endings=True)
                else:
                    result = self._parts.gathering.remember(call.graph, **library)
            else:
                result = operation.function(graph=call.graph, **library)
        if page is not None and not operation.pages_itself:
            result = paged(result, page)
        result = jsonable(result)
        if operation.audited is not None:
            self._audited(operation, call, arguments, result)
        return result

    def _audited(self, operation, call: Call, arguments, result) -> None:
        """The audit record of an administrative action that was done, tried AUDIT_ATTEMPTS times; past
        them the caller is told that the action was done and its record could not be kept."""
        for attempt in range(AUDIT_ATTEMPTS):
            try:
                audit.write(
                    self._db,
                    tenant=call.principal.tenant,
                    action=operation.audited,
                    who=call.principal.agent,
                    key_id=call.principal.key_id,
                    what={"operation": operation.name, "arguments": arguments, "answer": result},
                    # a call made again with its idempotency key after a crash past its record: not twice
                    once_for=call.graph.request if isinstance(call.graph, Once) else None,
                )
                return
            except Exception as error:  # noqa: BLE001 - said below, once the attempts are spent
                failure = error
                time.sleep(0.1 * 2**attempt)
        _log.error("%s was done; its audit record could not be kept: %s", operation.name, failure)
        raise Problem(
            "database_error",
            f"{operation.name} was done (its answer: {json.dumps(result)[:300]}), but its audit record "
            f"could not be kept: {str(failure)[:200]}",
        )
