"""What the console tests share: a tenant with a device whose history has States and relation windows,
a note, two candidates a "model" drew from it, and a conversation; and signing in over plain HTTP."""

from __future__ import annotations

import re
from dataclasses import dataclass

import httpx
from lighthouse import remember, tenant
from lighthouse_server.declarations import built, checked
from service_process import KINDS

USER = "wilhelmina"  # a name no page shows unless it holds her conversation
HOSTILE = '<script>window.__pwned=1</script>"\'><img src=x onerror="window.__pwned=2">'
DEVICE_ROWS = [
    {
        "key": "pump-7",
        "t": "2026-01-01T00:00:00Z",
        "values": {"status": "ok", "note": "pump sensor in hall"},
        "relations": {"LOCATED_IN": "hall"},
    },
    {
        "key": "pump-7",
        "t": "2026-01-05T00:00:00Z",
        "values": {"status": "warm", "note": "pump sensor in hall"},
        "relations": {"LOCATED_IN": "hall"},
    },
    {
        "key": "pump-7",
        "t": "2026-01-09T00:00:00Z",
        "values": {"status": "hot", "note": "pump sensor moved"},
        "relations": {"LOCATED_IN": "cellar"},
    },
]


@dataclass
class World:
    tenant: str
    admin: str  # a key with every scope
    note: str  # the note's entry id
    candidates: dict  # key -> valid_from (ISO) of a candidate State


def kinds_of_the_example() -> dict:
    return built({declaration["label"]: checked(declaration) for declaration in KINDS})


def seeded(lighthouse, hostile: str = "") -> World:
    """A fresh tenant holding pump-7 (three States, LOCATED_IN hall then cellar), a note, two
    candidates drawn from it (cand-a, cand-b), and a user's message."""
    name, admin = lighthouse.tenant("console")
    rows = [dict(row) for row in DEVICE_ROWS]
    if hostile:
        rows[-1] = {**rows[-1], "values": {**rows[-1]["values"], "note": f"pump sensor moved {hostile}"}}
    assert [r["status"] for r in lighthouse.result("remember", {"kind": "Device", "rows": rows}, admin)] == [
        "created",
        "changed",
        "changed",
    ]
    receipt = lighthouse.result(
        "note", {"text": f"cand-a runs hot and cand-b is in the attic {hostile}"}, admin
    )
    assert receipt["status"] == "recorded", receipt
    drawn = [
        {"key": "cand-a", "t": "2026-02-01T00:00:00Z", "values": {"status": "hot"}, "entry": receipt["id"]},
        {"key": "cand-b", "t": "2026-02-02T00:00:00Z", "values": {"status": "attic"}, "entry": receipt["id"]},
    ]
    graph = tenant(lighthouse.db(), name)
    written = remember(graph, kinds_of_the_example()["Device"], drawn, by="model:fake", candidate=True)
    assert [r["status"] for r in written] == ["created", "created"], written
    said = {"user": USER, "session_id": "s1", "role": "user", "text": f"is pump-7 hot? {hostile}"}
    assert lighthouse.result("say", said, admin)["status"] == "said"
    return World(
        name,
        admin,
        receipt["id"],
        {"cand-a": "2026-02-01T00:00:00+00:00", "cand-b": "2026-02-02T00:00:00+00:00"},
    )


def trust_of(lighthouse, admin: str, entity: str) -> list[tuple]:
    """(trust, review) of each State of a Device, through the HTTP API."""
    states = lighthouse.result("history", {"kind": "Device", "key": entity}, admin)["items"]
    return [(state.get("trust", "confirmed"), state.get("review")) for state in states]


def signed_in(lighthouse, key: str) -> tuple[httpx.Client, str]:
    """A client with a console session of the key, and the session's CSRF token."""
    client = httpx.Client(base_url=lighthouse.url, timeout=60)
    answer = client.post("/console/sign-in", data={"key": key}, headers=same_site(lighthouse))
    assert answer.status_code == 303, answer.text
    return client, csrf_of(client.get("/console/").text)


def same_site(lighthouse) -> dict:
    """The header a browser sends with a form of the console's own page: its Origin."""
    return {"Origin": lighthouse.url}


def csrf_of(html: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found, html[:2000]
    return found.group(1)


def review_form(world: World, decision: str, key: str, csrf: str | None, why: str = "") -> dict:
    form = {"act": f"{decision}:0", "item-0": f'["Device", "{key}", "{world.candidates[key]}"]', "why-0": why}
    if csrf is not None:
        form["csrf"] = csrf
    return form
