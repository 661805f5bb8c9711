"""export() and write_jsonl() on graphs the library wrote: every node and edge once, with its properties,
as JSON; read in windows of ids, whatever the window."""

from __future__ import annotations

import datetime as dt
import io
import json
from pathlib import Path

import lighthouse
import pytest
from lighthouse import Kind
from lighthouse_server import export as exporting
from lighthouse_server.export import export, plain, write_jsonl
from redis.exceptions import ResponseError

ROOM = Kind("Room", key="code")
MANUAL = Kind("Manual", key="code", times=("issued",), text=("title",), relations={"FOR": ROOM}, dimensions=3)


def fill(graph) -> None:
    """The library's own writes of every sort: rows with history, relations, times and vectors; an
    episode with entries, a handoff, a conversation, a refused row (a WriteFailure)."""
    lighthouse.ensure_schema(graph, [ROOM, MANUAL])
    lighthouse.remember(
        graph, ROOM, [{"key": f"r{n}", "t": "2026-10-01", "values": {"floor": n}} for n in range(5)], "a"
    )
    rows = [
        {"key": "m1", "t": "2026-10-01T08:00:00Z", "values": {"title": "Fan care", "issued": "2026-09-30"}},
        {"key": "m1", "t": "2026-10-02T08:00:00Z", "values": {"title": "Fan care, 2nd", "pages": [1, 2]}},
        {
            "key": "m2",
            "t": "2026-10-01T08:00:00Z",
            "values": {"title": "Lamps", "ok": True},
            "relations": {"FOR": ["r1", "r2"]},
        },
        {"key": "m3", "t": "not a time"},
    ]
    assert [r["status"] for r in lighthouse.remember(graph, MANUAL, rows, "a")] == [
        "created",
        "changed",
        "created",
        "invalid",
    ]
    assert (
        lighthouse.embed(graph, MANUAL, lambda texts: [[1.0, 0.5, float(len(t))] for t in texts], "toy")[
            "embedded"
        ]
        == 2
    )
    lighthouse.open_episode(graph, "ep1", "a", about=[(MANUAL, "m1")])
    lighthouse.record(graph, "ep1", "note", "a", {"seen": "smoke"}, cites=[(ROOM, "r1")])
    lighthouse.close_episode(graph, "ep1", "a", {"fixed": True})
    lighthouse.hand_off(graph, "h1", "a", "b", [(ROOM, "r2"), "ep1/1"])
    lighthouse.say(graph, "ann", "s1", "user", "the fan in r1 is loud", "ann", mentions=[(ROOM, "r1")])


def everything(graph) -> tuple[dict, dict]:
    """The graph read directly, whole, in one query for nodes and one for edges."""
    nodes = {
        node_id: (labels, dict(properties))
        for node_id, labels, properties in graph.ro_query(
            "MATCH (n) RETURN id(n), labels(n), properties(n)"
        ).result_set
    }
    query = "MATCH (a)-[r]->(b) RETURN id(r), type(r), id(a), id(b), properties(r)"
    edges = {row[0]: (row[1], row[2], row[3], dict(row[4])) for row in graph.ro_query(query).result_set}
    return nodes, edges


def assert_exported_once(graph, items: list[dict]) -> None:
    nodes, edges = everything(graph)
    exported_nodes = [item for item in items if item["type"] == "node"]
    exported_edges = [item for item in items if item["type"] == "edge"]
    assert sorted(item["id"] for item in exported_nodes) == sorted(nodes)  # each exactly once
    assert sorted(item["id"] for item in exported_edges) == sorted(edges)
    for item in exported_nodes:
        labels, properties = nodes[item["id"]]
        assert item == {"type": "node", "id": item["id"], "labels": labels, "properties": plain(properties)}
    for item in exported_edges:
        relation, start, end, properties = edges[item["id"]]
        expected = {"type": "edge", "id": item["id"], "relation": relation, "from": start, "to": end}
        assert item == {**expected, "properties": plain(properties)}
    assert [item["type"] for item in items] == ["node"] * len(nodes) + ["edge"] * len(edges)


