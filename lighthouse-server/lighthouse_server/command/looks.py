"""Quick looks for a person, through the operations table: history, as-of, search, failures, and
`call` for any operation with JSON arguments. They act as the person running them, with every scope."""

from __future__ import annotations

import json
import sys

from .. import keys
from ..database import opened
from ..operations import TABLE
from ..parts import Parts
from ..service import Service
from .options import KEY_HELP, KIND_HELP, TENANT_HELP, TIME_HELP, add_common, person, settings_of

_POSITIONALS = {
    "kind": KIND_HELP,
    "key": KEY_HELP,
    "when": TIME_HELP,
    "question": 'words to look for in the kind\'s text values (e.g. "pump room")',
}


def add(commands) -> None:
    looks = {
        "history": (("kind", "key"), "every version of an entity, oldest first"),
        "as-of": (("kind", "key", "when"), "what was true about an entity at a time"),
        "search": (("kind", "question"), "entities of a kind whose text holds the words"),
        "failures": ((), "the refused writes and why"),
    }
    for name, (positionals, said) in looks.items():
        sub = commands.add_parser(name, help=said)
        for positional in positionals:
            sub.add_argument(positional, metavar=positional.upper(), help=_POSITIONALS[positional])
        sub.add_argument("--tenant", required=True, help=TENANT_HELP)
        add_common(sub)
        sub.set_defaults(run=run_look, operation=name.replace("-", "_"), positionals=positionals)
    call = commands.add_parser("call", help="run any operation of the table with JSON arguments")
    call.add_argument(
        "operation", choices=sorted(TABLE), metavar="OPERATION", help="the operation's name (e.g. entities)"
    )
    call.add_argument(
        "arguments",
        nargs="?",
        default="{}",
        metavar="ARGUMENTS",
        help='its arguments as one JSON object (e.g. \'{"kind": "Device"}\'; default {})',
    )
    call.add_argument("--tenant", required=True, help=TENANT_HELP)
    add_common(call)
    call.set_defaults(run=run_call)


def _run(arguments, operation: str, given: dict, reading: bool = True) -> int:
    with opened(settings_of(arguments), reading=reading) as db:
        keys.ensure_service_schema(db)
        service = Service(Parts.built(db, settings_of(arguments)))
        principal = keys.Principal("cli", arguments.tenant, person(), frozenset(keys.SCOPES))
        result = service.run(principal, operation, given)
    print(json.dumps(result, indent=2, ensure_ascii=False))
    return 0


def _key(text: str) -> object:
    return int(text) if text.lstrip("-").isdecimal() and text.isascii() else text


def run_look(arguments) -> int:
    given = {name: getattr(arguments, name) for name in arguments.positionals}
    if "key" in given:
        given["key"] = _key(given["key"])
    return _run(arguments, arguments.operation, given)


def run_call(arguments) -> int:
    try:
        given = json.loads(arguments.arguments)
    except ValueError as error:
        print(f"lighthouse call: the arguments are not JSON: {error}", file=sys.stderr)
        return 2
    return _run(arguments, arguments.operation, given, reading=False)  # any operation: it may write
