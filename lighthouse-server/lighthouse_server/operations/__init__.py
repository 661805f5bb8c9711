"""The one table of operations: HTTP routes, MCP tools and the command line's quick looks come from it."""

from __future__ import annotations

from . import admin, conversation, coordination, episodes, graph, lessons, notes, recall, review, rows, status
from .table import Call, Operation, Param, converted, paged

TABLE: dict[str, Operation] = {
    operation.name: operation
    for area in (
        admin,
        rows,
        recall,
        review,
        episodes,
        coordination,
        conversation,
        lessons,
        graph,
        status,
        notes,
    )
    for operation in area.OPERATIONS
}

__all__ = ["TABLE", "Call", "Operation", "Param", "converted", "paged"]
