"""The console's views in Debian's Chromium against the real `lighthouse serve`: a queue reviewed with
the keyboard (each candidate beside what it would replace, its note's words marked, a repeat of an
earlier rejection marked), a rejected fact never shown as current anywhere, the graph around an entity
at two times, differences between versions, a timeline that stays readable, and no CSP violation.
The screenshots go under docs/, where the README shows them."""

from __future__ import annotations

from pathlib import Path

import pytest
from console_browser import signed_in_page, violations
from console_world import kinds_of_the_example
from lighthouse import finish_note, hold_extraction, remember, tenant

DOCS = Path(__file__).resolve().parents[2] / "docs"
NEAR_WIDE = 60  # px: what each of five near versions keeps beside one far from them (7 on a linear axis)


def _row(key, t, status, room=None):
    row = {"key": key, "t": t, "values": {"status": status}}
    if room:
        row["relations"] = {"LOCATED_IN": room}
    return row


@pytest.fixture(scope="module")
def views(lighthouse):
    """d3: ok in hall, warm in hall, warm in the cellar; d4 in hall all along; "far": five versions in
    January 2025 and one in late 2026; a model's candidates drawn from two notes: d3 broken (twice, the
    second after the first is rejected) and d5 new."""
    name, admin = lighthouse.tenant("views")
    rows = [
        _row("d3", "2026-01-01T00:00:00Z", "ok", "hall"),
        _row("d4", "2026-01-01T00:00:00Z", "ok", "hall"),
        _row("d3", "2026-01-05T00:00:00Z", "warm", "hall"),
        _row("d3", "2026-01-09T00:00:00Z", "warm", "cellar"),
        *(_row("far", f"2025-01-{day:02d}T00:00:00Z", f"v{day}") for day in (1, 5, 9, 13, 17)),
        _row("far", "2026-11-20T00:00:00Z", "late in the year"),
    ]
    written = lighthouse.result("remember", {"kind": "Device", "rows": rows}, admin)
    assert {receipt["status"] for receipt in written} <= {"created", "changed"}, written
    first = lighthouse.result("note", {"text": "d3 is broken: its fan cracked"}, admin)["id"]
    second = lighthouse.result("note", {"text": "d3 looks broken again, and d5 is new"}, admin)["id"]
    drawn = [
        {"key": "d3", "t": "2026-02-01T00:00:00Z", "values": {"status": "broken"}, "entry": first},
        {"key": "d5", "t": "2026-02-02T00:00:00Z", "values": {"status": "new"}, "entry": second},
    ]
    graph = tenant(lighthouse.db(), name)
    assert [r["status"] for r in _drawn(graph, drawn)] == ["changed", "created"]
    return {"admin": admin, "graph": graph, "second": second}


def _drawn(graph, rows: list[dict]) -> list[dict]:
    return remember(graph, kinds_of_the_example()["Device"], rows, by="model:fake", candidate=True)


def _decided_by(page, key: str) -> None:
    """A key that decides, and the page that comes after the decision."""
    with page.expect_navigation():
        page.keyboard.press(key)


def _trust(lighthouse, admin, key):
    states = lighthouse.result("history", {"kind": "Device", "key": key}, admin)["items"]
    return [state.get("trust", "confirmed") for state in states]


