"""The console's routes: every page a GET that needs a session, every action a POST that needs the
session's CSRF token too. Library calls run on a worker thread, as the HTTP API's do.

Refusals are pages with the status of problems.py's code: no session is 401 for an action (a page sends
the browser to the sign-in form), a wrong CSRF token or a missing scope is 403. A refused action shows
the page its form was on again, with the reason at its top, so the visitor stays where they were; so does
a read page that refuses a choice in its query (a time, a page's offset, a filter): it is shown without
that choice. What names the page itself (a kind, a key, an id) that cannot be read is a problem page.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

import anyio.to_thread
from starlette.applications import Starlette
from starlette.datastructures import QueryParams
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from ..declarations import Kinds
from ..embedders import Configured
from ..parts import Parts
from ..problems import Problem, problem_of
from ..service import Service
from . import actions, compare, graph_view, pages, records, review
from .pages import BadChoice
from .rendering import HEADERS, TEMPLATES, choices_refused, page, problem_page, refusal
from .session import COOKIE, Sessions, check_csrf, cookie_header, signed_in_key, visitor

_log = logging.getLogger(__name__)
MOST_FORM = 1_000_000  # bytes of one form post
MOST_DROPPED = 4  # refused choices one read page drops before it gives up and shows the problem alone


@dataclass(frozen=True)
class Console:
    """What every page and action is handed: the service that runs the table's operations and reads the
    key's graph, the tenants' kinds and gates, and the configured embedder (the process's parts)."""

    service: Service
    kinds: Kinds
    embedder: Configured


def _refusal(error: Exception, who=None):
    problem = problem_of(error)
    if problem.code in ("internal", "database_error"):
        _log.error("console: %s", error, exc_info=error)
    return problem_page(problem, who)


def _without_refused_choices(console: Console, handler, who, query):
    """The handler's page; where it refuses a choice of the query (BadChoice), the page without the
    parameters that choice came from, the reasons at its top and the status of the refusal. A choice
    that is not in the query (a time the page needs and was not given) leaves nothing to drop: the
    refusal alone."""
    refused: tuple = ()
    while True:
        token = choices_refused.set(refused)
        try:
            return handler(console, who, query)
        except BadChoice as choice:
            kept = [(name, value) for name, value in query.multi_items() if name not in choice.names]
            if len(kept) == len(query.multi_items()) or len(refused) == MOST_DROPPED:
                raise
            query, refused = QueryParams(kept), (*refused, choice)
        finally:
            choices_refused.reset(token)


def _foreign(request: Request) -> bool:
    """Whether a browser says the form came from another site: refused before anything is read."""
    origin = request.headers.get("origin")
    return origin is not None and origin != f"{request.url.scheme}://{request.headers.get('host', '')}"


def _same_site(request: Request) -> bool:
    """Whether the browser says the form came from this site: Origin names this host, or Sec-Fetch-Site
    says same-origin. A sign-in that says neither is refused, so no other site can sign a visitor in
    with a key of its choosing (login CSRF) even through a browser that leaves Origin out."""
    origin = request.headers.get("origin")
    if origin is not None:
        return origin == f"{request.url.scheme}://{request.headers.get('host', '')}"
    return request.headers.get("sec-fetch-site") == "same-origin"


FOREIGN = Problem("forbidden", "this form was sent from another site")
NOT_SAID = Problem(
    "forbidden", "this sign-in does not say it came from this site (an Origin or Sec-Fetch-Site header)"
)


def console_app(service, parts: Parts) -> Starlette:
    """The console as an ASGI app, for mounting at /console: its sessions kept in the parts' database."""
    console = Console(service, parts.kinds, parts.embedder)
    sessions = Sessions(parts.db)

    def reading(handler):
        async def endpoint(request: Request):
            def run():
                who, began = None, time.perf_counter()
                try:
                    who = visitor(service, sessions, request.cookies)
                    if who is None:
                        return RedirectResponse("/console/sign-in", status_code=303)
                    # A page's reads wait while the tenant's schema changes, as the service's calls do
                    # (FalkorDB 4.22.1 crashed on an index lookup while a new index was being built).
                    console.kinds.keep_layout(who.principal.tenant)
                    with console.kinds.gate(who.principal.tenant).writing():
                        answer = _without_refused_choices(console, handler, who, request.query_params)
                except Exception as error:  # noqa: BLE001 - every refusal is a page in one shape
                    answer = _refusal(error, who)
                # What the page cost on the server (reads and rendering), for people and for the tests.
                answer.headers["Server-Timing"] = f"page;dur={(time.perf_counter() - began) * 1000:.1f}"
                return answer

            return await anyio.to_thread.run_sync(run)

        return endpoint

    def acting(handler, again=None):
        """again(console, who, form): the page the form was on, shown again with the reason when the
        action is refused, so that the visitor stays where they were."""

        async def endpoint(request: Request):
            if _foreign(request):
                return problem_page(FOREIGN)
            if int(request.headers.get("content-length") or 0) > MOST_FORM:
                return problem_page(Problem("body_too_large", "the form is too large"))
            try:
                form = await request.form(max_files=0, max_fields=2_000)
            except Exception:  # noqa: BLE001 - a form that cannot be read is refused as a whole
                return problem_page(Problem("invalid_body", "the form cannot be read"))

            def run():
                who = None
                try:
                    who = visitor(service, sessions, request.cookies)
                    if who is None:
                        raise Problem("unauthorized", "sign in first: this session is over or never began")
                    check_csrf(who, form.get("csrf"))
                    return handler(console, who, form)
                except Exception as error:  # noqa: BLE001 - every refusal is a page in one shape
                    if (
                        who is None
                        or again is None
                        or problem_of(error).code in ("internal", "database_error")
                    ):
                        return _refusal(error, who)
                    token = refusal.set(problem_of(error))
                    try:
                        return again(console, who, form)
                    except Exception:  # noqa: BLE001 - the page itself cannot be shown: the refusal alone
                        return _refusal(error, who)
                    finally:
                        refusal.reset(token)

            return await anyio.to_thread.run_sync(run)

        return endpoint

    async def sign_in_form(request: Request):
        return page("sign_in.html", message=None)

    async def sign_in(request: Request):
        if _foreign(request):
            return problem_page(FOREIGN)
        if not _same_site(request):
            return problem_page(NOT_SAID)
        try:
            form = await request.form(max_files=0, max_fields=10)
        except Exception:  # noqa: BLE001 - a form that cannot be read is refused as a whole
            return problem_page(Problem("invalid_body", "the form cannot be read"))

        def run():
            try:
                principal = signed_in_key(service, form.get("key"))
            except Exception as error:  # noqa: BLE001 - said on the form itself
                problem = problem_of(error)
                return page("sign_in.html", status=problem.status, message=problem.message)
            session = sessions.start(principal)
            secure = request.url.scheme == "https"
            return RedirectResponse(
                "/console/",
                status_code=303,
                headers={"Set-Cookie": cookie_header(session.token, secure=secure), **HEADERS},
            )

        return await anyio.to_thread.run_sync(run)

    def sign_out(_console, who, form):
        sessions.end(who.session.token)
        return RedirectResponse(
            "/console/sign-in",
            status_code=303,
            headers={"Set-Cookie": cookie_header("", secure=False, clear=True)},
        )

    stylesheet = (TEMPLATES / "console.css").read_bytes()
    script = (TEMPLATES / "console.js").read_bytes()

    async def css(request: Request):
        return Response(stylesheet, media_type="text/css", headers={"Cache-Control": "max-age=300"})

    async def js(request: Request):
        headers = {"Cache-Control": "max-age=300", "X-Content-Type-Options": "nosniff"}
        return Response(script, media_type="text/javascript", headers=headers)

    routes = [
        Route("/", reading(pages.overview_page)),
        Route("/sign-in", sign_in_form, methods=["GET"]),
        Route("/sign-in", sign_in, methods=["POST"]),
        Route("/sign-out", acting(sign_out), methods=["POST"]),
        Route("/console.css", css),
        Route("/console.js", js),
        Route("/search", reading(pages.search_page)),
        Route("/kind", reading(pages.kind_page)),
        Route("/entity", reading(pages.entity_page)),
        Route("/diff", reading(compare.diff_page)),
        Route("/graph", reading(graph_view.graph_page)),
        Route("/review", reading(review.review_page)),
        Route("/review", acting(review.decide, review.review_again), methods=["POST"]),
        Route("/entry", reading(actions.entry_page)),
        Route("/entry/invalidate", acting(actions.invalidate, actions.entry_again), methods=["POST"]),
        Route("/notes", reading(records.notes_page)),
        Route("/notes/replay", acting(records.replay, records.notes_again), methods=["POST"]),
        Route("/episodes", reading(records.episodes_page)),
        Route("/episode", reading(records.episode_page)),
        Route("/conversations", reading(records.users_page)),
        Route("/conversations/user", reading(records.user_page)),
        Route("/conversations/session", reading(records.session_page)),
        Route("/forget", reading(actions.forget_page)),
        Route("/forget", acting(actions.forget, actions.forget_again), methods=["POST"]),
    ]
    app = Starlette(routes=routes)

    async def not_found(request, error):
        status = getattr(error, "status_code", 404)
        code = {404: "not_found", 405: "method_not_allowed"}.get(status, "invalid_argument")
        return problem_page(Problem(code, "there is no such page in the console"))

    app.add_exception_handler(404, not_found)
    app.add_exception_handler(405, not_found)
    return app


__all__ = ["COOKIE", "console_app"]
