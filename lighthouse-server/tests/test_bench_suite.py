"""bench/ is one suite: every module is a workload module, a suite or shared, and bench/run.py runs each suite."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _bench(*arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *arguments], cwd=BENCH.parent, capture_output=True, text=True, timeout=120
    )


@pytest.fixture(scope="module")
def registered() -> dict:
    """What run.py names: its workload modules, suites, shared modules and workloads."""
    done = _bench(
        "-c",
        "import json, sys; sys.path.insert(0, 'bench'); import run, registry; print(json.dumps("
        "{'workload_modules': run.WORKLOAD_MODULES, 'suites': run.SUITES, 'shared': run.SHARED_MODULES, "
        "'workloads': list(registry.WORKLOADS)}))",
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_every_module_of_bench_is_a_workload_module_a_suite_or_shared(registered):
    suites = {module.split(".")[0] for module in registered["suites"].values()}
    named = [*registered["workload_modules"], *suites, *registered["shared"]]
    assert len(named) == len(set(named)), "a module is named twice"
    present = {path.stem for path in BENCH.glob("*.py")} | {
        path.parent.name for path in BENCH.glob("*/__init__.py")
    }
    assert present - set(named) == set(), "a module of bench/ that run.py neither runs nor shares"
    assert set(named) - present == set(), "run.py names a module that bench/ does not hold"


def test_the_listing_names_every_workload_and_every_suite(registered):
    done = _bench("bench/run.py", "--list")
    assert done.returncode == 0, done.stderr
    listed = {line.split()[0] for line in done.stdout.splitlines() if line.strip()}
    assert set(registered["workloads"]) <= listed
    assert set(registered["suites"]) <= listed


@pytest.mark.parametrize("suite", ["durability", "recall"])
def test_a_suite_runs_from_run_py_with_its_own_options(suite):
    done = _bench("bench/run.py", suite, "--help")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"usage: run.py {suite} ")


def test_a_suite_refuses_what_its_options_do_not_hold():
    refused = _bench("bench/run.py", "growth", "--no-such-option")
    assert refused.returncode == 2
    assert "run.py growth: error: unrecognized arguments: --no-such-option" in refused.stderr


def test_an_unknown_workload_is_refused_before_a_server_starts():
    done = _bench("bench/run.py", "--only", "no_such_workload")
    assert done.returncode != 0
    assert "no workload named no_such_workload" in done.stderr
