"""search(), search_history(), search_entries(): words of the current text, of past States, of entries."""

from __future__ import annotations

import inspect
from datetime import UTC, datetime

import pytest
from hostile import HostileList, HostileMap, HostileNumber, HostileText, hostile_objects
from lighthouse import Kind, Refused, TooSlow, WrongType, ensure_schema, history, remember
from lighthouse.episodes import open_episode, record
from lighthouse.recall.text import search, search_entries, search_history
from redis.exceptions import ResponseError

ROOM = Kind("Room", key="code")
DEVICE = Kind(
    "Device",
    key="serial",
    times=("last_seen",),
    text=("note", "label"),
    relations={"LOCATED_IN": ROOM},
)
PART = Kind("Part", text=("name",))  # another kind with text: its States share the State index
PLAIN = Kind("Plain")  # a kind with no text to search
T1, T2, T3 = "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z"


def at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


@pytest.fixture
def world(graph):
    ensure_schema(graph, [DEVICE, PART, PLAIN])
    return graph


def put(graph, key, note, t=T1, kind=DEVICE, **more) -> None:
    values = {"name" if kind is PART else "note": note, **more}
    receipts = remember(graph, kind, by="inventory", rows=[{"key": key, "t": t, "values": values}])
    assert receipts[0]["status"] in ("created", "changed", "inserted"), receipts


def keys(found: list[dict]) -> list:
    return [item["key"] for item in found]


# --- the published shape ----------------------------------------------------------------------------


def test_the_signatures_are_the_published_ones():
    for find in (search, search_history):
        listed = list(inspect.signature(find).parameters.values())
        assert [(p.name, p.default) for p in listed[:5]] == [
            ("graph", inspect.Parameter.empty),
            ("kind", inspect.Parameter.empty),
            ("question", inspect.Parameter.empty),
            ("limit", 10),
            ("match", "all"),
        ]
        assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in listed[5:])
    listed = list(inspect.signature(search_entries).parameters.values())
    assert [(p.name, p.default) for p in listed[1:4]] == [
        ("question", inspect.Parameter.empty),
        ("limit", 10),
        ("match", "all"),
    ]
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in listed[4:])


# --- search(): the current text ----------------------------------------------------------------------


def test_the_seed_example_finds_the_pump_sensor_first(world):
    first = {"status": "ok", "note": "pump room sensor", "last_seen": T1}
    remember(world, DEVICE, by="inventory", rows=[{"key": "d1", "t": T1, "values": first}])
    later = {"status": "hot", "note": "pump room sensor"}
    remember(world, DEVICE, by="inventory", rows=[{"key": "d1", "t": T2, "values": later}])
    put(world, "d2", "spare parts shelf")
    found = search(world, DEVICE, "sensor in the pump room", match="any")
    assert keys(found) == ["d1"]  # d2 has none of the words
    assert found[0]["values"]["status"] == "hot"
    assert search(world, DEVICE, "sensor in the pump room", match="all") == []  # d1 lacks "in", "the"
    assert search(world, DEVICE, "sensor in the pump room", 10, "any") == found  # by position too


def test_all_needs_every_word_and_any_ranks_more_words_higher(world):
    put(world, "d1", "pump sensor")
    put(world, "d2", "pump")
    put(world, "d3", "sensor")
    assert keys(search(world, DEVICE, "pump sensor")) == ["d1"]
    found = search(world, DEVICE, "pump sensor", match="any")
    assert keys(found)[0] == "d1" and sorted(keys(found)) == ["d1", "d2", "d3"]
    assert found[0]["score"] > found[1]["score"]


def test_equal_scores_come_in_key_order_and_limit_keeps_the_first(world):
    for key in ("d3", "d1", "d5", "d2", "d4"):
        put(world, key, "same words here")
    found = search(world, DEVICE, "same words")
    assert keys(found) == ["d1", "d2", "d3", "d4", "d5"]
    assert len({item["score"] for item in found}) == 1
    assert keys(search(world, DEVICE, "same words", limit=2)) == ["d1", "d2"]
    assert keys(search(world, DEVICE, "same words", 2)) == ["d1", "d2"]


def test_equal_scores_put_whole_number_keys_before_names(world):
    for key in ("b", 30, "a", 4):
        put(world, key, "same words")
    assert keys(search(world, DEVICE, "same")) == [4, 30, "a", "b"]
    assert keys(search(world, DEVICE, "same", limit=3)) == [4, 30, "a"]
    assert keys(search_history(world, DEVICE, "same")) == [4, 30, "a", "b"]


