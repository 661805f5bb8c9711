"""What `lighthouse COMMAND --help` says of each argument: what it is and its format, never only its
name; and the exit code of a refused `kinds declare`, as the README's exit codes say."""

from __future__ import annotations

import argparse
import json
import re
from importlib.metadata import version

import pytest
from lighthouse_server.command import main, parser
from service_process import Lighthouse

TIMES = {"when", "at", "t", "since"}
PATHS = {"data", "config", "out", "file", "directory"}


def _arguments(found: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    for action in found._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _arguments(sub, (*path, name))
        elif not isinstance(action, argparse._HelpAction):
            yield " ".join(path), action


def _parsers(found: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    yield " ".join(path), found
    for action in found._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, (*path, name))


ARGUMENTS = list(_arguments(parser()))


@pytest.mark.parametrize(("command", "action"), ARGUMENTS, ids=[f"{c} {a.dest}" for c, a in ARGUMENTS])
def test_each_argument_says_what_it_is_and_its_format(command, action):
    said = action.help or ""
    words = re.findall(r"[\w-]+", said.lower())
    assert len(words) >= 5, f"{command} {action.dest}: {said!r} says too little"
    named = set(action.dest.lower().split("_")) | {"the", "a", "an", "its", "id"}
    assert set(words) - named, f"{command} {action.dest}: {said!r} only names the argument"
    if action.type is int:
        assert "whole number" in said, f"{command} {action.dest}: {said!r} gives no format"
    if action.dest in TIMES:
        assert "ISO 8601" in said
    if action.dest == "tenant":
        assert "e.g. acme" in said
    if action.dest in PATHS:
        assert "path" in said or "file" in said
    if action.choices is not None and len(action.choices) <= 6:
        assert all(choice in said for choice in action.choices), f"{command} {action.dest}: {said!r}"


def test_no_help_repeats_an_arguments_name_as_its_description():
    for command, found in _parsers(parser()):
        shown = found.format_help()
        repeated = re.findall(r"^\s+(\S+)\s+the \1$", shown, re.M | re.I)
        assert not repeated, (command, repeated)


def test_version_names_the_server_and_the_library(capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["--version"])
    assert stopped.value.code == 0
    shown = capsys.readouterr().out.strip()
    assert (
        shown
        == f"lighthouse-server {version('lighthouse-server')}, lighthouse-graph {version('lighthouse-graph')}"
    )
    assert version("lighthouse-server") == version("lighthouse-graph") != "0.1.1"


def test_kinds_declare_with_an_undeclared_target_exits_2(tmp_path):
    here = Lighthouse(tmp_path / "data")
    declaration = tmp_path / "kinds.json"
    declaration.write_text(json.dumps([{"label": "Device", "key": "serial", "relations": {"IN": "Room"}}]))
    refused = here.command("kinds", "declare", "--tenant", "acme", str(declaration))
    assert refused.returncode == 2, refused.stderr
    assert refused.stderr.count("\n") == 1 and "'Room'" in refused.stderr and "not declared" in refused.stderr
    listed = here.command("kinds", "list", "--tenant", "acme")
    assert listed.returncode == 0 and listed.stdout == ""  # nothing was declared
