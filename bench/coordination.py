"""Tasks with lighthouse: 500 add_task(), then 4 workers claiming and completing until none is free, then
claim() and release() of 200 more.

Each worker is a thread with its own FalkorDB connection, as separate agents would be. The figure of
claim_complete counts two calls per task (a claim and a complete) over the wall time from the first
claim to the last worker's end, which includes each worker's last claim that found nothing. The tasks
live in a graph of their own, so the claims read only these.
"""

from __future__ import annotations

import threading
import time

from lighthouse import add_task, claim, complete, ensure_schema, release, tasks
from registry import Context, Measured, expect, timed_calls, workload

TASKS = 500
WORKERS = 4
TASK_KIND = "bench-job"


def _task_id(number: int) -> str:
    return f"job-{number:05d}"


@workload(
    "add_task",
    "calls",
    floor="indexed_match",
    target=0.60,
    about="add_task() of 500 open tasks of one kind, in a graph of their own",
)
def add_task_calls(ctx: Context) -> Measured:
    """500 add_task() calls: each True, and the graph holds 500 open tasks in order."""
    graph = ctx.new_graph("tasks")
    ensure_schema(graph, [])
    ctx.shared["task_graph"] = graph
    receipts, seconds = timed_calls(
        lambda number: add_task(graph, _task_id(number), TASK_KIND, number),
        range(TASKS),
    )
    for number, receipt in enumerate(receipts):
        expect(receipt is True, f"add_task({_task_id(number)}) gave {receipt}, not True")
    listed = tasks(graph, kind=TASK_KIND, limit=1_000)
    expect(
        [one["id"] for one in listed] == [_task_id(number) for number in range(TASKS)],
        f"add_task: tasks() lists {len(listed)} tasks, not the {TASKS} added in order",
    )
    expect(
        all(one["state"] == "open" and one["ref"] == number for number, one in enumerate(listed)),
        "add_task: a task is not open, or not about its number, after it was added",
    )
    return Measured(TASKS, seconds, len(receipts))


class _Worker(threading.Thread):
    """One agent on its own connection: claims the oldest free task and completes it, until none is free."""

    def __init__(self, ctx: Context, graph_name: str, number: int, start: threading.Barrier) -> None:
        super().__init__(name=f"bench-worker-{number}", daemon=True)
        self.client = ctx.connect()
        self.graph = ctx.graph_of(self.client, graph_name)
        self.agent = f"bench-worker-{number}"
        self.start_line = start
        self.claimed: list[dict] = []
        self.completed: list[dict] = []
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.start_line.wait()
            while True:
                taken = claim(self.graph, self.agent, TASK_KIND, 600)
                if taken is None:
                    return
                self.claimed.append(taken)
                self.completed.append(complete(self.graph, self.agent, taken["id"]))
        except BaseException as error:  # reported by the workload after join
            self.error = error

    def close(self) -> None:
        self.client.connection.close()


@workload(
    "claim_complete",
    "calls",
    needs=("add_task",),
    floor="indexed_match",
    target=0.60,
    about="4 threads, each its own connection, claim() and complete() until no task is free (2 calls a task)",
)
def claim_complete(ctx: Context) -> Measured:
    """Every task claimed once and done by the worker that claimed it; none claimed twice."""
    expect(ctx.connect is not None, "claim_complete needs ctx.connect: a new connection per worker")
    graph = ctx.shared["task_graph"]
    start = threading.Barrier(WORKERS + 1)
    workers = [_Worker(ctx, graph.name, number, start) for number in range(WORKERS)]
    try:
        for worker in workers:
            worker.start()
        start.wait()
        began = time.perf_counter()
        for worker in workers:
            worker.join()
        seconds = time.perf_counter() - began
    finally:
        for worker in workers:
            worker.join(timeout=60)
            worker.close()
    for worker in workers:
        expect(worker.error is None, f"{worker.agent} stopped on {worker.error!r}")
    return Measured(2 * TASKS, seconds, _checked(graph, workers))


def _checked(graph, workers: list[_Worker]) -> int:
    """Checks every claim and complete receipt and the tasks as stored; the number of calls checked."""
    checked = 0
    owner: dict[str, str] = {}
    for worker in workers:
        expect(
            len(worker.claimed) == len(worker.completed),
            f"{worker.agent}: {len(worker.claimed)} claims, {len(worker.completed)} completes: "
            f"last claim {worker.claimed[-1:]}",
        )
        for taken, done in zip(worker.claimed, worker.completed, strict=True):
            expect(set(taken) == {"id", "kind", "ref", "until"}, f"{worker.agent}: claim() gave {taken}")
            expect(
                taken["id"] not in owner,
                f"{taken['id']} claimed by {owner.get(taken['id'])} and {worker.agent}",
            )
            owner[taken["id"]] = worker.agent
            expect(done is True, f"complete({taken['id']}) gave {done}")
            checked += 2
    expect(len(owner) == TASKS, f"claim_complete: {len(owner)} tasks claimed, not {TASKS}")
    listed = tasks(graph, kind=TASK_KIND, limit=1_000)
    expect(len(listed) == TASKS, f"claim_complete: tasks() lists {len(listed)} tasks, not {TASKS}")
    for one in listed:
        where = f"task {one['id']}"
        expect(one["state"] == "done", f"{where} is {one['state']}, not done")
        expect(len(one["claims"]) == 1, f"{where} was claimed {len(one['claims'])} times")
        expect(one["owner"] == owner.get(one["id"]), f"{where} is owned by {one['owner']}")
        expect(one["claims"][0]["agent"] == one["owner"], f"{where}: its claim is by {one['claims']}")
    return checked


RELEASED = 200


@workload(
    "claim_release",
    "calls",
    needs=("claim_complete",),
    floor="indexed_match",
    target=0.60,
    about="claim() then release() of 200 new tasks by one agent (2 calls a task)",
)
def claim_release(ctx: Context) -> Measured:
    """200 tasks claimed and given back: each claim the oldest open task, each release True, all open after."""
    graph = ctx.shared["task_graph"]
    for number in range(RELEASED):
        add_task(graph, f"again-{number:05d}", "bench-again")
    answers, seconds = timed_calls(
        lambda _number: (lambda taken: (taken, release(graph, "bench-releaser", taken["id"])))(
            claim(graph, "bench-releaser", "bench-again", 600)
        ),
        range(RELEASED),
    )
    for number, (taken, released) in enumerate(answers):
        expect(
            taken["id"] == "again-00000" and released is True, f"claim/release {number}: {taken}, {released}"
        )
    listed = tasks(graph, kind="bench-again", limit=1_000)
    expect(
        all(one["state"] == "open" and "owner" not in one for one in listed), "claim_release: a task is held"
    )
    expect(
        len(listed[0]["claims"]) == RELEASED, f"claim_release: {len(listed[0]['claims'])} claims of the first"
    )
    return Measured(2 * RELEASED, seconds, 2 * len(answers))
