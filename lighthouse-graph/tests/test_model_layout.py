"""ensure_schema() moves WriteFailures and playbooks an earlier version kept under other names into the
design's form, once a graph; they read and count on after it."""

from __future__ import annotations

from devices import DEVICE, KINDS
from lighthouse import ensure_schema, failures, playbook, record_failure, remember, write_playbook
from lighthouse.graphs import read
from lighthouse.model_layout import MOVED, move_records, moved_yet
from test_lessons import ended

STEPS = [{"do": "check the fan"}, {"do": "look again", "hours": 1}]


def as_written_before(graph) -> None:
    """The graph's WriteFailures and playbooks put back in the form an earlier version wrote."""
    graph.query(
        "MATCH (f:WriteFailure) SET f.fingerprint = f.`lh.fingerprint`, f.content = f.detail, "
        "  f.message = f.`lh.message`, f.by = f.`lh.by`, f.first_at = f.`lh.first_at`, "
        "  f.cleared = f.`lh.cleared` "
        "SET f.`lh.fingerprint` = null, f.detail = null, f.`lh.message` = null, f.`lh.by` = null, "
        "  f.`lh.first_at` = null, f.`lh.cleared` = null"
    )
    graph.query("MATCH (p:Playbook)-[s:SUPPORTED_BY]->(ep:Episode) CREATE (p)-[:DRAWN_FROM]->(ep) DELETE s")
    graph.query("MATCH (:Playbook)-[:HAS]->(part) DELETE part")
    graph.query(f"MATCH (st:Stamp) REMOVE st.`{MOVED}`")


def test_failures_and_playbooks_written_before_are_moved_once_and_read_on(graph):
    ensure_schema(graph, KINDS)
    remember(graph, DEVICE, [{"key": "d1", "t": "2026-01-02T00:00:00Z", "values": {"s": 1}}], "inventory")
    for name in ("e1", "e2", "e3"):
        ended(graph, name)
    write_playbook(graph, "hot", "reviewer", {"status": "hot"}, STEPS, ["e1", "e2", "e3"])
    record_failure(graph, "invalid", DEVICE, "d9", detail="what it held")
    before_failures, before_playbook = failures(graph), playbook(graph, "hot")
    assert moved_yet(graph)
    as_written_before(graph)
    assert not moved_yet(graph)
    assert failures(graph) == before_failures  # read under the old names too
    assert read(graph, "MATCH (f:WriteFailure) RETURN f.fingerprint IS NOT NULL, f.detail") == [[True, None]]
    ensure_schema(graph, KINDS)
    assert failures(graph) == before_failures and playbook(graph, "hot") == before_playbook
    stored = read(graph, "MATCH (f:WriteFailure) RETURN properties(f)")[0][0]
    assert {"reason", "kind", "key", "detail", "times", "last_at"} <= set(stored)
    assert not {"fingerprint", "content", "message", "by", "first_at", "cleared"} & set(stored)
    parts = read(
        graph,
        "MATCH (:Playbook {id: 'hot#1'})-[:HAS]->(part) RETURN labels(part)[0], properties(part) "
        "ORDER BY labels(part)[0], part.seq",
    )
    assert parts == [
        ["Step", {"seq": 1, **STEPS[0]}],
        ["Step", {"seq": 2, **STEPS[1]}],
        ["Trigger", {"status": "hot"}],
    ]
    edges = "MATCH (:Playbook)-[r]->(:Episode) RETURN type(r), count(r)"
    assert read(graph, edges) == [["SUPPORTED_BY", 3]]
    record_failure(graph, "invalid", DEVICE, "d9", detail="what it held")  # the same refusal again
    [again] = failures(graph)
    assert again["times"] == 2 and again["detail"] == "what it held"
    assert move_records(graph) == 0  # marked: nothing is scanned again


def test_a_graph_with_nothing_to_move_is_marked(graph):
    assert moved_yet(graph)  # not made yet: nothing to move
    ensure_schema(graph, [])
    assert moved_yet(graph)
    assert read(graph, f"MATCH (st:Stamp) RETURN st.`{MOVED}`") == [[True]]
