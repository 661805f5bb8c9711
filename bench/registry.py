"""The workloads of the benchmark: each one function, registered with what it needs and its target.

A workload takes the Context and returns Measured(count, seconds, checked): how many rows or calls it
timed, the seconds they took, and how many of their receipts or answers it checked. It raises
BenchError when the work was not what it claims: a figure of wrong work is worthless.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

from fleet import Fleet


class BenchError(RuntimeError):
    """A workload did other work than it claims (a receipt or an answer was wrong)."""


class Measured(NamedTuple):
    count: int
    seconds: float
    checked: int


@dataclass
class Context:
    """What every workload reads: the server, the graphs, the fleet of entities, the counts to use."""

    client: object
    graph: object  # the lighthouse graph of this run
    floor_graph: object  # raw Cypher floors, on the same server
    fleet: Fleet
    rng: random.Random
    calls: int  # calls of each read workload
    late: int  # late rows
    batch: int = 500  # rows per call of remember() and per UNWIND of the floor
    shared: dict = field(default_factory=dict)  # what one workload leaves for a later one
    extra_graphs: list = field(default_factory=list)  # graphs a workload made: deleted after the run
    wrap: Callable = lambda graph: graph  # how run.py watches a graph (--breakdown times its queries)
    connect: Callable | None = None  # a new client of the same server: one per thread that writes

    def graph_of(self, client, name: str):
        """The named graph through another client (another connection), watched as the others are."""
        return self.wrap(client.select_graph(name))

    def new_graph(self, suffix: str):
        """A fresh graph on the same server for one workload, deleted with the others after the run."""
        made = self.client.select_graph(f"{self.floor_graph.name}_{suffix}")
        self.extra_graphs.append(made)
        return self.wrap(made)


@dataclass(frozen=True)
class Workload:
    name: str
    run: Callable[[Context], Measured]
    unit: str  # "rows" or "calls"
    needs: tuple[str, ...] = ()  # workloads that must have run before, in this run
    floor: str | None = None  # the floor workload its rate is compared with
    target: float | None = None  # the least share of the floor's rate that passes (None: shown only)
    about: str = ""  # one line for the README and --list


WORKLOADS: dict[str, Workload] = {}


def workload(
    name: str,
    unit: str,
    *,
    needs: tuple[str, ...] = (),
    floor: str | None = None,
    target: float | None = None,
    about: str = "",
):
    """Registers a workload; workloads run in the order they are registered."""
    if unit not in ("rows", "calls"):
        raise ValueError(f"unit is rows or calls, not {unit!r}")
    if target is not None and floor is None:
        raise ValueError("a target needs a floor")

    def register(run: Callable[[Context], Measured]) -> Callable[[Context], Measured]:
        if name in WORKLOADS:
            raise ValueError(f"two workloads named {name!r}")
        for needed in (*needs, *([floor] if floor else [])):
            if needed not in WORKLOADS:
                raise ValueError(f"{name} needs {needed}, which is not registered before it")
        WORKLOADS[name] = Workload(name, run, unit, needs, floor, target, about or (run.__doc__ or ""))
        return run

    return register


def selection(only: list[str] | None) -> list[Workload]:
    """The workloads to run, in registration order: those named, what they need, and their floors."""
    if not only:
        return list(WORKLOADS.values())
    unknown = [name for name in only if name not in WORKLOADS]
    if unknown:
        raise BenchError(f"no workload named {', '.join(unknown)}; there are {', '.join(WORKLOADS)}")
    wanted: set[str] = set()
    pending = list(only)
    while pending:
        name = pending.pop()
        if name in wanted:
            continue
        wanted.add(name)
        chosen = WORKLOADS[name]
        pending += [*chosen.needs, *([chosen.floor] if chosen.floor else [])]
    return [chosen for name, chosen in WORKLOADS.items() if name in wanted]


def timed_calls(call: Callable, asked: Iterable) -> tuple[list, float]:
    """call(one) for each of asked, in order: the answers, and the seconds the calls took together."""
    answers = []
    began = time.perf_counter()
    for one in asked:
        answers.append(call(one))
    return answers, time.perf_counter() - began


def expect(condition: bool, message: str) -> None:
    """Fails the run loudly when a workload's work was not what it claims."""
    if not condition:
        raise BenchError(message)
