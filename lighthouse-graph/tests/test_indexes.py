"""ensure_indexes(): range indexes on an application's own records, in the server's schema turn."""

from __future__ import annotations

import pytest
from lighthouse import Refused, WrongType, ensure_indexes, read_query


def _range_indexes(graph) -> set:
    listed = read_query(graph, "CALL db.indexes() YIELD label, properties, types RETURN *")
    return {(label, prop) for label, props, types in listed for prop in props if "RANGE" in types[prop]}


def test_ensure_indexes_builds_only_what_is_asked_once(graph):
    graph.query("CREATE (:ApiKey {hash: 'h'})")
    ensure_indexes(graph, [("ApiKey", "hash"), ("ApiKey", "id"), ("ApiKey", "hash")])
    assert _range_indexes(graph) == {("ApiKey", "hash"), ("ApiKey", "id")}
    ensure_indexes(graph, (("ApiKey", "id"),))  # made already: nothing asked
    assert _range_indexes(graph) == {("ApiKey", "hash"), ("ApiKey", "id")}
    assert read_query(graph, "MATCH (s:Stamp) RETURN count(s)") == [[0]]  # nothing of the library's


@pytest.mark.parametrize(
    ("indexes", "wait", "error"),
    [
        ("ApiKey", 10.0, WrongType),
        ([("ApiKey",)], 10.0, WrongType),
        ([("Api Key", "hash")], 10.0, Refused),
        ([("ApiKey", "hash`) ON (n.x")], 10.0, Refused),
        ([("ApiKey", "hash")], -1, Refused),
        ([("ApiKey", "hash")], "10", Refused),
    ],
)
def test_ensure_indexes_refuses_before_building_anything(graph, indexes, wait, error):
    graph.query("CREATE (:ApiKey {hash: 'h'})")
    with pytest.raises(error):
        ensure_indexes(graph, indexes, wait)
    assert _range_indexes(graph) == set()
