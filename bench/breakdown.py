"""Where a workload's time goes: each query the library sent, its time in FalkorDB and its round trip.

TimedGraph is the same graph and times every query it sends (its execute_command()); what the workload took
beyond the round trips is time in Python (the library's decisions, the client's encoding and parsing).
A query's label is made when the tallies are reported, not while the workload is timed: cutting the
parameters off a query of 1,000,000 characters is itself time that would be counted as the library's.
The workloads' own checks read through `unwatched()`, so their queries are not counted either.
"""

from __future__ import annotations

import re
import threading
import time
from collections import defaultdict
from dataclasses import dataclass

from falkordb import Graph


@dataclass
class Tally:
    calls: int = 0
    server_ms: float = 0.0  # FalkorDB's own execution time, as it reports it
    trip_ms: float = 0.0  # the call as the client saw it: encoding, network, execution, parsing


# The parameters a query carries in its text ("CYPHER name=value ..."): strings as whole tokens, and no
# space outside them, as the library and the client write them (the client's names in backticks).
_HEADER = re.compile(r'\ACYPHER (?:`?[A-Za-z_][A-Za-z0-9_]*`?=(?:"(?:[^"\\]|\\.)*"|[^"\s])+ )+')


def label(query: str) -> str:
    """A short name for a query: its first words, variables and all (without the parameters it carries)."""
    return re.sub(r"\s+", " ", _HEADER.sub("", query, count=1)).strip()[:90]


class Tallies:
    """The queries of all timed graphs since the last report."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, float, float]] = []  # (query, trip ms, server ms), labelled at report
        self.lock = threading.Lock()  # workers of one workload (coordination.py) count at once

    def _by_query(self) -> dict[str, Tally]:
        found: dict[str, Tally] = defaultdict(Tally)
        for query, trip_ms, server_ms in self.calls:
            tally = found[label(query)]
            tally.calls += 1
            tally.trip_ms += trip_ms
            tally.server_ms += server_ms
        return found

    def report(self, seconds: float) -> str:
        """The tallies since the last report, then cleared; seconds: what the workload's timed part took."""
        lines = [f"    {'calls':>6} {'server s':>9} {'trip s':>8}  query"]
        by_query = self._by_query()
        trips = sum(tally.trip_ms for tally in by_query.values()) / 1000
        small = Tally()
        for name, tally in sorted(by_query.items(), key=lambda item: -item[1].trip_ms):
            if tally.trip_ms < 5:  # set-up and checks: shown together
                small.calls, small.server_ms = small.calls + tally.calls, small.server_ms + tally.server_ms
                small.trip_ms += tally.trip_ms
                continue
            lines.append(
                f"    {tally.calls:>6} {tally.server_ms / 1000:>9.2f} {tally.trip_ms / 1000:>8.2f}  {name}"
            )
        if small.calls:
            lines.append(
                f"    {small.calls:>6} {small.server_ms / 1000:>9.2f} {small.trip_ms / 1000:>8.2f}  (other queries)"
            )
        lines.append(f"    timed seconds minus all round trips (time in Python): {seconds - trips:.2f} s")
        self.calls.clear()
        return "\n".join(lines)


_SERVER_TIME = re.compile(r"internal execution time: ([0-9.]+) milliseconds")
_QUERY_COMMANDS = frozenset({"GRAPH.QUERY", "GRAPH.RO_QUERY"})


class TimedGraph(Graph):
    """The same graph as the client's own Graph, whose queries are counted in tallies: every query goes
    through execute_command(), timed here, whether the client's query() sends it or the library's faster
    reads (lighthouse.wire) do, so both take the path they take on an unwatched graph."""

    def __init__(self, graph: Graph, tallies: Tallies) -> None:
        super().__init__(graph.client, graph.name)
        self._graph = graph
        self._tallies = tallies
        self.execute_command = self._timed

    def _timed(self, *command):
        if command[0] not in _QUERY_COMMANDS:
            return self._graph.execute_command(*command)
        began = time.perf_counter()
        response = self._graph.execute_command(*command)
        trip_ms = (time.perf_counter() - began) * 1000
        stats = response[-1] if isinstance(response, list) and response else []
        found = next(
            (
                _SERVER_TIME.search(line)
                for line in stats
                if isinstance(line, str) and "execution time" in line
            ),
            None,
        )
        with self._tallies.lock:
            self._tallies.calls.append((command[2], trip_ms, float(found.group(1)) if found else 0.0))
        return response

    def unwatched(self):
        """The graph itself: what a workload checks its work with, outside the tallies."""
        return self._graph


def unwatched(graph):
    """The graph a workload's checks read: the watched graph's own under --breakdown, else the graph."""
    return graph.unwatched() if isinstance(graph, TimedGraph) else graph
