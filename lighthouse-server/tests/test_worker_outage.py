"""A model that refuses our settings or is down does not set the backlog aside: 401, 403 and 404 leave
the notes waiting (last_error says why), three notes set aside in a row for one kind of failure end the
round, and the status says "failing" while the worker's last error is later than its last read. A note
the model fails on alone (it drops the connection on that note) is set aside once the model answers
another, and the notes after it are read; an answer that trickles in is cut at model_timeout_s."""

from __future__ import annotations

import time

import pytest
from fake_model import Status, Trickle
from lighthouse import history
from lighthouse.note_extraction_round import SET_ASIDE_IN_A_ROW
from lighthouse_server.worker.extraction import extract_notes_with, set_aside
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
        return extract_notes_with(graph, KINDS, asking, owner=held(graph), limit=limit)
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
    # asked once, not model_attempts times; the next note once, which tells the model is to blame
    assert [ask.note for ask in fake.asks] == ["first", "second"]
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


def _one_fact(ask) -> dict:
    return {"facts": [{"kind": "Device", "key": ask.note.split()[-1], "values": {"status": "ok"}}]}


def test_a_note_the_model_drops_alone_is_set_aside_and_the_later_notes_are_read(world, fake):
    fake.script = lambda ask: None if "poison" in ask.note else _one_fact(ask)  # None: the connection dropped
    poison = note(world, "poison p1")
    for number in range(3):
        note(world, f"after a{number}")
    done = _run(world, fake.url, model_attempts=2)
    assert done["set_aside"] == 1 and done["read"] == 3 and done["stopped"] is None
    assert fake.asks_of("poison p1") == 3  # once, then model_attempts times once another note was answered
    (aside,) = set_aside(world)
    assert aside["note"] == poison and "unreachable" in aside["error"] and aside["asks"] == 3
    assert all(history(world, DEVICE, f"a{number}") for number in range(3))
    status = _status(world)
    assert status["notes_waiting"] == 0 and status["notes_set_aside"] == 1 and status["state"] == "idle"
    assert _run(world, fake.url, model_attempts=2)["read"] == 0  # nothing is read twice


def test_a_note_dropped_with_nothing_after_it_waits_until_another_is_answered(world, fake):
    fake.script = lambda ask: None if "poison" in ask.note else _one_fact(ask)
    note(world, "poison p1")
    done = _run(world, fake.url, model_attempts=2)
    assert done["stopped"] == "unreachable" and done["set_aside"] == 0
    status = _status(world)
    assert (
        status["notes_waiting"] == 1 and status["state"] == "failing" and "poison" not in status["last_error"]
    )
    note(world, "after a1")
    done = _run(world, fake.url, model_attempts=2)
    assert done["set_aside"] == 1 and done["read"] == 1 and history(world, DEVICE, "a1")
    assert _status(world)["notes_waiting"] == 0


def test_a_note_the_model_answers_when_asked_again_is_read_in_order(world, fake):
    dropped = []

    def once_dropped(ask):
        if "flaky" in ask.note and not dropped:
            dropped.append(ask)
            return None
        return _one_fact(ask)

    fake.script = once_dropped
    note(world, "flaky f1")
    note(world, "after a1")
    done = _run(world, fake.url)
    assert done["read"] == 2 and done["set_aside"] == 0 and done["stopped"] is None
    assert [ask.note for ask in fake.asks] == ["flaky f1", "after a1", "flaky f1"]
    assert history(world, DEVICE, "f1") and history(world, DEVICE, "a1")
    assert _status(world)["notes_waiting"] == 0 and set_aside(world) == []


def test_a_model_that_drops_every_note_sets_none_aside(world, fake):
    fake.script = lambda ask: None
    for number in range(3):
        note(world, f"note n{number}")
    for _round in range(3):
        done = _run(world, fake.url, model_attempts=1)
        assert done["stopped"] == "unreachable" and done["set_aside"] == 0 and done["read"] == 0
    status = _status(world)
    assert status["notes_waiting"] == 3 and status["notes_set_aside"] == 0 and status["state"] == "failing"
    assert len(fake.asks) == 6  # each round: the first note, and the next, which tells the model is down


def test_an_answer_that_trickles_in_is_cut_at_the_timeout(world, fake):
    # a byte each 0.2 s: every read comes well within 1 s, the whole answer would take about 40 s
    fake.script = lambda ask: Trickle(_one_fact(ask), every=0.2) if "slow" in ask.note else _one_fact(ask)
    note(world, "slow s1")
    note(world, "after a1")
    began = time.monotonic()
    done = _run(world, fake.url, model_attempts=2, model_timeout_s=1)
    took = time.monotonic() - began
    assert done["set_aside"] == 1 and done["read"] == 1
    (aside,) = set_aside(world)
    assert "timeout" in aside["error"] and "1 s" in aside["error"] and aside["asks"] == 2
    assert took < 2 * 1 + 2.0  # two asks of at most 1 s each, their backoff, the writes
    assert history(world, DEVICE, "a1") and not history(world, DEVICE, "s1")
