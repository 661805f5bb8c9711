"""A model that refuses our settings or is down does not set the backlog aside: 401, 403 and 404 leave
the note waiting (last_error says why), three notes set aside in a row for one kind of failure end the
round, and the status says "failing" while the worker's last error is later than its last read."""

from __future__ import annotations

import pytest
from fake_model import Status
from lighthouse import history
from lighthouse_server.worker.extraction import SET_ASIDE_IN_A_ROW, extract_notes, set_aside
from lighthouse_server.worker.model import MISCONFIGURED, Model
from lighthouse_server.worker.status import extraction_status
from worker_notes import DEVICE, KINDS, held, note, schema, settings

GOOD = {"facts": [{"kind": "Device", "key": "d1", "values": {"status": "ok"}}]}


@pytest.fixture
def world(graph):
    schema(graph)
    return graph


def _run(graph, url: str, limit: int = 50, **more) -> dict:
    asking = Model(settings(url, **more))
    try:
        return extract_notes(graph, KINDS, asking, owner=held(graph), limit=limit)
    finally:
        asking.close()


def _status(graph) -> dict:
    return extraction_status(graph, configured=True, declared=True)


@pytest.mark.parametrize("code", [401, 403, 404])
def test_a_model_that_refuses_our_settings_leaves_the_notes_waiting(world, fake, code):
    fake.script = lambda ask: Status(code)
    note(world, "first")
    note(world, "second")
    done = _run(world, fake.url)
    assert done["stopped"] == MISCONFIGURED and done["set_aside"] == 0 and done["read"] == 0
    assert len(fake.asks) == 1  # asked once, not model_attempts times, and not for the next note
    status = _status(world)
    assert status["notes_waiting"] == 2 and status["notes_set_aside"] == 0 and set_aside(world) == []
    assert str(code) in status["last_error"] and "model_key" in status["last_error"]
    assert status["state"] == "failing"
    fake.script = lambda ask: GOOD  # the setting mended: the next round reads them
    assert _run(world, fake.url)["read"] == 2 and _status(world)["state"] == "idle"


def test_three_notes_set_aside_in_a_row_for_one_failure_end_the_round(world, fake):
    fake.script = lambda ask: Status(500)
    for number in range(5):
        note(world, f"note {number}")
    done = _run(world, fake.url, model_attempts=1)
    assert done["set_aside"] == SET_ASIDE_IN_A_ROW == 3 and done["stopped"] == "repeated:server"
    assert len(fake.asks) == 3
    status = _status(world)
    assert status["notes_set_aside"] == 3 and status["notes_waiting"] == 2
    assert "3 notes in a row" in status["last_error"] and status["state"] == "failing"


def test_failures_between_good_answers_do_not_end_the_round(world, fake):
    fake.script = lambda ask: Status(500) if "bad" in ask.note else GOOD
    for text in ("bad 1", "good 1", "bad 2", "good 2", "bad 3", "bad 4"):
        note(world, text)
    done = _run(world, fake.url, model_attempts=1)
    assert done["set_aside"] == 4 and done["read"] == 2 and done["stopped"] is None


def test_failures_of_different_kinds_are_not_in_a_row(world, fake):
    fake.script = lambda ask: Status(500) if "server" in ask.note else Status(400)
    for text in ("server 1", "client 1", "server 2", "client 2"):
        note(world, text)
    done = _run(world, fake.url, model_attempts=1)
    assert done["set_aside"] == 4 and done["stopped"] is None


def test_an_unreachable_model_makes_the_status_say_failing_until_a_note_is_read(world, fake):
    note(world, "one")
    note(world, "two")
    url = fake.url
    fake.script = lambda ask: GOOD
    _run(world, url, limit=1)
    status = _status(world)
    assert status["state"] == "working" and status["last_read_at"] is not None  # one read, one waits
    fake.close()
    done = _run(world, url)
    assert done["stopped"] == "unreachable"
    status = _status(world)
    assert status["state"] == "failing" and status["notes_waiting"] == 1
    assert status["last_error_at"] >= status["last_read_at"]
    assert history(world, DEVICE, "d1")  # what was read stays


def test_an_error_before_any_read_is_failing_and_nothing_waiting_is_idle(world):
    note(world, "never read")
    held(world)
    assert _status(world)["state"] == "working"
    _run(world, "http://127.0.0.1:9/v1")  # nothing listens there
    status = _status(world)
    assert status["state"] == "failing" and status["last_read_at"] is None
    assert "unreachable" in status["last_error"]
    world.query("MATCH (n:Entry {type: 'note'}) SET n.invalidated_at = localdatetime()")
    assert _status(world)["state"] == "idle"  # an error, but nothing waits
