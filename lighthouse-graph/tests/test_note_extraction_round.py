"""extract_notes(): a round of a graph's notes over the application's extractor, a real function of the
note: each note read once, a kept answer applied again without asking, a failed note set aside, one the
extractor could not be asked about judged by the next, set-asides in a row, refused rows, a lost claim
and a stop each ending the round, and the refusals of its arguments and of an answer."""

from __future__ import annotations

import contextlib
import threading

import lighthouse as lh
import pytest
from lighthouse import ExtractorFailed, ExtractorUnavailable, Kind, Refused, WrongType, extract_notes
from lighthouse.note_extraction_round import LOST_CLAIM, SET_ASIDE_IN_A_ROW, WRITE_FAILED
from lighthouse.note_extraction_rows import MAX_FACTS
from redis.exceptions import ResponseError

ROOM = Kind("Room", key="code")
DEVICE = Kind("Device", key="serial", relations={"LOCATED_IN": ROOM})
KINDS = {"Room": ROOM, "Device": DEVICE}
OWNER, OTHER, BY = "here:1:a", "there:2:b", "model:test"


class Reader:
    """The application's extractor: answers each note by its text (`answer(text, patient)`), one fact
    of a Device named by the note's last word unless told otherwise, and keeps each ask."""

    def __init__(self, answer=None) -> None:
        self.answer = answer or (lambda text, patient: _fact(text))
        self.asks: list[tuple[str, bool]] = []

    def __call__(self, found: dict, patient: bool = False):
        self.asks.append((found["text"], patient))
        return self.answer(found["text"], patient)

    def asks_of(self, text: str) -> int:
        return sum(1 for asked, _ in self.asks if asked == text)


def _fact(text: str) -> list:
    return [{"kind": "Device", "key": text.split()[-1], "values": {"status": "ok"}}]


@pytest.fixture
def notebook(graph):
    lh.ensure_schema(graph, list(KINDS.values()))
    assert lh.hold_extraction(graph, OWNER) is None
    return graph


def _note(graph, text: str) -> str:
    return lh.note(graph, text, "agent", at="2026-11-27T16:00:00Z")["id"]


def _round(graph, reader, **more) -> dict:
    return extract_notes(graph, KINDS, reader, **({"owner": OWNER, "by": BY} | more))


def _stamp_mark(graph):
    return graph.ro_query("MATCH (st:Stamp) RETURN st.`lh.extract_notes`").result_set[0][0]


def test_each_note_is_read_once_as_candidates_and_the_mark_is_on_the_stamp(notebook):
    graph = notebook
    first, second = _note(graph, "d1 runs hot"), _note(graph, "fan d2")
    reader = Reader()
    done = _round(graph, reader)
    assert done == {
        "read": 2,
        "set_aside": 0,
        "invalidated": 0,
        "rows": {"created": 2},
        "refused": 0,
        "stopped": None,
    }
    (state,) = lh.history(graph, DEVICE, "hot")
    assert state["entry"] == first and state["by"] == BY and state["trust"] == "candidate"
    assert reader.asks == [("d1 runs hot", False), ("fan d2", False)]
    # the mark: the serial of the last note finished, kept on the Stamp
    assert lh.extraction_progress(graph)["mark"] == _stamp_mark(graph) == 2
    assert lh.extraction_states(graph, [second])[second]["state"] == "applied"
    assert _round(graph, reader)["read"] == 0 and len(reader.asks) == 2  # read once


def test_a_failed_note_is_set_aside_the_round_goes_on_and_given_back_it_is_read(notebook):
    graph = notebook

    def answer(text, patient):
        if text == "the bad one":
            raise ExtractorFailed("server: answered 500", "server", 3)
        return _fact(text)

    bad = _note(graph, "the bad one")
    _note(graph, "after a1")
    done = _round(graph, Reader(answer))
    assert done["set_aside"] == 1 and done["read"] == 1 and done["stopped"] is None
    (aside,) = lh.notes_set_aside(graph)
    assert (
        aside["note"] == bad and aside["asks"] == 3 and aside["error"] == f"note {bad}: server: answered 500"
    )
    progress = lh.extraction_progress(graph)
    assert progress["asks_failed"] == 3 and progress["notes_waiting"] == 0 and progress["mark"] == 2
    assert lh.give_note_back(graph, bad)["status"] == "replayed"
    reader = Reader()
    again = _round(graph, reader)
    assert again["read"] == 1 and reader.asks == [("the bad one", False)]
    assert lh.history(graph, DEVICE, "one")[0]["entry"] == bad and lh.notes_set_aside(graph) == []


