"""The demo: what each step gives on a fresh graph, and again on the same graph (a replay)."""

from __future__ import annotations

import io

from lighthouse_server.demo import run


def test_the_demo_on_a_fresh_graph(graph):
    out = io.StringIO()
    seen = run(graph, out=out)
    assert seen["remember first"] == [{"key": "d1", "status": "created"}]
    assert seen["remember second"] == [{"key": "d1", "status": "changed"}]
    assert seen["both again"] == [{"key": "d1", "status": "unchanged"}] * 2
    assert seen["status at noon"] == "ok"
    assert seen["late row"] == [{"key": "d1", "status": "inserted"}]
    assert seen["status at 20:00"] == "warm"
    assert seen["partial update"] == {"key": "d1", "status": "changed"}
    assert seen["search"] == ["d1"]
    assert seen["record"] == {"id": "demo-overheat/1", "seq": 1, "status": "recorded"}
    assert seen["close episode"] == {"id": "demo-overheat/2", "seq": 2, "status": "recorded"}
    assert seen["episodes about d1"] == [("demo-overheat", False)]
    assert seen["messages"] == ["why is d1 hot?"]
    assert seen["group sizes"] == [5]
    assert seen["d1 to r1"] == [("LOCATED_IN", ("Room", "r1"), False)]
    assert "remember first: [{'key': 'd1', 'status': 'created'}]" in out.getvalue()


def test_the_demo_again_on_the_same_graph_replays(graph):
    run(graph, out=io.StringIO())
    again = run(graph, out=io.StringIO())
    assert again["remember first"] == [{"key": "d1", "status": "unchanged"}]
    assert again["late row"] == [{"key": "d1", "status": "unchanged"}]
    assert again["partial update"] == {"key": "d1", "status": "unchanged"}
    assert again["record"]["status"] == "closed"  # an episode that has its outcome takes no more entries
    assert again["open episode"] == {"id": "demo-overheat", "status": "exists"}
    assert again["messages"] == ["why is d1 hot?", "why is d1 hot?"]
