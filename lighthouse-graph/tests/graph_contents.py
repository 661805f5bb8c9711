"""The contents of a graph as tests compare them before and after a write, and the one WriteFailure a
refused write keeps."""

from __future__ import annotations

from lighthouse.graphs import read
from lighthouse.write.failures import failures

_NODES = "MATCH (n) WHERE NOT n:WriteFailure RETURN labels(n), properties(n)"
_EDGES = (
    "MATCH (a)-[r]->(b) RETURN labels(a), properties(a), type(r), properties(r), labels(b), properties(b)"
)


def snapshot(graph, without: str | None = None) -> tuple[list, list]:
    """Every node but the failures, and every edge with its ends, as sortable text: what a write that
    changes nothing must leave as it was. without: a prefix of property names left out (marks)."""

    def kept(part):
        if not isinstance(part, dict):
            return part
        return {name: item for name, item in part.items() if without is None or not name.startswith(without)}

    def shown(rows: list) -> list[str]:
        return sorted(repr([kept(part) for part in row]) for row in rows)

    return shown(read(graph, _NODES)), shown(read(graph, _EDGES))


def assert_one_refusal(graph, before: tuple, receipt: dict, statuses=("invalid",), kind: str | None = None):
    """The receipt refuses with one of statuses and a reason, the graph holds what it held before, and
    one WriteFailure (of kind, when given) was kept once, with at most 2,000 characters of content."""
    assert receipt["status"] in statuses and receipt["reason"], receipt
    assert snapshot(graph) == before
    stored = failures(graph)
    assert len(stored) == 1 and stored[0]["times"] == 1 and stored[0]["reason"] == receipt["status"]
    assert kind is None or stored[0]["kind"] == kind
    assert len(stored[0]["detail"]) <= 2_000
