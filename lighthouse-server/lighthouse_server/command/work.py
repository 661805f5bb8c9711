"""`lighthouse work` (the workers alone, in the foreground), `status`, `replay` and `set-aside`.

`work` runs the loop `lighthouse serve` runs when a model is configured, on the running server's
database when one holds the data directory. `status` goes through a running serve when given a key
(that server's settings then say which phases are configured), else reads the graphs directly.
"""

from __future__ import annotations

import json
import signal
import sys

import httpx

from .. import keys, readiness, topology
from ..database import opened
from ..parts import Parts
from ..problems import CODES, Problem
from ..service import Service
from .kinds import ANY_HOST, serving
from .options import TENANT_HELP, add_common, person, serve_headers, settings_of

SERVER_TIMEOUT = 30.0


def add(commands) -> None:
    work = commands.add_parser(
        "work",
        help="run the extraction (and embedding) workers in the foreground until interrupted",
        description="Run the workers alone: the extraction worker reads every tenant's notes and asks the "
        "model configured by model_url (LIGHTHOUSE_MODEL_URL), model_name, model_key; without a model it "
        "does not run and says so. Run one worker per database: a serve with model_url runs one already.",
    )
    status = commands.add_parser(
        "status", help="what the workers did per tenant and what waits (notes, rows, refusals, errors)"
    )
    status.add_argument("--tenant", default=None, help="one tenant's id (e.g. acme; default: every tenant)")
    status.add_argument(
        "--key",
        default=None,
        help="an API key of the tenant (default: LIGHTHOUSE_KEY): with one, the status comes from the "
        "running serve, whose settings say which phases are configured",
    )
    replay = commands.add_parser("replay", help="give a set-aside note back to the extraction worker")
    replay.add_argument(
        "note",
        metavar="NOTE_ID",
        help="the note's entry id, as set-aside lists it (e.g. notes:planner:2026-12-01/7)",
    )
    replay.add_argument("--tenant", required=True, help=TENANT_HELP)
    listing = commands.add_parser("set-aside", help="list the notes the extraction worker set aside")
    listing.add_argument("--tenant", required=True, help=TENANT_HELP)
    listing.add_argument(
        "--limit",
        type=int,
        default=100,
        help="how many notes at most, a whole number from 1 to 1000 (default 100)",
    )
    for sub in (work, status, replay, listing):
        add_common(sub)
    work.set_defaults(run=run_work)
    status.set_defaults(run=run_status)
    replay.set_defaults(run=run_replay)
    listing.set_defaults(run=run_set_aside)


def run_work(arguments) -> int:
    from ..worker.loop import Loop

    settings = settings_of(arguments)
    readiness.check(settings)
    with opened(settings) as db:
        keys.ensure_service_schema(db)
        workers = Loop(settings, db)
        print(f"lighthouse work: {workers.describe()}", file=sys.stderr, flush=True)
        if not workers.runs_anything:
            print("lighthouse work: nothing to run; set model_url (LIGHTHOUSE_MODEL_URL)", file=sys.stderr)
            return 2
        for number in (signal.SIGINT, signal.SIGTERM):
            signal.signal(number, lambda *_: workers.stop_event.set())
        workers.run()
    print("lighthouse work: stopped", file=sys.stderr, flush=True)
    return 0


def _as_person(arguments, tenant_ids, operation: str, given: dict) -> list:
    """The operation's answer for each tenant (None: every tenant), acting as the person running it."""
    from lighthouse import tenant_ids as every_tenant

    settings = settings_of(arguments)
    with opened(settings, reading=True) as db:
        keys.ensure_service_schema(db)
        if operation == "status":  # the database's shape first: one server, or each shard's state
            print(f"lighthouse status: database: {json.dumps(topology.health(db))}", file=sys.stderr)
        service = Service(Parts.built(db, settings))
        chosen = every_tenant(db) if tenant_ids is None else tenant_ids
        return [
            service.run(keys.Principal("cli", tenant_id, person(), frozenset(keys.SCOPES)), operation, given)
            for tenant_id in chosen
        ]


def _through(server: dict, settings, tenant_id: str | None) -> dict:
    host = ANY_HOST.get(settings.host, settings.host)
    url = f"http://{f'[{host}]' if ':' in host else host}:{server['http_port']}/v1/status"
    try:
        answer = httpx.get(url, headers=serve_headers(settings.key, tenant_id), timeout=SERVER_TIMEOUT)
        body = answer.json()
    except (httpx.HTTPError, ValueError) as error:
        raise Problem(
            "database_unavailable", f"the lighthouse serve at {url} does not answer: {error}"
        ) from None
    if answer.status_code == 200 and isinstance(body, dict) and isinstance(body.get("result"), dict):
        return body["result"]
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict) and error.get("code") in CODES:
        raise Problem(error["code"], f"the server refused: {error.get('message')}")
    raise Problem("internal", f"the server answered {answer.status_code}: {answer.text[:500]}")


def run_status(arguments) -> int:
    settings = settings_of(arguments, key=arguments.key)
    server = serving(settings) if settings.key else None
    if server is not None:
        found = [_through(server, settings, arguments.tenant)]
    else:
        found = _as_person(arguments, None if arguments.tenant is None else [arguments.tenant], "status", {})
    for one in found:
        print(json.dumps(one, ensure_ascii=False))
    return 0


def run_replay(arguments) -> int:
    (done,) = _as_person(arguments, [arguments.tenant], "replay", {"note": arguments.note})
    print(json.dumps(done, ensure_ascii=False))
    return 0 if done.get("status") == "replayed" else 2  # no such note set aside: a refusal


def run_set_aside(arguments) -> int:
    (listed,) = _as_person(arguments, [arguments.tenant], "set_aside", {"limit": arguments.limit})
    for one in listed:
        print(json.dumps(one, ensure_ascii=False))
    return 0
