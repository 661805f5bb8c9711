"""The service holds the library's boundary: every module of lighthouse_server imports from the library
only the names of lighthouse.__all__ (never a submodule), and sends no Cypher over the labels, relation
types and properties the library owns. What the service needs of the graph is a public function."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import lighthouse
import pytest

# What the library owns, as it lists it itself (the test reads the library's own lists; the service may not).
from lighthouse.embedding_progress import EMBEDDING
from lighthouse.kinds import OWNED_LABELS, OWNED_NAMES, OWNED_RELATIONS, TRUST_MARKS
from lighthouse.note_extraction import EXTRACTION
from lighthouse.note_extraction_hold import WORKER

PACKAGE = Path(__file__).resolve().parents[1] / "lighthouse_server"

# The console's reads move to public functions in another change (issue 38); until it lands, exactly
# these files may still reach past the boundary. Remove the list when they no longer do.
CYPHER = re.compile(r"\b(MATCH|MERGE|CREATE|RETURN|UNWIND|DELETE|SET)\b")
OWNED_DOTTED = sorted({name for name in OWNED_NAMES if name.startswith("lh.")} | set(TRUST_MARKS))
# The jobs of reading notes with a model and of giving vectors keep their state on labels of their own.
JOB_LABELS = {EXTRACTION.strip("`"), WORKER.strip("`"), EMBEDDING.strip("`")}
LIBRARY_LABELS = sorted(OWNED_LABELS | {"lh.Reply"} | JOB_LABELS)
# Names an f-string puts into a query as a kind's label: the kind's entities are the library's.
KIND_LABELS = frozenset({"label", "embed_label", "vector_label"})


def _label_pattern(names) -> re.Pattern:
    listed = "|".join(re.escape(name) for name in names)
    return re.compile(rf":\s*`?(?:{listed})`?(?![\w.])")


LABEL_USE = _label_pattern(LIBRARY_LABELS + sorted(OWNED_RELATIONS))
PROPERTY_USE = re.compile(rf"\.`?(?:{'|'.join(re.escape(name) for name in OWNED_DOTTED)})`?(?![\w.])")


def imports_past_the_boundary(tree: ast.AST) -> list[str]:
    """Each import of a library name that is not in lighthouse.__all__, or of a library submodule."""
    public = set(lighthouse.__all__)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.startswith("lighthouse."):
                found.append(f"line {node.lineno}: from {node.module} import ...")
            elif node.module == "lighthouse":
                found += [
                    f"line {node.lineno}: {alias.name} is not in lighthouse.__all__"
                    for alias in node.names
                    if alias.name not in public
                ]
        elif isinstance(node, ast.Import):
            found += [
                f"line {node.lineno}: import {alias.name}"
                for alias in node.names
                if alias.name.startswith("lighthouse.")
            ]
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "lighthouse"
            and node.attr not in public
        ):
            found.append(f"line {node.lineno}: lighthouse.{node.attr} is not in lighthouse.__all__")
    return found


def _text_of(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(part.value if isinstance(part, ast.Constant) else "{}" for part in node.values)
    return None


def cypher_over_the_library(tree: ast.AST) -> list[str]:
    """Each query text that names a label, relation type or property the library owns, or puts a kind's
    label into a query. An operation's example (a query a caller of the cypher operation sends) is no
    query of the service's."""
    examples = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.keyword) and node.arg == "example"
        for inner in ast.walk(node.value)
    }
    found = []
    for node in ast.walk(tree):
        text = _text_of(node)
        if text is None or id(node) in examples or not CYPHER.search(text):
            continue
        named = LABEL_USE.findall(text) + PROPERTY_USE.findall(text)
        if isinstance(node, ast.JoinedStr):
            named += [
                f"{{...{part.value.attr}}}"
                for part in node.values
                if isinstance(part, ast.FormattedValue)
                and isinstance(part.value, ast.Attribute)
                and part.value.attr in KIND_LABELS
            ]
        if named:
            found.append(f"line {node.lineno}: {', '.join(sorted(set(named)))}")
    return found


