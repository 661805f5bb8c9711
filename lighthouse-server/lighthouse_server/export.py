"""A graph's whole content as JSON-ready dicts, one per node and one per edge; and as JSON Lines.

    {"type": "node", "id": 7, "labels": ["Device"], "properties": {...}}
    {"type": "edge", "id": 3, "relation": "LINKS", "from": 7, "to": 9, "properties": {...}}

Ids are FalkorDB's internal ids of this graph (the endpoints of edges name them). Values come as JSON:
times, dates and clock times as ISO 8601 text (UTC), durations as ISO 8601 durations, vectors as lists
of numbers, points as {"latitude", "longitude"}. All nodes come first, in id order; then all edges,
grouped by the node they leave. The graph is read in windows of ids, so memory stays bounded by the
window (and the edges of its nodes), not by the graph; a graph written meanwhile is read as it is when
each window is read.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path
from typing import IO

WINDOW = 1000  # ids read per query

_LAST_ID = "MATCH (n) RETURN max(id(n))"
# id() ranges are answered by FalkorDB's NodeByIdSeek: each window costs its own nodes, not the graph's.
_NODES = """
MATCH (n) WHERE id(n) >= $low AND id(n) < $high
RETURN id(n), labels(n), properties(n)
"""
_EDGES = """
MATCH (a)-[r]->(b) WHERE id(a) >= $low AND id(a) < $high
RETURN id(r), type(r), id(a), id(b), properties(r)
"""


def plain(value: object) -> object:
    """A stored value as JSON: text for times, lists for vectors, a dict for a point."""
    if isinstance(value, dt.datetime):
        return value.isoformat()
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    if isinstance(value, dict):
        return {str(key): plain(item) for key, item in value.items()}
    if hasattr(value, "normalized") and hasattr(value, "days"):  # a duration (dateutil's relativedelta)
        return _duration(value)
    return value


def _duration(delta: object) -> str:
    parts = [("Y", delta.years), ("M", delta.months), ("D", delta.days)]
    clock = [("H", delta.hours), ("M", delta.minutes), ("S", delta.seconds)]
    date = "".join(f"{amount}{unit}" for unit, amount in parts if amount)
    time = "".join(f"{amount}{unit}" for unit, amount in clock if amount)
    return "P" + (date or ("" if time else "0D")) + (f"T{time}" if time else "")


def _windows(graph) -> Iterator[tuple[int, int]]:
    last = graph.ro_query(_LAST_ID).result_set[0][0]
    if last is None:  # no node, hence no edge
        return
    for low in range(0, last + 1, WINDOW):
        yield low, low + WINDOW


def export(graph) -> Iterator[dict]:
    """Every node, then every edge, of graph (a falkordb Graph) as a JSON-ready dict; see the module.

    Reads only (GRAPH.RO_QUERY). A node or edge created after the read passed its window is left out;
    the ids found at the start bound the walk, so a graph that keeps growing still ends.
    """
    windows = list(_windows(graph))
    for low, high in windows:
        rows = graph.ro_query(_NODES, {"low": low, "high": high}).result_set
        for node_id, labels, properties in sorted(rows, key=lambda row: row[0]):
            yield {
                "type": "node",
                "id": node_id,
                "labels": list(labels),
                "properties": plain(dict(properties)),
            }
    for low, high in windows:
        rows = graph.ro_query(_EDGES, {"low": low, "high": high}).result_set
        for edge_id, relation, start, end, properties in sorted(rows, key=lambda row: (row[2], row[0])):
            yield {
                "type": "edge",
                "id": edge_id,
                "relation": relation,
                "from": start,
                "to": end,
                "properties": plain(dict(properties)),
            }


def write_jsonl(graph, file: str | Path | IO[str]) -> dict:
    """Writes export(graph) to file (a path, or a text file open for writing), one JSON object a line.

    Returns {"nodes": n, "edges": m}. A path is written beside its name and renamed once complete, so
    a failed export leaves no half file under the name asked for.
    """
    if isinstance(file, str | Path):
        target = Path(file)
        # Renamed over the name asked for: a device or a link there would be replaced, not written to.
        if target.is_symlink() or (target.exists() and not target.is_file()):
            raise ValueError(f"{target} is not a regular file: name a new file or a regular one to replace")
        partial = target.with_name(target.name + ".partial")
        try:
            with partial.open("w", encoding="utf-8") as out:
                counts = write_jsonl(graph, out)
            partial.replace(target)
        finally:
            partial.unlink(missing_ok=True)
        return counts
    counts = {"nodes": 0, "edges": 0}
    for item in export(graph):
        file.write(json.dumps(item, ensure_ascii=False, separators=(",", ":")) + "\n")
        counts["nodes" if item["type"] == "node" else "edges"] += 1
    return counts