def test_a_queue_reviewed_with_the_keyboard_and_a_rejected_fact_never_current(browser, lighthouse, views):
    page, errors = signed_in_page(browser, lighthouse, views["admin"])
    url = lighthouse.url
    page.goto(f"{url}/console/review")
    rows = page.locator("#candidates tr.candidate")
    assert rows.count() == 2
    first = rows.nth(0)
    assert "current" in first.get_attribute("class") and first.get_attribute("data-key") == "d3"
    # Beside what it would replace: warm in the cellar, as a difference; its note's words marked.
    changed = first.locator("table.diff tr.changed").inner_text()
    assert "status" in changed and "warm" in changed and "broken" in changed
    assert "cellar" in first.locator("table.diff tr.removed.relation").inner_text()
    assert "replaces the State from 2026-01-09 00:00:00Z" in first.inner_text()
    assert "broken" in first.locator(".note-text mark").all_inner_texts()
    assert first.locator("time").first.get_attribute("title")  # the visitor's own zone, on hover
    DOCS.mkdir(exist_ok=True)
    page.screenshot(path=str(DOCS / "console-review-page.png"), full_page=True)
    assert violations(page) == []

    # r, a reason, Enter: the first is rejected and the next candidate comes.
    page.keyboard.press("r")
    page.keyboard.type("the fan was fine")
    _decided_by(page, "Enter")
    rows = page.locator("#candidates tr.candidate")
    assert rows.count() == 1 and "current" in rows.nth(0).get_attribute("class")
    assert rows.nth(0).get_attribute("data-key") == "d5"
    # The model says it again, from another note: marked with the earlier decision, who and why.
    # (With its values all the same, the write rule would find it unchanged against the rejected State
    # the entity still holds, and make no new State.)
    said = {"status": "broken", "note": "fan cracked again"}
    again = {"key": "d3", "t": "2026-02-10T00:00:00Z", "values": said, "entry": views["second"]}
    assert _drawn(views["graph"], [again])[0]["status"] == "changed"
    page.reload()
    rows = page.locator("#candidates tr.candidate")
    assert rows.count() == 2
    repeat = rows.nth(1).locator(".repeat").inner_text()
    assert "status" in repeat and "rejected by planner" in repeat and "the fan was fine" in repeat
    # j and k go down and up; c confirms d5, and the repeat comes next, rejected again.
    page.keyboard.press("j")
    assert "current" in rows.nth(1).get_attribute("class") and "current" not in rows.nth(0).get_attribute(
        "class"
    )
    page.keyboard.press("k")
    assert "current" in rows.nth(0).get_attribute("class")
    _decided_by(page, "c")
    rows = page.locator("#candidates tr.candidate")
    assert rows.count() == 1 and rows.nth(0).get_attribute("data-key") == "d3"
    page.keyboard.press("r")
    page.keyboard.type("still fine")
    _decided_by(page, "Enter")
    assert page.locator("#no-candidates").is_visible()
    assert _trust(lighthouse, views["admin"], "d5") == ["confirmed"]
    assert _trust(lighthouse, views["admin"], "d3")[-2:] == ["rejected", "rejected"]

    # Nowhere is the rejected "broken" shown as what holds now.
    page.goto(f"{url}/console/entity?kind=Device&key=d3")
    now = page.locator("#current").inner_text()
    assert "warm" in now and "broken" not in now
    assert page.locator("#states tr.trust-rejected").count() == 2  # the history still shows them, marked
    page.screenshot(path=str(DOCS / "console-entity-page.png"), full_page=True)
    page.goto(f"{url}/console/kind?kind=Device")
    d3 = page.locator("#entities tr.entity", has_text="d3").inner_text()
    assert "warm" in d3 and "broken" not in d3
    page.goto(f"{url}/console/search?q=broken")
    assert "broken" not in page.locator("main").inner_text().split("Entities", 1)[1].split("Notes and", 1)[0]
    page.goto(f"{url}/console/diff?kind=Device&key=d3&t1=2026-01-20T00:00:00Z&t2=2026-03-01T00:00:00Z")
    assert page.locator("#no-difference").is_visible()
    # The notes page says where each note is in the extraction: the second one read, with its receipts.
    assert hold_extraction(views["graph"], "test:1:views") is None
    assert finish_note(views["graph"], "test:1:views", views["second"], {"changed": 1}) is True
    page.goto(f"{url}/console/notes")
    notes = page.locator("#notes").inner_text()
    assert "rejected" in notes and "confirmed" in notes
    read = page.locator("#notes tr.note", has_text=views["second"]).locator(".extraction-state")
    assert read.get_attribute("data-state") == "applied" and read.inner_text() == "read"
    assert "1 changed" in page.locator("#notes tr.note", has_text=views["second"]).inner_text()
    assert violations(page) == [] and errors == []


