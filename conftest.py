"""Fixtures both packages' tests use: one FalkorDB for each process that runs tests, one throwaway graph per
test.

Each xdist worker starts its own server (the controller, running none, starts none), unless FALKORDB_HOST
or FALKORDB_PORT name a running one (with FALKORDB_PASSWORD where it requires one): the tests of two workers never meet in one server (a crash of the
shared server came in CI while one worker changed schemas and the other wrote).

A server of this process's own that exits during a test is started again on its port before the next
test. FalkorDB 4.22.1 crashed once in CI while stopping a query past its time (SIGSEGV in
ExecutionPlan_Drain beside Cron_AbortTask; not reproduced in 843 timed-out queries): a test that failed
while its server crashed runs once more on the restarted server, and the run warns of it with the crash
report. A test that crashes it again fails, with the crash report in its report.
"""

from __future__ import annotations

import contextlib
import os
import uuid

import pytest
from _pytest.runner import runtestprotocol
from falkordb import FalkorDB
from lighthouse.graphs import schema_turn

_started = None  # the server this process started


def pytest_configure(config: pytest.Config) -> None:
    global _started
    if os.environ.get("FALKORDB_HOST") or os.environ.get("FALKORDB_PORT"):
        return
    if not hasattr(config, "workerinput") and config.getoption("numprocesses", None):
        return  # the controller of xdist workers runs no test
    from lighthouse_server.embedded import start

    _started = start()
    # the service's processes that the tests start find it here too
    os.environ["FALKORDB_HOST"] = _started.host
    os.environ["FALKORDB_PORT"] = str(_started.port)


def pytest_unconfigure(config: pytest.Config) -> None:
    if _started is not None:
        _started.stop()


def _restarted_after_crash() -> str | None:
    """The exit report of this process's server if it exited, once it runs again on its port; else None."""
    global _started
    if _started is None or _started.running:
        return None
    from lighthouse_server.embedded import start

    report = _started.exit_report()
    _started.abandon()
    _started = start(port=_started.port)
    return report


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> bool | None:
    if _started is None:
        return None  # pytest's own protocol: a server this process did not start is not restarted
    item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
    reports = runtestprotocol(item, nextitem=nextitem, log=False)
    crash = _restarted_after_crash()
    if crash is not None and any(report.failed for report in reports):
        with contextlib.suppress(Exception):  # fixtures that held the crashed server start anew
            item.session._setupstate.teardown_exact(None)
        item.warn(
            pytest.PytestWarning(f"FalkorDB exited during this test; it ran again on a restart:\n{crash}")
        )
        reports = runtestprotocol(item, nextitem=nextitem, log=False)
        crash = _restarted_after_crash()
    for report in reports:
        if crash is not None and report.failed:
            report.sections.append(("FalkorDB exited during the tests", crash))
        item.ihook.pytest_runtest_logreport(report=report)
    item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
    return True


@pytest.fixture(scope="session")
def db() -> FalkorDB:
    return FalkorDB(
        host=os.environ.get("FALKORDB_HOST", "127.0.0.1"),
        port=int(os.environ.get("FALKORDB_PORT", "26379")),
        password=os.environ.get("FALKORDB_PASSWORD") or None,  # a server named with one; ours has none
    )


@pytest.fixture
def graph(db: FalkorDB):
    """A graph of this test's own, deleted after it."""
    name = f"test_{uuid.uuid4().hex[:12]}"
    chosen = db.select_graph(name)
    yield chosen
    # a test that never wrote leaves no graph to delete; a deletion drops indexes: in the schema turn
    with contextlib.suppress(Exception), schema_turn(chosen, 10.0):
        chosen.delete()


@pytest.fixture
def changed_schema():
    """A schema change a test makes by hand, in the server's schema turn as ensure_schema() takes it: the
    tests share one FalkorDB, and 4.22.1 crashed when two clients changed schemas at once. Statements run
    in order (one that finds its index made, or gone, already is passed over), then the unique
    constraints on (label, property) pairs, and all are waited for."""
    from lighthouse.graphs import build_in_schema_turn

    def change(graph, *statements: str, unique=()) -> None:
        build_in_schema_turn(graph, list(statements), list(unique), 10.0)

    return change