def job_labels_named(tree: ast.AST) -> list[str]:
    """Each text that names a label of the library's jobs (reading notes, giving vectors), in a query or
    not: a constant put into a query later is a query over it too."""
    return [
        f"line {node.lineno}: {name}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        for name in sorted(JOB_LABELS)
        if name in node.value
    ]


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _checked(check) -> dict[str, list[str]]:
    found = {}
    for path in _modules():
        named = str(path.relative_to(PACKAGE))
        listed = check(ast.parse(path.read_text(encoding="utf-8"), named))
        if listed:
            found[named] = listed
    return found


def test_the_service_imports_only_the_public_names():
    found = _checked(imports_past_the_boundary)
    assert found == {}


def test_the_service_runs_no_cypher_over_what_the_library_owns():
    found = _checked(cypher_over_the_library)
    assert found == {}


def test_the_service_names_no_label_of_the_library_s_jobs():
    found = _checked(job_labels_named)
    assert found == {}


def test_the_walk_reads_the_real_package():
    assert len(_modules()) > 50


PLANTED = [
    ("from lighthouse.graphs import read", imports_past_the_boundary),
    ("from lighthouse import values", imports_past_the_boundary),
    ("import lighthouse.kinds", imports_past_the_boundary),
    ("import lighthouse\nlighthouse.graphs.read(g, 'q')", imports_past_the_boundary),
    ("q = 'MATCH (e:Entity) RETURN e.key'", cypher_over_the_library),
    ("q = 'MATCH (st:Stamp) RETURN st.serial'", cypher_over_the_library),
    ("q = 'MATCH (s:State)-[:HAS_STATE]-() RETURN s'", cypher_over_the_library),
    ("q = 'MATCH (s) WHERE s.`lh.trust` = 1 RETURN s'", cypher_over_the_library),
    ("q = f'MATCH (e:`{kind.label}`) RETURN e'", cypher_over_the_library),
    ("q = f'MATCH (n:Entry {{id: $id}}) RETURN n'", cypher_over_the_library),
    ("q = 'MATCH (x:`lh.Extraction`) RETURN x.state'", cypher_over_the_library),
    ("q = 'MERGE (w:`lh.Worker` {phase: $phase}) SET w.mark = 1'", cypher_over_the_library),
    ("WORKER = '`lh.Worker`'\nq = f'MATCH (w:{WORKER}) RETURN w'", job_labels_named),
    ("INDEXES = [('lh.Extraction', 'note')]", job_labels_named),
    ("q = 'MATCH (x:`lh.Embedding`) RETURN x.failing'", cypher_over_the_library),
    ("q = 'MERGE (e:lh.Embedding {name: $n}) SET e.embedded = 1'", cypher_over_the_library),
    ("STATE = '`lh.Embedding`'\nq = f'MERGE (e:{STATE}) SET e.failing = true'", job_labels_named),
]


@pytest.mark.parametrize(("source", "check"), PLANTED)
def test_the_checks_find_a_planted_crossing(source, check):
    assert check(ast.parse(source)) != []


@pytest.mark.parametrize(
    "source",
    [
        "from lighthouse import remember, tenant, read_query",
        "import lighthouse\nlighthouse.remember(g, k, [], 'a')",
        "q = 'MATCH (k:ApiKey {id: $id}) RETURN k.id'",
        "q = 'MATCH (x:`lh.Answer`) RETURN x.answer'",
        "said = 'an entity of the kind: State and Entry are words here'",
        "Operation('cypher', example={'query': 'MATCH (e:Entity) RETURN e.key'})",
    ],
)
def test_the_checks_pass_what_the_service_owns(source):
    assert imports_past_the_boundary(ast.parse(source)) == []
    assert cypher_over_the_library(ast.parse(source)) == []
    assert job_labels_named(ast.parse(source)) == []