def test_every_node_and_edge_of_the_library_appears_once_with_its_properties(graph) -> None:
    fill(graph)
    items = list(export(graph))
    assert_exported_once(graph, items)
    labels = {label for item in items if item["type"] == "node" for label in item["labels"]}
    assert {"Room", "Manual", "State", "WriteFailure", "Episode", "Entry", "Handoff", "Message"} <= labels
    relations = {item["relation"] for item in items if item["type"] == "edge"}
    assert {"HAS_STATE", "FOR"} <= relations
    # Times as ISO text, vectors as lists; everything is JSON as it is.
    states = [item["properties"] for item in items if item["type"] == "node" and "State" in item["labels"]]
    issued = [state["issued"] for state in states if "issued" in state]
    assert issued and all(type(text) is str and dt.datetime.fromisoformat(text).tzinfo for text in issued)
    vectors = [item["properties"]["lh.vector"] for item in items if "lh.vector" in item.get("properties", {})]
    assert len(vectors) == 2  # the library stores them scaled to length 1: the direct read is compared above
    assert all(type(vector) is list and len(vector) == 3 and type(vector[0]) is float for vector in vectors)
    assert json.loads(json.dumps(items)) == items


@pytest.mark.parametrize("window", [1, 3, 64])
def test_any_window_of_ids_gives_the_same_export(graph, monkeypatch, window: int) -> None:
    fill(graph)
    # Holes in the ids: deleted nodes, their ids free, and a node whose id is past all of them.
    graph.query("UNWIND range(1, 30) AS n CREATE (:Filler {n: n})")
    graph.query("MATCH (f:Filler) WHERE f.n % 3 = 0 DELETE f")
    whole = list(export(graph))
    monkeypatch.setattr(exporting, "WINDOW", window)
    assert list(export(graph)) == whole
    assert_exported_once(graph, whole)


def test_a_graph_of_thousands_is_exported_whole(graph, monkeypatch) -> None:
    monkeypatch.setattr(exporting, "WINDOW", 250)
    graph.query("UNWIND range(0, 2999) AS n CREATE (:Point {n: n})")
    graph.query("MATCH (a:Point), (b:Point) WHERE b.n = a.n + 1 CREATE (a)-[:NEXT_ONE {gap: 1}]->(b)")
    items = export(graph)
    assert next(items)["type"] == "node"  # an iterator: the first item comes before the rest is read
    rest = list(items)
    assert len(rest) == 2999 + 2999
    assert sorted(item["properties"]["n"] for item in rest if item["type"] == "node") == list(range(1, 3000))


def test_values_of_every_stored_type_become_json(graph) -> None:
    graph.query(
        "CREATE (:T {at: localdatetime('2026-01-02T03:04:05'), day: date('2026-01-02'),"
        " clock: localtime('03:04:05'), span: duration('P1Y2M3DT4H5M6S'), short: duration('PT30S'),"
        " place: point({latitude: 51.5, longitude: -0.5}), vec: vecf32([0.5, -1.0]), list: [1, 'a'],"
        " f: 1.5, i: -3, b: false, s: 'Élan'})-[:E {when: localdatetime('2025-05-06T07:08:09')}]->(:U)"
    )
    node, _, edge = export(graph)
    assert node["properties"] == {
        "at": "2026-01-02T03:04:05+00:00",
        "day": "2026-01-02",
        "clock": "03:04:05",
        "span": "P1Y2M3DT4H5M6S",
        "short": "PT30S",
        "place": {"latitude": 51.5, "longitude": -0.5},
        "vec": [0.5, -1.0],
        "list": [1, "a"],
        "f": 1.5,
        "i": -3,
        "b": False,
        "s": "Élan",
    }
    assert edge["properties"] == {"when": "2025-05-06T07:08:09+00:00"}


def test_write_jsonl_writes_one_object_a_line_to_a_file_or_a_path(graph, tmp_path: Path) -> None:
    fill(graph)
    out = io.StringIO()
    counts = write_jsonl(graph, out)
    lines = out.getvalue().splitlines()
    items = [json.loads(line) for line in lines]
    assert items == list(export(graph))
    assert counts == {
        "nodes": sum(i["type"] == "node" for i in items),
        "edges": sum(i["type"] == "edge" for i in items),
    }
    assert write_jsonl(graph, tmp_path / "graph.jsonl") == counts
    assert (tmp_path / "graph.jsonl").read_text(encoding="utf-8") == out.getvalue()
    assert [path.name for path in tmp_path.iterdir()] == ["graph.jsonl"]


def test_an_empty_graph_exports_nothing_and_a_missing_one_leaves_no_file(graph, db, tmp_path: Path) -> None:
    graph.query("CREATE (:Gone)")
    graph.query("MATCH (n) DELETE n")
    assert list(export(graph)) == []
    assert write_jsonl(graph, tmp_path / "empty.jsonl") == {"nodes": 0, "edges": 0}
    assert (tmp_path / "empty.jsonl").read_text() == ""
    with pytest.raises(ResponseError):
        write_jsonl(db.select_graph("no_such_graph_at_all"), tmp_path / "missing.jsonl")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["empty.jsonl"]
