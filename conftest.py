"""Fixtures both packages' tests use: one FalkorDB for each process that runs tests, one throwaway graph per
test.

Each xdist worker starts its own server (the controller, running none, starts none), unless FALKORDB_HOST
or FALKORDB_PORT name a running one: a server that crashes then takes one worker's tests with it, not all,
and the tests of two workers never meet in one server (a crash of the shared server came in CI while one
worker changed schemas and the other wrote). The first test to fail after its server exited carries the
server's crash report.
"""

from __future__ import annotations

import contextlib
import os
import uuid

import pytest
from falkordb import FalkorDB
from lighthouse.graphs import schema_turn

_started = None  # the server this process started
_reported = False


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


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    global _reported
    report = yield
    if report.failed and not _reported and _started is not None and not _started.running:
        _reported = True
        report.sections.append(("FalkorDB exited during the tests", _started.exit_report()))
    return report


@pytest.fixture(scope="session")
def db() -> FalkorDB:
    return FalkorDB(
        host=os.environ.get("FALKORDB_HOST", "127.0.0.1"), port=int(os.environ.get("FALKORDB_PORT", "26379"))
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