def test_a_refused_decision_keeps_the_reviewer_on_the_page_with_the_reason(browser, lighthouse):
    name, admin = lighthouse.tenant("refusal")
    graph = tenant(lighthouse.db(), name)
    device = kinds_of_the_example()["Device"]
    remember(graph, device, [_row("d9", "2026-01-01T00:00:00Z", "odd")], by="model:fake", candidate=True)
    page, errors = signed_in_page(browser, lighthouse, admin)
    page.goto(f"{lighthouse.url}/console/review")
    with page.expect_navigation():
        page.locator("#candidates tr.candidate button.reject").click()  # no reason given
    assert "a rejection needs a reason" in page.locator("#refused").inner_text()
    assert page.locator("#candidates tr.candidate").count() == 1  # still the review page, still waiting
    assert page.locator("#refused").get_attribute("data-code") == "invalid_argument"
    assert errors == []


def test_the_graph_at_two_times_versions_compared_and_a_readable_timeline(browser, lighthouse, views):
    page, errors = signed_in_page(browser, lighthouse, views["admin"])
    url = lighthouse.url

    def drawn(at: str, steps: int = 1) -> set:
        page.goto(f"{url}/console/graph?kind=Device&key=d3&steps={steps}&at={at}")
        nodes = page.locator("#graph a.node")
        return {nodes.nth(n).get_attribute("data-ref") for n in range(nodes.count())}

    assert drawn("2026-01-06T00:00:00Z") == {"Device d3", "Room hall"}
    assert drawn("2026-01-20T00:00:00Z") == {"Device d3", "Room cellar"}
    assert drawn("2026-01-06T00:00:00Z", 2) == {"Device d3", "Room hall", "Device d4"}
    assert page.locator("#graph g.edge").count() == 2
    page.screenshot(path=str(DOCS / "console-graph.png"), full_page=True)
    page.locator('#graph a.node[data-ref="Room hall"]').click()
    page.wait_for_url("**/console/entity?kind=Room&key=hall")
    # The time control redraws it: the form, filled in as a person would.
    page.goto(f"{url}/console/graph?kind=Device&key=d3")
    page.fill("#graph-form input[name=at]", "2026-01-03 00:00:00Z")
    with page.expect_navigation():
        page.click("#graph-form button")
    assert page.locator('#graph a.node[data-ref="Room hall"]').count() == 1

    page.goto(f"{url}/console/diff?kind=Device&key=d3&a=2026-01-01T00:00:00Z&b=2026-01-09T00:00:00Z")
    table = page.locator("#diff-table")
    assert (
        "ok" in table.locator("tr.changed").inner_text()
        and "warm" in table.locator("tr.changed").inner_text()
    )
    assert "cellar" in table.locator("tr.added.relation").inner_text()
    assert "hall" in table.locator("tr.removed.relation").inner_text()

    page.goto(f"{url}/console/entity?kind=Device&key=d3")
    with page.expect_navigation():
        page.click("#state-2 a.compare")  # what the second version changed from the first
    changed = page.locator("#diff-table tr.changed").inner_text()
    assert "ok" in changed and "warm" in changed and page.locator("#diff-table tr.relation").count() == 0

    page.goto(f"{url}/console/entity?kind=Device&key=far")
    bars = page.locator("#timeline rect.state")
    assert bars.count() == 6
    widths = [bars.nth(n).bounding_box()["width"] for n in range(5)]
    assert min(widths) > NEAR_WIDE, widths
    assert page.locator("#timeline g.axis-break").count() == 1
    assert violations(page) == [] and errors == []
