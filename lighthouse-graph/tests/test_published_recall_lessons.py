"""Behaviours of the published API (lighthouse-graph 0.1.1) in recall, lessons, playbooks, promotion,
impact and the algorithms (its sections 2.9 and 2.11 to 2.13) that no other test pins, each from its words.
"""

from __future__ import annotations

import lighthouse
import pytest
from test_published_api import DEVICE, ROOM

T0 = "2026-01-01T00:00:00Z"


@pytest.fixture
def pumps(graph):
    """Three devices: d1 "blue pump", d2 "red pump valve", d3 "red valve"."""
    lighthouse.ensure_schema(graph, [DEVICE, ROOM])
    notes = {"d1": "blue pump", "d2": "red pump valve", "d3": "red valve"}
    rows = [{"key": key, "t": T0, "values": {"note": note}} for key, note in notes.items()]
    assert {receipt["status"] for receipt in lighthouse.remember(graph, DEVICE, rows, "feed")} == {"created"}
    return graph


# 2.9 search(): "At most 20 distinct lower-cased words are used": a word said again takes none of the 20.


@pytest.mark.parametrize(
    "read", [lighthouse.search, lighthouse.search_history], ids=["search", "search_history"]
)
def test_a_word_said_again_does_not_crowd_out_the_words_after_it(pumps, read):
    question = "Pump " * 20 + "valve"  # two distinct words: both must be in the text
    assert [found["key"] for found in read(pumps, DEVICE, question)] == ["d2"]
    # Past 20 distinct words the rest is not read: with "all", "valve" is no longer asked for.
    padded = " ".join(f"w{number}" for number in range(19)) + " pump valve"
    assert [found["key"] for found in read(pumps, DEVICE, padded, match="any")] == ["d1", "d2"]


def test_search_entries_reads_twenty_distinct_words_too(pumps):
    lighthouse.open_episode(pumps, "e1", "watcher", (), T0)
    lighthouse.record(pumps, "e1", "look", "watcher", {"text": "the pump leaks"}, (), T0)
    lighthouse.record(pumps, "e1", "look", "watcher", {"text": "the valve leaks"}, (), T0)
    found = lighthouse.search_entries(pumps, "leaks " * 25 + "valve")
    assert [one["id"] for one in found] == ["e1/2"]


# 2.12 invalidate_entry(): "invalid covers a reason ... whose first 200 characters after stripping are not
# a name": a name has no whitespace at either end, so a space as the 200th character refuses it.


def test_a_reason_whose_first_200_characters_end_in_a_space_is_invalid(pumps):
    lighthouse.open_episode(pumps, "e1", "watcher", (), T0)
    lighthouse.record(pumps, "e1", "look", "watcher", {"text": "the pump leaks"}, (), T0)
    refused = lighthouse.invalidate_entry(pumps, "e1/1", "auditor", "  " + "x" * 199 + " and more")
    assert refused["id"] is None and refused["status"] == "invalid"
    assert lighthouse.impact_of_entry(pumps, "e1/1")["invalidated"] is False
    marked = lighthouse.invalidate_entry(pumps, "e1/1", "auditor", "  " + "x" * 200 + " and more")
    assert marked["status"] == "invalidated" and marked["impact"]["invalidated"] is True


# 2.9 embed_entries(): "raises ValueError when the graph has no entry vector index (the message names
# entry_dimensions)": a graph that ensure_schema() never made has none either.


@pytest.mark.parametrize("made", [False, True], ids=["never-made", "written-without-schema"])
def test_embed_entries_on_a_graph_without_schema_names_entry_dimensions(graph, made):
    if made:
        assert lighthouse.open_episode(graph, "e1", "watcher", (), T0)["status"] == "opened"
    with pytest.raises(ValueError, match="entry_dimensions"):
        lighthouse.embed_entries(graph, lambda texts: [[1.0, 0.0, 0.0] for _ in texts], "m1")
