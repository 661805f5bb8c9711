"""Read-only queries of the service's own, on graphs that may not exist yet."""

from __future__ import annotations

from lighthouse.graphs import read


def rows(graph, query: str, parameters: dict | None = None, timeout: int | None = None) -> list[list]:
    """GRAPH.RO_QUERY's rows, read as the library reads its own (lighthouse.graphs.read(): the reply
    decoded by lighthouse.wire); a graph nothing was written to yet has none (FalkorDB calls it an error)."""
    return read(graph, query, parameters, timeout)
