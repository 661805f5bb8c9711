"""Console sessions and sign-in: a sign-in must say it came from this site, one key keeps at most
MOST_PER_KEY sessions (its own oldest go, nobody else's), and forgetting shows what the receipt says."""

from __future__ import annotations

import httpx
from console_world import USER, same_site, seeded, signed_in
from lighthouse_server import keys
from lighthouse_server.console.session import MOST_PER_KEY, Sessions


def test_a_sign_in_that_does_not_say_it_came_from_this_site_is_refused(lighthouse):
    world = seeded(lighthouse)
    plain = httpx.Client(base_url=lighthouse.url)
    for headers in ({}, {"Sec-Fetch-Site": "cross-site"}, {"Sec-Fetch-Site": "none"}):
        answer = plain.post("/console/sign-in", data={"key": world.admin}, headers=headers)
        assert answer.status_code == 403 and 'data-code="forbidden"' in answer.text, headers
        assert "set-cookie" not in answer.headers
    # An Origin of this host, or Sec-Fetch-Site same-origin with no Origin, is what a browser sends.
    for headers in (same_site(lighthouse), {"Sec-Fetch-Site": "same-origin"}):
        answer = httpx.post(f"{lighthouse.url}/console/sign-in", data={"key": world.admin}, headers=headers)
        assert answer.status_code == 303 and "lh_console=" in answer.headers["set-cookie"], headers
    lying = {"Origin": "http://elsewhere.example", "Sec-Fetch-Site": "same-origin"}
    assert plain.post("/console/sign-in", data={"key": world.admin}, headers=lying).status_code == 403


def _principal(key_id: str) -> keys.Principal:
    return keys.Principal(key_id, "t", "agent", frozenset({"read"}))


def test_one_key_keeps_at_most_its_own_share_of_sessions_and_drops_its_oldest(db):
    sessions = Sessions(db)  # kept in the database, as the console keeps them
    other = sessions.start(_principal("other-key"))
    busy = [sessions.start(_principal("busy-key")) for _ in range(MOST_PER_KEY)]
    assert all(sessions.find(one.token) is not None for one in busy)
    newest = sessions.start(_principal("busy-key"))
    assert sessions.find(newest.token) is not None
    assert sessions.find(busy[0].token) is None  # the busy key's least recently used one went
    assert [sessions.find(one.token) is not None for one in busy[1:]] == [True] * (MOST_PER_KEY - 1)
    for _ in range(3 * MOST_PER_KEY):
        sessions.start(_principal("busy-key"))
    assert sessions.find(other.token) is not None  # another key's session is never the one dropped
    assert sessions.find(newest.token) is None


def test_the_same_key_signing_in_many_times_over_http_keeps_its_newest_sessions(lighthouse):
    world = seeded(lighthouse)
    _other, other_admin = lighthouse.tenant("bystander")
    bystander, _csrf = signed_in(lighthouse, other_admin)
    clients = [signed_in(lighthouse, world.admin)[0] for _ in range(MOST_PER_KEY + 1)]
    assert clients[0].get("/console/").status_code == 303  # signed out: the key's oldest session
    assert all(client.get("/console/").status_code == 200 for client in clients[1:])
    assert bystander.get("/console/").status_code == 200


def test_forgetting_a_session_shows_the_receipt_and_a_forget_that_finds_nothing_says_so(lighthouse):
    world = seeded(lighthouse)
    said = {"user": USER, "session_id": "s2", "role": "user", "text": "and the valve?"}
    assert lighthouse.result("say", said, world.admin)["status"] == "said"
    client, csrf = signed_in(lighthouse, world.admin)
    confirming = client.get("/console/forget", params={"user": USER, "session": "s2"}).text
    assert "1 session and 1 messages" in confirming and 'id="at-limit"' not in confirming
    form = {"csrf": csrf, "user": USER, "confirm": USER, "session": "s2"}
    answer = client.post("/console/forget", data=form)
    assert answer.status_code == 303 and answer.headers["location"] == "/console/conversations?done=forgotten"
    page = client.get(answer.headers["location"]).text
    assert 'id="done"' in page and "Forgotten" in page
    record = page[page.index('id="decisions"') :]
    assert f"{USER} / s2" in record and "forgotten: 1 messages deleted" in record
    assert lighthouse.result("messages", {"user": USER, "session_id": "s2"}, world.admin) == []
    assert len(lighthouse.result("messages", {"user": USER, "session_id": "s1"}, world.admin)) == 1

    answer = client.post("/console/forget", data=form)  # s2 is gone: the receipt says unknown
    assert answer.headers["location"] == "/console/conversations?done=unknown"
    page = client.get(answer.headers["location"]).text
    assert "Nothing was forgotten" in page and "unknown: 0 messages deleted" in page
    nobody = {"csrf": csrf, "user": "nobody-here", "confirm": "nobody-here"}
    answer = client.post("/console/forget", data=nobody)
    assert answer.headers["location"] == "/console/conversations?done=unknown"
    page = client.get(answer.headers["location"]).text
    assert "unknown: 0 sessions and 0 messages deleted" in page
    assert len(lighthouse.result("messages", {"user": USER, "session_id": "s1"}, world.admin)) == 1
    shown = client.get("/console/conversations", params={"done": "<b>made up</b>"}).text
    assert 'id="done"' not in shown and "made up" not in shown
