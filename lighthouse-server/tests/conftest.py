"""The fixture of the service tests: one real `lighthouse serve` per test session (and xdist worker)."""

from __future__ import annotations

import pytest
from cluster_fixture import any_db, cluster_db, falkordb_cluster  # noqa: F401 - for the tests that ask
from console_browser import launched_browser
from fake_model import FakeModel
from service_process import Lighthouse


@pytest.fixture(scope="session")
def lighthouse(tmp_path_factory):
    """One serve for the session (per xdist worker): heavy calls limited to 5 a minute per key, the
    read-only query tool to 2 seconds, a request body to 5 seconds, with the bundled embedder."""
    running = Lighthouse(
        tmp_path_factory.mktemp("serve") / "data",
        heavy_per_minute="5",
        query_timeout_ms="2000",
        body_timeout_s="5",
        embedder="local",
    ).start()
    yield running
    running.stop()


@pytest.fixture
def serves():
    """Servers a test starts itself: any still running when it ends (a failed test) is stopped."""
    started: list[Lighthouse] = []
    yield started
    for running in started:
        if running.process is not None and running.process.poll() is None:
            running.stop()


@pytest.fixture
def fake():
    """The tests' stand-in chat model (fake_model.py) on a loopback port, answering its default; a test
    module that needs other answers, or a fake embeddings endpoint, defines its own `fake`."""
    running = FakeModel()
    yield running
    running.close()


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium, one for a module: each console browser test opens a context of its own. Not one
    for the session: Playwright's sync API holds an asyncio loop in the thread while it runs, and the MCP
    tests after it run loops of their own there."""
    yield from launched_browser()
