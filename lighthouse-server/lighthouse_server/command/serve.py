"""`lighthouse serve` (HTTP API, MCP and /health on one port) and `lighthouse mcp` (MCP over stdio)."""

from __future__ import annotations

import sys

from ..problems import Problem
from .options import add_common, settings_of


def add(commands) -> None:
    serve = commands.add_parser("serve", help="serve the HTTP API (/v1), MCP (/mcp) and /health on one port")
    add_common(serve)
    serve.add_argument(
        "--host",
        default=None,
        help="the address to listen on, an IP address or host name (default: 127.0.0.1)",
    )
    serve.add_argument(
        "--port",
        type=int,
        default=None,
        help="the port to listen on, a whole number from 1 to 65535 (default: 8765)",
    )
    serve.add_argument(
        "--fsync",
        choices=("everysec", "always"),
        default=None,
        help="append-only file policy: everysec (default; a power loss may lose about the last second) or "
        "always (loses nothing; each write waits for the disk)",
    )
    serve.set_defaults(run=run_serve)
    mcp = commands.add_parser(
        "mcp", help="serve the MCP tools over stdio, acting with the key in LIGHTHOUSE_KEY"
    )
    add_common(mcp)
    mcp.set_defaults(run=run_mcp)


def run_serve(arguments) -> int:
    from ..serving import serve

    return serve(settings_of(arguments, host=arguments.host, port=arguments.port, fsync=arguments.fsync))


def run_mcp(arguments) -> int:
    from .. import keys, readiness
    from ..database import opened
    from ..mcp import run_stdio
    from ..parts import Parts
    from ..service import Service

    settings = settings_of(arguments)
    readiness.check(settings)
    if not settings.key:
        print("lighthouse mcp: set LIGHTHOUSE_KEY to an API key (lighthouse keys create)", file=sys.stderr)
        return 2
    with opened(settings) as db:
        keys.ensure_service_schema(db)
        parts = Parts.built(db, settings)
        service = Service(parts)
        try:
            principal = service.principal(settings.key)
        except Problem as problem:
            print(f"lighthouse mcp: {problem.message}", file=sys.stderr)
            return 2
        run_stdio(service, parts, principal)
    return 0
