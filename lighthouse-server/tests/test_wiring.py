"""The server's parts are handed to what uses them: the process's Parts (parts.py) are built once and given
to the service, the console, the MCP server and the workers; no module reaches into the Service for them,
sets an attribute on another module's object after it was made, or reads or imports another's private
names."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest
from lighthouse_server import keys
from lighthouse_server.operations import Call
from lighthouse_server.parts import Parts
from lighthouse_server.service import Service
from lighthouse_server.settings import Settings

PACKAGE = Path(__file__).resolve().parents[1] / "lighthouse_server"
# What a caller may ask of the service: who a key is, one operation run for it, its reads and its health.
SERVICE_SURFACE = ["health", "principal", "reading", "replicated", "run", "still"]
# Attributes set on an object made elsewhere, each for a reason of the object's own maker: FastAPI's
# documented way to extend its OpenAPI document, argparse's description of a subcommand, onnxruntime's
# session options, the FalkorDB client's cluster connection replaced by one that never resends (the client
# takes none at its construction), and the modules' own objects (embedded's Server, the local cluster's
# nodes, the gathering's waiting calls, a model failure's count of asks).
SET_AFTER_MADE = {
    ("api/app.py", "app.openapi"),
    ("command/__init__.py", "sub.description"),
    ("embedders/local.py", "options.intra_op_num_threads"),
    ("embedders/local.py", "options.inter_op_num_threads"),
    ("topology.py", "db.connection"),
    ("topology.py", "db.execute_command"),
    ("topology.py", "db.flushdb"),
    ("embedded.py", "server.process"),
    ("embedded.py", "server.started_in"),
    ("local_cluster.py", "node.pid"),
    ("local_cluster.py", "node.process"),
    ("local_cluster.py", "cluster.detached"),
    ("local_cluster.py", "cluster.node_timeout_ms"),
    ("gathering.py", "group.writing"),
    ("gathering.py", "group.pending"),
    ("gathering.py", "one.receipts"),
    ("gathering.py", "one.error"),
    ("worker/model.py", "failure.asks"),
}
# Private names read off another object: argparse lists a parser's subcommands nowhere else; os._exit is
# the child's exit that runs no handler of the parent's.
PRIVATE_READ = {"parser._actions", "action._choices_actions", "argparse._SubParsersAction", "os._exit"}


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path.relative_to(PACKAGE).as_posix(), ast.parse(path.read_text())


def _own(node: ast.Attribute) -> bool:
    """Whether the attribute is on self or cls (or on one of their attributes): the object's own."""
    base = node.value
    while isinstance(base, ast.Attribute):
        base = base.value
    return isinstance(base, ast.Name) and base.id in ("self", "cls")


def _a_service(node: ast.expr) -> bool:
    """service, self.service, console.service: what the modules name the Service they were handed."""
    return (isinstance(node, ast.Name) and node.id == "service") or (
        isinstance(node, ast.Attribute) and node.attr == "service"
    )


def reaches_into_the_service(tree: ast.AST) -> list[str]:
    """Each attribute read of a service that is not one of its public methods."""
    return sorted(
        f"line {node.lineno}: {ast.unparse(node)}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and _a_service(node.value) and node.attr not in SERVICE_SURFACE
    )


def set_after_made(name: str, tree: ast.AST) -> list[str]:
    """Each attribute assigned on an object that is not self's, and not in SET_AFTER_MADE."""
    found = []
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        for target in targets:
            for one in target.elts if isinstance(target, ast.Tuple) else [target]:
                if (
                    isinstance(one, ast.Attribute)
                    and not _own(one)
                    and (name, ast.unparse(one)) not in SET_AFTER_MADE
                ):
                    found.append(f"line {node.lineno}: {ast.unparse(one)} = ...")
    return found


def private_reads(tree: ast.AST) -> list[str]:
    """Each read of a private attribute (one underscore, not a dunder) off an object that is not self's."""
    return [
        f"line {node.lineno}: {ast.unparse(node)}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr.startswith("_")
        and not node.attr.startswith("__")
        and not _own(node)
        and ast.unparse(node) not in PRIVATE_READ
    ]


def private_imports(tree: ast.AST) -> list[str]:
    """Each private name (one underscore) imported from another module."""
    return [
        f"line {node.lineno}: from {'.' * node.level}{node.module or ''} import {alias.name}"
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
        if alias.name.startswith("_") and not alias.name.startswith("__")
    ]


def test_no_module_reaches_into_the_service_for_its_parts():
    reaching = {
        name: found
        for name, tree in _modules()
        if name != "service.py" and (found := reaches_into_the_service(tree))
    }
    assert reaching == {}, "hand the module the Parts (parts.py) instead"


def test_the_checks_find_what_they_look_for():
    assert reaches_into_the_service(ast.parse("service.kinds.kind(t, k)\nconsole.service.settings")) == [
        "line 1: service.kinds",
        "line 2: console.service.settings",
    ]
    assert reaches_into_the_service(ast.parse("service.embedder()\nservice.run(p, 'x', {})")) == [
        "line 1: service.embedder"
    ]
    assert set_after_made("serving.py", ast.parse("service.workers = loop\nself.x = 1")) == [
        "line 1: service.workers = ..."
    ]
    assert private_reads(ast.parse("server._errors.seek(0)\nself._lock")) == ["line 1: server._errors"]
    assert private_imports(
        ast.parse("from .embedded import spawn, _spawn\nfrom __future__ import annotations")
    ) == ["line 1: from .embedded import _spawn"]


def test_no_module_sets_an_attribute_on_another_modules_object_or_takes_its_private_ones():
    assert {name: found for name, tree in _modules() if (found := set_after_made(name, tree))} == {}
    assert {name: found for name, tree in _modules() if (found := private_reads(tree))} == {}
    assert {name: found for name, tree in _modules() if (found := private_imports(tree))} == {}


def test_the_service_shows_only_its_methods_and_holds_the_parts_it_was_handed(db):
    keys.ensure_service_schema(db)
    assert sorted(name for name in vars(Service) if not name.startswith("_")) == SERVICE_SURFACE
    parts = Parts.built(db, Settings())
    service = Service(parts)
    assert [name for name in vars(service) if not name.startswith("_")] == []
    assert service.health()["status"] == "ok"
    principal = keys.Principal("k-wiring", "wiring", "planner", frozenset({"read"}))
    assert service.run(principal, "kinds", {}) == []  # the tenant's kinds, read through the handed parts
    assert parts.kinds.declared("wiring") == ({}, {})


def test_the_parts_and_a_call_cannot_be_changed_once_made(db):
    parts = Parts.built(db, Settings())
    call = Call(parts, keys.Principal("k", "t", "a", frozenset()), graph=None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        parts.kinds = None  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        call.page = (0, 10)  # type: ignore[misc]
    assert dataclasses.replace(call, page=(0, 10)).page == (0, 10) and call.page is None