def test_a_limit_below_the_matches_keeps_the_best_of_all_of_them(world):
    # 40 devices hold the word, in texts of other lengths: other scores, and ties among equal lengths.
    for number in range(40):
        put(world, f"d{number:02d}", "pump " + " ".join(["filler"] * (number % 7)))
    every = search(world, DEVICE, "pump", limit=1000)
    assert len(every) == 40
    assert [(-one["score"], one["key"]) for one in every] == sorted(
        (-one["score"], one["key"]) for one in every
    )
    for limit in (1, 5, 12):
        assert search(world, DEVICE, "pump", limit=limit) == every[:limit]
    assert (
        search(world, DEVICE, "pump filler", match="any", limit=5)
        == search(world, DEVICE, "pump filler", match="any", limit=1000)[:5]
    )


def test_a_result_is_key_score_and_the_current_values(world):
    remember(
        world,
        DEVICE,
        by="inventory",
        rows=[
            {
                "key": "d1",
                "t": T1,
                "values": {"status": "ok", "note": "pump room", "label": "Main pump", "last_seen": T1},
                "relations": {"LOCATED_IN": "r1"},
            }
        ],
    )
    (found,) = search(world, DEVICE, "main pump")
    assert set(found) == {"key", "score", "values"}
    assert found["key"] == "d1" and type(found["score"]) is float and found["score"] > 0
    shown = found["values"]
    assert shown["status"] == "ok" and shown["note"] == "pump room" and shown["label"] == "Main pump"
    assert shown["last_seen"] == at(T1) and shown["valid_from"] == at(T1) and shown["by"] == "inventory"
    for hidden in ("key", "serial", "words", "entry", "valid_to"):
        assert hidden not in shown
    assert not [name for name in shown if name.startswith("lh.")]


def test_values_that_share_a_name_with_the_library_s_own_are_shown_as_given(world):
    """model, embedding, kind and rev are values like any other: the library keeps its own under lh."""
    given = {"note": "pump room", "model": "X-200", "embedding": "none", "kind": "sensor", "rev": 3}
    receipts = remember(world, DEVICE, by="inventory", rows=[{"key": "d1", "t": T1, "values": given}])
    assert receipts[0]["status"] == "created", receipts
    (found,) = search(world, DEVICE, "pump")
    assert {name: found["values"][name] for name in given} == given
    (past,) = search_history(world, DEVICE, "pump")
    assert {name: past["state"][name] for name in given} == given


def test_every_text_value_of_the_kind_is_searched(world):
    put(world, "d1", "pump room", label="north wing")
    assert keys(search(world, DEVICE, "north pump")) == ["d1"]  # one word from each text value


def test_a_line_break_a_no_break_space_and_an_underscore_split_words(world):
    put(world, "d1", "first line\nsecond")
    put(world, "d2", "no\u00a0break")
    put(world, "d3", "snake_case")
    assert keys(search(world, DEVICE, "line")) == ["d1"]
    assert keys(search(world, DEVICE, "second")) == ["d1"]
    assert keys(search(world, DEVICE, "break")) == ["d2"]
    assert keys(search(world, DEVICE, "no")) == ["d2"]
    assert keys(search(world, DEVICE, "snake")) == ["d3"]
    assert keys(search(world, DEVICE, "case")) == ["d3"]


def test_non_ascii_case_is_folded_both_ways(world):
    put(world, "d1", "Élan vital")
    put(world, "d2", "STRASSE")
    assert keys(search(world, DEVICE, "élan")) == ["d1"]
    assert keys(search(world, DEVICE, "ÉLAN")) == ["d1"]
    assert keys(search(world, DEVICE, "straße")) == ["d2"]  # ß folds to ss


def test_the_index_query_language_is_plain_text(world):
    put(world, "d1", "pump room")
    put(world, "d2", "fan hall")
    put(world, "d3", "pump fan")
    put(world, "d4", "x marks the spot")
    put(world, "d5", "room pump")
    assert search(world, DEVICE, "*") == []  # no words: not every entity
    assert search(world, DEVICE, "-pump", match="any") != [] and "d2" not in keys(
        search(world, DEVICE, "-pump", match="any")
    )  # not a negation: the pump devices, not the others
    assert keys(search(world, DEVICE, "pump|fan")) == ["d3"]  # not a union: both words
    assert search(world, DEVICE, "@note:x") == []  # "note" and "x", not the field note holding x
    put(world, "d6", "a note about x")
    assert keys(search(world, DEVICE, "@note:x")) == ["d6"]
    assert sorted(keys(search(world, DEVICE, '"pump room"'))) == ["d1", "d5"]  # not a phrase: any order
    assert search(world, DEVICE, "pum*") == []  # not a prefix
    assert search(world, DEVICE, "%pumq%") == []  # not a fuzzy match
    assert search(world, DEVICE, "~pump ${x}") == []  # no optional term, no parameter: "pump" and "x"


