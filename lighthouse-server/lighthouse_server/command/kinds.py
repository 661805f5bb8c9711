"""`lighthouse kinds declare|list`: a tenant's kinds, stored in its own graph."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .. import audit, keys
from ..database import opened
from ..declarations import Kinds
from .options import add_common, person, settings_of


def add(commands) -> None:
    kinds = commands.add_parser("kinds", help="declare and list a tenant's kinds")
    actions = kinds.add_subparsers(dest="action", required=True, metavar="ACTION")
    declare = actions.add_parser("declare", help="declare kinds from a JSON file: one declaration or a list")
    declare.add_argument(
        "file", help='JSON: {"label", "key", "times", "text", "relations", "dimensions"} or a list'
    )
    listing = actions.add_parser("list", help="list the declared kinds as JSON")
    for sub in (declare, listing):
        sub.add_argument("--tenant", required=True, help="the tenant id")
        add_common(sub)
    declare.set_defaults(run=run_declare)
    listing.set_defaults(run=run_list)


def run_declare(arguments) -> int:
    try:
        given = json.loads(Path(arguments.file).read_text())
    except (OSError, ValueError) as error:
        print(
            f"lighthouse kinds declare: {arguments.file} is not a readable JSON file: {error}",
            file=sys.stderr,
        )
        return 2
    declarations = given if isinstance(given, list) else [given]
    with opened(settings_of(arguments)) as db:
        keys.ensure_service_schema(db)
        who = person()
        done = Kinds(db).declare(arguments.tenant, declarations, who)
        audit.write(
            db,
            tenant=arguments.tenant,
            action="kind_declared",
            who=who,
            key_id=None,
            what={"kinds": declarations, "answer": done},
        )
    for line in done:
        print(json.dumps(line))
    return 0


def run_list(arguments) -> int:
    with opened(settings_of(arguments)) as db:
        for declaration in Kinds(db).declared(arguments.tenant, fresh=True)[0].values():
            print(json.dumps(declaration))
    return 0
