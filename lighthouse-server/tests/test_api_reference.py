"""GET /docs: the API's reference page from files installed with the package, with no script and
nothing loaded from elsewhere, under the console's Content-Security-Policy."""

from __future__ import annotations

import re

import httpx
from lighthouse_server.api.reference import page, type_of
from lighthouse_server.console.rendering import HEADERS
from lighthouse_server.operations import TABLE


def test_docs_is_a_page_of_every_operation_that_needs_nothing_from_elsewhere(lighthouse):
    answer = httpx.get(f"{lighthouse.url}/docs", timeout=30)
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/html")
    assert answer.headers["content-security-policy"] == HEADERS["Content-Security-Policy"]
    shown = answer.text
    assert "<script" not in shown.lower()
    linked = re.findall(r'(?:href|src)="([^"]*)"', shown)
    assert linked and all(link.startswith(("/", "#")) for link in linked), linked  # this server only
    for name, operation in TABLE.items():
        assert f"<code>/v1/{name}</code>" in shown, name
        for param in operation.all_params():
            assert f"<code>{param.name}</code>" in shown, (name, param.name)
    style = httpx.get(f"{lighthouse.url}/docs/reference.css", timeout=30)
    assert style.status_code == 200 and style.headers["content-type"].startswith("text/css")
    assert "/docs/reference.css" in linked and "/openapi.json" in linked


def test_every_text_of_the_document_is_escaped():
    hostile = "<script>alert(1)</script>"
    document = {
        "info": {"title": hostile, "version": "1", "description": hostile},
        "paths": {
            "/v1/x": {
                "post": {
                    "summary": hostile,
                    "description": hostile,
                    "tags": [hostile],
                    "requestBody": {
                        "content": {
                            "application/json": {
                                "schema": {
                                    "properties": {"a": {"type": "string", "description": hostile}},
                                    "example": {"a": hostile},
                                }
                            }
                        }
                    },
                }
            }
        },
    }
    shown = page(document).body.decode()
    assert "<script" not in shown and shown.count("&lt;script&gt;") >= 6


def test_types_read_as_words():
    assert type_of({"type": "array", "items": {"type": "string"}}) == "array of string"
    assert type_of({"anyOf": [{"type": "string"}, {"type": "array"}]}) == "string or array"
    assert type_of({"type": ["string", "integer"]}) == "string or integer"
    assert type_of({}) == "any"