def test_a_value_that_changed_is_found_by_its_new_words_only(world):
    put(world, "d1", "old words here", t=T1)
    put(world, "d1", "new text now", t=T2)
    assert search(world, DEVICE, "old") == []
    assert keys(search(world, DEVICE, "new")) == ["d1"]
    (past,) = search_history(world, DEVICE, "old")
    assert past["key"] == "d1" and past["state"]["note"] == "old words here"
    assert past["state"]["valid_from"] == at(T1) and past["state"]["valid_to"] == at(T2)
    (present,) = search_history(world, DEVICE, "new")
    assert present["state"]["valid_from"] == at(T2) and "valid_to" not in present["state"]


def test_a_late_row_is_found_in_history_only(world):
    put(world, "d1", "alpha", t=T1)
    put(world, "d1", "gamma", t=T3)
    put(world, "d1", "beta", t=T2)  # late: between the two
    assert search(world, DEVICE, "beta") == []
    (late,) = search_history(world, DEVICE, "beta")
    assert (late["state"]["valid_from"], late["state"]["valid_to"]) == (at(T2), at(T3))
    assert keys(search(world, DEVICE, "gamma")) == ["d1"]


def test_a_search_on_a_graph_that_was_never_written_finds_nothing(graph):
    assert search(graph, DEVICE, "pump") == []
    assert search_history(graph, DEVICE, "pump") == []
    assert search_entries(graph, "pump") == []


def test_a_kind_finds_only_its_own_entities(world):
    put(world, "d1", "pump room")
    put(world, "p1", "pump room seal", kind=PART)
    assert keys(search(world, DEVICE, "pump")) == ["d1"]
    assert keys(search(world, PART, "pump")) == ["p1"]


# --- search_history(): every State -----------------------------------------------------------------------


def test_a_state_is_shaped_as_history_gives_it(world):
    put(world, "d1", "pump one", t=T1, status="ok")
    repeat = [{"key": "d1", "t": T2, "values": {"note": "pump one", "status": "ok"}}]
    assert remember(world, DEVICE, by="inventory", rows=repeat)[0]["status"] == "unchanged"  # seen_last
    put(world, "d1", "pump two", t=T3, status="hot")
    found = search_history(world, DEVICE, "pump", limit=10, match="all")
    assert all(set(item) == {"key", "score", "state"} for item in found)
    states = {item["state"]["valid_from"]: item["state"] for item in found}
    assert [states[moment] for moment in sorted(states)] == history(world, DEVICE, "d1")
    first, last = states[at(T1)], states[at(T3)]
    assert first["valid_to"] == at(T3) and first["seen_last"] == at(T2)
    assert "valid_to" not in last and "seen_last" not in last and "entry" not in last
    assert not {"key", "serial", "words"} & set(first) and not [n for n in first if n.startswith("lh.")]


def test_states_of_other_kinds_are_left_out_before_the_limit(world):
    for number in range(5):
        put(world, f"a{number}", "pump seal", kind=PART)  # ranked equal, and first by key
    put(world, "d1", "pump seal")
    assert keys(search_history(world, DEVICE, "pump", limit=1)) == ["d1"]
    assert len(search_history(world, PART, "pump")) == 5


def test_a_value_named_kind_cannot_pass_a_state_off_as_another_kind_s(world):
    put(world, "p1", "pump seal", kind=PART, kind_of="Device")
    receipts = remember(
        world,
        PART,
        by="inventory",
        rows=[{"key": "p2", "t": T1, "values": {"name": "pump", "kind": "Device"}}],
    )
    assert receipts[0]["status"] == "created"
    assert search_history(world, DEVICE, "pump") == []
    assert sorted(keys(search_history(world, PART, "pump"))) == ["p1", "p2"]


