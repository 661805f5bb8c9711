"""Restarts of the embedded FalkorDB after a crash, on a file that takes seconds to load (issue 9).

In a file of its own, so that xdist runs it beside test_embedded.py.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from lighthouse_server.embedded import Server, start

RESTARTS = 10
SMALL_WRITES = 150  # each replayed write costs about as much as the graph is big: seconds in all
COUNTS = "MATCH (b:Bulk) WITH count(b) AS bulk MATCH (s:Small) RETURN bulk, count(s), sum(s.n), max(s.text)"


def _aof_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in (folder / "appendonlydir").iterdir())


def _crash(server: Server) -> None:
    server.process.kill()
    server.process.wait(timeout=10)
    server.stop()  # the process is dead: this only releases what this process held


def test_ten_restarts_after_a_crash_each_wait_through_loading_and_a_clean_stop_compacts(tmp_path) -> None:
    folder = tmp_path / "data"
    first = start(data_dir=folder)
    connection = first.connection()
    # Written as before issue 9, with no automatic rewrite: all its history stays in the file.
    connection.config_set("auto-aof-rewrite-percentage", 0)
    graph = first.client().select_graph("big")
    graph.query("UNWIND range(1, 100000) AS i CREATE (:Bulk {i: i, name: 'bulk ' + toString(i)})")
    graph.query("UNWIND range(1, 100000) AS i CREATE (:Gone {i: i, name: 'gone ' + toString(i)})")
    graph.query("MATCH (g:Gone) DELETE g")
    writes = connection.pipeline(transaction=False)
    for n in range(SMALL_WRITES):
        writes.execute_command(
            "GRAPH.QUERY", "big", f"MERGE (s:Small {{i: {n % 50}}}) SET s.n = {n}, s.text = 'write {n:04}'"
        )
    writes.execute()
    expected = graph.query(COUNTS).result_set
    assert expected == [
        [100000, 50, sum(range(SMALL_WRITES - 50, SMALL_WRITES)), f"write {SMALL_WRITES - 1:04}"]
    ]
    _crash(first)
    crashed = tmp_path / "crashed"
    shutil.copytree(folder / "appendonlydir", crashed)
    before = _aof_bytes(folder)

    loads, reported = [], []
    for _ in range(RESTARTS):
        # Every start loads the uncompacted file: the automatic rewrite after a load is not the subject.
        shutil.rmtree(folder / "appendonlydir")
        shutil.copytree(crashed, folder / "appendonlydir")
        reports: list[dict] = []
        # wait=2: shorter than the load, which is waited for because it progresses.
        server = start(data_dir=folder, wait=2, on_loading=reports.append)
        try:
            loads.append(round(server.started_in, 2))
            reported.append(len(reports))
            assert server.client().select_graph("big").query(COUNTS).result_set == expected
        finally:
            _crash(server)
    print(f"\n{RESTARTS} of {RESTARTS} restarts, loads in seconds: {loads}; file before: {before} bytes")
    assert len(loads) == RESTARTS
    assert min(loads) > 2  # the premise: each load outlasted wait
    assert all(reported)  # each said it was loading, with the waited seconds and INFO's loading fields
    assert all("waited_seconds" in report and "loading_loaded_bytes" in report for report in reports)

    # A clean stop rewrites the file to what the data holds; the next start loads just that.
    start(data_dir=folder).stop()
    after = _aof_bytes(folder)
    began = time.monotonic()
    with start(data_dir=folder) as compacted:
        assert compacted.client().select_graph("big").query(COUNTS).result_set == expected
        fast = compacted.started_in
    print(f"after a clean stop: {after} bytes, loaded in {fast:.2f} s ({time.monotonic() - began:.2f} s)")
    assert after < before / 2
    assert fast < min(loads) / 3