def _failing(reasons: dict):
    def answer(text, patient):
        for word, reason in reasons.items():
            if word in text:
                raise ExtractorFailed(f"{reason}: no", reason)
        return _fact(text)

    return answer


@pytest.mark.parametrize(
    ("texts", "reasons", "expected"),
    [
        (["bad 1", "bad 2", "bad 3", "bad 4", "bad 5"], {"bad": "server"}, (3, 0, "repeated:server")),
        (
            ["server 1", "client 1", "server 2", "client 2"],
            {"server": "server", "client": "client"},
            (4, 0, None),
        ),
        (["bad 1", "good 1", "bad 2", "good 2", "bad 3", "bad 4"], {"bad": "server"}, (4, 2, None)),
    ],
)
def test_notes_set_aside_in_a_row_for_one_reason_end_the_round(notebook, texts, reasons, expected):
    graph = notebook
    for text in texts:
        _note(graph, text)
    done = _round(graph, Reader(_failing(reasons)))
    assert (done["set_aside"], done["read"], done["stopped"]) == expected
    progress = lh.extraction_progress(graph)
    if expected[2] is not None:
        assert SET_ASIDE_IN_A_ROW == 3 and progress["notes_waiting"] == 2
        assert "3 notes in a row set aside" in progress["last_error"] and progress["erring"] is True
    else:
        assert progress["notes_waiting"] == 0


def _unavailable(text: str, asks: int = 1) -> ExtractorUnavailable:
    return ExtractorUnavailable(f"unreachable: dropped on {text}", "unreachable", asks)


def _answered_when_patient(text: str, patient: bool) -> list:
    """An extractor that cannot be asked about a flaky note unless asked patiently."""
    if "flaky" in text and not patient:
        raise _unavailable(text)
    return _fact(text)


def test_a_note_unavailable_alone_is_judged_by_the_next_and_set_aside(notebook):
    graph = notebook

    def answer(text, patient):
        if "poison" in text:
            raise _unavailable(text, 2 if patient else 1)
        return _fact(text)

    poison = _note(graph, "poison p1")
    for number in range(3):
        _note(graph, f"after a{number}")
    reader = Reader(answer)
    done = _round(graph, reader)
    assert (done["set_aside"], done["read"], done["stopped"]) == (1, 3, None)
    assert reader.asks[:3] == [("poison p1", False), ("after a0", False), ("poison p1", True)]
    (aside,) = lh.notes_set_aside(graph)
    assert aside["note"] == poison and aside["asks"] == 3 and "unreachable" in aside["error"]
    assert all(lh.history(graph, DEVICE, f"a{number}") for number in range(3))
    assert lh.extraction_progress(graph)["notes_waiting"] == 0


def test_a_note_answered_when_asked_patiently_is_read_in_order(notebook):
    graph = notebook

    _note(graph, "flaky f1")
    _note(graph, "after a1")
    reader = Reader(_answered_when_patient)
    done = _round(graph, reader)
    assert (done["read"], done["set_aside"], done["stopped"]) == (2, 0, None)
    assert reader.asks == [("flaky f1", False), ("after a1", False), ("flaky f1", True)]
    assert lh.history(graph, DEVICE, "f1") and lh.history(graph, DEVICE, "a1")
    assert lh.extraction_progress(graph)["notes_waiting"] == 0