def test_history_ranks_by_score_then_key_then_time(world):
    put(world, "d2", "pump", t=T1)
    put(world, "d2", "pump now", t=T2)
    put(world, "d1", "pump", t=T1)
    put(world, "d1", "pump again", t=T2)
    put(world, "d1", "pump pump pump pump", t=T3)
    found = search_history(world, DEVICE, "pump")
    scores = [item["score"] for item in found]
    assert scores == sorted(scores, reverse=True)
    tied = [(item["key"], item["state"]["valid_from"]) for item in found if item["score"] == scores[-1]]
    assert tied == sorted(tied)
    assert len(found) == 5


def test_history_names_the_entry_a_state_came_from(world):
    put(world, "d1", "spare")  # an entity for the episode to be about
    assert open_episode(world, "look", by="watcher", about=[(DEVICE, "d1")])["status"] == "opened"
    entry = record(world, "look", "observation", by="watcher", values={"note": "pump leaks"})["id"]
    rows = [{"key": "d2", "t": T1, "values": {"note": "pump leaks"}, "entry": entry}]
    assert remember(world, DEVICE, by="reader", rows=rows)[0]["status"] == "created"
    (found,) = search_history(world, DEVICE, "leaks")
    assert found["state"]["entry"] == entry and found["state"]["by"] == "reader"
    assert "words" not in found["state"] and "lh.kind" not in found["state"]


# --- search_entries(): the text of entries ----------------------------------------------------------------


def test_entries_are_found_by_the_words_of_their_text_values(world):
    put(world, "d1", "pump")
    open_episode(world, "ep", by="watcher", about=[(DEVICE, "d1")])
    first = record(world, "ep", "observation", by="watcher", values={"text": "seal_leaks\nbadly", "level": 3})
    record(world, "ep", "forecast", by="forecaster", values={"text": "the seal will fail"})
    record(world, "ep", "observation", by="watcher", values={"level": 7, "ok": True})  # no text
    found = search_entries(world, "leaks")
    assert [item["id"] for item in found] == [first["id"]]
    (item,) = found
    assert set(item) == {"id", "score", "entry"} and item["score"] > 0
    entry = item["entry"]
    assert {name: entry[name] for name in ("id", "seq", "serial", "type", "by")} == {
        "id": "ep/1",
        "seq": 1,
        "serial": 1,
        "type": "observation",
        "by": "watcher",
    }
    assert entry["text"] == "seal_leaks\nbadly" and entry["level"] == 3  # the values at the top level
    assert isinstance(entry["at"], datetime) and isinstance(entry["recorded_at"], datetime)
    assert not {"words", "cites", "content"} & set(entry)
    assert sorted(item["id"] for item in search_entries(world, "seal")) == ["ep/1", "ep/2"]
    assert [item["id"] for item in search_entries(world, "seal", types=["forecast"])] == ["ep/2"]
    assert search_entries(world, "7") == [] and search_entries(world, "true") == []  # not text: not searched


def test_equal_entries_come_in_id_order(world):
    put(world, "d1", "pump")
    open_episode(world, "ep", by="watcher", about=[(DEVICE, "d1")])
    open_episode(world, "another", by="watcher", about=[(DEVICE, "d1")])
    for episode in ("ep", "another", "ep", "another"):
        record(world, episode, "observation", by="watcher", values={"text": "same words"})
    found = search_entries(world, "same words", limit=3)
    assert [item["id"] for item in found] == ["another/1", "another/2", "ep/1"]


# --- limits ---------------------------------------------------------------------------------------------


def test_a_question_is_read_to_1000_characters(world):
    put(world, "d1", "pump")
    filler = " " * 996
    assert keys(search(world, DEVICE, filler + "pump")) == ["d1"]  # 1,000 characters: all read
    assert search(world, DEVICE, " " + filler + "pump") == []  # 1,001: the last "p" is not read


def test_a_question_uses_20_words(world):
    put(world, "d1", " ".join(f"k{number}" for number in range(1, 21)))
    twenty = " ".join(f"k{number}" for number in range(1, 21))
    assert keys(search(world, DEVICE, twenty + " absent")) == ["d1"]  # the 21st word is not used
    nineteen = " ".join(f"k{number}" for number in range(1, 20))
    assert search(world, DEVICE, nineteen + " absent") == []  # the 20th word is used


def test_a_word_of_the_question_is_cut_to_50_characters(world):
    put(world, "d1", "x" * 50)
    assert keys(search(world, DEVICE, "x" * 60)) == ["d1"]
    assert search(world, DEVICE, "x" * 49) == []  # a word matches whole, not as a prefix


