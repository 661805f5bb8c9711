"""The `lighthouse` command: the demo on the FalkorDB the environment names, one setting for the graph."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from lighthouse import history
from lighthouse_server.command import DEFAULT_GRAPH, graph_name, main
from lighthouse_server.demo import DEVICE


def test_the_graph_is_named_by_one_setting(monkeypatch):
    monkeypatch.delenv("LIGHTHOUSE_GRAPH", raising=False)
    assert graph_name() == DEFAULT_GRAPH == "world"
    monkeypatch.setenv("LIGHTHOUSE_GRAPH", "desk")
    assert graph_name() == "desk"
    assert graph_name("given") == "given"


def test_demo_writes_under_the_graph_it_is_given_and_reads_it_back(db, tmp_path, capsys):
    name = f"demo_{os.getpid()}_{tmp_path.name[-8:]}"
    try:
        assert main(["demo", "--data", str(tmp_path), "--graph", name]) == 0
        assert "remember first" in capsys.readouterr().out
        assert [state["status"] for state in history(db.select_graph(name), DEVICE, "d1")][-1] == "ok"
        assert name in db.list_graphs()
    finally:
        db.select_graph(name).delete()


def test_a_bad_environment_is_a_clear_error(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("FALKORDB_PORT", "not a port")
    assert main(["demo", "--data", str(tmp_path)]) == 2
    assert "FALKORDB_PORT" in capsys.readouterr().err


def test_the_command_needs_a_subcommand():
    with pytest.raises(SystemExit):
        main([])


def test_the_installed_command_runs_the_demo(tmp_path):
    """`lighthouse demo` as a user runs it: its own embedded FalkorDB, persisted, stopped cleanly."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("FALKORDB_")}
    command = [sys.executable, "-m", "lighthouse_server.command", "demo", "--data", str(tmp_path / "data")]
    done = subprocess.run(command, env=environment, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "group sizes: [5]" in done.stdout
    assert (tmp_path / "data" / "appendonlydir").is_dir()  # persisted
    again = subprocess.run(command, env=environment, capture_output=True, text=True, timeout=120)
    assert "remember first: [{'key': 'd1', 'status': 'unchanged'}]" in again.stdout  # the data was kept
