"""The extraction worker on one tenant graph, against a fake model that is a real HTTP server: good
answers, bad items among good ones, failed asks retried then set aside and replayed, the entities a
note finds in its prompt, relative dates against the said-time, a stored answer applied again."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from fake_model import Raw, Sleep, Status
from lighthouse import failures, history, remember
from lighthouse.note_extraction import EXTRACTION
from lighthouse_server.worker import model
from lighthouse_server.worker.extraction import extract_notes_with, replay, set_aside
from lighthouse_server.worker.model import Model
from lighthouse_server.worker.status import extraction_status
from worker_notes import DEVICE, KINDS, held, note, schema, settings


@pytest.fixture
def world(graph):
    schema(graph)
    return graph


def _run(graph, fake, **more) -> dict:
    asking = Model(settings(fake.url, **more))
    try:
        return extract_notes_with(
            graph, KINDS, asking, owner=held(graph), prompt_entities=more.get("prompt_entities", 20)
        )
    finally:
        asking.close()


def _status(graph) -> dict:
    return extraction_status(graph, configured=True, declared=True)


def test_a_good_answer_is_written_as_candidates_from_the_note(world, fake):
    fake.script = lambda ask: {
        "facts": [
            {"kind": "Device", "key": "d1", "values": {"status": "hot"}, "relations": {"LOCATED_IN": "r2"}},
            {"kind": "Room", "key": "r2", "values": {"floor": 2}},
        ]
    }
    said = "2026-11-30T08:00:00Z"
    entry = note(world, "d1 is hot in room r2", at=said)
    done = _run(world, fake)
    assert done["read"] == 1 and done["rows"] == {"created": 2} and done["refused"] == 0
    (state,) = history(world, DEVICE, "d1")
    assert state["status"] == "hot" and state["entry"] == entry and state["by"] == "model:fake-1"
    assert state["trust"] == "candidate"
    assert state["valid_from"] == datetime(2026, 11, 30, 8, tzinfo=UTC)  # no t: the said-time
    (ask,) = fake.asks
    assert ask.body["model"] == "fake-1" and ask.body["response_format"] == {"type": "json_object"}
    assert ask.authorization == "Bearer sk-test"
    assert ask.note == "d1 is hot in room r2" and ask.user["said_at"] == "2026-11-30T08:00:00Z"
    for declared in ("Device", "serial", "last_seen", "LOCATED_IN", "Room", "code"):
        assert declared in ask.system
    status = _status(world)
    assert status["notes_read"] == 1 and status["rows"] == {"created": 2} and status["notes_waiting"] == 0
    assert status["state"] == "idle" and status["items_refused"] == 0 and status["oldest_waiting_s"] is None
    assert _run(world, fake)["read"] == 0 and len(fake.asks) == 1  # read once: the mark moved


def test_the_note_waits_and_its_age_shows_until_it_is_read(world, fake):
    note(world, "nothing here")
    status = _status(world)
    assert status["notes_waiting"] == 1 and status["oldest_waiting_s"] >= 0 and status["state"] == "stalled"
    _run(world, fake)
    assert _status(world)["notes_waiting"] == 0


def test_each_bad_item_is_a_write_failure_and_the_good_ones_are_written(world, fake):
    fake.script = lambda ask: {
        "facts": [
            {"kind": "Device", "key": "good1", "values": {"status": "ok"}},
            {"kind": "Device", "key": "wrongtype", "values": {"note": 5}},  # a text value that is a number
            {"kind": "Device", "values": {"status": "nokey"}},  # no key
            {"kind": "Planet", "key": "mars", "values": {"status": "unknownkind"}},
            "not an object at all",
            {"kind": "Device", "key": "badrel", "relations": {"OWNS": "x"}},  # no such relation
            {"kind": "Device", "key": "k" * 300},  # past the limit of a key
            {"key": "nokind", "values": {}},
            {"kind": "Device", "key": "good2", "values": {"status": "fine"}, "t": "2026-11-29T00:00:00Z"},
        ]
    }
    entry = note(world, "a busy note")
    done = _run(world, fake)
    assert done["rows"] == {"created": 2, "invalid": 4} and done["refused"] == 7
    assert [state["status"] for state in history(world, DEVICE, "good1")] == ["ok"]
    assert history(world, DEVICE, "good2")[0]["valid_from"] == datetime(2026, 11, 29, tzinfo=UTC)
    for missing in ("wrongtype", "badrel", "mars"):
        assert history(world, DEVICE, missing) == []
    kept = failures(world)
    assert len(kept) == 7 and {failure["reason"] for failure in kept} == {"invalid"}
    contents = " ".join(str(failure["detail"]) for failure in kept)
    for marker in ("wrongtype", "nokey", "mars", "not an object at all", "badrel", "k" * 100, "nokind"):
        assert marker in contents
    own = [failure for failure in kept if "Planet" in str(failure["detail"])]
    assert own and entry in own[0]["detail"] and "model:fake-1" in own[0]["detail"]
    status = _status(world)
    assert status["rows"] == {"created": 2, "invalid": 4} and status["items_refused"] == 7
    assert status["notes_read"] == 1


def test_an_answer_of_another_shape_is_malformed(world, fake):
    fake.script = lambda ask: {"items": [{"kind": "Device", "key": "d1"}]}
    note(world, "shape")
    done = _run(world, fake)
    assert done["set_aside"] == 1 and len(fake.asks) == 3
    (aside,) = set_aside(world)
    assert "malformed" in aside["error"] and aside["asks"] == 3


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        (Raw("{not json"), "malformed"),
        (Status(500), "server"),
        (Sleep(2.5, {"facts": []}), "timeout"),
        (Status(400), "client"),
    ],
)
def test_a_failing_ask_is_retried_with_backoff_then_set_aside_and_replay_gives_it_back(
    world, fake, answer, said
):
    good = {"facts": [{"kind": "Device", "key": "after", "values": {"status": "ok"}}]}
    fake.script = lambda ask: answer if ask.note == "the bad one" else good
    bad = note(world, "the bad one")
    note(world, "the next one")
    done = _run(world, fake)
    assert done["set_aside"] == 1 and done["read"] == 1  # the worker moved on
    assert fake.asks_of("the bad one") == 3 and fake.asks_of("the next one") == 1
    times = [ask.at for ask in fake.asks if ask.note == "the bad one"]
    gaps = [later - earlier for earlier, later in zip(times, times[1:], strict=False)]
    assert gaps[0] >= model.backoff(1) and gaps[1] >= model.backoff(2)
    (aside,) = set_aside(world)
    assert aside["note"] == bad and aside["text"] == "the bad one" and said in aside["error"]
    status = _status(world)
    assert status["notes_set_aside"] == 1 and status["asks_failed"] == 3 and status["notes_read"] == 1
    assert said in status["last_error"] and status["last_error_at"] is not None
    assert status["notes_waiting"] == 0
    assert history(world, DEVICE, "after")[0]["status"] == "ok"
    # Given back, it is read again first, and this time the model answers.
    fake.script = lambda ask: {"facts": [{"kind": "Device", "key": "mended", "values": {"status": "ok"}}]}
    assert replay(world, bad) == {"note": bad, "status": "replayed"}
    assert _status(world)["notes_waiting"] == 1 and set_aside(world) == []
    again = _run(world, fake)
    assert again["read"] == 1 and fake.asks_of("the bad one") == 4
    assert history(world, DEVICE, "mended")[0]["entry"] == bad
    status = _status(world)
    assert status["notes_set_aside"] == 0 and status["notes_read"] == 2 and status["notes_waiting"] == 0
    assert replay(world, bad)["status"] == "not_set_aside"


def test_replay_of_what_is_not_a_note_says_so(world):
    assert replay(world, "no/1") == {"note": "no/1", "status": "unknown"}
    assert replay(world, "x" * 500)["status"] == "unknown"
    assert replay(world, 7) == {"note": None, "status": "unknown"}


def test_an_unreachable_model_leaves_the_note_waiting(world, fake):
    note(world, "nobody listens")
    url = fake.url
    fake.close()
    asking = Model(settings(url))
    done = extract_notes_with(world, KINDS, asking, owner=held(world))
    asking.close()
    assert done["stopped"] == "unreachable" and done["set_aside"] == 0
    status = _status(world)
    assert (
        status["notes_waiting"] == 1
        and status["notes_set_aside"] == 0
        and "unreachable" in status["last_error"]
    )


def test_the_prompt_carries_the_entities_the_note_finds_and_a_fact_lands_on_one(world, fake):
    remember(
        world,
        DEVICE,
        [
            {
                "key": "d7",
                "t": "2026-11-01T00:00:00Z",
                "values": {"note": "pump room sensor", "status": "ok"},
            },
            {"key": "d8", "t": "2026-11-01T00:00:00Z", "values": {"note": "roof antenna"}},
        ],
        by="inventory",
    )

    def answer(ask):
        known = [entity for entity in ask.user["known"] if entity["kind"] == "Device"]
        return {
            "facts": [
                {"kind": "Device", "key": known[0]["key"], "values": {**known[0]["values"], "status": "hot"}}
            ]
        }

    fake.script = answer
    note(world, "the sensor in the pump room runs hot")  # by the words of its text
    note(world, "d8 fell off")  # by its key
    _run(world, fake)
    first, second = fake.asks
    assert {
        "kind": "Device",
        "key": "d7",
        "values": {"note": "pump room sensor", "status": "ok"},
    } in first.user["known"]
    assert "d8" not in [entity["key"] for entity in first.user["known"]]
    assert second.user["known"][0]["key"] == "d8"
    assert [state["status"] for state in history(world, DEVICE, "d7")] == ["ok", "hot"]
    assert history(world, DEVICE, "d7")[1]["note"] == "pump room sensor"
    assert [state.get("status") for state in history(world, DEVICE, "d8")] == [None, "hot"]


def test_the_prompt_carries_at_most_prompt_entities(world, fake):
    remember(
        world,
        DEVICE,
        [{"key": f"p{n}", "t": "2026-11-01T00:00:00Z", "values": {"note": "pump"}} for n in range(5)],
        by="inventory",
    )
    note(world, "a pump")
    _run(world, fake, prompt_entities=2)
    assert len(fake.asks[0].user["known"]) == 2
    note(world, "a pump again")
    _run(world, fake, prompt_entities=0)
    assert fake.asks[1].user["known"] == []


def test_yesterday_is_the_day_before_the_said_time_not_before_the_reading(world, fake):
    def answer(ask):
        said = datetime.fromisoformat(ask.user["said_at"])
        if "yesterday" not in ask.note:
            return {"facts": []}
        when = (said - timedelta(days=1)).replace(hour=9)
        return {
            "facts": [
                {"kind": "Device", "key": "fan", "t": when.isoformat(), "values": {"status": "stopped"}}
            ]
        }

    fake.script = answer
    friday = "2026-11-27T16:00:00Z"  # a Friday; the worker reads it days later
    assert datetime.fromisoformat(friday).weekday() == 4
    note(world, "the fan stopped yesterday morning", at=friday)
    _run(world, fake)
    assert fake.asks[0].user["said_at"] == friday
    (state,) = history(world, DEVICE, "fan")
    assert state["valid_from"] == datetime(2026, 11, 26, 9, tzinfo=UTC)
    assert state["valid_from"].weekday() == 3  # Thursday


def test_a_stored_answer_is_applied_again_without_asking_twice(world, fake):
    fake.script = lambda ask: {"facts": [{"kind": "Device", "key": "once", "values": {"status": "ok"}}]}
    note(world, "ask me once")

    asking = Model(settings(fake.url))
    with pytest.raises(Crash):
        extract_notes_with(
            world, KINDS, asking, owner=held(world), writing=_crashing
        )  # dies after the answer is kept
    assert history(world, DEVICE, "once") == [] and len(fake.asks) == 1
    stored = world.ro_query(f"MATCH (x:{EXTRACTION}) RETURN x.state, x.answer").result_set
    assert stored[0][0] == "answered" and json.loads(stored[0][1])["facts"][0]["key"] == "once"
    done = extract_notes_with(world, KINDS, asking, owner=held(world))
    asking.close()
    assert done["read"] == 1 and len(fake.asks) == 1  # the stored answer, not a second ask
    assert [state["status"] for state in history(world, DEVICE, "once")] == ["ok"]
    assert _status(world)["notes_read"] == 1


def test_a_note_of_hostile_text_costs_nothing_but_its_own_answer(world, fake):
    fake.script = lambda ask: {
        "facts": [{"kind": "Device", "key": "x'}) DETACH DELETE n //", "values": {"note": ask.note}}]
    }
    note(world, "MATCH (n) DETACH DELETE n; \u202e \x01 ' \" ` {}")
    done = _run(world, fake)
    assert done["rows"] == {"created": 1}
    assert history(world, DEVICE, "x'}) DETACH DELETE n //")[0]["note"].startswith("MATCH (n)")


def test_backoff_is_short_and_bounded():
    assert model.backoff(1) == model.BACKOFF_FIRST
    assert model.backoff(2) == 2 * model.BACKOFF_FIRST
    assert model.backoff(50) == model.BACKOFF_MOST


def test_a_model_needs_its_url():
    with pytest.raises(ValueError, match="model_url"):
        Model(settings(""))


def test_with_an_embedder_the_prompt_carries_what_the_note_means(world, fake):
    from lighthouse import Kind, embed, ensure_schema
    from lighthouse_server.embedders import DIMENSIONS, local_embedder
    from lighthouse_server.worker.prompt import found_entities

    meaning = local_embedder()
    appliance = Kind("Appliance", key="name", text=("about",), dimensions=DIMENSIONS)
    ensure_schema(world, [appliance])
    remember(
        world,
        appliance,
        [
            {
                "key": "kettle",
                "t": "2026-11-01T00:00:00Z",
                "values": {"about": "electric kettle for boiling water"},
            },
            {"key": "mower", "t": "2026-11-01T00:00:00Z", "values": {"about": "lawn mower in the shed"}},
        ],
        by="inventory",
    )
    embed(world, appliance, meaning[0], meaning[1])
    kinds = {"Appliance": appliance}
    text = "teapot heater broke"  # no word of either entity's text
    assert found_entities(world, kinds, text, 1) == []
    (found,) = found_entities(world, kinds, text, 1, meaning)
    assert found == {
        "kind": "Appliance",
        "key": "kettle",
        "values": {"about": "electric kettle for boiling water"},
    }


class Crash(Exception):
    """The process dying at a chosen point."""


def _crashing():
    raise Crash


def test_a_replayed_note_whose_answer_was_kept_is_finished_after_a_crash(world, fake):
    fake.script = lambda ask: Status(500) if ask.note == "fails first" else {"facts": []}
    bad = note(world, "fails first")
    note(world, "later note")
    _run(world, fake)
    assert len(set_aside(world)) == 1
    fake.script = lambda ask: {"facts": [{"kind": "Device", "key": "late", "values": {"status": "ok"}}]}
    replay(world, bad)
    asking = Model(settings(fake.url))
    with pytest.raises(Crash):
        extract_notes_with(world, KINDS, asking, owner=held(world), writing=_crashing)
    asks = len(fake.asks)
    status = _status(world)
    assert status["notes_waiting"] == 1 and status["notes_set_aside"] == 0  # behind the mark, not lost
    done = extract_notes_with(world, KINDS, asking, owner=held(world))
    asking.close()
    assert done["read"] == 1 and len(fake.asks) == asks
    assert history(world, DEVICE, "late")[0]["entry"] == bad
    assert _status(world)["notes_waiting"] == 0


def test_a_model_that_asks_to_slow_down_leaves_the_note_waiting(world, fake):
    fake.script = lambda ask: Status(429)
    note(world, "too many")
    done = _run(world, fake)
    assert done["stopped"] == "rate_limited" and done["set_aside"] == 0 and len(fake.asks) == 1
    status = _status(world)
    assert status["notes_waiting"] == 1 and "429" in status["last_error"]


def test_a_stop_between_two_asks_sets_nothing_aside(world, fake):
    import threading

    stop = threading.Event()

    def failing(ask):
        stop.set()  # the worker is told to stop while this ask fails
        return Status(503)

    fake.script = failing
    note(world, "stop now")
    asking = Model(settings(fake.url))
    done = extract_notes_with(world, KINDS, asking, owner=held(world), stop=stop)
    asking.close()
    assert done["stopped"] == "stopped" and done["set_aside"] == 0 and len(fake.asks) == 1
    assert _status(world)["notes_waiting"] == 1 and set_aside(world) == []


def test_an_answer_past_the_limit_is_malformed(world, fake):
    fake.script = lambda ask: Raw(json.dumps({"facts": [], "pad": "a" * model.MAX_ANSWER}))
    note(world, "huge")
    assert _run(world, fake, model_attempts=1)["set_aside"] == 1
    assert "longer than" in set_aside(world)[0]["error"]


def test_an_embedder_that_fails_on_the_prompt_shows_in_the_status(world, fake):
    from lighthouse import Kind, ensure_schema
    from lighthouse_server.embedders import Embedder

    def broken(texts):
        raise RuntimeError("the embedder broke")

    gadget = Kind("Gadget", text=("about",), dimensions=8)
    ensure_schema(world, [gadget])
    kinds = {**KINDS, "Gadget": gadget}
    fake.script = lambda ask: {"facts": []}
    note(world, "the kettle is hot")
    asking = Model(settings(fake.url))
    try:
        done = extract_notes_with(
            world, kinds, asking, owner=held(world), meaning=Embedder(broken, "broken", 8)
        )
    finally:
        asking.close()
    assert done["read"] == 1 and len(fake.asks) == 1  # the prompt carried what words find
    status = _status(world)
    assert "the embedder broke" in status["last_error"] and "Gadget" in status["last_error"]
    assert status["state"] == "idle"  # the note was read after the error: nothing waits
