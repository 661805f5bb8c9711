"""The console's reading pages over plain HTTP against the real `lighthouse serve`: the overview's
figures, a kind's pages, search by words and by key, an episode with its citations, what cites an
entity, and signing out."""

from __future__ import annotations

import re

import httpx
from console_world import USER, seeded, signed_in
from lighthouse import say, tenant
from lighthouse_server.console.pages import MOST_FROM


def test_the_overview_counts_what_the_graph_holds_and_shows_the_status(lighthouse):
    world = seeded(lighthouse)
    bad = {
        "kind": "Device",
        "rows": [{"key": "bad-1", "t": "2026-01-01T00:00:00Z", "values": {"bad name": 1}}],
    }
    assert lighthouse.result("remember", bad, world.admin)[0]["status"] == "invalid"
    client, _csrf = signed_in(lighthouse, world.admin)
    page = client.get("/console/")
    assert page.status_code == 200
    kinds = page.text[page.text.index('id="kinds"') : page.text.index('id="work"')]
    # Each count links to the list it counts.
    device = re.search(
        r'kind=Device">Device</a></td><td>serial</td>\s*<td class="count"><a href="/console/kind\?kind=Device">(\d+)</a></td>',
        kinds,
    )
    assert device and int(device.group(1)) == 3  # pump-7, cand-a, cand-b
    assert re.search(r'id="candidates-waiting"><a href="/console/review">2</a><', page.text)
    assert re.search(r'<a href="/console/notes" id="notes-kept">1</a>', page.text)
    status = lighthouse.result("status", {}, world.admin)
    assert 'id="status"' in page.text and status["extraction"]["state"] in page.text
    waiting = re.search(r'id="notes-waiting">(\d+)<', page.text)
    assert waiting and int(waiting.group(1)) == status["extraction"]["notes_waiting"] == 1
    failures = page.text[page.text.index('id="failures"') :]
    assert "<td>invalid</td>" in failures and "bad name" in failures


def test_a_kind_is_listed_a_page_at_a_time(lighthouse):
    world = seeded(lighthouse)
    rows = [
        {"key": f"many-{number:03d}", "t": "2026-01-01T00:00:00Z", "values": {"status": "ok"}}
        for number in range(60)
    ]
    lighthouse.result("remember", {"kind": "Device", "rows": rows}, world.admin)
    client, _csrf = signed_in(lighthouse, world.admin)
    first = client.get("/console/kind?kind=Device")
    keys = re.findall(r'class="entity[^"]*"><td><a href="[^"]+">([^<]+)</a>', first.text)
    assert len(keys) == 50 and keys == sorted(keys)
    following = re.search(r'href="([^"]+)" id="next-page"', first.text).group(1).replace("&amp;", "&")
    second = client.get(following)
    more = re.findall(r'class="entity[^"]*"><td><a href="[^"]+">([^<]+)</a>', second.text)
    assert len(more) == 63 - 50 and not set(more) & set(keys) and 'id="next-page"' not in second.text
    assert set(keys + more) >= {row["key"] for row in rows} | {"pump-7", "cand-a", "cand-b"}
    assert client.get("/console/kind?kind=Boat").status_code == 404


def test_search_finds_by_words_notes_and_keys(lighthouse):
    world = seeded(lighthouse)
    lighthouse.result(
        "remember", {"kind": "Room", "rows": [{"key": 42, "t": "2026-01-01T00:00:00Z"}]}, world.admin
    )
    client, _csrf = signed_in(lighthouse, world.admin)
    found = client.get("/console/search", params={"q": "sensor moved"}).text
    assert "kind=Device&amp;key=pump-7" in found
    assert (
        f"id={world.note.replace('/', '%2F').replace(':', '%3A')}"
        in client.get("/console/search", params={"q": "attic"}).text
    )
    by_key = client.get("/console/search", params={"q": "42"}).text
    assert "kind=Room&amp;key=42&amp;int=1" in by_key
    room = client.get("/console/entity", params={"kind": "Room", "key": "42", "int": "1"})
    assert room.status_code == 200
    assert (
        client.get("/console/entity", params={"kind": "Room", "key": "42"}).status_code == 404
    )  # "42" is not 42
    assert client.get("/console/search", params={"q": "!!! ???"}).status_code == 200


