"""The `lighthouse` command: one function per subcommand, each in the module of its area.

`lighthouse demo` runs the README's example; `serve` runs the service; `mcp` serves the tools on
stdio; `keys` and `kinds` manage a tenant; `history`, `as-of`, `search`, `failures` and `call` are
quick looks through the operations table; `import`, `export`, `backup`, `restore` and `move` move data;
`work` runs the workers alone, and `status`, `replay` and `set-aside` show and steer them.
"""

from __future__ import annotations

import argparse
import sys
from importlib import metadata

from ..problems import FOREIGN, InvalidArgument, Problem, problem_of
from . import cluster, demo, keys, kinds, looks, move, serve, transfer, work
from .demo import DEFAULT_DATA, DEFAULT_GRAPH, graph_name

__all__ = ["DEFAULT_DATA", "DEFAULT_GRAPH", "graph_name", "main", "parser"]


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="lighthouse", description="Lighthouse: temporal graph memory on FalkorDB."
    )
    top.add_argument(
        "--version",
        action="version",
        version=f"lighthouse-server {metadata.version('lighthouse-server')}, "
        f"lighthouse-graph {metadata.version('lighthouse-graph')}",
        help="show the versions of the server and of the library it runs, and exit",
    )
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for area in (demo, serve, keys, kinds, looks, transfer, move, work, cluster):
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
    except KeyboardInterrupt as stopped:
        _said_after(stopped)
        return 130
    except Exception as error:  # said in one line (and what was done before it), never as a traceback
        problem = problem_of(error, COMMAND_LINE)
        if problem is not error and problem.code == "internal":  # here a person may read the whole message
            print(f"lighthouse: internal: {type(error).__name__}: {str(error)[:500]}", file=sys.stderr)
        else:
            print(f"lighthouse: {problem.code}: {problem.message}", file=sys.stderr)
        _said_after(error)
        return problem.exit_code


def _given(error: Exception) -> Problem:
    return InvalidArgument(str(error)[:500] or type(error).__name__)


# At the command line any ValueError or TypeError left is of what was given: exit 2, as for a refusal.
COMMAND_LINE = FOREIGN | {ValueError: _given, TypeError: _given}


def _said_after(error: BaseException) -> None:
    """The notes an exception carries: what a command had done when it stopped (importing.py)."""
    for note in getattr(error, "__notes__", ()):
        print(f"lighthouse: {note}", file=sys.stderr)