def test_two_notes_unavailable_in_a_row_end_the_round_and_every_note_waits(notebook):
    graph = notebook

    def answer(text, patient):
        raise ExtractorUnavailable("rate_limited: answered 429", "rate_limited")

    first = _note(graph, "first f1")
    _note(graph, "second s1")
    _note(graph, "third t1")
    reader = Reader(answer)
    done = _round(graph, reader)
    assert (done["read"], done["set_aside"], done["stopped"]) == (0, 0, "rate_limited")
    assert [text for text, _ in reader.asks] == ["first f1", "second s1"]
    progress = lh.extraction_progress(graph)
    assert progress["notes_waiting"] == 3 and progress["erring"] is True and "429" in progress["last_error"]
    assert lh.extraction_states(graph, [first])[first]["state"] == "waiting"
    mended = Reader()
    assert _round(graph, mended)["read"] == 3 and mended.asks[0] == ("first f1", False)


def test_a_note_unavailable_with_nothing_after_it_waits_for_the_next(notebook):
    graph = notebook

    def answer(text, patient):
        if "poison" in text:
            raise _unavailable(text)
        return _fact(text)

    _note(graph, "poison p1")
    done = _round(graph, Reader(answer))
    assert (done["read"], done["set_aside"], done["stopped"]) == (0, 0, "unreachable")
    assert lh.extraction_progress(graph)["notes_waiting"] == 1
    _note(graph, "after a1")
    done = _round(graph, Reader(answer))
    assert (done["read"], done["set_aside"], done["stopped"]) == (1, 1, None)


class Crash(Exception):
    """The process dying at a chosen point."""


def _crashing():
    raise Crash


def test_a_kept_answer_is_applied_again_without_asking(notebook):
    graph = notebook
    kept = _note(graph, "ask me once")
    reader = Reader(lambda text, patient: (_fact(text), 3))  # three asks: two failed
    with pytest.raises(Crash):
        _round(graph, reader, writing=_crashing)  # dies after the answer is kept
    assert (
        lh.history(graph, DEVICE, "once") == []
        and lh.extraction_states(graph, [kept])[kept]["state"] == "answered"
    )
    done = _round(graph, reader)
    assert done["read"] == 1 and len(reader.asks) == 1  # the kept answer, not a second ask
    assert len(lh.history(graph, DEVICE, "once")) == 1
    assert (
        lh.extraction_states(graph, [kept])[kept]["asks"] == 3
        and lh.extraction_progress(graph)["asks_failed"] == 2
    )


class RefusingOnce:
    """The real graph, whose first write query naming `marker` the server refuses, as a full disk would."""

    def __init__(self, graph, marker: str) -> None:
        self.graph, self.marker, self.refused = graph, marker, []

    def query(self, *args, **kwargs):
        if not self.refused and self.marker in args[0]:
            self.refused.append(args[0])
            raise ResponseError("the server refused the query")
        return self.graph.query(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.graph, name)


def test_rows_the_database_refuses_leave_the_note_answered_for_the_next_round(notebook):
    graph = notebook
    first = _note(graph, "pump d1")
    _note(graph, "fan d2")
    reader = Reader(lambda text, patient: [*_fact(text), {"kind": "Room", "key": "r1", "values": {}}])
    failing = RefusingOnce(graph, "`Device`")
    done = _round(failing, reader)
    assert failing.refused and (done["stopped"], done["read"]) == (WRITE_FAILED, 0) and len(reader.asks) == 1
    assert lh.extraction_states(graph, [first])[first]["state"] == "answered"
    progress = lh.extraction_progress(graph)
    assert (
        progress["mark"] == 0
        and "failed or busy" in progress["last_error"]
        and progress["notes_waiting"] == 2
    )
    again = _round(graph, reader)
    assert (again["read"], again["stopped"]) == (2, None) and len(reader.asks) == 2
    assert (
        again["rows"] == {"created": 2, "unchanged": 2}
        and lh.history(graph, DEVICE, "d1")[0]["entry"] == first
    )


