"""The console's choices in Debian's Chromium against the real `lighthouse serve`: a read page that refuses
a choice (a time, an offset, a filter) stays the page the person was on, shown without that choice and
with the reason at #refused; a kind's list filtered by trust, writer and time window through its form,
the pager keeping the filters; the review queue and the episodes filtered by writer and time window; no
CSP violation."""

from __future__ import annotations

import pytest
from console_browser import signed_in_page, violations
from console_world import USER, kinds_of_the_example, seeded
from lighthouse import open_episode, remember, tenant


@pytest.fixture(scope="module")
def world(lighthouse):
    """console_world's pump-7 (three States, by the admin's key) with cand-a and cand-b (candidates by
    model:fake from 2026-02-01 and 2026-02-02), 51 entities bulk-00 to bulk-50 written by "bulk", and two episodes: ep-audit opened by auditor on
    2025-03-01, ep-plan by scheduler on 2025-04-01."""
    seeded_world = seeded(lighthouse)
    rows = [
        {"key": f"bulk-{n:02d}", "t": "2025-06-01T00:00:00Z", "values": {"status": "ok"}} for n in range(51)
    ]
    graph = tenant(lighthouse.db(), seeded_world.tenant)
    by_bulk = remember(graph, kinds_of_the_example()["Device"], rows, "bulk")
    assert {receipt["status"] for receipt in by_bulk} == {"created"}, by_bulk[:3]
    assert open_episode(graph, "ep-audit", "auditor", at="2025-03-01T00:00:00Z")["status"] == "opened"
    assert open_episode(graph, "ep-plan", "scheduler", at="2025-04-01T00:00:00Z")["status"] == "opened"
    return seeded_world


def _refused_here(page, path: str, kept: str, reason: str) -> None:
    """The page at path answers 400, and is the page itself (its part `kept` shown) with the reason."""
    answer = page.goto(path)
    assert answer.status == 400, path
    assert page.locator(kept).count() >= 1, path
    refused = page.locator("#refused")
    assert reason in refused.inner_text() and refused.get_attribute("data-code") == "invalid_argument", path
    assert page.locator("h1", has_text="Refused").count() == 0, path  # not the problem page


def _filtered(page, form_id: str, chosen: dict) -> None:
    """A list's filter form filled in as a person would (writer, time window, and trust where it has
    one; what chosen leaves out emptied) and sent."""
    form = page.locator(form_id)
    for name in ("by", "since", "until"):
        form.locator(f"input[name={name}]").fill(chosen.get(name, ""))
    if form.locator("select[name=trust]").count():
        form.locator("select[name=trust]").select_option(chosen.get("trust", ""))
    with page.expect_navigation():
        form.locator("button").click()


def test_a_refused_choice_keeps_the_person_on_the_page(browser, lighthouse, world):
    page, errors = signed_in_page(browser, lighthouse, world.admin)
    url = lighthouse.url
    # The graph's time control, filled in as a person would with what is no time: the graph at now.
    page.goto(f"{url}/console/graph?kind=Device&key=pump-7")
    page.fill("#graph-form input[name=at]", "whenever")
    with page.expect_navigation():
        page.click("#graph-form button")
    assert "/console/graph?" in page.url
    assert page.locator('#graph a.node[data-ref="Room cellar"]').count() == 1  # where it is now
    assert (
        "at: " in page.locator("#refused").inner_text()
        and "whenever" in page.locator("#refused").inner_text()
    )
    assert page.input_value("#graph-form input[name=at]") == ""
    assert violations(page) == []

    _refused_here(page, f"{url}/console/diff?kind=Device&key=pump-7&b=yesterday", "#diff-table", "b: ")
    _refused_here(  # two times are one choice: the page compares the two newest versions instead
        page, f"{url}/console/diff?kind=Device&key=pump-7&t1=soon&t2=2026-01-02", "#diff-table", "t1: "
    )
    assert "warm" in page.locator("#diff-table").inner_text()
    _refused_here(page, f"{url}/console/search?q=sensor+moved&when=nope", "#facts a.hit", "when: ")
    assert page.input_value("input[name=q]") == "sensor moved"  # the question kept, the bad time dropped
    _refused_here(page, f"{url}/console/kind?kind=Device&from=abc&by=bulk", "#entities tr.entity", "from ")
    assert page.locator("#entities tr.entity").count() == 50  # the first page, the good filter kept
    assert page.input_value("#kind-filters input[name=by]") == "bulk"
    _refused_here(page, f"{url}/console/kind?kind=Device&trust=rejected&since=never", "#entities", "trust is")
    assert "since: " in page.locator("#refused").inner_text()  # each refused choice says why
    _refused_here(
        page, f"{url}/console/conversations/session?user={USER}&session=s1&before=x", "#messages", "before"
    )
    assert violations(page) == []
    # What names the page itself cannot be dropped: a problem page, as before.
    answer = page.goto(f"{url}/console/entity?kind=Device&key=5x&int=1")
    assert answer.status == 400 and page.locator("h1", has_text="Refused").count() == 1
    assert page.locator("#refused").count() == 0
    answer = page.goto(f"{url}/console/graph?kind=Device&key=nobody&at=whenever")
    assert answer.status == 404 and page.locator(".problem").get_attribute("data-code") == "not_found"
    assert violations(page) == [] and errors == []


