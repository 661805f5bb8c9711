"""GET /docs: the OpenAPI document as one HTML page, rendered on the server from a template and a
stylesheet installed with the package. It runs no script and loads nothing from elsewhere (it works
without a network), under the console's Content-Security-Policy; every text of the document is escaped.
"""

from __future__ import annotations

import json
from pathlib import Path

from jinja2 import Environment, FileSystemLoader
from starlette.responses import HTMLResponse, Response

from ..console.rendering import HEADERS

FILES = Path(__file__).parent
_templates = Environment(loader=FileSystemLoader(FILES), autoescape=True)
METHODS = ("get", "post", "put", "patch", "delete")


def type_of(schema: dict) -> str:
    """A JSON schema's type as people read it: "string", "array of string", "string or array"."""
    if "anyOf" in schema or "oneOf" in schema:
        return " or ".join(type_of(one) for one in schema.get("anyOf", schema.get("oneOf", [])))
    named = schema.get("type", "any")
    if isinstance(named, list):
        return " or ".join(named)
    if named == "array" and isinstance(schema.get("items"), dict):
        return f"array of {type_of(schema['items'])}"
    return str(named)


def _operations(document: dict) -> list[dict]:
    found = []
    for path, methods in document.get("paths", {}).items():
        for method in METHODS:
            if method not in methods:
                continue
            spec = methods[method]
            body = (
                spec.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema", {})
            )
            required = set(body.get("required", []))
            found.append(
                {
                    "anchor": f"{method}-{path.strip('/').replace('/', '-')}",
                    "method": method.upper(),
                    "path": path,
                    "scope": ", ".join(spec.get("tags", [])),
                    "summary": spec.get("summary", ""),
                    "description": spec.get("description", ""),
                    "arguments": [
                        {
                            "name": name,
                            "type": type_of(schema),
                            "required": name in required,
                            "description": schema.get("description", ""),
                        }
                        for name, schema in body.get("properties", {}).items()
                    ],
                    "example": json.dumps(body["example"], indent=2) if "example" in body else "",
                }
            )
    return found


def page(document: dict) -> HTMLResponse:
    info = document.get("info", {})
    shown = _templates.get_template("reference.html").render(
        title=info.get("title", ""),
        version=info.get("version", ""),
        description=info.get("description", ""),
        operations=_operations(document),
    )
    return HTMLResponse(shown, headers=HEADERS)


def stylesheet() -> Response:
    return Response(
        (FILES / "reference.css").read_text(),
        media_type="text/css",
        headers={"X-Content-Type-Options": "nosniff", "Cache-Control": "max-age=3600"},
    )
