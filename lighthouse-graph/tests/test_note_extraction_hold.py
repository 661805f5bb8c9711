"""hold_extraction(), leave_extraction(): one worker at a time holds a graph's notes, taken over after the
lease or at once when the application's gone() says the owner is gone."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from lighthouse import (
    Refused,
    WrongType,
    ensure_schema,
    extraction_progress,
    hold_extraction,
    leave_extraction,
)
from lighthouse.note_extraction_hold import WORKER


@pytest.fixture
def job(graph):
    ensure_schema(graph)
    return graph


def _owner(graph) -> str | None:
    found = graph.ro_query(f"MATCH (w:{WORKER}) RETURN w.owner").result_set
    return found[0][0] if found else None


def test_the_first_owner_holds_the_graph_keeps_it_and_a_second_is_told_who_holds_it(job):
    assert hold_extraction(job, "a:1:x", "model-1") is None
    assert hold_extraction(job, "a:1:x", "model-1") is None  # kept
    assert hold_extraction(job, "b:2:y", "model-2") == "a:1:x"
    progress = extraction_progress(job)
    assert progress["owner"] == "a:1:x" and progress["model"] == "model-1" and progress["seen_at"] is not None
    assert hold_extraction(job, "a:1:x") is None and extraction_progress(job)["model"] is None
    assert hold_extraction(job, "a:1:x", " any model\x7f ") is None  # a model's name is text, as given
    assert extraction_progress(job)["model"] == " any model\x7f "


def test_an_owner_quiet_past_the_lease_is_taken_over_and_a_live_one_is_not(job):
    assert hold_extraction(job, "far:1:x") is None
    quiet = (datetime.now(UTC) - timedelta(seconds=400)).strftime("%Y-%m-%dT%H:%M:%S")
    job.query(f"MATCH (w:{WORKER}) SET w.seen_at = localdatetime($at)", {"at": quiet})
    assert hold_extraction(job, "here:2:y", lease=500) == "far:1:x"  # quiet 400 s: within the lease
    assert hold_extraction(job, "here:2:y", lease=300.5) is None and _owner(job) == "here:2:y"


def test_gone_takes_over_at_once_only_when_it_says_true(job):
    asked = []
    assert hold_extraction(job, "old:1:x") is None
    assert hold_extraction(job, "new:2:y", gone=lambda owner: asked.append(owner) or 1) == "old:1:x"
    assert asked == ["old:1:x"]  # only True counts, not what is merely true
    assert hold_extraction(job, "new:2:y", gone=lambda owner: owner == "old:1:x") is None
    assert _owner(job) == "new:2:y"

    def broken(owner):
        raise LookupError("the application's own failure")

    with pytest.raises(LookupError):  # the application's code: its exception passes unchanged
        hold_extraction(job, "third:3:z", gone=broken)
    assert _owner(job) == "new:2:y"


def test_a_left_graph_is_taken_at_once_and_only_its_owner_leaves_it(job):
    assert leave_extraction(job, "a:1:x") is False  # no one held it
    hold_extraction(job, "a:1:x")
    assert leave_extraction(job, "b:2:y") is False and _owner(job) == "a:1:x"
    assert leave_extraction(job, "a:1:x") is True and _owner(job) is None
    assert hold_extraction(job, "b:2:y") is None


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        ({"owner": ""}, Refused),
        ({"owner": " padded "}, Refused),
        ({"owner": "x" * 201}, Refused),
        ({"owner": 7}, Refused),
        ({"model": "a\x00b"}, Refused),
        ({"model": "m" * 201}, Refused),
        ({"model": 3}, Refused),
        ({"lease": 0}, Refused),
        ({"lease": 7 * 24 * 3600 + 1}, Refused),
        ({"lease": "60"}, Refused),
        ({"lease": True}, Refused),
        ({"gone": "yes"}, WrongType),
    ],
)
def test_bad_arguments_are_refused_before_anything_is_written(job, arguments, error):
    given = {"owner": "a:1:x", "model": None, "lease": 300} | arguments
    with pytest.raises(error):
        hold_extraction(job, given["owner"], given["model"], given["lease"], given.get("gone"))
    assert _owner(job) is None
    with pytest.raises(Refused):
        leave_extraction(job, "")
