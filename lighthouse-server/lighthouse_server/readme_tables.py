"""The README's tables of settings, operations and commands, made from the code they describe.

    uv run python -m lighthouse_server.readme_tables           # fills README.md's generated sections
    uv run python -m lighthouse_server.readme_tables --check   # exit 1, naming each section that drifted

A generated section of the README lies between `<!-- generated: NAME -->` and `<!-- end: NAME -->`;
the text outside the markers is written by hand and left as it is. The settings table reads the
Settings class (each field's docstring under it, else its comment, its default, its variable in
ENVIRONMENT), the operations table reads the operations table (each operation's first sentence, in the
order and area of its module), and the command list reads the command line's argparse parser, so a
setting, an operation or a command added anywhere shows up without a list kept here.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import inspect
import io
import pkgutil
import re
import sys
import textwrap
import tokenize
from collections.abc import Callable
from dataclasses import MISSING, fields
from pathlib import Path

from . import operations, settings
from .problems import InvalidArgument

README = Path(__file__).resolve().parents[2] / "README.md"  # the repository's README, in a checkout
_MARKERS = re.compile(r"<!-- generated: (?P<name>[a-z_]+) -->\n(?P<body>.*?)<!-- end: (?P=name) -->\n", re.S)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`(\"])")


class ReadmeError(InvalidArgument, ValueError):
    """The README's markers, or the code a table is made from, cannot give a table: the message says why."""


def _cell(text: str) -> str:
    """One table cell: on one line, its pipes escaped."""
    return " ".join(text.split()).replace("|", "\\|")


def _described_fields(cls: type) -> dict[str, str]:
    """Each annotated field of a class with the docstring under it, else the comment on its lines."""
    source = textwrap.dedent(inspect.getsource(cls))
    comments: dict[int, str] = {}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            comments[token.start[0]] = token.string.lstrip("#").strip()
    body = ast.parse(source).body[0].body
    described = {}
    for position, statement in enumerate(body):
        if not isinstance(statement, ast.AnnAssign) or not isinstance(statement.target, ast.Name):
            continue
        after = body[position + 1] if position + 1 < len(body) else None
        if (
            isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant)
            and isinstance(after.value.value, str)
        ):
            described[statement.target.id] = inspect.cleandoc(after.value.value)
        else:
            lines = range(statement.lineno, (statement.end_lineno or statement.lineno) + 1)
            described[statement.target.id] = " ".join(comments[line] for line in lines if line in comments)
    return described


def settings_table() -> str:
    """The settings: name, environment variable, default and what each is, in the class's order."""
    described = _described_fields(settings.Settings)
    rows = ["| setting | environment | default | what |", "|---|---|---|---|"]
    for field in fields(settings.Settings):
        about = described.get(field.name, "")
        if not about:
            raise ReadmeError(
                f"the setting {field.name} has no docstring (or comment) in Settings to describe it"
            )
        default = field.default if field.default is not MISSING else None
        shown = "empty" if default in ("", None) else f"`{default}`"
        variable = settings.ENVIRONMENT.get(field.name)
        rows.append(
            f"| `{field.name}` | {f'`{variable}`' if variable else 'none'} | {shown} | {_cell(about)} |"
        )
    return "\n".join(rows) + "\n"


def _first_sentence(text: str) -> str:
    return _SENTENCE_END.split(" ".join(text.split()), maxsplit=1)[0]


def _areas() -> dict[str, str]:
    """Each operation's name -> the module of the operations package that defines it (its area)."""
    areas = {}
    for module in pkgutil.iter_modules(operations.__path__):
        listed = getattr(importlib.import_module(f"{operations.__name__}.{module.name}"), "OPERATIONS", ())
        areas.update({operation.name: module.name for operation in listed})
    return areas


def operations_table() -> str:
    """The operations: area, name, scope, whether it writes, and the first sentence of its description."""
    areas = _areas()
    rows = ["| area | operation | scope | writes | what |", "|---|---|---|---|---|"]
    shown_area = None
    for operation in operations.TABLE.values():
        area = areas.get(operation.name, "")
        rows.append(
            f"| {area if area != shown_area else ''} | `{operation.name}` | `{operation.scope}` "
            f"| {'yes' if operation.writes else ''} | {_cell(_first_sentence(operation.description))} |"
        )
        shown_area = area
    return "\n".join(rows) + "\n"


def _subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, str, argparse.ArgumentParser]]:
    """(name, its line in the list of commands, its parser) for each subcommand, in the parser's order."""
    listed = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help or "" for choice in action._choices_actions}
            seen: set[int] = set()
            for name, sub in action.choices.items():  # every command, with a help line or not
                if id(sub) not in seen:  # an alias names a parser already listed
                    seen.add(id(sub))
                    listed.append((name, helps.get(name, ""), sub))
    return listed


def commands_table() -> str:
    """The command line's commands (and their own subcommands), each with its line of help."""
    from .command import parser  # the command line imports most of the service: only when asked

    rows = ["| command | what |", "|---|---|"]
    for name, about, sub in _subcommands(parser()):
        if not about:
            raise ReadmeError(f"the command {name} has no help to describe it")
        rows.append(f"| `lighthouse {name}` | {_cell(about)} |")
        for inner, inner_about, _ in _subcommands(sub):
            rows.append(f"| `lighthouse {name} {inner}` | {_cell(inner_about or about)} |")
    return "\n".join(rows) + "\n"


SECTIONS: dict[str, Callable[[], str]] = {
    "settings": settings_table,
    "operations": operations_table,
    "commands": commands_table,
}


def filled(text: str, sections: dict[str, Callable[[], str]] = SECTIONS) -> str:
    """The text with every generated section made again from the code. Each section named in sections
    must be in the text once; a marked section that no function makes is refused."""
    found = [match.group("name") for match in _MARKERS.finditer(text)]
    for name in found:
        if name not in sections:
            raise ReadmeError(f"the README marks a section {name!r}, which nothing generates")
    for name in sections:
        if found.count(name) != 1:
            raise ReadmeError(
                f"the README must hold the section {name!r} once, between <!-- generated: {name} --> "
                f"and <!-- end: {name} --> (found {found.count(name)})"
            )
    return _MARKERS.sub(
        lambda match: (
            f"<!-- generated: {match['name']} -->\n{sections[match['name']]()}<!-- end: {match['name']} -->\n"
        ),
        text,
    )


def drifted(text: str, sections: dict[str, Callable[[], str]] = SECTIONS) -> list[str]:
    """The names of the generated sections whose text is not what the code makes now."""
    made = filled(text, sections)
    before = {match["name"]: match["body"] for match in _MARKERS.finditer(text)}
    after = {match["name"]: match["body"] for match in _MARKERS.finditer(made)}
    return [name for name in after if before.get(name) != after[name]]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m lighthouse_server.readme_tables",
        description=__doc__.splitlines()[0],
    )
    parser.add_argument(
        "readme", nargs="?", default=str(README), help="the README (default: the repository's)"
    )
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a section drifted")
    arguments = parser.parse_args(argv)
    path = Path(arguments.readme)
    try:
        text = path.read_text(encoding="utf-8")
        if arguments.check:
            stale = drifted(text)
            for name in stale:
                print(f"{path}: the {name} section differs from the code", file=sys.stderr)
            return 1 if stale else 0
        made = filled(text)
    except (OSError, ReadmeError) as error:
        print(f"readme_tables: {error}", file=sys.stderr)
        return 2
    if made != text:
        path.write_text(made, encoding="utf-8")
        print(f"{path}: written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
