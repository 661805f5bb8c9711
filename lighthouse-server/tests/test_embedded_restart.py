"""Restarts of the embedded FalkorDB after a crash, on a file that takes long to load (issue 9).

In a file of its own, so that xdist runs it beside test_embedded.py.
"""

from __future__ import annotations

import shutil
import statistics
from pathlib import Path

import pytest
from lighthouse_server import loading
from lighthouse_server.embedded import Server, start

RESTARTS = 10
MERGES = 100  # each replayed update costs more the bigger the graph: from 0.4 s to 10 s as the CPU allows
# A loading server answers (and so reports) only between commands, every 1,024 of them. With 5,000 short
# ones after the big commands, no load answered before its end on 2026-12-02 (0.65 s loads); these do.
CREATES = 20000
PADDING = 2000  # characters of each
COUNTS = (
    "MATCH (b:Bulk) WITH count(b) AS bulk MATCH (s:Small) WITH bulk, count(s) AS small, sum(s.n) AS n,"
    " max(s.text) AS text MATCH (t:Tiny) RETURN bulk, small, n, text, count(t)"
)


def _aof_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in (folder / "appendonlydir").iterdir())


def _crash(server: Server) -> None:
    server.process.kill()
    server.process.wait(timeout=10)
    server.stop()  # the process is dead: this only releases what this process held


def _history(folder: Path) -> list[list]:
    """Writes the data and its history, with no rewrite (as before issue 9), then crashes."""
    first = start(data_dir=folder)
    connection = first.connection()
    connection.config_set("auto-aof-rewrite-percentage", 0)
    graph = first.client().select_graph("big")
    graph.query("UNWIND range(1, 100000) AS i CREATE (:Bulk {i: i, name: 'bulk ' + toString(i)})")
    graph.query("UNWIND range(1, 100000) AS i CREATE (:Gone {i: i, name: 'gone ' + toString(i)})")
    graph.query("MATCH (g:Gone) DELETE g")
    writes = connection.pipeline(transaction=False)
    for n in range(MERGES):
        update = f"MERGE (s:Small {{i: {n % 50}}}) SET s.n = {n}, s.text = 'write {n:04}'"
        writes.execute_command("GRAPH.QUERY", "big", update)
    for n in range(CREATES):
        writes.execute_command("GRAPH.QUERY", "big", f"CREATE (:Tiny {{n: {n}, pad: '{'x' * PADDING}'}})")
    writes.execute()
    expected = graph.query(COUNTS).result_set
    assert expected == [[100000, 50, sum(range(MERGES - 50, MERGES)), f"write {MERGES - 1:04}", CREATES]]
    _crash(first)
    return expected


@pytest.mark.slow
def test_ten_restarts_after_a_crash_each_wait_through_loading_and_a_clean_stop_compacts(
    tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(loading, "LOADING_REPORT_EVERY", 0.05)  # so that even the quickest load reports
    folder, crashed = tmp_path / "data", tmp_path / "crashed"
    expected = _history(folder)
    shutil.copytree(folder / "appendonlydir", crashed)
    before = _aof_bytes(folder)

    loads, reported = [], []
    for _ in range(RESTARTS):
        # Each start loads the whole history: the automatic rewrite after a load is not the subject here.
        shutil.rmtree(folder / "appendonlydir")
        shutil.copytree(crashed, folder / "appendonlydir")
        reports: list[dict] = []
        # wait=1, shorter than most loads: a load is waited for because it progresses.
        server = start(data_dir=folder, wait=1, on_loading=reports.append)
        try:
            loads.append(round(server.started_in, 2))
            reported.append(reports)
            assert server.client().select_graph("big").query(COUNTS).result_set == expected
        finally:
            _crash(server)
    print(f"\n{len(loads)} of {RESTARTS} restarts, loads in seconds: {loads}; file: {before} bytes")
    assert len(loads) == RESTARTS
    # A load says it is loading with INFO's loading fields when the server answers in between, which it
    # does between batches of commands: how many batches pass before the end depends on the CPU.
    assert any(reported), loads
    for report in (report for reports in reported for report in reports):
        assert 0 < report["loading_loaded_bytes"] <= report["loading_total_bytes"] <= before
        assert report["waited_seconds"] >= 0.05 and "loading_eta_seconds" in report

    # A clean stop rewrites the file to what the data holds; the next start loads just that.
    start(data_dir=folder).stop()
    after = _aof_bytes(folder)
    with start(data_dir=folder) as compacted:
        assert compacted.client().select_graph("big").query(COUNTS).result_set == expected
    print(f"after a clean stop: {after} bytes, loaded in {compacted.started_in:.2f} s")
    assert after < before / 2
    assert compacted.started_in < statistics.median(loads)
