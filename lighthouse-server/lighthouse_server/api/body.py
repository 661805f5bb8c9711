"""The limits of one request body, for every path (HTTP API and MCP): over its size, 413; not all there
within its time (a body shorter than its Content-Length, a client that stalls), 408; in the one shape."""

from __future__ import annotations

import json

import anyio

from ..problems import Problem


async def send_problem(send, problem: Problem) -> None:
    body = json.dumps(problem.body()).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if problem.retry_after is not None:
        headers.append((b"retry-after", str(problem.retry_after).encode()))
    await send({"type": "http.response.start", "status": problem.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class BodyLimit:
    """ASGI middleware: reads a body up to the limit before the app sees it; a longer one is refused, and
    so is one that has not all arrived within deadline_s of the request."""

    def __init__(self, app, limit: int, deadline_s: float = 30.0) -> None:
        self.app = app
        self.limit = limit
        self.deadline_s = deadline_s

    def _too_large(self) -> Problem:
        return Problem("body_too_large", f"the request body is over the limit of {self.limit} bytes")

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http" or scope["method"] in ("GET", "HEAD", "OPTIONS", "DELETE"):
            return await self.app(scope, receive, send)
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.limit:
            return await send_problem(send, self._too_large())
        chunks, size = [], 0
        with anyio.move_on_after(self.deadline_s) as late:
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    return
                chunk = message.get("body", b"")
                size += len(chunk)
                if size > self.limit:
                    return await send_problem(send, self._too_large())
                chunks.append(chunk)
                if not message.get("more_body"):
                    break
        if late.cancelled_caught:
            said = f"the request body did not all arrive within {self.deadline_s:g} s"
            return await send_problem(send, Problem("body_timeout", said))
        body, given = b"".join(chunks), False

        async def replay():
            nonlocal given
            if given:
                return await receive()
            given = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)
