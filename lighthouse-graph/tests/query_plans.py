"""What tests read of the plan FalkorDB makes for a query: where it starts reading nodes."""

from __future__ import annotations


def scans(plan) -> list[str]:
    """The operations of a plan that read nodes from the graph, in the order the plan shows them."""
    return [line.strip() for line in str(plan).splitlines() if "Scan" in line or "Join" in line]
