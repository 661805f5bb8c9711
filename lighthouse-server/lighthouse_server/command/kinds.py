"""`lighthouse kinds declare|list`: a tenant's kinds, stored in its own graph.

While a `lighthouse serve` runs on the data directory, `declare` sends the declarations to that server
(`POST /v1/declare_kinds` with an admin key of the tenant), so the server holds its writers of the
tenant back while ensure_schema() runs; a declaration written to its FalkorDB from here would not. With
an external FalkorDB (falkordb_url) no announcement names the serve: with a key, the declaration goes
to the serve the settings name (host, port); without one it is written directly, and says so.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import httpx

from .. import audit, keys
from ..database import RUNNING, opened
from ..declarations import Kinds
from ..problems import CODES, Problem
from ..settings import Settings
from .options import TENANT_HELP, add_common, person, serve_headers, settings_of

SERVER_TIMEOUT = 120.0  # seconds: a declaration waits for the tenant's writers in flight, then the schema
ANY_HOST = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}  # a wildcard is reached on loopback


def add(commands) -> None:
    kinds = commands.add_parser("kinds", help="declare and list a tenant's kinds")
    actions = kinds.add_subparsers(dest="action", required=True, metavar="ACTION")
    declare = actions.add_parser(
        "declare",
        help="declare kinds from a JSON file: one declaration or a list",
        description="Declare kinds from a JSON file: one declaration or a list. While a `lighthouse serve` "
        "runs on the data directory, the declarations go to that server with an admin key of the tenant "
        "(--key or LIGHTHOUSE_KEY), so it holds the tenant's writers back while it makes the schema; "
        "otherwise they are written to the database directly. With FALKORDB_URL and a key they go to the "
        "serve at the settings' host and port (LIGHTHOUSE_HOST, LIGHTHOUSE_PORT).",
    )
    declare.add_argument(
        "file",
        metavar="FILE",
        help='a JSON file: one declaration {"label", "key", "times", "text", "relations", "dimensions"} or a '
        "list of them",
    )
    declare.add_argument(
        "--key",
        default=None,
        help="an API key of the tenant with the admin scope (default: LIGHTHOUSE_KEY); "
        "needed while a server runs on the data directory, and with FALKORDB_URL to go through a serve",
    )
    listing = actions.add_parser("list", help="list the declared kinds as JSON")
    for sub in (declare, listing):
        sub.add_argument("--tenant", required=True, help=TENANT_HELP)
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
    settings = settings_of(arguments, key=arguments.key)
    server = serving(settings)
    if settings.falkordb_url and settings.key:
        # The database is elsewhere, so no announcement says which serve uses it: with a key, the
        # declaration goes to the serve these settings name (host and port), which holds its writers back.
        server = {"http_host": settings.host, "http_port": settings.port, "pid": "at those settings"}
    elif settings.falkordb_url:
        print(
            f"lighthouse kinds declare: declared directly on {settings.falkordb_url}; a serve using that "
            "database does not hold its writers back meanwhile: give --key (and its --host/--port settings) "
            "to declare through it",
            file=sys.stderr,
        )
    if server is None:
        with opened(settings) as db:
            # A serve that started since the look above holds the directory, and db is its FalkorDB.
            server = serving(settings)
            if server is None:
                done = _declare_here(db, arguments.tenant, declarations)
    if server is not None:
        if not settings.key:
            print(
                f"lighthouse kinds declare: a lighthouse serve runs on {settings.data} (pid {server['pid']}), "
                "so the kinds are declared through it, which holds the tenant's writers back meanwhile; "
                "give an API key of the tenant with the admin scope: --key lh_... or LIGHTHOUSE_KEY "
                "(lighthouse keys create --tenant T --agent NAME --scope admin). Nothing was declared.",
                file=sys.stderr,
            )
            return 2
        done = _declare_through(server, settings, arguments.tenant, declarations)
    for line in done:
        print(json.dumps(line))
    return 0


def serving(settings: Settings) -> dict | None:
    """What a live `lighthouse serve` on the data directory announced ({"host", "port", "pid",
    "http_port"}), or None: no announcement, or one left by a server that died (kill -9)."""
    if settings.falkordb_url:  # the database is elsewhere: the data directory is not in use
        return None
    try:
        found = json.loads((Path(settings.data) / RUNNING).read_text())
        pid, http_port = int(found["pid"]), int(found["http_port"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:  # alive, as another user
        pass
    return {**found, "pid": pid, "http_port": http_port}


def _declare_here(db, tenant_id: str, declarations: list) -> list:
    keys.ensure_service_schema(db)
    who = person()
    done = Kinds(db).declare(tenant_id, declarations, who)
    audit.write(
        db,
        tenant=tenant_id,
        action="kind_declared",
        who=who,
        key_id=None,
        what={"kinds": declarations, "answer": done},
    )
    return done


def _declare_through(server: dict, settings: Settings, tenant_id: str, declarations: list) -> list:
    """The server's answer to declare_kinds; Problem (its error, or unreachable) otherwise. The tenant
    named in a header makes the server refuse a key of another tenant (403)."""
    announced = server.get("http_host")  # where that serve listens (older announcements lack it)
    chosen = announced if isinstance(announced, str) and announced else settings.host
    host = ANY_HOST.get(chosen, chosen)
    url = f"http://{f'[{host}]' if ':' in host else host}:{server['http_port']}/v1/declare_kinds"
    try:
        answer = httpx.post(
            url,
            json={"kinds": declarations},
            headers=serve_headers(settings.key, tenant_id),
            timeout=SERVER_TIMEOUT,
        )
    except httpx.HTTPError as error:
        raise Problem(
            "database_unavailable",
            f"the lighthouse serve of {settings.data} (pid {server['pid']}) does not answer at {url}: {error}; "
            "if it listens on another host, set LIGHTHOUSE_HOST",
        ) from None
    try:
        body = answer.json()
    except ValueError:
        body = None
    if answer.status_code == 200 and isinstance(body, dict) and isinstance(body.get("result"), list):
        return body["result"]
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict) and error.get("code") in CODES:
        raise Problem(error["code"], f"the server refused: {error.get('message')}")
    raise Problem("internal", f"the server answered {answer.status_code}: {answer.text[:500]}")


def run_list(arguments) -> int:
    with opened(settings_of(arguments), reading=True) as db:
        for declaration in Kinds(db).declared(arguments.tenant, fresh=True)[0].values():
            print(json.dumps(declaration))
    return 0
