"""`lighthouse keys create|list|revoke`: on the running server's database, or one started briefly."""

from __future__ import annotations

import json
import sys

from lighthouse import tenant

from .. import audit
from .. import keys as api_keys
from ..database import opened
from .options import TENANT_HELP, add_common, person, settings_of


def add(commands) -> None:
    keys = commands.add_parser("keys", help="create, list and revoke API keys")
    actions = keys.add_subparsers(dest="action", required=True, metavar="ACTION")
    create = actions.add_parser(
        "create", help="create a key (shown once) for one tenant, one agent and scopes"
    )
    create.add_argument("--tenant", required=True, help=TENANT_HELP)
    create.add_argument(
        "--agent",
        required=True,
        help="the agent's name, text of 1 to 200 characters: the `by` of every write made with the key",
    )
    create.add_argument(
        "--scope",
        action="append",
        required=True,
        choices=api_keys.SCOPES,
        help="a scope: read, write, review or admin; give --scope once for each",
    )
    listing = actions.add_parser("list", help="list keys (never the keys themselves)")
    listing.add_argument("--tenant", default=None, help="only this tenant's keys: a tenant id (e.g. acme)")
    revoke = actions.add_parser("revoke", help="revoke a key by its id")
    revoke.add_argument("id", metavar="ID", help="the key's id (not the key), as create and list show it")
    for sub in (create, listing, revoke):
        add_common(sub)
    create.set_defaults(run=run_create)
    listing.set_defaults(run=run_list)
    revoke.set_defaults(run=run_revoke)


def run_create(arguments) -> int:
    with opened(settings_of(arguments)) as db:
        api_keys.ensure_service_schema(db)
        try:
            made = api_keys.create(db, arguments.tenant, arguments.agent, arguments.scope)
        except ValueError as error:
            print(f"lighthouse keys create: {error}", file=sys.stderr)
            return 2
        shown = {name: value for name, value in made.items() if name != "key"}
        audit.write(db, tenant=made["tenant"], action="key_created", who=person(), key_id=None, what=shown)
    print(json.dumps(made, indent=2))
    print("Keep the key now: it is not shown again and only its hash is stored.", file=sys.stderr)
    return 0


def run_list(arguments) -> int:
    with opened(settings_of(arguments), reading=True) as db:
        if arguments.tenant is not None:
            tenant(db, arguments.tenant)  # the one check of a tenant id: Refused, said in one line
        for key in api_keys.listed(db, arguments.tenant):
            print(json.dumps(key))
    return 0


def run_revoke(arguments) -> int:
    with opened(settings_of(arguments), reading=True) as db:
        revoked = api_keys.revoke(db, arguments.id)
        if revoked is None:
            print(f"lighthouse keys revoke: no key {arguments.id[:80]!r}", file=sys.stderr)
            return 2
        if not revoked["already"]:  # revoked once: one audit record
            audit.write(
                db, tenant=revoked["tenant"], action="key_revoked", who=person(), key_id=None, what=revoked
            )
    print(json.dumps(revoked))
    return 0
