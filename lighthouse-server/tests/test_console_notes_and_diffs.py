"""The console's notes page, replay, differences, the graph and search's filters over plain HTTP against
the real `lighthouse serve`: what they show, what they refuse and their limits."""

from __future__ import annotations

import re

from console_world import same_site, seeded, signed_in
from lighthouse import hold_extraction, set_note_aside, tenant


def test_the_notes_page_with_its_filters_and_replay(lighthouse):
    world = seeded(lighthouse)
    client, csrf = signed_in(lighthouse, world.admin)
    page = client.get("/console/notes").text
    row = page[page.index('id="note-1"') :]
    assert world.note in row and "cand-a runs hot" in row
    assert "Device cand-a" in row and "Device cand-b" in row and row.count(">candidate<") == 2
    assert world.note in client.get("/console/notes", params={"by": "planner"}).text
    assert world.note not in client.get("/console/notes", params={"by": "nobody"}).text
    assert world.note not in client.get("/console/notes", params={"until": "2001-01-01 00:00:00Z"}).text
    refused = client.get("/console/notes", params={"since": "last tuesday"})
    assert refused.status_code == 400 and 'data-code="invalid_argument"' in refused.text
    # Replay gives back only a note set aside; the receipt is said on the page it comes back to.
    answer = client.post(
        "/console/notes/replay", data={"csrf": csrf, "note": world.note}, headers=same_site(lighthouse)
    )
    assert answer.status_code == 303 and answer.headers["location"] == "/console/notes?done=not_set_aside"
    assert (
        "Nothing was given back: that note is not set aside." in client.get(answer.headers["location"]).text
    )
    answer = client.post(
        "/console/notes/replay", data={"csrf": csrf, "note": "no/such"}, headers=same_site(lighthouse)
    )
    assert answer.headers["location"] == "/console/notes?done=unknown"
    for form, status, code in (
        ({"csrf": csrf}, 400, "invalid_argument"),
        ({"csrf": csrf, "note": "x" * 401}, 400, "invalid_argument"),
        ({"csrf": "wrong", "note": world.note}, 403, "forbidden"),
    ):
        answer = client.post("/console/notes/replay", data=form, headers=same_site(lighthouse))
        assert answer.status_code == status and f'data-code="{code}"' in answer.text, form
    # The extraction column says where the note is: set aside with its reason, then given back.
    graph = tenant(lighthouse.db(), world.tenant)
    assert hold_extraction(graph, "test:1:console") is None
    assert set_note_aside(graph, "test:1:console", world.note, "malformed: not JSON", asks=3) is True
    row = _note_row(client.get("/console/notes").text)
    assert 'data-state="set_aside"' in row and "malformed: not JSON" in row and "(3 asks," in row
    assert 'class="inline replay-form"' in row
    reader = lighthouse.key(world.tenant, agent="reader", scopes=["read"])
    reading, reader_csrf = signed_in(lighthouse, reader)
    assert 'class="inline replay-form"' not in reading.get("/console/notes").text
    assert 'data-state="set_aside"' in _note_row(reading.get("/console/notes").text)
    answer = reading.post(
        "/console/notes/replay", data={"csrf": reader_csrf, "note": world.note}, headers=same_site(lighthouse)
    )
    assert answer.status_code == 403 and 'id="refused"' in answer.text  # on the notes page, with the reason
    answer = client.post(
        "/console/notes/replay", data={"csrf": csrf, "note": world.note}, headers=same_site(lighthouse)
    )
    assert answer.headers["location"] == "/console/notes?done=replayed"
    row = _note_row(client.get(answer.headers["location"]).text)
    assert 'data-state="replay"' in row and 'data-state="set_aside"' not in row


def _note_row(page: str) -> str:
    row = page[page.index('id="note-1"') :]
    return row[: row.index("</tr>")]


def test_differences_the_graph_and_search_filters_refuse_what_they_cannot_show(lighthouse):
    world = seeded(lighthouse)
    client, _csrf = signed_in(lighthouse, world.admin)
    newest = client.get("/console/diff", params={"kind": "Device", "key": "pump-7"}).text
    changed = newest[newest.index('id="diff-table"') :]
    assert "warm" in changed and "hot" in changed and "cellar" in changed  # the two newest versions
    at_times = {"kind": "Device", "key": "pump-7", "t1": "2026-01-02 00:00:00Z", "t2": "2026-01-10T00:00:00Z"}
    assert re.search(
        r'class="changed"><td>status</td><td class="value">ok</td><td class="value">hot</td>',
        client.get("/console/diff", params=at_times).text,
    )
    for params, status, code in (
        ({"kind": "Device", "key": "pump-7", "a": "2026-01-02T00:00:00Z"}, 400, "invalid_argument"),
        (
            {"kind": "Device", "key": "pump-7", "t1": "soon", "t2": "2026-01-01T00:00:00Z"},
            400,
            "invalid_argument",
        ),
        ({"kind": "Device", "key": "nobody"}, 404, "not_found"),
        ({"kind": "Boat", "key": "pump-7"}, 404, "not_found"),
        ({"kind": "Device"}, 400, "invalid_argument"),
    ):
        answer = client.get("/console/diff", params=params)
        assert answer.status_code == status and f'data-code="{code}"' in answer.text, params
    graph = client.get(
        "/console/graph", params={"kind": "Device", "key": "pump-7", "at": "2026-01-02T00:00:00Z"}
    ).text
    assert 'data-ref="Room hall"' in graph and 'data-ref="Room cellar"' not in graph
    for params, status in (
        ({"kind": "Device", "key": "nobody"}, 404),
        ({"kind": "Device", "key": "pump-7", "at": "whenever"}, 400),
    ):
        assert client.get("/console/graph", params=params).status_code == status, params
    only = client.get("/console/search", params={"q": "hot", "trust": "candidate"}).text
    facts = only[only.index('id="facts"') :] if 'id="facts"' in only else ""
    assert "cand-a" in facts and "pump-7" not in facts
    confirmed = client.get(
        "/console/search", params={"q": "hot", "trust": "confirmed", "kind": "Device"}
    ).text
    assert "cand-a" not in confirmed[confirmed.index("<h2>Entities") :].split("<h2>Notes")[0]
    assert client.get("/console/search", params={"q": "hot", "when": "nope"}).status_code == 400
    listed = client.get("/console/kind", params={"kind": "Device", "trust": "candidate"}).text
    keys = re.findall(r'class="entity[^"]*"><td><a href="[^"]+">([^<]+)</a>', listed)
    assert keys == ["cand-a", "cand-b"]  # pump-7's value now is no candidate
    script = client.get("/console/console.js")
    assert script.status_code == 200 and script.headers["content-type"].startswith("text/javascript")
    assert "securitypolicyviolation" not in script.text and "addEventListener" in script.text
