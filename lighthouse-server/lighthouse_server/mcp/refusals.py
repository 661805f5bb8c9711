"""The MCP transport's own refusals in the service's one error shape.

The SDK answers some requests before any tool runs: 401 {"error": "invalid_token", ...} for a missing or
wrong key, and plain text for a Content-Type (400), Origin (403) or Host (421) it does not take. Those are
said again as {"error": {"code", "status", "message"}}; JSON-RPC answers (a parse error, a tool's result)
pass as they are, since an MCP client reads those.

A 401 goes without the SDK's `WWW-Authenticate: Bearer` challenge: an MCP client that gets one starts
OAuth discovery (the authorization spec's protected resource metadata, then the authorization server's),
and the keys here are issued by `lighthouse keys create`, not by an OAuth server. No OAuth metadata is
served either (/.well-known/* is a 404 in the one shape).
"""

from __future__ import annotations

import json

from ..problems import Problem

# status of the SDK's refusal -> the service's code (a Host it does not serve is forbidden, 403).
_CODES = {400: "invalid_argument", 401: "unauthorized", 403: "forbidden", 406: "invalid_argument"}
_CODES |= {415: "invalid_argument", 421: "forbidden"}
NO_KEY = (
    "an API key of this server is needed, sent as Authorization: Bearer lh_... (made by `lighthouse keys "
    "create`); this server does no OAuth"
)


def reshaped(status: int, body: bytes) -> Problem | None:
    """The Problem a refusal of the SDK stands for, or None for a JSON-RPC answer (left as it is)."""
    try:
        given = json.loads(body) if body.strip() else None
    except ValueError:
        given = None
    if isinstance(given, dict) and "jsonrpc" in given:
        return None
    if status == 401:
        return Problem(_CODES[status], NO_KEY)
    if isinstance(given, dict):
        said = given.get("error_description") or given.get("error")
    else:
        said = body.decode("utf-8", "replace").strip()
    return Problem(_CODES[status], str(said or "the request was refused")[:300])


class OneShape:
    """ASGI middleware around the MCP app: the refusals of the statuses above, reshaped (reshaped())."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        held: dict = {}

        async def sending(message) -> None:
            if message["type"] == "http.response.start" and message["status"] in _CODES:
                held.update(start=message, body=b"")
                return
            if "start" not in held:
                return await send(message)
            held["body"] += message.get("body", b"")
            if message.get("more_body"):
                return
            await _send(send, held["start"], held["body"])

        await self.app(scope, receive, sending)


async def _send(send, start: dict, body: bytes) -> None:
    problem = reshaped(start["status"], body)
    if problem is None:
        await send(start)
        await send({"type": "http.response.body", "body": body})
        return
    body = json.dumps(problem.body()).encode()
    # Its other headers stay, but a challenge that would send the client into OAuth.
    headers = [(name, value) for name, value in start.get("headers", []) if name.lower() not in _REPLACED]
    headers += [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": problem.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


_REPLACED = (b"content-type", b"content-length", b"www-authenticate")
