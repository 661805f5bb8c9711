"""The HTTP API: each operation of the table as POST /v1/<name>, JSON in and out; OpenAPI and /docs.

The key comes as `Authorization: Bearer <key>`; a request may name its tenant in `Lighthouse-Tenant`
(another tenant than the key's is 403). Writes take an `Idempotency-Key` header.
"""

from __future__ import annotations

import json
from contextlib import asynccontextmanager
from importlib import metadata

import anyio.to_thread
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from ..console import console_app
from ..operations import TABLE, Operation
from ..operations.table import unknown_name
from ..problems import DATABASE_RETRY_AFTER, Problem
from . import reference

VERSION = metadata.version("lighthouse-server")


def _problem_response(problem: Problem) -> JSONResponse:
    headers = {"Retry-After": str(problem.retry_after)} if problem.retry_after is not None else None
    return JSONResponse(problem.body(), status_code=problem.status, headers=headers)


def _secret(request: Request) -> str | None:
    given = request.headers.get("authorization", "")
    scheme, _, secret = given.partition(" ")
    return secret.strip() if scheme.lower() == "bearer" and secret.strip() else None


def _arguments(body: bytes) -> object:
    if not body.strip():
        return {}
    try:
        return json.loads(body)
    except (ValueError, UnicodeDecodeError) as error:
        raise Problem("invalid_body", f"the body is not JSON: {str(error)[:200]}") from None
    except RecursionError:
        raise Problem("invalid_body", "the body is JSON nested too deep to read") from None


async def _call(service, request: Request, name: str, arguments: object) -> JSONResponse:
    secret, headers = _secret(request), request.headers
    tenant_named, idempotency_key = headers.get("lighthouse-tenant"), headers.get("idempotency-key")

    # The key check and the operation in one trip to a worker thread: each trip costs the event loop
    # a hand-off and a wake-up, about a tenth of a millisecond.
    def checked_and_run() -> tuple[object, tuple[int, int] | None]:
        principal = service.principal(secret, tenant_named=tenant_named)
        return service.run(principal, name, arguments, idempotency_key), service.replicated()

    result, replicated = await anyio.to_thread.run_sync(checked_and_run)
    # With wait_replicas: how many replicas hold the write, of how many waited for ("0/1": it is on
    # its master only, neither lost nor yet safe from the master's loss).
    headers = None if replicated is None else {"Lighthouse-Replicated": f"{replicated[0]}/{replicated[1]}"}
    return JSONResponse({"result": result}, headers=headers)


def _route(app: FastAPI, service, operation: Operation) -> None:
    async def endpoint(request: Request) -> JSONResponse:
        return await _call(service, request, operation.name, _arguments(await request.body()))

    schema = operation.input_schema()
    if operation.example:
        schema = {**schema, "example": operation.example}
    app.add_api_route(
        f"/v1/{operation.name}",
        endpoint,
        methods=["POST"],
        name=operation.name,
        summary=f"{operation.name} ({operation.scope})",
        description=f"{operation.description}\n\nCalls `lighthouse.{operation.library_name}`. Result: {operation.result}."
        + ("\n\nHeavy: limited per key and minute." if operation.heavy else "")
        + ("\n\nA write: send an `Idempotency-Key` header to make a retry safe." if operation.writes else ""),
        tags=[operation.scope],
        openapi_extra={
            "requestBody": {"required": False, "content": {"application/json": {"schema": schema}}},
            "security": [{"bearer": []}],
        },
    )


def _said(request: Request, error: HTTPException) -> str:
    """An unknown path under /v1/ named with the closest operation; a GET of a POST operation with how
    to call it; any other refusal of the router as it says it."""
    name = request.url.path.removeprefix("/v1/") if request.url.path.startswith("/v1/") else None
    if error.status_code == 404 and name is not None:
        return f"{unknown_name('operation', name, TABLE)}; each is POST /v1/<name>"
    if error.status_code == 405 and name in TABLE:
        return f"{name} is called with POST /v1/{name}, its arguments a JSON object in the body"
    return str(error.detail)


def build(service, parts, *, lifespan=None) -> FastAPI:
    """The API over the service; the console it mounts is handed the process's parts too."""

    @asynccontextmanager
    async def nothing(_app):
        yield

    app = FastAPI(
        title="Lighthouse",
        version=VERSION,
        description="Temporal graph memory for agents. Every call needs an API key as a bearer token.",
        openapi_url="/openapi.json",
        docs_url=None,  # /docs below: a page of our own, from files installed with the package
        redoc_url=None,
        lifespan=lifespan or nothing,
    )

    @app.exception_handler(Problem)
    async def on_problem(_request, problem: Problem):
        return _problem_response(problem)

    @app.exception_handler(HTTPException)
    async def on_http(request: Request, error: HTTPException):
        code = {404: "not_found", 405: "method_not_allowed"}.get(error.status_code, "invalid_argument")
        return _problem_response(Problem(code, _said(request, error)))

    @app.exception_handler(RequestValidationError)
    async def on_invalid(_request, error: RequestValidationError):
        return _problem_response(Problem("invalid_body", str(error.errors())[:500]))

    @app.exception_handler(Exception)
    async def on_anything(_request, error: Exception):
        return _problem_response(Problem("internal", f"an internal error: {type(error).__name__}"))

    @app.get(
        "/health", tags=["health"], summary="whether the service and its database answer (no key needed)"
    )
    async def health():
        answer = await anyio.to_thread.run_sync(service.health)
        if answer["status"] == "ok":
            return JSONResponse(answer)
        # as every other 503 of a database away: when to look again (a supervised server is back in seconds)
        return JSONResponse(answer, status_code=503, headers={"Retry-After": str(DATABASE_RETRY_AFTER)})

    @app.get("/v1/audit", tags=["admin"], summary="the tenant's audit records (admin scope)")
    async def audit(request: Request):
        query = dict(request.query_params)
        for name in ("limit", "page_size"):
            if query.get(name, "").isdecimal() and query[name].isascii():
                query[name] = int(query[name])
        return await _call(service, request, "audit", query)

    @app.get("/v1/kinds", tags=["read"], summary="the tenant's declared kinds")
    async def kinds(request: Request):
        # Its query string as its arguments: one it does not take is refused, as audit's are.
        return await _call(service, request, "kinds", dict(request.query_params))

    @app.get("/v1/status", tags=["read"], summary="what the workers did for the tenant and what waits")
    async def status(request: Request):
        return await _call(service, request, "status", dict(request.query_params))

    @app.get("/docs", include_in_schema=False)
    async def docs():
        return reference.page(app.openapi())

    @app.get("/docs/reference.css", include_in_schema=False)
    async def docs_style():
        return reference.stylesheet()

    for operation in TABLE.values():
        _route(app, service, operation)
    app.mount("/console", console_app(service, parts))  # the review console: HTML pages, same port

    original = app.openapi

    def openapi():
        if app.openapi_schema is None:
            document = original()
            document.setdefault("components", {})["securitySchemes"] = {
                "bearer": {"type": "http", "scheme": "bearer"}
            }
        return app.openapi_schema

    app.openapi = openapi
    return app
