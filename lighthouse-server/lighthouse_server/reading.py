"""Read-only queries of the service's own, on graphs that may not exist yet."""

from __future__ import annotations

from lighthouse import read_query


def rows(graph, query: str, parameters: dict | None = None, timeout: int | None = None) -> list[list]:
    """GRAPH.RO_QUERY's rows, read as the library reads its own (lighthouse.read_query()); a graph
    nothing was written to yet has none (FalkorDB calls it an error)."""
    return read_query(graph, query, parameters, timeout)
