"""Behaviours of the published API (lighthouse-graph 0.1.1) for episodes, handoffs, tasks, conversations and
extraction that its specification states and no other test pins, each from its words.
"""

from __future__ import annotations

import lighthouse
from lighthouse.episodes import MAX_ENTRIES
from redis.exceptions import ResponseError

# A write the server refuses with a message longer than 500 characters: it names the procedure it lacks.
UNKNOWN_PROCEDURE = "CALL db." + "p" * 600 + "()"


class Refusing:
    """The real graph, whose queries that start with one of `starts` go to the server as a call of a
    procedure it does not have: the server's own ResponseError, whose message is kept in `said`."""

    def __init__(self, graph, starts: tuple[str, ...]) -> None:
        self.graph = graph
        self.starts = starts
        self.said: list[str] = []

    def query(self, query, *args, **kwargs):
        if not query.startswith(self.starts):
            return self.graph.query(query, *args, **kwargs)
        try:
            return self.graph.query(UNKNOWN_PROCEDURE)
        except ResponseError as error:
            self.said.append(str(error))
            raise

    def __getattr__(self, name):
        return getattr(self.graph, name)


def test_a_database_error_of_say_and_summarize_gives_the_server_message_whole(graph):
    # API 1.4: in the receipt-returning writes a ResponseError becomes "failed" with the server message as
    # "reason", say() and summarize() among them.
    assert lighthouse.say(graph, "ann", "s1", "user", "the pump is hot", "desk")["status"] == "said"
    broken = Refusing(graph, ("OPTIONAL MATCH (found:Session", "MATCH (s:Session"))
    for receipt in (
        lighthouse.say(broken, "ann", "s1", "user", "and now?", "desk"),
        lighthouse.summarize(broken, "ann", "s1", "they spoke of the pump", 1, "desk"),
    ):
        message = broken.said.pop()
        assert len(message) > 500
        assert receipt == {"id": None, "status": "failed", "reason": message}
    kept = lighthouse.failures(graph, reason="failed")
    assert sorted(one["kind"] for one in kept) == ["Message", "Summary"]
    assert [one["seq"] for one in lighthouse.messages(graph, "ann", "s1")] == [1]


def test_a_full_episode_refuses_its_close_and_stays_open(graph):
    # API 2.5: close_episode's receipt has record's statuses, "full" among them, and a refused close
    # leaves the episode open.
    assert lighthouse.open_episode(graph, "e1", "watcher")["status"] == "opened"
    graph.query("MATCH (ep:Episode {id: 'e1'}) SET ep.entry_count = $most", {"most": MAX_ENTRIES})
    receipt = lighthouse.close_episode(graph, "e1", "watcher", {"fixed": True})
    assert receipt["status"] == "full" and receipt["id"] is None and receipt["reason"]
    found = lighthouse.episode(graph, "e1")
    assert "closed_at" not in found and found["entries"] == []
    # API 1.3: a refusal is kept as a WriteFailure
    assert [(one["reason"], one["key"]) for one in lighthouse.failures(graph, "Entry")] == [("full", "e1")]
