"""The console in a real browser: Debian's Chromium at /usr/bin/chromium, driven by Playwright, against
the real `lighthouse serve`. Sign in, find an entity by words, read its timeline, review candidates, and
see hostile text shown as text with no script run."""

from __future__ import annotations

import time
from urllib.parse import quote

from console_browser import signed_in_page as _signed_in
from console_world import HOSTILE, USER, kinds_of_the_example, seeded, trust_of
from lighthouse import remember, tenant


def test_sign_in_find_read_the_timeline_and_review(browser, lighthouse, tmp_path):
    world = seeded(lighthouse)
    time.sleep(1.1)  # recorded times are whole seconds: the late row must arrive in a later one
    late = {
        "key": "pump-7",
        "t": "2026-01-03T00:00:00Z",
        "values": {"status": "cool", "note": "pump sensor in hall"},
        "relations": {"LOCATED_IN": "hall"},
    }
    assert (
        lighthouse.result("remember", {"kind": "Device", "rows": [late]}, world.admin)[0]["status"]
        == "inserted"
    )
    page, errors = _signed_in(browser, lighthouse, world.admin)
    assert page.locator("#kinds").inner_text().count("Device") == 1

    page.click("text=Search")
    page.fill("input[name=q]", "sensor moved")
    page.press("input[name=q]", "Enter")
    page.locator("#facts a.hit", has_text="pump-7").first.click()
    page.wait_for_url("**/console/entity?kind=Device&key=pump-7")

    history = lighthouse.result("history", {"kind": "Device", "key": "pump-7"}, world.admin)["items"]
    assert [state["status"] for state in history] == ["ok", "cool", "warm", "hot"]
    bars = page.locator("#timeline rect.state")
    assert bars.count() == 4
    for number, state in enumerate(history, start=1):
        title = page.locator(f'#timeline rect[data-id="state-{number}"] title').text_content()
        assert state["valid_from"][:10] in title
    assert page.locator('#timeline g.lane[data-lane="LOCATED_IN → hall"] rect.window').count() == 1
    assert page.locator('#timeline g.lane[data-lane="LOCATED_IN → cellar"] rect.window.open').count() == 1
    hall = page.locator('#timeline g.lane[data-lane="LOCATED_IN → hall"] rect.window title').text_content()
    assert "2026-01-01" in hall and "2026-01-09" in hall
    assert page.locator("#states tr.state-row").count() == 4
    # The bars' height and y come from console.css, inside each lane's group: drawn where their lane is.
    svg = page.locator("#timeline").bounding_box()
    first_bar = page.locator('#timeline rect[data-id="state-1"]').bounding_box()
    hall_bar = page.locator('#timeline g.lane[data-lane="LOCATED_IN → hall"] rect.window').bounding_box()
    names = page.locator("#timeline g.lane").evaluate_all("lanes => lanes.map(lane => lane.dataset.lane)")
    hall_top = 8 + 22 * names.index("LOCATED_IN → hall")  # timeline.TOP + timeline.LANE * its place
    for bar, lane_top in ((first_bar, 8), (hall_bar, hall_top)):  # 3 under its lane's top, stroke aside
        assert 14.5 <= bar["height"] <= 17 and abs(bar["y"] - svg["y"] - lane_top - 3) <= 1, bar
    # A cell of times shows them in the visitor's zone on hover.
    valid = page.locator("#state-1 td.when").first
    assert valid.get_attribute("title") is None
    valid.hover()
    assert "(" in valid.get_attribute("title") and "→" in valid.get_attribute("title")
    late_bars = page.locator("#timeline rect.state.late")
    assert late_bars.count() == 1 and late_bars.get_attribute("data-id") == "state-2"
    assert (
        "late" in page.locator("#state-2").inner_text()
        and "late" not in page.locator("#state-3").inner_text()
    )
    assert "hot" in page.locator("#current").inner_text()
    shot = tmp_path / "entity-page.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
    print(f"screenshot of the entity page: {shot}")

    page.click("text=Review")
    page.wait_for_url("**/console/review")  # count() does not wait: the page must have come
    rows = page.locator("#candidates tr.candidate")
    assert rows.count() == 2
    first = rows.nth(0)
    assert "cand-a" in first.inner_text() and "cand-a runs hot" in first.locator(".note-text").inner_text()
    first.locator("button.confirm").click()
    page.wait_for_url("**/console/review")
    remaining = page.locator("#candidates tr.candidate")
    assert remaining.count() == 1 and "cand-b" in remaining.inner_text()
    remaining.locator("input[aria-label=reason]").fill("there is no attic")
    remaining.locator("button.reject").click()
    page.wait_for_url("**/console/review")
    assert page.locator("#no-candidates").is_visible()
    record = page.locator("#decisions").inner_text()
    assert (
        "confirm" in record and "reject" in record and "there is no attic" in record and "planner" in record
    )

    (confirmed,) = trust_of(lighthouse, world.admin, "cand-a")
    (rejected,) = trust_of(lighthouse, world.admin, "cand-b")
    assert confirmed[0] == "confirmed" and confirmed[1]["by"] == "planner" and confirmed[1]["at"]
    assert (
        rejected[0] == "rejected"
        and rejected[1]["by"] == "planner"
        and rejected[1]["why"] == "there is no attic"
    )
    page.goto(f"{lighthouse.url}/console/entity?kind=Device&key=cand-b")
    assert page.locator("#timeline rect.state.trust-rejected").count() == 1
    assert "there is no attic" in page.locator("#states").inner_text()
    assert errors == []