def test_a_kind_list_is_filtered_by_trust_writer_and_time_window(browser, lighthouse, world):
    page, errors = signed_in_page(browser, lighthouse, world.admin)
    page.goto(f"{lighthouse.url}/console/kind?kind=Device")

    def listed() -> list[str]:
        return page.locator("#entities tr.entity td:first-child").all_inner_texts()

    def shown_with(**chosen: str) -> list[str]:
        _filtered(page, "#kind-filters", chosen)
        return listed()

    assert shown_with(trust="candidate") == ["cand-a", "cand-b"]
    assert shown_with(by="model:fake", since="2026-02-02 00:00:00Z") == ["cand-b"]
    assert shown_with(by="model:fake", until="2026-02-02 00:00:00Z") == ["cand-a"]
    assert shown_with(trust="confirmed", since="2026-01-01") == ["pump-7"]
    assert "pump-7" not in shown_with(trust="confirmed", until="2026-01-01")
    # 51 written by bulk: the pager's next page keeps the filter.
    first = shown_with(by="bulk")
    assert len(first) == 50 and first[0] == "bulk-00"
    assert "by=bulk" in page.locator("#next-page").get_attribute("href")
    with page.expect_navigation():
        page.click("#next-page")
    assert listed() == ["bulk-50"] and page.input_value("#kind-filters input[name=by]") == "bulk"
    with page.expect_navigation():
        page.click("#every-entity")
    assert len(listed()) == 50 and page.input_value("#kind-filters input[name=by]") == ""
    assert "by=" not in page.locator("#next-page").get_attribute("href")  # 54 entities: a next page
    assert violations(page) == [] and errors == []


def test_the_review_queue_is_filtered_by_writer_and_time_window(browser, lighthouse, world):
    page, errors = signed_in_page(browser, lighthouse, world.admin)
    page.goto(f"{lighthouse.url}/console/review")

    def queue(**chosen: str) -> list[str]:
        _filtered(page, "#review-filters", chosen)
        rows = page.locator("#candidates tr.candidate")
        return [rows.nth(n).get_attribute("data-key") for n in range(rows.count())]

    assert queue() == ["cand-a", "cand-b"]
    assert queue(by="model:fake", since="2026-02-02 00:00:00Z") == ["cand-b"]
    # A decision sent from the filtered queue comes back to it: the form carries the filters.
    carried = page.locator("#review-form input[type=hidden]")
    hidden = {
        carried.nth(n).get_attribute("name"): carried.nth(n).input_value() for n in range(carried.count())
    }
    assert hidden["by"] == "model:fake" and hidden["since"] == "2026-02-02 00:00:00Z"
    assert queue(until="2026-02-02 00:00:00Z") == ["cand-a"]
    assert queue(by="someone else") == [] and page.locator("#no-candidates").is_visible()
    assert queue(since="the day after") == ["cand-a", "cand-b"]  # refused: the queue without it
    assert "since: " in page.locator("#refused").inner_text()
    assert violations(page) == [] and errors == []


def test_the_episodes_are_filtered_by_writer_and_time_window(browser, lighthouse, world):
    page, errors = signed_in_page(browser, lighthouse, world.admin)
    page.goto(f"{lighthouse.url}/console/episodes")

    def listed(**chosen: str) -> list[str]:
        _filtered(page, "#episode-filters", chosen)
        return page.locator("#episodes td:first-child a").all_inner_texts()

    assert {"ep-audit", "ep-plan"} <= set(listed())
    assert listed(by="auditor") == ["ep-audit"]
    assert listed(since="2025-03-15", until="2025-05-01") == ["ep-plan"]
    assert listed(by="auditor", since="2025-03-15") == []
    assert {"ep-audit", "ep-plan"} <= set(listed(until="in a while"))  # refused: the list without it
    assert "until: " in page.locator("#refused").inner_text()
    assert violations(page) == [] and errors == []
