"""Every `lighthouse ...` command line the README shows is one the command line takes as written."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from lighthouse_server.command import parser

README = (Path(__file__).resolve().parents[2] / "README.md").read_text()


def _command_lines() -> list[list[str]]:
    found = []
    for block in re.findall(r"```sh\n(.*?)```", README, re.S):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split("#", 1)[0].split("&&")[-1].strip()
            if line.startswith("uv run lighthouse "):
                words = shlex.split(line)
                found.append(words[words.index("lighthouse") + 1 :])
    return found


COMMAND_LINES = _command_lines()


def test_the_readme_shows_the_service_commands() -> None:
    shown = {words[0] for words in COMMAND_LINES}
    assert {"demo", "keys", "kinds", "serve"} <= shown


@pytest.mark.parametrize("words", COMMAND_LINES, ids=[" ".join(words) for words in COMMAND_LINES])
def test_each_command_line_of_the_readme_parses(words: list[str]) -> None:
    arguments = parser().parse_args(words)
    assert callable(arguments.run)


def test_each_subcommand_named_in_the_readme_exists() -> None:
    named = set(re.findall(r"`(?:lighthouse )?(import|export|backup|restore|server|demo|serve|mcp) ", README))
    choices = next(
        action.choices for action in parser()._actions if isinstance(action.__dict__.get("choices"), dict)
    )
    assert named and named <= set(choices)


def test_the_mcp_snippet_is_the_stdio_command() -> None:
    snippet = json.loads(re.search(r"```json\n(.*?)```", README, re.S).group(1))
    entry = snippet["mcpServers"]["lighthouse"]
    assert entry["command"] == "uv" and entry["args"][0] == "run"
    assert "LIGHTHOUSE_KEY" in entry["env"]
    parser().parse_args(entry["args"][entry["args"].index("lighthouse") + 1 :])
