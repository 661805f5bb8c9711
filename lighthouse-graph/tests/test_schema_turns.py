"""The schema turn: one schema change at a time on a server, its key given back only by its holder."""

from __future__ import annotations

import pytest
from lighthouse import SchemaNotReady
from lighthouse.schema_turns import schema_turn, turn_key


def test_one_server_has_one_turn_key(graph) -> None:
    assert turn_key(graph) == "lighthouse:schema-turn"


def test_the_turn_is_held_inside_and_given_back_after(graph) -> None:
    key = turn_key(graph)
    with schema_turn(graph, 1.0):
        held = graph.execute_command("GET", key)
        assert held
        assert 0 < graph.execute_command("PTTL", key) <= 60_000  # a holder that dies frees it in a minute
    assert graph.execute_command("GET", key) is None


def test_another_client_waits_its_wait_and_is_refused(graph) -> None:
    waited = schema_turn(graph, 0.2)  # a wait below a second is a second
    with schema_turn(graph, 1.0), pytest.raises(SchemaNotReady, match="another client kept"):
        waited.__enter__()


def test_a_turn_taken_over_after_it_expired_stays_the_new_holders(graph) -> None:
    key = turn_key(graph)
    with schema_turn(graph, 1.0):
        graph.execute_command("SET", key, "another-holder", "PX", 60_000)  # ours expired; another took it
    assert graph.execute_command("GET", key) in ("another-holder", b"another-holder")
    graph.execute_command("DEL", key)