def test_limit_bounds_the_results(world):
    for number in range(12):
        put(world, f"d{number:02d}", "pump")
    assert len(search(world, DEVICE, "pump", limit=5)) == 5
    assert len(search(world, DEVICE, "pump", limit=1_000)) == 12
    assert len(search_history(world, DEVICE, "pump", limit=3)) == 3


# --- refusals ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("find", [search, search_history])
def test_refusals_of_kind_question_match_limit_and_timeout(world, find):
    with pytest.raises(Refused, match="kind"):
        find(world, "Device", "pump")
    with pytest.raises(Refused, match="no text"):
        find(world, PLAIN, "pump")
    for question in (None, 5, b"pump", ["pump"]):
        with pytest.raises(WrongType, match="question"):
            find(world, DEVICE, question)
    with pytest.raises(Refused, match="match"):
        find(world, DEVICE, "pump", match="some")
    for limit in (0, 1_001, -1, True, "10", 2.0, 10**5000, None):
        with pytest.raises(Refused, match="limit must be a whole number from 1 to 1000"):
            find(world, DEVICE, "pump", limit=limit)
    for timeout in (0, 5_001, True, 1.5):
        with pytest.raises(Refused, match="timeout"):
            find(world, DEVICE, "pump", timeout=timeout)
    with pytest.raises(Refused, match="limit"):  # refused even when the question has no words
        find(world, DEVICE, "*", limit=0)


def test_refusals_of_search_entries(world):
    with pytest.raises(WrongType, match="question"):
        search_entries(world, None)
    with pytest.raises(Refused, match="match"):
        search_entries(world, "seal", match="most")
    with pytest.raises(Refused, match="limit"):
        search_entries(world, "seal", limit=0)
    for types in ("observation", [], [""], [None], ["x"] * 201):
        with pytest.raises(Refused):
            search_entries(world, "seal", types=types)


def test_hostile_arguments_raise_only_the_library_s_errors_and_write_nothing(world):
    put(world, "d1", "pump hello")
    before = world.ro_query("MATCH (n) RETURN count(n)").result_set
    for hostile in hostile_objects():
        for find in (search, search_history):
            with pytest.raises(WrongType):
                find(world, DEVICE, hostile)
            with pytest.raises(Refused):
                find(world, hostile, "pump")
            with pytest.raises(Refused):
                find(world, DEVICE, "pump", limit=hostile)
            with pytest.raises(Refused):
                find(world, DEVICE, "pump", match=hostile)
            with pytest.raises(Refused):
                find(world, DEVICE, "pump", timeout=hostile)
        with pytest.raises(WrongType):
            search_entries(world, hostile)
        with pytest.raises(Refused):
            search_entries(world, "pump", types=hostile)
        with pytest.raises(Refused):
            search_entries(world, "pump", types=[hostile])
    for hostile in (HostileText("all"), HostileNumber(10), HostileMap(), HostileList()):
        with pytest.raises(Refused):  # by position, where limit and match stand
            search(world, DEVICE, "pump", hostile, hostile)
    assert world.ro_query("MATCH (n) RETURN count(n)").result_set == before  # and no WriteFailure
    assert keys(search(world, DEVICE, "hello")) == ["d1"]


def test_words_without_letters_or_digits_ask_nothing(world):
    put(world, "d1", "pump")
    for question in ("", "   ", "*", "-|@:\"'()[]{}~%$", "\n\t\u00a0_"):
        assert search(world, DEVICE, question) == []
        assert search(world, DEVICE, question, match="any") == []


# --- the stop ---------------------------------------------------------------------------------------------


def test_a_search_longer_than_its_time_is_stopped_with_too_slow(world):
    # 100,000 devices that all hold the words: FalkorDB stops the search past 1 ms and says so.
    world.query(
        "UNWIND range(1, 100000) AS i "
        "CREATE (:Device:Entity {key: 'd' + toString(i), words: 'pump room sensor ' + toString(i)})"
    )
    with pytest.raises(TooSlow, match="stopped") as stopped:
        search(world, DEVICE, "pump room sensor", match="any", timeout=1)
    assert isinstance(stopped.value, ResponseError)  # what a caller of the published API catches
    assert len(search(world, DEVICE, "pump room sensor", match="any")) == 10  # 5 seconds is enough


