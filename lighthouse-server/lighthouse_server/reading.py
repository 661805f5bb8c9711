"""Read-only queries of the service's own, on graphs that may not exist yet."""

from __future__ import annotations

from redis.exceptions import ResponseError


def rows(graph, query: str, parameters: dict | None = None, timeout: int | None = None) -> list[list]:
    """GRAPH.RO_QUERY's rows; a graph nothing was written to yet has none (FalkorDB calls it an error)."""
    try:
        return graph.ro_query(query, parameters, timeout=timeout).result_set
    except ResponseError as error:
        if "empty key" in str(error):
            return []
        raise
