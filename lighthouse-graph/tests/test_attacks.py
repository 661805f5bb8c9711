"""What a hostile caller can try on the write path: it costs one refused write, and nobody else anything."""

from __future__ import annotations

import json
from datetime import timedelta
from decimal import Decimal

import pytest
from devices import DEVICE, PERSON
from hostile import HostileMap, hostile_params
from lighthouse import as_of, clock, history, related, remember, update
from lighthouse.graphs import read
from lighthouse.values import Refused
from oracle import at

QUERY_TEXT = ["') DETACH DELETE n //", "`}) MATCH (n) DETACH DELETE n //", "$x", "{", "}", '"; DROP', "\\"]


@pytest.fixture
def world(graph):
    """A graph with something in it that an attack must leave as it is."""
    graph.query("CREATE (:Entry {id: 'look/1'})")
    remember(
        graph,
        DEVICE,
        [
            {
                "key": "base",
                "t": at(0),
                "values": {"status": "ok"},
                "relations": {"USED_BY": ["red", "blue"]},
            },
            {"key": "base", "t": at(2), "values": {"status": "hot"}, "relations": {"LOCATED_IN": "r1"}},
        ],
        "feed",
    )
    return graph


def census(graph) -> tuple:
    """Every node but the failures and every edge, with their properties; and the failures: count, times."""
    nodes = read(graph, "MATCH (n) WHERE NOT n:WriteFailure RETURN labels(n), properties(n), id(n)")
    edges = read(graph, "MATCH (a)-[r]->(b) RETURN type(r), properties(r), id(a), id(b)")
    kept = read(graph, "MATCH (f:WriteFailure) RETURN count(f), sum(f.times)")
    return (
        sorted(map(repr, nodes)),
        sorted(map(repr, edges)),
        [kept[0][0], kept[0][1] or 0] if kept else [0, 0],
    )


def refused_once(graph, action, status: str = "invalid"):
    """Runs a write that must be refused: one more refusal counted (on a new WriteFailure, or on an
    identical one that is there: a row that cannot be shown is stored as the same content), and no other
    node or edge changed."""
    nodes, edges, (failures, times) = census(graph)
    try:
        found = action()
    except Refused as error:
        found = {"status": error.reason, "raised": True}
    if isinstance(found, list):
        [found] = found
    after = census(graph)
    assert found["status"] == status, found
    assert after[0] == nodes and after[1] == edges
    assert after[2][1] == times + 1 and after[2][0] in (failures, failures + 1)
    return found


def row(**fields):
    return {"key": "d1", "t": at(1), "values": {"status": "ok"}, **fields}


def write(graph, *rows, by="feed", kind=DEVICE):
    return lambda: remember(graph, kind, list(rows), by)


# --- query text where a name or a value goes ----------------------------------------------------------


@pytest.mark.parametrize("text", QUERY_TEXT)
def test_query_text_in_keys_values_names_and_targets_is_stored_as_text(world, text):
    before = census(world)
    receipts = remember(
        world,
        DEVICE,
        [{"key": text, "t": at(1), "values": {"status": text}, "relations": {"USED_BY": [text, "red"]}}],
        f"agent {text}",
    )
    assert receipts == [{"key": text, "status": "created"}]
    assert history(world, DEVICE, text)[0]["status"] == text
    assert history(world, DEVICE, text)[0]["by"] == f"agent {text}"
    assert related(world, DEVICE, text, "USED_BY") == sorted(["red", text])
    assert set(before[0]) <= set(census(world)[0])  # nothing that was there is gone
    assert len(history(world, DEVICE, "base")) == 2
    assert update(world, DEVICE, text, at(2), by=text, values={"status": f"{text}!"})["status"] == "changed"
    refused_once(world, write(world, row(key=text, entry=f"look/1{text}")), "missing")


