"""Runs every Python block of the README against a throwaway graph and checks each value it shows.

A statement followed by comment lines (or a trailing comment) that read as a Python literal must
evaluate to that literal. Other comments are prose.
"""

from __future__ import annotations

import ast
import os
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"
CONNECT = 'FalkorDB(host="127.0.0.1", port=26379).select_graph("world")'


def python_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def _shown_value(lines: list[str], statement: ast.stmt) -> tuple[bool, object]:
    """The literal shown after a statement: its trailing comment, or the comment lines right below it."""
    end_line = lines[statement.end_lineno - 1]
    trailing = end_line[statement.end_col_offset :].strip()
    parts = []
    if trailing.startswith("#"):
        parts.append(trailing[1:])
    else:
        for line in lines[statement.end_lineno :]:
            stripped = line.strip()
            if not stripped.startswith("#"):
                break
            parts.append(stripped[1:])
    for candidate in (" ".join(parts), " ".join(parts).split(":")[0]):
        try:
            return True, ast.literal_eval(candidate.strip())
        except (ValueError, SyntaxError):
            continue
    whole = " ".join(parts).strip()
    if whole.startswith(("[", "{")):  # a value with times in it: evaluated, with datetime and UTC at hand
        return True, eval(whole, {"datetime": datetime, "UTC": UTC})
    return False, None


def run_block(code: str, namespace: dict) -> int:
    """Executes a block statement by statement; returns how many shown values it checked."""
    lines = code.splitlines()
    checked = 0
    for statement in ast.parse(code).body:
        source = ast.get_source_segment(code, statement)
        if isinstance(statement, ast.Expr):
            value = eval(compile(ast.Expression(statement.value), "<README>", "eval"), namespace)
            shows, expected = _shown_value(lines, statement)
            if shows:
                assert value == expected, f"README line {statement.lineno}: {source!r} gave {value!r}"
                checked += 1
        else:
            exec(compile(ast.Module([statement], []), "<README>", "exec"), namespace)
    return checked


def test_the_readme_has_its_example():
    blocks = python_blocks(README.read_text())
    assert blocks, "the README has no Python block"
    assert CONNECT in blocks[0], "the example no longer connects as the test expects"


def test_every_python_block_runs_and_shows_what_it_gives(graph):
    text = README.read_text()
    host, port = os.environ["FALKORDB_HOST"], os.environ["FALKORDB_PORT"]
    password = os.environ.get("FALKORDB_PASSWORD")  # a server the tests were pointed at may need one
    where = f'host="{host}", port={port}' + (f", password={password!r}" if password else "")
    namespace: dict = {}
    checked = 0
    for block in python_blocks(text):
        block = block.replace(CONNECT, f'FalkorDB({where}).select_graph("{graph.name}")')
        checked += run_block(block, namespace)
    assert checked >= 10, f"only {checked} shown values were checked"


def test_a_wrong_shown_value_fails():
    namespace: dict = {}
    with pytest.raises(AssertionError):
        run_block("1 + 1  # 3\n", namespace)
    with pytest.raises(AssertionError):
        run_block('"a".upper()\n# "b"\n', namespace)
    assert run_block("x = 2\nx * 2  # 4\nx  # prose, not a value\n", namespace) == 1
