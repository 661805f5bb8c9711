"""Fixtures both packages' tests use: one FalkorDB for the session, one throwaway graph per test.

The server starts once in the pytest controller (before xdist starts its workers, which inherit
FALKORDB_HOST and FALKORDB_PORT), unless those already name a running server.
"""

from __future__ import annotations

import contextlib
import os
import uuid

import pytest
from falkordb import FalkorDB
from lighthouse.graphs import schema_turn

_started = None


def pytest_configure(config: pytest.Config) -> None:
    global _started
    if hasattr(config, "workerinput") or os.environ.get("FALKORDB_HOST") or os.environ.get("FALKORDB_PORT"):
        return
    from lighthouse_server.embedded import start

    _started = start()
    os.environ["FALKORDB_HOST"] = _started.host
    os.environ["FALKORDB_PORT"] = str(_started.port)


def pytest_unconfigure(config: pytest.Config) -> None:
    if _started is not None:
        _started.stop()


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
    from lighthouse.graphs import _build_alone

    def change(graph, *statements: str, unique=()) -> None:
        _build_alone(graph, list(statements), list(unique), 10.0)

    return change
