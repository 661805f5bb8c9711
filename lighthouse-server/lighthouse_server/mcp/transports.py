"""The MCP server over streamable HTTP (the key as bearer token, checked by the SDK's token verifier)
and over stdio (the key from LIGHTHOUSE_KEY)."""

from __future__ import annotations

import anyio
import anyio.to_thread
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.stdio import stdio_server
from mcp.server.transport_security import TransportSecuritySettings
from starlette.responses import JSONResponse

from ..keys import Principal
from ..parts import Parts
from ..problems import Problem, problem_of
from .tools import server


class KeyVerifier:
    """The SDK's TokenVerifier: a bearer token is one of our API keys, not revoked."""

    def __init__(self, service) -> None:
        self.service = service

    async def verify_token(self, token: str) -> AccessToken | None:
        try:
            found = await anyio.to_thread.run_sync(self.service.principal, token)
        except Problem as problem:
            if problem.code in ("unauthorized", "forbidden"):
                return None
            raise  # the database is unreachable or failed: _unexpected() answers 503 or 500

        return AccessToken(
            token=token,
            client_id=found.key_id,
            scopes=sorted(found.scopes),
            claims={"tenant": found.tenant, "agent": found.agent},
        )


def _from_token(ctx) -> Principal:
    token = get_access_token()
    if token is None:
        user = getattr(getattr(ctx, "request", None), "user", None)
        token = getattr(user, "access_token", None)
    if token is None or not token.claims:
        raise Problem("unauthorized", "an API key is needed as the bearer token")
    return Principal(token.client_id, token.claims["tenant"], token.claims["agent"], frozenset(token.scopes))


async def _unexpected(_request, error: Exception) -> JSONResponse:
    """What Starlette's outermost handler answers for an error no tool turned into a result (the key's
    check, when the database cannot be reached): the service's one error shape."""
    problem = problem_of(error)
    return JSONResponse(problem.body(), status_code=problem.status)


def http_app(service, parts: Parts):
    """The Starlette app serving /mcp, on the settings' host and port; its lifespan runs the SDK's
    session manager."""
    settings = parts.settings
    host, port = settings.host, settings.port
    allowed = [f"{host}:*", "127.0.0.1:*", "localhost:*", "[::1]:*"]
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=host in ("127.0.0.1", "localhost", "::1"),
        allowed_hosts=allowed,
        allowed_origins=[f"http://{name}" for name in allowed],
    )
    # Only named in metadata: the keys are issued by `lighthouse keys create`, not by an OAuth server here.
    auth = AuthSettings(issuer_url=f"http://localhost:{port}", resource_server_url=None, required_scopes=[])
    app = server(service, parts, _from_token).streamable_http_app(
        streamable_http_path="/mcp",
        json_response=True,
        stateless_http=True,
        transport_security=security,
        host=host,
        auth=auth,
        token_verifier=KeyVerifier(service),
        max_request_body_size=settings.body_limit,
    )
    app.add_exception_handler(Exception, _unexpected)  # Starlette gives Exception's handler the 500s
    return app


def run_stdio(service, parts: Parts, principal: Principal) -> None:
    """Serves the tools on stdin/stdout until the client closes them. The key is checked again before
    each call (keys.REMEMBERED_FOR at most apart), so revoking it ends the session's access."""
    mcp_server = server(service, parts, lambda _ctx: service.still(principal))

    async def main() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await mcp_server.run(read_stream, write_stream, mcp_server.create_initialization_options())

    anyio.run(main)
