"""HTML out: the console's Jinja templates (autoescape on for every one), and the headers of every page.

The library stores text as given, so every value reaches a page only through a template that escapes
it. The Content-Security-Policy allows scripts and styles only from the console's own files (console.js,
console.css), never inline, so markup that slipped through anyway could not run.
"""

from __future__ import annotations

import json
import re
from contextvars import ContextVar
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from urllib.parse import quote_plus

from jinja2 import Environment, FileSystemLoader
from markupsafe import Markup, escape
from starlette.responses import HTMLResponse

from ..encoding import jsonable
from ..problems import Problem

TEMPLATES = Path(__file__).parent / "templates"
HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; "
        "frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",  # a search's words stay out of other sites' logs; Origin stays sent
    "Cache-Control": "no-store",
}
SHOWN_TEXT = 2_000  # characters of one value a list shows; the entity page shows all


ISO_TIME = re.compile(r"\A\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]00:00)?\Z")


def when_text(value: object) -> str:
    """A time as people read it, the one format of every page: 2026-01-31 12:00:00Z (UTC, whole
    seconds); ISO text of a UTC time the same; anything else as text, nothing for None."""
    if isinstance(value, datetime):
        if value.tzinfo is not None and value.utcoffset():
            value = value.astimezone(UTC)
        # isoformat() is C, a tenth of strftime()'s time: a page of 1,000 States shows some 6,000 times.
        return value.isoformat(" ", "seconds")[:19] + "Z"
    if isinstance(value, str) and ISO_TIME.match(value):
        return value[:10] + " " + value[11:19] + "Z"
    return "" if value is None else str(value)


def when(value: object) -> Markup:
    """when_text() in a <time> element, whose title console.js sets to the visitor's own zone."""
    text = when_text(value)
    if not text.endswith("Z"):
        return Markup('<span class="none">—</span>') if value is None else escape(text)
    return Markup(f"<time>{text}</time>")  # console.js reads the time from the text: a page holds thousands


def shown(value: object, limit: int | None = None) -> str:
    """A value as text: text as it is, times as when_text() gives them, a whole float as a whole number,
    nothing as a dash, the rest as JSON."""
    if isinstance(value, str):
        text = value
    elif isinstance(value, datetime):
        text = when_text(value)
    elif value is None:
        text = "—"
    elif isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        text = str(int(value))
    else:
        text = json.dumps(jsonable(value), ensure_ascii=False)
    return text if limit is None or len(text) <= limit else text[:limit] + "…"


def status_value(value: object) -> str:
    """A value of the status as people read it: ISO times as when_text() gives them, else shown()."""
    return when_text(value) if isinstance(value, str) and ISO_TIME.match(value) else shown(value)


@lru_cache(maxsize=4096)
def _quoted(value: str) -> str:
    return quote_plus(value, safe="")


def link(path: str, **query: object) -> str:
    """A path with its query; each value quoted once per process (a page of 1,000 States repeats them)."""
    given = [f"{name}={_quoted(str(value))}" for name, value in query.items() if value is not None]
    return path + ("?" + "&".join(given) if given else "")


def entity_link(label: str, key: object) -> str:
    """The link of an entity's page; a whole-number key says so, so "5" and 5 stay apart."""
    if type(key) is int:
        return link("/console/entity", kind=label, key=key, int="1")
    return link("/console/entity", kind=label, key=key)


_environment = Environment(
    loader=FileSystemLoader(TEMPLATES),
    autoescape=True,
    trim_blocks=True,
    lstrip_blocks=True,
)
_environment.filters["when"] = when
_environment.filters["shown"] = shown
_environment.filters["when_text"] = when_text
_environment.filters["status_value"] = status_value
_environment.globals.update(entity_link=entity_link, link=link, SHOWN_TEXT=SHOWN_TEXT)


def render(template: str, **context: object) -> str:
    return _environment.get_template(template).render(**context)


# The refusal of an action, shown at the top of the page the visitor is sent back to (app.py sets it).
refusal: ContextVar[Problem | None] = ContextVar("refusal", default=None)
# The choices a read page refused, shown at the top of the page drawn without them (app.py sets them).
choices_refused: ContextVar[tuple[Problem, ...]] = ContextVar("choices_refused", default=())


def page(template: str, visitor=None, *, status: int = 200, headers: dict | None = None, **context):
    """A whole page: the template with the visitor (for the menu and the CSRF token) and the headers;
    with the status of a refused action when one is being shown on it."""
    refused, choices = refusal.get(), choices_refused.get()
    if refused is not None or choices:
        status = (refused or choices[0]).status
    body = render(template, visitor=visitor, action_refused=refused, choices_refused=choices, **context)
    return HTMLResponse(body, status_code=status, headers={**HEADERS, **(headers or {})})


def problem_page(problem: Problem, visitor=None, headers: dict | None = None):
    """A refusal as a page, with the status and the stable code of problems.py."""
    return page("problem.html", visitor, status=problem.status, headers=headers, problem=problem)