def test_an_episode_shows_its_entries_in_order_with_citations_and_the_entity_what_cites_it(lighthouse):
    world = seeded(lighthouse)
    lighthouse.result("open_episode", {"episode_id": "ep-hot", "about": [["Device", "pump-7"]]}, world.admin)
    first = lighthouse.result(
        "record",
        {
            "episode_id": "ep-hot",
            "entry_type": "observation",
            "values": {"seen": "smoke"},
            "cites": [["Device", "pump-7"]],
        },
        world.admin,
    )
    lighthouse.result(
        "record",
        {
            "episode_id": "ep-hot",
            "entry_type": "decision",
            "values": {"do": "stop it"},
            "cites": [first["id"]],
        },
        world.admin,
    )
    client, _csrf = signed_in(lighthouse, world.admin)
    page = client.get("/console/episode", params={"id": "ep-hot"}).text
    entries = re.findall(r'<tr class="entry"><td><a href="[^"]+">(\d+)</a></td><td>(\w+)</td>', page)
    assert entries == [("1", "observation"), ("2", "decision")]
    assert "kind=Device&amp;key=pump-7" in page and f">{first['id']}</a>" in page
    assert "ep-hot" in client.get("/console/episodes").text
    cited = client.get("/console/entity", params={"kind": "Device", "key": "pump-7"}).text
    assert f">{first['id']}</a> (observation" in cited[cited.index('id="cited"') :]
    assert client.get("/console/episode", params={"id": "no-such"}).status_code == 404


def test_conversations_are_listed_read_only(lighthouse):
    world = seeded(lighthouse)
    client, _csrf = signed_in(lighthouse, world.admin)
    assert USER in client.get("/console/conversations").text
    sessions = client.get("/console/conversations/user", params={"user": USER}).text
    assert ">s1</a>" in sessions and 'id="forget-user"' in sessions
    said = client.get("/console/conversations/session", params={"user": USER, "session": "s1"}).text
    assert "is pump-7 hot?" in said
    confirm = client.get("/console/forget", params={"user": USER})
    assert confirm.status_code == 200 and 'id="forget-form"' in confirm.text and "1 session" in confirm.text


def test_signing_out_ends_the_session_and_the_console_needs_no_trailing_slash(lighthouse):
    world = seeded(lighthouse)
    client, csrf = signed_in(lighthouse, world.admin)
    assert client.get("/console", follow_redirects=True).status_code == 200
    assert client.get("/console/console.css").headers["content-type"].startswith("text/css")
    assert client.get("/console/no-such-page").status_code == 404
    token = client.cookies["lh_console"]
    answer = client.post("/console/sign-out", data={"csrf": csrf})
    assert answer.status_code == 303 and "Max-Age=0" in answer.headers["set-cookie"]
    assert client.get("/console/").status_code == 303
    kept = httpx.Client(base_url=lighthouse.url)
    kept.cookies.set("lh_console", token, path="/console")  # the old cookie, kept by someone
    assert kept.get("/console/").status_code == 303


def test_a_long_episode_and_a_long_session_are_read_a_page_at_a_time(lighthouse):
    world = seeded(lighthouse)
    lighthouse.result("notes", {"items": [{"text": f"line {number}"} for number in range(600)]}, world.admin)
    client, _csrf = signed_in(lighthouse, world.admin)
    episode = world.note.rsplit("/", 1)[0]
    first = client.get("/console/episode", params={"id": episode}).text
    assert first.count('<tr class="entry') == 500
    following = re.search(r'href="([^"]+)" id="next-page"', first).group(1).replace("&amp;", "&")
    second = client.get(following).text
    assert second.count('<tr class="entry') == 601 - 500 and ">line 599<" in second
    graph = tenant(lighthouse.db(), world.tenant)
    for number in range(1_000):
        say(graph, USER, "long", "user", f"message {number}", by="desk")
    session = client.get("/console/conversations/session", params={"user": USER, "session": "long"}).text
    assert session.count('<tr class="message">') == 1000 and ">message 0<" in session
    earlier = re.search(r'href="([^"]+)" id="earlier"', session)
    assert earlier is None  # exactly 1,000: nothing before the first
    say(graph, USER, "long", "user", "message 1000", by="desk")
    session = client.get("/console/conversations/session", params={"user": USER, "session": "long"}).text
    earlier = re.search(r'href="([^"]+)" id="earlier"', session).group(1).replace("&amp;", "&")
    before = client.get(earlier).text
    assert before.count('<tr class="message">') == 1 and ">message 0<" in before
    assert (
        client.get(
            "/console/conversations/session", params={"user": USER, "session": "long", "before": "x"}
        ).status_code
        == 400
    )


def test_lists_page_by_offset_only_up_to_a_bound(lighthouse):
    world = seeded(lighthouse)
    client, _csrf = signed_in(lighthouse, world.admin)
    assert client.get("/console/kind", params={"kind": "Device", "from": MOST_FROM}).status_code == 200
    for path in ("/console/kind?kind=Device", "/console/episodes?", "/console/conversations?"):
        answer = client.get(f"{path}&from={MOST_FROM + 1}")
        assert answer.status_code == 400 and 'data-code="invalid_argument"' in answer.text, path