def test_the_values_shown_are_the_same_for_a_kind_met_again_and_for_many_kinds():
    from lighthouse.recall import text

    listed = [
        ("key", "d1"),
        ("serial", "d1"),
        ("note", "x"),
        ("last_seen", 1_767_225_600),
        ("valid_from", 1_767_225_600),
        ("fp", "f"),
        ("lh.rev", 2),
        ("words", None),
        ("lh.trust", "candidate"),
    ]
    expected = {
        "note": "x",
        "last_seen": datetime(2026, 1, 1, tzinfo=UTC),
        "valid_from": datetime(2026, 1, 1, tzinfo=UTC),
        "fp": "f",
        "trust": "candidate",
    }
    kinds = [Kind("Device", key="serial", times=("last_seen",), text=("note",)) for _ in range(300)]
    for kind in kinds + kinds[:3]:  # more kinds than plans are kept, and some met again
        assert text.shown_values(kind, listed) == expected
        assert len(text._plans) <= text._KINDS_PLANNED


class AskedByItsOwnRead:
    """A stand-in for a graph: the library asks it by its ro_query(), whose reply the client parses."""

    def __init__(self, graph):
        self.graph = graph

    def ro_query(self, query, params=None, **options):
        return self.graph.ro_query(query, params, **options)

    def __getattr__(self, name):
        return getattr(self.graph, name)


def test_a_result_read_from_the_reply_is_what_the_client_s_parse_shows(world):
    """search() reads its reply's cells itself; the client's parse of the same reply shows the same."""
    rows = [
        {"key": "d1", "t": T1, "values": {"note": "pump one", "count": 3, "weight": 2.5, "on": True}},
        {"key": "d2", "t": T1, "values": {"note": "pump two", "tags": ["a", "b"], "last_seen": T2}},
        {"key": 7, "t": T1, "values": {"note": "pump three", "label": "Main", "off": False}},
    ]
    assert all(r["status"] == "created" for r in remember(world, DEVICE, by="inventory", rows=rows))
    world.query(  # a State's trust marks on an entity, as a reviewed candidate's: shown as trust and review
        "MATCH (n:Device {key: 'd2'}) SET n.`lh.trust` = 'confirmed', n.`lh.reviewed_by` = 'ann', "
        "n.`lh.reviewed_at` = 1767225600, n.`lh.review_why` = 'seen'"
    )
    found = search(world, DEVICE, "pump", limit=5)
    assert found == search(AskedByItsOwnRead(world), DEVICE, "pump", limit=5)
    assert [one["key"] for one in found] == [7, "d1", "d2"]
    assert found[0]["values"]["off"] is False and found[0]["values"]["label"] == "Main"
    assert found[1]["values"]["count"] == 3 and found[1]["values"]["on"] is True
    assert found[1]["values"]["weight"] == 2.5
    assert found[2]["values"]["tags"] == ["a", "b"] and found[2]["values"]["last_seen"] == at(T2)
    review = {"trust": "confirmed", "by": "ann", "at": at(T1), "why": "seen"}
    assert found[2]["values"]["trust"] == "confirmed" and found[2]["values"]["review"] == review
    for one in found:
        assert not {"key", "serial", "words"} & set(one["values"])
        assert not [name for name in one["values"] if name.startswith("lh.")]


def test_an_entity_that_still_keeps_a_vector_is_found_without_it(world):
    put(world, "d1", "pump room")
    put(world, "d2", "pump hall")
    before = search(world, DEVICE, "pump")
    # a graph written before vectors moved off the entities: the vector is never read
    world.query("MATCH (n:Device {key: 'd1'}) SET n.`lh.vector` = vecf32([1.0, 2.0])")
    assert search(world, DEVICE, "pump") == before
    assert [one["key"] for one in before] == ["d1", "d2"] and before[0]["values"]["note"] == "pump room"


def test_a_value_only_the_client_reads_is_shown_as_the_client_parses_it(world):
    put(world, "d1", "pump room")
    put(world, "d2", "pump hall")
    world.query("MATCH (n:Device {key: 'd2'}) SET n.spot = point({latitude: 1.5, longitude: 2.5})")
    found = search(world, DEVICE, "pump")
    assert found == search(AskedByItsOwnRead(world), DEVICE, "pump")
    assert found[1]["values"]["spot"] == {"latitude": 1.5, "longitude": 2.5}
    assert found[0]["values"]["note"] == "pump room" and "spot" not in found[0]["values"]
