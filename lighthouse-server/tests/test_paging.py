"""A paged operation reads its page from the database, not every item to slice one page out of them."""

from __future__ import annotations

import uuid

import pytest
from lighthouse import tenant
from lighthouse_server import keys
from lighthouse_server.operations import rows as row_operations
from lighthouse_server.parts import Parts
from lighthouse_server.service import Service
from lighthouse_server.settings import Settings

KEYS = [f"d{number:02d}" for number in range(30)]


@pytest.fixture
def service_of(db):
    """A Service on the tests' FalkorDB with a fresh tenant that declared Device and holds KEYS; the
    tenant's graph is deleted after the test."""
    name = f"p{uuid.uuid4().hex[:10]}"
    parts = Parts.built(db, Settings())
    service = Service(parts)
    principal = keys.Principal("k1", name, "planner", frozenset(keys.SCOPES))
    parts.kinds.declare(name, [{"label": "Device"}], by="planner")
    rows = [{"key": key, "t": "2026-01-01T00:00:00Z", "values": {"n": 1}} for key in KEYS]
    service.run(principal, "remember", {"kind": "Device", "rows": rows})
    yield service, principal
    tenant(db, name).delete()


def test_entities_reads_only_its_page(service_of, monkeypatch):
    service, principal = service_of
    read: list[int] = []

    def counted(*arguments, **options):
        found = real(*arguments, **options)
        read.append(len(found))
        return found

    real = row_operations.entity_keys
    monkeypatch.setattr(row_operations, "entity_keys", counted)
    page = service.run(principal, "entities", {"kind": "Device", "limit": 5, "cursor": "10"})
    assert page == {"items": KEYS[10:15], "next_cursor": "15"}
    assert read == [6]  # the page and one more, which says a next page exists
    last = service.run(principal, "entities", {"kind": "Device", "limit": 5, "cursor": "25"})
    assert last == {"items": KEYS[25:], "next_cursor": None}
    assert service.run(principal, "entities", {"kind": "Device", "cursor": "30"}) == {
        "items": [],
        "next_cursor": None,
    }