def test_rows_refused_while_a_waiting_note_is_judged_leave_both_answers_kept(notebook):
    graph = notebook

    flaky, judge = _note(graph, "flaky f1"), _note(graph, "after a1")
    reader = Reader(_answered_when_patient)
    failing = RefusingOnce(graph, "`Device`")  # the waited note's rows, written first
    done = _round(failing, reader)
    assert failing.refused and (done["stopped"], done["read"]) == (WRITE_FAILED, 0)
    states = lh.extraction_states(graph, [flaky, judge])
    assert (states[flaky]["state"], states[judge]["state"]) == ("answered", "answered")
    assert lh.extraction_progress(graph)["mark"] == 0
    again = _round(graph, reader)  # both kept answers applied: the model is not asked again
    assert (again["read"], again["stopped"]) == (2, None) and len(reader.asks) == 3
    assert lh.history(graph, DEVICE, "f1") and lh.history(graph, DEVICE, "a1")
    assert lh.extraction_progress(graph)["mark"] == 2


def _taken(graph) -> None:
    assert lh.leave_extraction(graph, OWNER) and lh.hold_extraction(graph, OTHER) is None


def test_a_claim_lost_while_the_extractor_answers_keeps_nothing(notebook):
    graph = notebook
    first = _note(graph, "d1 first")
    _note(graph, "d2 second")

    def answer(text, patient):
        _taken(graph)
        return _fact(text)

    reader = Reader(answer)
    done = _round(graph, reader)
    assert (done["stopped"], done["read"], len(reader.asks)) == (LOST_CLAIM, 0, 1)
    assert (
        lh.extraction_states(graph, [first])[first]["state"] is None
        and lh.extraction_progress(graph)["mark"] == 0
    )
    assert _round(graph, Reader(), owner=OTHER)["read"] == 2


def test_a_claim_lost_while_rows_are_written_leaves_the_answer_for_the_new_owner(notebook):
    graph = notebook
    first = _note(graph, "d1 first")
    reader = Reader()

    @contextlib.contextmanager
    def taken():
        _taken(graph)
        yield

    assert _round(graph, reader, writing=taken)["stopped"] == LOST_CLAIM
    assert lh.extraction_states(graph, [first])[first]["state"] == "answered" and lh.history(
        graph, DEVICE, "first"
    )
    assert _round(graph, reader)["stopped"] == LOST_CLAIM  # the old owner writes nothing more
    again = _round(graph, reader, owner=OTHER)
    assert again["read"] == 1 and again["rows"] == {"unchanged": 1} and len(reader.asks) == 1


def test_a_stop_ends_the_round_and_sets_nothing_aside(notebook):
    graph = notebook
    _note(graph, "stop s1")
    stop = threading.Event()

    def answer(text, patient):
        stop.set()  # told to stop while it asks: it gives up
        raise ExtractorUnavailable("stopped: between two asks", "stopped")

    done = _round(graph, Reader(answer), stop=stop)
    assert (done["stopped"], done["set_aside"], done["read"]) == ("stopped", 0, 0)
    progress = lh.extraction_progress(graph)
    assert (
        progress["notes_waiting"] == 1 and progress["last_error"] is None and lh.notes_set_aside(graph) == []
    )
    reader = Reader()
    assert _round(graph, reader, stop=stop)["stopped"] == "stop" and reader.asks == []


def test_a_stop_while_a_waiting_note_is_judged_keeps_the_judge_s_answer_and_the_note_waits(notebook):
    graph = notebook
    stop = threading.Event()

    def answer(text, patient):
        if "flaky" in text:
            if patient:
                stop.set()  # told to stop while it asks again: it gives up
                raise ExtractorUnavailable("stopped: between two asks", "stopped")
            raise _unavailable(text)
        return _fact(text)

    flaky, judge = _note(graph, "flaky f1"), _note(graph, "after a1")
    done = _round(graph, Reader(answer), stop=stop)
    assert (done["stopped"], done["read"], done["set_aside"]) == ("stopped", 0, 0)
    states = lh.extraction_states(graph, [flaky, judge])
    assert (states[flaky]["state"], states[judge]["state"]) == ("waiting", "answered")
    assert lh.extraction_progress(graph)["mark"] == 0 and lh.notes_set_aside(graph) == []


