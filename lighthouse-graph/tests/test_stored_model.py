"""The stored graph is the one ARCHITECTURE.md draws: a graph written by every public function that writes
holds only the labels, properties and edges of the drawing, and every one of them."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from devices import KINDS
from every_write import write_everything
from lighthouse.graphs import read

DOCUMENT = Path(__file__).resolve().parents[2] / "ARCHITECTURE.md"
KIND_LABELS = sorted({kind.label for kind in KINDS} | {t.label for k in KINDS for t in k.relations.values()})
RELATIONS = sorted({relation for kind in KINDS for relation in kind.relations})
_NODE = re.compile(r"\A\(:(?P<labels>[^ {)]+)(?: \{(?P<props>[^}]*)\})?\)\Z")
_EDGE = re.compile(
    r"\A\(:(?P<start>[^)]+)\)-\[:(?P<type>[^ \]{]+)(?: \{(?P<props>[^}]*)\})?\]->\(:(?P<end>[^)]+)\)\Z"
)


def pattern(token: str) -> re.Pattern:
    """A drawn name as a pattern: <Kind> and <Label> any kind's label, <RELATION> a kind's relation type,
    <value> any plain name, * any ending."""
    text = re.escape(token)
    text = text.replace(re.escape("<Kind>"), "(?:" + "|".join(KIND_LABELS) + ")")
    text = text.replace(re.escape("<Label>"), "(?:" + "|".join(KIND_LABELS) + ")")
    text = text.replace(re.escape("<RELATION>"), "(?:" + "|".join(RELATIONS) + ")")
    text = text.replace(re.escape("<value>"), "[A-Za-z_][A-Za-z0-9_]*").replace(re.escape("*"), ".*")
    return re.compile(r"\A" + text + r"\Z")


def literal(token: str) -> bool:
    return not any(mark in token for mark in ("<", "*", "?"))


@dataclass
class Drawn:
    line: str
    props: list[str]
    seen_props: set[str] = field(default_factory=set)
    seen: bool = False

    def holds(self, name: str) -> bool:
        return any(pattern(token).match(name) for token in self.props)


@dataclass
class DrawnNode(Drawn):
    labels: list[str] = field(default_factory=list)  # each may end in ?: not every such node has it

    def fits(self, labels: list[str]) -> bool:
        tokens = [(pattern(one.rstrip("?")), one.endswith("?")) for one in self.labels]
        every_label_drawn = all(any(token.match(label) for token, _ in tokens) for label in labels)
        return every_label_drawn and all(
            optional or any(token.match(one) for one in labels) for token, optional in tokens
        )


@dataclass
class DrawnEdge(Drawn):
    start: str = ""
    type: str = ""
    ends: list[str] = field(default_factory=list)

    def fits(self, start: list[str], kind: str, end: list[str]) -> bool:
        return (
            pattern(self.type).match(kind) is not None
            and any(pattern(self.start).match(one) for one in start)
            and any(pattern(token).match(one) for token in self.ends for one in end)
        )


def drawing(text: str) -> tuple[list[DrawnNode], list[DrawnEdge]]:
    """The lines of the document's model block, read."""
    block = re.search(r"```model\n(.*?)```", text, re.S)
    assert block, "ARCHITECTURE.md has no ```model block"
    nodes, edges = [], []
    for line in block.group(1).strip().splitlines():
        props = lambda given: [one.strip() for one in (given or "").split(",") if one.strip()]  # noqa: E731
        if found := _NODE.match(line):
            nodes.append(DrawnNode(line, props(found["props"]), labels=found["labels"].split(":")))
        elif found := _EDGE.match(line):
            drawn = DrawnEdge(line, props(found["props"]), start=found["start"], type=found["type"])
            drawn.ends = found["end"].split("|")
            edges.append(drawn)
        else:
            raise AssertionError(f"a line of the drawing that is neither a node nor an edge: {line}")
    return nodes, edges


def test_the_drawing_is_read_as_drawn():
    nodes, edges = drawing("```model\n(:A:<Kind>? {x, v_*})\n(:A)-[:T {y}]->(:B|C)\n```")
    assert nodes[0].fits(["A"]) and nodes[0].fits(["A", "Device"]) and not nodes[0].fits(["A", "Other"])
    assert nodes[0].holds("v_note") and not nodes[0].holds("y")
    assert edges[0].fits(["A"], "T", ["C"]) and not edges[0].fits(["A"], "T", ["D"])
    with pytest.raises(AssertionError, match="neither"):
        drawing("```model\nA -> B\n```")


def _kept(drawn: Drawn, properties: list[str], what: str) -> list[str]:
    """Marks the drawn line seen with these properties: the ones it does not draw."""
    drawn.seen = True
    drawn.seen_props.update(properties)
    return [f"{what}.{name}" for name in properties if not drawn.holds(name)]


def test_a_graph_written_by_every_public_function_is_the_one_drawn(graph):
    nodes, edges = drawing(DOCUMENT.read_text(encoding="utf-8"))
    write_everything(graph)
    undrawn: list[str] = []
    for labels, properties in read(graph, "MATCH (n) RETURN labels(n), keys(n)"):
        fitting = [one for one in nodes if one.fits(labels)]
        what = str(sorted(labels))
        undrawn += _kept(fitting[0], properties, what) if fitting else [f"a node labelled {what}"]
    found = read(graph, "MATCH (a)-[r]->(b) RETURN labels(a), type(r), labels(b), keys(r)")
    for start, kind, end, properties in found:
        fitting = [one for one in edges if one.fits(start, kind, end)]
        what = f"{sorted(start)}-[{kind}]->{sorted(end)}"
        undrawn += _kept(fitting[0], properties, what) if fitting else [f"an edge {what}"]
    assert undrawn == [], "stored but not drawn in ARCHITECTURE.md"
    unseen = [one.line for one in nodes + edges if not one.seen]
    unseen += [
        f"{one.line}: {token}"
        for one in nodes + edges
        for token in one.props
        if literal(token) and token not in one.seen_props
    ]
    assert unseen == [], "drawn in ARCHITECTURE.md but never stored"