def test_hostile_text_is_shown_as_text_and_no_script_runs(browser, lighthouse):
    world = seeded(lighthouse, hostile=HOSTILE)
    page, errors = _signed_in(browser, lighthouse, world.admin)
    visits = [
        ("/console/entity?kind=Device&key=pump-7", "#current"),
        ("/console/entity?kind=Device&key=pump-7", "#states"),
        (f"/console/entry?id={world.note}", "main"),
        ("/console/review", "#candidates"),
        ("/console/search?q=sensor+moved", "#facts"),
        (f"/console/conversations/session?user={USER}&session=s1", "#messages"),
        (f"/console/episode?id={world.note.rsplit('/', 1)[0]}", "#entries"),
    ]
    for path, where in visits:
        page.goto(f"{lighthouse.url}{path}")
        assert page.evaluate("typeof window.__pwned") == "undefined", path
        assert HOSTILE in page.locator(where).inner_text(), path
        assert page.locator("img[src=x]").count() == 0 and page.locator("main script").count() == 0, path
    _hostile_names(lighthouse, world)
    named = quote(HOSTILE, safe="")
    visits = [
        ("/console/", "#failures"),  # a WriteFailure's key and message
        ("/console/entity?kind=Device&key=odd-pump", "#relations"),  # a relation target and a by
        ("/console/entity?kind=Device&key=odd-pump", "#states"),
        ("/console/conversations", "#users"),
        (f"/console/conversations/user?user={named}", "#user-name"),
        (f"/console/conversations/session?user={named}&session=s9", "main"),
        (f"/console/forget?user={named}", "h1"),
    ]
    for path, where in visits:
        page.goto(f"{lighthouse.url}{path}")
        assert page.evaluate("typeof window.__pwned") == "undefined", path
        assert HOSTILE in page.locator(where).inner_text(), path
        assert page.locator("img[src=x]").count() == 0 and page.locator("main script").count() == 0, path
    html = page.goto(f"{lighthouse.url}/console/").text()
    assert "<script>window.__pwned" not in html and "&lt;script&gt;window.__pwned=1" in html
    messages = page.locator("#failures td.value").all_inner_texts()
    assert any("<script>window.__pwned=1</script>" in message for message in messages)  # its message too
    page.goto(f"{lighthouse.url}/console/entity?kind=Device&key=odd-pump")
    lanes = page.locator("#timeline g.lane")
    assert f"LOCATED_IN → {HOSTILE}" in [
        lanes.nth(n).get_attribute("data-lane") for n in range(lanes.count())
    ]
    titles = page.locator("#timeline title").all_text_contents()
    assert any(f"LOCATED_IN {HOSTILE}" in title for title in titles)  # the window's, with its target
    assert any(f"by {HOSTILE}" in title for title in titles)  # the State's, with its by
    assert page.locator("#timeline script").count() == 0 and page.locator("#timeline img").count() == 0
    page.goto(f"{lighthouse.url}/console/search")
    page.fill("input[name=q]", HOSTILE)
    page.press("input[name=q]", "Enter")
    page.wait_for_url("**/console/search?q=*")
    assert page.input_value("input[name=q]") == HOSTILE  # the value attribute held the quotes
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert errors == []