def test_an_invalidated_note_is_passed_and_counted(notebook):
    graph = notebook
    wrong = _note(graph, "wrong w1")
    _note(graph, "right r1")
    lh.invalidate_entry(graph, wrong, "reviewer", "made up")
    reader = Reader()
    done = _round(graph, reader)
    assert (done["invalidated"], done["read"]) == (1, 1) and reader.asks == [("right r1", False)]
    assert lh.extraction_progress(graph)["notes_invalidated"] == 1


def test_what_else_the_extractor_raises_passes_unchanged_and_its_note_waits(notebook):
    graph = notebook
    waits = _note(graph, "d1 one")

    def answer(text, patient):
        raise KeyError("the application's own trouble")

    with pytest.raises(KeyError, match="own trouble"):
        _round(graph, Reader(answer))
    assert lh.extraction_states(graph, [waits])[waits]["state"] is None
    assert [found["id"] for found in lh.notes_to_extract(graph)] == [waits]


def test_the_limit_bounds_the_notes_read(notebook):
    graph = notebook
    for number in range(3):
        _note(graph, f"d{number} note")
    assert _round(graph, Reader(), limit=2)["read"] == 2
    assert _round(graph, Reader(), limit=2)["read"] == 1


def test_the_limit_bounds_the_notes_read_with_a_note_given_back(notebook):
    graph = notebook
    bad = _note(graph, "the bad one")
    assert _round(graph, Reader(_failing({"bad": "server"})))["set_aside"] == 1
    _note(graph, "after a1")
    assert lh.give_note_back(graph, bad)["status"] == "replayed"
    reader = Reader()
    assert _round(graph, reader, limit=1)["read"] == 1 and reader.asks == [("the bad one", False)]
    assert _round(graph, reader, limit=1)["read"] == 1 and reader.asks[1:] == [("after a1", False)]


def test_a_hostile_failure_is_kept_as_far_as_it_can_be_read(notebook):
    graph = notebook

    class Unreadable(ExtractorFailed):
        def __str__(self):
            raise RuntimeError("no text")

    def answer(text, patient):
        raise Unreadable("x", reason=7, asks=-1)  # type: ignore[arg-type]

    bad = _note(graph, "bad b1")
    assert _round(graph, Reader(answer))["set_aside"] == 1
    (aside,) = lh.notes_set_aside(graph)
    assert aside["note"] == bad and aside["asks"] == 1 and aside["error"] == f"note {bad}: Unreadable"


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        ({"kinds": "Device"}, WrongType),
        ({"kinds": [DEVICE, "Room"]}, WrongType),
        ({"extractor": 5}, WrongType),
        ({"owner": ""}, Refused),
        ({"owner": 5}, Refused),
        ({"by": ""}, Refused),
        ({"limit": 0}, Refused),
        ({"limit": 1_001}, Refused),
        ({"limit": True}, Refused),
        ({"stop": object()}, WrongType),
        ({"writing": 5}, WrongType),
    ],
)
def test_refused_arguments_read_and_write_nothing(notebook, arguments, error):
    graph = notebook
    waits = _note(graph, "d1 one")
    reader = Reader()
    given = {"kinds": KINDS, "extractor": reader, "owner": OWNER, "by": BY} | arguments
    with pytest.raises(error):
        extract_notes(graph, given.pop("kinds"), given.pop("extractor"), **given)
    assert reader.asks == [] and lh.extraction_states(graph, [waits])[waits]["state"] is None


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        ({"facts": []}, WrongType),
        ("facts", WrongType),
        ([{"kind": "Device", "key": "d"}] * (MAX_FACTS + 1), WrongType),
        (([], 0), Refused),
        (([], "2"), Refused),
        ([{"kind": "Device", "key": "d", "values": {"at": object()}}], WrongType),
    ],
)
def test_an_answer_of_another_shape_raises_and_nothing_of_its_note_is_stored(notebook, answer, error):
    graph = notebook
    waits = _note(graph, "d1 one")
    with pytest.raises(error):
        _round(graph, Reader(lambda text, patient: answer))
    assert lh.extraction_states(graph, [waits])[waits]["state"] is None
    assert lh.history(graph, DEVICE, "d") == [] and lh.failures(graph) == []