@pytest.mark.parametrize(
    "name",
    ["a b", "a`b", "a-b", "1a", "", "a\n", "é", "a" * 101, "a}", "$a", "key", "valid_to", "fp", "lh.rev"],
)
def test_value_names_that_are_not_plain_names_are_refused(world, name):
    refused_once(world, write(world, row(values={name: 1})))


@pytest.mark.parametrize("names", [3, 70])  # value names written into the query text; past 64, a map
def test_value_names_go_into_query_text_only_once_checked(world, names):
    before = census(world)
    good = [
        {"key": f"n{i}", "t": at(1), "values": {f"x{i}_{j}": j for j in range(names // 3 + 1)}}
        for i in range(3)
    ]
    hostile = [
        row(key=f"h{i}", values={name: 1}) for i, name in enumerate(["a`b", "x}) DETACH DELETE (n", "$a"])
    ]
    receipts = remember(world, DEVICE, [*good, *hostile], "feed")
    assert [r["status"] for r in receipts] == ["created"] * 3 + ["invalid"] * 3
    for one in good:  # a new entity and its State hold exactly its values
        state = history(world, DEVICE, one["key"])[0]
        assert {name: item for name, item in state.items() if name.startswith("x")} == one["values"]
        node = world.ro_query("MATCH (e:Device {key: $key}) RETURN properties(e)", {"key": one["key"]})
        assert {name: item for name, item in node.result_set[0][0].items() if name.startswith("x")} == one[
            "values"
        ]
    assert set(before[0]) <= set(census(world)[0]) and len(history(world, DEVICE, "base")) == 2


@pytest.mark.parametrize(
    "relation", ["KNOWS", "used_by", "USED_BY`]->(x) DETACH DELETE x //", "", "HAS_STATE"]
)
def test_relation_names_the_kind_does_not_declare_are_refused(world, relation):
    refused_once(world, write(world, row(relations={relation: "x"})))


def test_update_refuses_names_that_are_not_plain(world):
    refused_once(world, lambda: update(world, DEVICE, "base", at(3), by="a", values={"a`b": None}))
    refused_once(world, lambda: update(world, DEVICE, "base", at(3), by="a", relations={"X`": "y"}))


# --- bad bytes and values that cannot be printed ---------------------------------------------------------


def test_bad_bytes_in_one_row_do_not_stop_the_others(world):
    before = census(world)
    rows = [
        row(key="g1"),
        row(key="b1", values={"status": "nul\x00here"}),
        row(key="g2"),
        row(key="b2\ud800"),
        row(key="b3", values={"st\ud800": 1}),
        row(key="g3", relations={"USED_BY": "team"}),
        row(key="b4", relations={"USED_BY": "te\x00am"}),
        row(key="b5", entry="look\udfff/1"),
        row(key="b6", t="2026-01-01T00:00:00\x00junk+00:00"),
    ]
    found = [receipt["status"] for receipt in remember(world, DEVICE, rows, "feed")]
    assert found == [
        "created",
        "invalid",
        "created",
        "invalid",
        "invalid",
        "created",
        "invalid",
        "invalid",
        "invalid",
    ]
    assert [len(history(world, DEVICE, key)) for key in ("g1", "g2", "g3")] == [1, 1, 1]
    assert census(world)[2] == [before[2][0] + 6, before[2][1] + 6]


class Thing:
    def __repr__(self) -> str:
        return "<a thing>"


@pytest.mark.parametrize(
    "value",
    [
        Thing(),
        b"bytes",
        {1, 2},
        {"nested": {"dict": 1}},
        float("nan"),
        float("inf"),
        float("-inf"),
        2**63,
        -(2**63) - 1,
        [Thing()],
        [float("nan")],
        [[1]],
        [None],
        1 + 2j,
        Decimal("1.5"),
        [1] * 1_001,
        "x" * 100_001,
    ],
    ids=lambda value: type(value).__name__,
)
def test_values_that_cannot_be_stored_are_refused_once(world, value):
    found = refused_once(world, write(world, row(values={"status": value})))
    assert found["reason"]


def test_numbers_at_their_limits_are_stored(world):
    values = {
        "top": 2**63 - 1,
        "bottom": -(2**63),
        "tiny": 5e-324,
        "huge": 1.79769313486231e308,
        "flag": False,
    }
    assert remember(world, DEVICE, [row(values=values)], "feed")[0]["status"] == "created"
    stored = history(world, DEVICE, "d1")[0]
    assert {name: stored[name] for name in values} == values
    # FalkorDB replies with 15 digits: the largest float would read back as infinity, so it is refused.
    refused_once(world, write(world, row(key="d2", values={"huge": 1.7976931348623157e308})))


def test_a_float_is_kept_as_it_reads_back_so_a_replay_is_unchanged(world):
    sent = row(values={"ratio": 0.1 + 0.2, "third": [1 / 3]})
    assert remember(world, DEVICE, [sent], "feed")[0]["status"] == "created"
    assert remember(world, DEVICE, [sent], "feed")[0]["status"] == "unchanged"
    assert update(world, DEVICE, "d1", at(1), by="a", values={"ratio": 0.1 + 0.2})["status"] == "unchanged"
    stored = history(world, DEVICE, "d1")
    assert len(stored) == 1 and stored[0]["ratio"] == 0.3 and stored[0]["third"] == [0.333333333333333]


# --- every size limit, at the limit and one past it ------------------------------------------------------


def test_200_values_are_stored_and_201_refused(world):
    assert (
        remember(world, DEVICE, [row(values={f"v{i}": i for i in range(200)})], "f")[0]["status"] == "created"
    )
    refused_once(world, write(world, row(key="d2", values={f"v{i}": i for i in range(201)})))


def test_200_targets_are_stored_and_201_refused(world):
    targets = [f"t{i}" for i in range(200)]
    assert remember(world, DEVICE, [row(relations={"USED_BY": targets})], "f")[0]["status"] == "created"
    assert len(related(world, DEVICE, "d1", "USED_BY", at(1))) == 200
    refused_once(world, write(world, row(key="d2", relations={"USED_BY": [*targets, "one more"]})))


def test_1000_list_items_are_stored_and_1001_refused(world):
    assert remember(world, DEVICE, [row(values={"items": list(range(1_000))})], "f")[0]["status"] == "created"
    assert history(world, DEVICE, "d1")[0]["items"] == list(range(1_000))
    refused_once(world, write(world, row(key="d2", values={"items": list(range(1_001))})))


def test_100000_characters_of_text_are_stored_and_100001_refused(world):
    assert remember(world, DEVICE, [row(values={"note": "é" * 100_000})], "f")[0]["status"] == "created"
    assert len(history(world, DEVICE, "d1")[0]["note"]) == 100_000
    refused_once(world, write(world, row(key="d2", values={"note": "é" * 100_001})))


def test_a_row_of_200000_characters_is_stored_and_one_more_refused(world):
    def sized(size: int, key: str) -> dict:
        whole = row(key=key, values={"a": "", "b": ""})
        room = size - len(json.dumps(whole, ensure_ascii=False))
        whole["values"] = {"a": "x" * (room // 2), "b": "y" * (room - room // 2)}
        assert len(json.dumps(whole, ensure_ascii=False)) == size
        return whole

    assert remember(world, DEVICE, [sized(200_000, "d1")], "f")[0]["status"] == "created"
    refused_once(world, write(world, sized(200_001, "d2")))


def test_names_of_200_characters_are_stored_and_201_refused(world):
    long_key, long_entry = "k" * 200, "e" * 200
    world.query("CREATE (:Entry {id: $id})", {"id": long_entry})
    good = row(key=long_key, entry=long_entry, relations={"USED_BY": "t" * 200})
    assert remember(world, DEVICE, [good], "b" * 200)[0]["status"] == "created"
    assert history(world, DEVICE, long_key)[0]["entry"] == long_entry
    refused_once(world, write(world, row(key="k" * 201)))
    refused_once(world, write(world, row(entry="e" * 206)))  # an entry id: an episode id of 200, "/5000"
    refused_once(world, write(world, row(relations={"USED_BY": "t" * 201})))
    raised_and_nothing_stored(world, write(world, row(), by="b" * 201))
    assert remember(world, DEVICE, [row(key="d9", values={"a" * 100: 1})], "f")[0]["status"] == "created"


def test_the_key_0_is_refused_as_a_written_key_and_as_a_target(world):
    # FalkorDB 4.22.1 keeps 0 out of its index once it loads a graph from disk (test_embedded.py): an
    # entity of key 0 would be written twice, and its CREATE crashed the server under the key constraint.
    refused_once(world, write(world, row(key=0)))
    refused_once(world, write(world, row(key="d0", relations={"USED_BY": [1, 0]})))
    refused_once(world, lambda: update(world, DEVICE, 0, clock.present(), by="a"))
    assert history(world, DEVICE, 0) == []  # a read of it finds nothing written


def test_times_more_than_five_minutes_ahead_are_refused(world):
    for _ in range(5):  # a second that turns during the call would move the present: try again then
        start = clock.present()
        edge = remember(world, DEVICE, [row(key="soon", t=start + timedelta(minutes=5))], "f")[0]
        past = remember(world, DEVICE, [row(key="late", t=start + timedelta(minutes=5, seconds=1))], "f")[0]
        if clock.present() == start:
            break
    assert edge["status"] == "created" and past["status"] == "invalid" and "five minutes" in past["reason"]
    refused_once(world, write(world, row(key="later", t="2068-01-01T00:00:00Z")))
    refused_once(world, lambda: update(world, DEVICE, "base", clock.present() + timedelta(hours=1), by="a"))


# --- arguments that are not what they should be -------------------------------------------------------------


def raised_and_nothing_stored(graph, action, error=Refused):
    """An identity argument that is not one: it raises, and nothing is written or stored."""
    before = census(graph)
    with pytest.raises(error):
        action()
    assert census(graph) == before


@pytest.mark.parametrize("rows", [None, 5, object()])
def test_rows_that_are_not_iterable_are_refused_once(world, rows):
    refused_once(world, lambda: remember(world, DEVICE, rows, "feed"))


def test_rows_that_fail_while_they_are_read_are_refused_once_and_nothing_is_written(world):
    def failing():
        yield row(key="first")
        raise RuntimeError("the feed broke")

    refused_once(world, lambda: remember(world, DEVICE, failing(), "feed"))

    class Rows(list):
        def __iter__(self):
            raise RuntimeError("no")

    refused_once(world, lambda: remember(world, DEVICE, Rows([row()]), "feed"))


def test_any_iterable_of_rows_is_taken(world):
    assert remember(world, DEVICE, (one for one in [row(key="g1"), row(key="g2")]), "feed") == [
        {"key": "g1", "status": "created"},
        {"key": "g2", "status": "created"},
    ]
    assert remember(world, DEVICE, (), "feed") == [] and remember(world, DEVICE, iter([]), "feed") == []
    assert remember(world, DEVICE, {"key": 1}, "feed")[0] == {  # a dict is an iterable of its names
        "key": None,
        "status": "invalid",
        "reason": "a row is a dict, not str",
    }


@pytest.mark.parametrize("by", [None, "", " x", "x\x00", "x\ud800", 5, ["x"]])
def test_a_writer_that_is_not_a_name_raises_and_nothing_is_stored(world, by):
    raised_and_nothing_stored(world, write(world, row(), by=by))
    raised_and_nothing_stored(world, lambda: update(world, DEVICE, "base", at(3), by=by, values={"x": 1}))


def test_a_kind_that_is_not_a_kind_raises_and_nothing_is_stored(world):
    raised_and_nothing_stored(world, write(world, row(), kind="Device"), Refused)
    raised_and_nothing_stored(world, lambda: update(world, None, "base", at(3), by="a"), Refused)


@pytest.mark.parametrize(
    "raw",
    ["not a dict", ["key", "d1"], {"key": "d1", "t": at(1), "extra": 1}, {"t": at(1)}, {"key": "d1", "t": 5}],
    ids=["text", "list", "extra field", "no key", "time"],
)
def test_rows_of_the_wrong_shape_are_refused_once(world, raw):
    refused_once(world, write(world, raw))


def test_reads_refuse_keys_of_the_wrong_form_and_change_nothing(world):
    before = census(world)
    for key in (None, 1.5, ["base"], {"key": "base"}, "x" * 201, "", "\x00"):
        with pytest.raises(Refused):
            history(world, DEVICE, key)
        with pytest.raises(Refused):
            as_of(world, DEVICE, key, at(1))
        with pytest.raises(Refused):
            related(world, DEVICE, key, "USED_BY")
    assert census(world) == before
    assert history(world, PERSON, "') DETACH DELETE n //") == []


# --- hostile objects: they lie about their type, or fail when read -------------------------------------------


def hostile_rows(thing) -> list:
    """Rows that each carry the hostile thing in another place."""
    return [
        {"key": thing, "t": at(1)},
        {"key": "h1", "t": thing},
        {"key": "h1", "t": at(1), "values": thing},
        {"key": "h1", "t": at(1), "values": {"status": thing}},
        {"key": "h1", "t": at(1), "values": {"levels": [1, thing]}},
        {"key": "h1", "t": at(1), "relations": thing},
        {"key": "h1", "t": at(1), "relations": {"USED_BY": thing}},
        {"key": "h1", "t": at(1), "relations": {"USED_BY": ["red", thing]}},
        {"key": "h1", "t": at(1), "entry": thing},
        HostileMap(key="h1", t=at(1)),
        thing,
    ]


@pytest.mark.parametrize("thing", hostile_params())
def test_a_hostile_object_in_a_row_costs_that_row_only(world, thing):
    for bad in hostile_rows(thing):
        found = refused_once(world, write(world, bad))
        assert found["key"] in (None, "h1") and isinstance(found["reason"], str)
    good = row(key="fine", values={"status": "ok"})
    receipts = remember(world, DEVICE, [hostile_rows(thing)[3], good, hostile_rows(thing)[0]], "feed")
    assert [one["status"] for one in receipts] == ["invalid", "created", "invalid"]
    assert receipts[0]["key"] == "h1" and receipts[2]["key"] is None
    assert history(world, DEVICE, "fine")[0]["status"] == "ok"


@pytest.mark.parametrize("thing", hostile_params())
def test_a_hostile_object_in_an_update_costs_one_refusal(world, thing):
    for arguments in (
        {"key": thing},
        {"t": thing},
        {"values": thing},
        {"values": {"status": thing}},
        {"relations": thing},
        {"relations": {"USED_BY": thing}},
        {"entry": thing},
    ):
        given = {"key": "base", "t": at(3), "values": {"status": "x"}, **arguments}
        key, t = given.pop("key"), given.pop("t")
        found = refused_once(
            world, lambda key=key, t=t, given=given: update(world, DEVICE, key, t, "a", **given)
        )
        assert found["key"] in (None, "base")
    raised_and_nothing_stored(world, lambda: update(world, DEVICE, "base", at(3), thing, values={"a": 1}))
    raised_and_nothing_stored(world, write(world, row(), by=thing))


def test_two_refused_rows_that_agree_in_their_first_2000_characters_are_two_failures(world):
    head = "x" * 2_500
    receipts = remember(
        world,
        DEVICE,
        [row(values={"note": head + "a", "bad": [None]}), row(values={"note": head + "b", "bad": [None]})],
        "feed",
    )
    assert [one["status"] for one in receipts] == ["invalid", "invalid"]
    kept = read(world, "MATCH (f:WriteFailure) RETURN f.detail, f.times")
    assert len(kept) == 2 and kept[0][0] == kept[1][0] and len(kept[0][0]) == 2_000
