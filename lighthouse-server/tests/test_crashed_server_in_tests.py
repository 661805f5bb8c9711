"""The tests' own harness (the root conftest.py): a FalkorDB that crashes during a test is restarted, the
test runs once more and the run warns of it; a test that crashes it twice fails, with the crash report."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CRASHING = """
import os
import signal
from pathlib import Path

import conftest


def crash():
    os.kill(conftest._started.process.pid, signal.SIGSEGV)


def test_crashes_once(graph):
    graph.query("CREATE (:Thing {n: 1})")
    first = Path("crashed_once")
    if not first.exists():
        first.write_text("")
        crash()
    assert graph.query("MATCH (t:Thing) RETURN t.n").result_set == [[1]]


def test_crashes_every_time(graph):
    crash()
    graph.query("RETURN 1")


def test_after_them(graph):
    assert graph.query("RETURN 2").result_set == [[2]]
"""


def test_a_crashed_server_is_restarted_and_only_a_test_that_crashes_it_twice_fails(tmp_path):
    shutil.copy(ROOT / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "test_crashing.py").write_text(CRASHING)
    # its own server, not this worker's
    env = {name: value for name, value in os.environ.items() if not name.startswith("FALKORDB_")}
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "0", "-p", "no:randomly", "-p", "no:cacheprovider", "-rA"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    said = ran.stdout
    assert ran.returncode == 1, said + ran.stderr
    assert "PASSED test_crashing.py::test_crashes_once" in said
    assert "FAILED test_crashing.py::test_crashes_every_time" in said
    assert "PASSED test_crashing.py::test_after_them" in said
    assert said.count("FalkorDB exited during this test; it ran again on a restart") == 2
    # the failure carries the second crash's report: redis' own words of the signal
    failure = said[said.index("test_crashes_every_time ___") :]
    assert "FalkorDB exited during the tests" in failure
    assert "crashed by signal: 11" in failure
