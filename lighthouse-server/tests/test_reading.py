"""Reads of graphs that may not exist yet."""

from __future__ import annotations

import pytest
from lighthouse_server.reading import rows
from redis.exceptions import ResponseError


def test_a_graph_nothing_was_written_to_has_no_rows(graph):
    assert rows(graph, "MATCH (n) RETURN n") == []
    graph.query("CREATE (:Thing {name: 'x'})")
    assert rows(graph, "MATCH (n:Thing) RETURN n.name") == [["x"]]
    with pytest.raises(ResponseError):
        rows(graph, "MATCH (n RETURN n")