def _hostile_names(lighthouse, world) -> None:
    """Hostile text where it is a name, not a value: a refused write's key (and so its message), a
    relation target and a `by` (drawn in the SVG), and a user of a conversation."""
    refused = {"kind": "Device", "key": HOSTILE, "valid_from": "2020-01-01T00:00:00Z"}
    assert lighthouse.result("confirm", refused, world.admin)["status"] == "unknown"
    row = {
        "key": "odd-pump",
        "t": "2026-01-01T00:00:00Z",
        "values": {"status": "ok"},
        "relations": {"LOCATED_IN": HOSTILE},
    }
    graph = tenant(lighthouse.db(), world.tenant)
    (written,) = remember(graph, kinds_of_the_example()["Device"], [row], by=HOSTILE)
    assert written["status"] == "created", written
    said = {"user": HOSTILE, "session_id": "s9", "role": "user", "text": "hello"}
    assert lighthouse.result("say", said, world.admin)["status"] == "said"


def test_a_read_only_key_is_offered_no_action(browser, lighthouse):
    world = seeded(lighthouse)
    reader = lighthouse.key(world.tenant, agent="reader", scopes=["read"])
    page, _errors = _signed_in(browser, lighthouse, reader)
    page.goto(f"{lighthouse.url}/console/review")
    assert page.locator("#read-only").is_visible()
    assert page.locator("#candidates tr.candidate").count() == 2
    assert page.locator("button.confirm").count() == 0 and page.locator("button.reject").count() == 0
    page.goto(f"{lighthouse.url}/console/entry?id={world.note}")
    assert page.locator("#invalidate-form").count() == 0


def test_invalidate_after_seeing_the_impact_and_forget_behind_a_confirmation(browser, lighthouse):
    world = seeded(lighthouse)
    page, errors = _signed_in(browser, lighthouse, world.admin)
    page.goto(f"{lighthouse.url}/console/entity?kind=Device&key=cand-a")
    page.locator("#states a", has_text=world.note).first.click()
    impact = page.locator("#impact").inner_text()
    assert "Device from 2026-02-01" in impact and "Device from 2026-02-02" in impact
    page.fill("#invalidate-form input[name=reason]", "the note was about another site")
    page.click("#invalidate-form button")
    assert "the note was about another site" in page.locator("#invalidated").inner_text()
    assert lighthouse.result("impact_of_entry", {"entry_id": world.note}, world.admin)["invalidated"] is True

    page.goto(f"{lighthouse.url}/console/conversations")
    page.click(f"text={USER}")
    page.click("#forget-user")
    page.fill("#forget-form input[name=confirm]", "not her")
    page.click("#forget-form button")
    assert page.locator(".problem").is_visible()
    assert len(lighthouse.result("messages", {"user": USER, "session_id": "s1"}, world.admin)) == 1
    page.go_back()
    page.fill("#forget-form input[name=confirm]", USER)
    page.click("#forget-form button")
    page.wait_for_url("**/console/conversations?done=forgotten")
    assert USER not in page.locator("#users").inner_text()
    assert lighthouse.result("messages", {"user": USER, "session_id": "s1"}, world.admin) == []
    audit = lighthouse.result("audit", {}, world.admin)["items"]
    assert any(record["action"] == "user_forgotten" for record in audit)
    assert errors == []
