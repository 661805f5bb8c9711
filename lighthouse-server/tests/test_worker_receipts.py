"""Rows the database refuses lose no fact: the note stays answered behind the mark, the round ends, and
the next round applies the kept answer again (what was written comes back unchanged)."""

from __future__ import annotations

from lighthouse import extraction_progress, history
from lighthouse.note_extraction import EXTRACTION
from lighthouse.note_extraction_hold import WORKER
from lighthouse.note_extraction_round import WRITE_FAILED
from lighthouse_server.worker.extraction import extract_notes_with
from lighthouse_server.worker.model import Model
from lighthouse_server.worker.status import extraction_status
from redis.exceptions import ResponseError
from worker_notes import DEVICE, KINDS, ROOM, held, note, schema, settings


class RefusingOnce:
    """The real graph, whose first write query naming `marker` the server refuses (a ResponseError),
    as a full disk would; every other query, and everything else, goes to the graph."""

    def __init__(self, graph, marker: str) -> None:
        self.graph = graph
        self.marker = marker
        self.refused: list[str] = []

    def query(self, *args, **kwargs):
        if not self.refused and self.marker in args[0]:
            self.refused.append(args[0])
            raise ResponseError("the server refused the query")
        return self.graph.query(*args, **kwargs)

    def ro_query(self, *args, **kwargs):
        return self.graph.ro_query(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.graph, name)


def _worker(graph) -> dict:
    found = graph.ro_query(f"MATCH (w:{WORKER}) RETURN properties(w)").result_set
    return found[0][0] if found else {}


def test_a_refused_write_keeps_the_note_answered_and_the_next_round_applies_it(graph, fake):
    schema(graph)
    fake.script = lambda ask: {
        "facts": [
            {"kind": "Room", "key": "r1", "values": {"floor": 1}},
            {"kind": "Device", "key": "d1", "values": {"status": "hot"}},
        ]
        if "first" in ask.note
        else []
    }
    first = note(graph, "the first note")
    note(graph, "the second note")
    asking = Model(settings(fake.url))
    owner = held(graph)
    failing = RefusingOnce(graph, "`Device`")
    done = extract_notes_with(failing, KINDS, asking, owner=owner)
    assert failing.refused and done["stopped"] == WRITE_FAILED and done["read"] == 0
    assert len(fake.asks) == 1  # the round ended: the second note was not asked
    assert history(graph, DEVICE, "d1") == [] and len(history(graph, ROOM, "r1")) == 1
    state = graph.ro_query(f"MATCH (x:{EXTRACTION} {{note: $n}}) RETURN x.state", {"n": first}).result_set
    assert state == [["answered"]]
    worker = _worker(graph)
    assert extraction_progress(graph)["mark"] == 0 and worker.get("notes_read", 0) == 0
    status = extraction_status(graph, configured=True, declared=True)
    assert status["notes_waiting"] == 2 and "failed" in status["last_error"] and status["state"] == "failing"
    again = extract_notes_with(graph, KINDS, asking, owner=owner)
    asking.close()
    assert again["read"] == 2 and again["stopped"] is None
    assert again["rows"] == {"unchanged": 1, "created": 1}
    assert len(fake.asks) == 2  # the kept answer, not a second ask of the first note
    (written,) = history(graph, DEVICE, "d1")
    assert written["status"] == "hot" and written["entry"] == first
    status = extraction_status(graph, configured=True, declared=True)
    assert status["notes_waiting"] == 0 and status["notes_read"] == 2 and status["state"] == "idle"
    assert status["rows"] == {"unchanged": 1, "created": 1}
