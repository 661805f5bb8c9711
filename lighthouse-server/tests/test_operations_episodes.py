"""The operations on episodes: the episode read a page of entries at a time."""

from __future__ import annotations

import pytest
from lighthouse_server.operations.table import PAGE_DEFAULT, PAGE_MOST

ENTRIES = 7


@pytest.fixture(scope="module")
def written(lighthouse):
    """An episode with ENTRIES notes and an outcome, so ENTRIES + 1 entries in all."""
    _tenant, key = lighthouse.tenant("episodes")
    device = {"key": "d1", "t": "2026-01-01T00:00:00Z", "values": {"note": "pump"}}
    lighthouse.result("remember", {"kind": "Device", "rows": [device]}, key)
    opened = lighthouse.result("open_episode", {"episode_id": "paged", "about": [["Device", "d1"]]}, key)
    assert opened["status"] == "opened", opened
    for n in range(ENTRIES):
        entry = {"episode_id": "paged", "entry_type": "note", "values": {"n": n}}
        assert lighthouse.result("record", entry, key)["status"] == "recorded"
    closed = lighthouse.result("close_episode", {"episode_id": "paged", "outcome": {"done": True}}, key)
    assert closed["status"] == "recorded", closed
    return lighthouse, key


def test_an_episode_gives_its_entries_a_page_at_a_time_in_order(written):
    lighthouse, key = written
    seen, cursor, pages = [], None, 0
    while True:
        asked = {"episode_id": "paged", "page_size": 3} | ({"cursor": cursor} if cursor else {})
        answer = lighthouse.result("episode", asked, key)
        pages += 1
        assert answer["id"] == "paged" and answer["entry_count"] == ENTRIES + 1
        assert answer["about"] == [["Device", "d1"]] and answer["closed_at"]
        assert len(answer["entries"]) <= 3
        seen += answer["entries"]
        cursor = answer["next_cursor"]
        if cursor is None:
            break
    assert pages == 3
    assert [entry["seq"] for entry in seen] == list(range(1, ENTRIES + 2))
    assert [entry.get("n") for entry in seen[:-1]] == list(range(ENTRIES))
    assert seen[-1]["type"] == "outcome" and seen[-1]["done"] is True


def test_one_page_holds_the_default_size_and_says_there_is_no_more(written):
    lighthouse, key = written
    whole = lighthouse.result("episode", {"episode_id": "paged"}, key)
    assert ENTRIES + 1 <= PAGE_DEFAULT
    assert len(whole["entries"]) == ENTRIES + 1 and whole["next_cursor"] is None
    past = lighthouse.result("episode", {"episode_id": "paged", "cursor": "100"}, key)
    assert past["entries"] == [] and past["next_cursor"] is None


def test_an_absent_episode_is_null(written):
    lighthouse, key = written
    assert lighthouse.result("episode", {"episode_id": "nowhere", "page_size": 2}, key) is None


@pytest.mark.parametrize(
    "given, says",
    [
        ({"cursor": "x1"}, "cursor must be the next_cursor of an earlier page"),
        ({"cursor": "-1"}, "cursor must be the next_cursor of an earlier page"),
        ({"cursor": 3}, "cursor must be text"),
        ({"page_size": 0}, f"limit must be a whole number from 1 to {PAGE_MOST}"),
        ({"page_size": PAGE_MOST + 1}, f"limit must be a whole number from 1 to {PAGE_MOST}"),
        ({"page_size": True}, "limit must be a whole number"),
        ({"page_size": "3"}, "limit must be a whole number"),
    ],
)
def test_a_bad_cursor_or_page_size_is_refused(written, given, says):
    lighthouse, key = written
    answer = lighthouse.post("episode", {"episode_id": "paged", **given}, key)
    assert answer.status_code == 400, answer.text
    assert says in answer.text
