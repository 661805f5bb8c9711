"""The `lighthouse` command: one function per subcommand, each in the module of its area.

`lighthouse demo` runs the README's example; `serve` runs the service; `mcp` serves the tools on
stdio; `keys` and `kinds` manage a tenant; `history`, `as-of`, `search`, `failures` and `call` are
quick looks through the operations table; `import`, `export`, `backup` and `restore` move data;
`work` runs the workers alone, and `status`, `replay` and `set-aside` show and steer them.
"""

from __future__ import annotations

import argparse
import sys

from ..embedded import ServerError
from ..problems import Problem, problem_of
from ..settings import SettingsError
from . import cluster, demo, keys, kinds, looks, serve, transfer, work
from .demo import DEFAULT_DATA, DEFAULT_GRAPH, graph_name

__all__ = ["DEFAULT_DATA", "DEFAULT_GRAPH", "graph_name", "main", "parser"]


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="lighthouse", description="Lighthouse: temporal graph memory on FalkorDB."
    )
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for area in (demo, serve, keys, kinds, looks, transfer, work, cluster):
        area.add(commands)
    _described(top)
    return top


def _described(parser: argparse.ArgumentParser) -> None:
    """Each subcommand's --help opens with the line the list of commands shows for it."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for listed in action._choices_actions:
                sub = action.choices[listed.dest]
                sub.description = sub.description or listed.help
                _described(sub)


def main(argv: list[str] | None = None) -> int:
    arguments = parser().parse_args(argv)
    try:
        return arguments.run(arguments)
    except (ServerError, SettingsError) as error:
        print(f"lighthouse: {error}", file=sys.stderr)
        return 2
    except Problem as problem:  # 2 for what was given, as for any refusal of it below
        print(f"lighthouse: {problem.code}: {problem.message}", file=sys.stderr)
        return 2 if problem.status == 400 else 1
    except KeyboardInterrupt as stopped:
        _said_after(stopped)
        return 130
    except Exception as error:  # said in one line (and what was done before it), never as a traceback
        problem = problem_of(error)
        if problem.code == "internal" and isinstance(error, ValueError | TypeError):  # what was given
            problem = Problem("invalid_argument", str(error)[:500] or type(error).__name__)
        if problem.code == "internal":  # here the person at the command line may read the whole message
            print(f"lighthouse: internal: {type(error).__name__}: {str(error)[:500]}", file=sys.stderr)
        else:
            print(f"lighthouse: {problem.code}: {problem.message}", file=sys.stderr)
        _said_after(error)
        return 2 if problem.status == 400 else 1


def _said_after(error: BaseException) -> None:
    """The notes an exception carries: what a command had done when it stopped (importing.py)."""
    for note in getattr(error, "__notes__", ()):
        print(f"lighthouse: {note}", file=sys.stderr)
