"""prepare(): a row checked and made ready, and the form two States are compared in."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from devices import DEVICE, PERSON, ROOM
from hypothesis import given, settings
from hypothesis import strategies as st
from lighthouse import values
from lighthouse.values import Refused
from lighthouse.write.rows import (
    checked_key,
    checked_relations,
    content_text,
    fingerprint,
    fingerprints,
    prepare,
    targets,
    text_of,
    typed,
)

NOW = datetime(2026, 1, 2, tzinfo=UTC)


def ready(raw, kind=DEVICE, **more):
    return prepare(kind, 0, raw, NOW, **more)


def test_a_row_is_made_ready():
    found = ready(
        {
            "key": "d1",
            "t": "2026-01-01T01:00:00+01:00",
            "values": {"status": "ok", "last_seen": "2026-01-01T00:00:00Z", "levels": (1, 2)},
            "relations": {"LOCATED_IN": "r1", "USED_BY": ["red", 7]},
            "entry": "look/1",
        }
    )
    assert found.key == "d1" and found.t == datetime(2026, 1, 1, tzinfo=UTC)
    assert found.values == {"status": "ok", "last_seen": "2026-01-01T00:00:00", "levels": [1, 2]}
    assert found.relations == {"LOCATED_IN": frozenset({"r1"}), "USED_BY": frozenset({"red", 7})}
    assert found.entry == "look/1" and found.index == 0


def test_every_declared_relation_is_in_the_row_closed_when_not_named():
    assert ready({"key": 5, "t": NOW}).relations == {"LOCATED_IN": frozenset(), "USED_BY": frozenset()}
    assert ready({"key": 5, "t": NOW, "relations": {"USED_BY": None}}).relations["USED_BY"] == frozenset()
    assert ready({"key": "p", "t": NOW}, PERSON).relations == {"KNOWS": frozenset()}


def test_a_row_without_t_takes_the_default():
    assert ready({"key": "d1"}, default_t="2026-01-01T00:00:00Z").t == datetime(2026, 1, 1, tzinfo=UTC)
    with pytest.raises(Refused, match="time t"):
        ready({"key": "d1"})


def test_a_value_none_is_absent_and_left_out():
    # API 1.2: None "means absent, and is dropped"; the row is the row without it, to its fingerprint.
    dropped = ready({"key": "d1", "t": NOW, "values": {"status": "ok", "gone": None}})
    plain = ready({"key": "d1", "t": NOW, "values": {"status": "ok"}})
    assert dropped.values == {"status": "ok"} and dropped.fp == plain.fp
    assert ready({"key": "d1", "t": NOW, "values": {"gone": None}}).values == {}


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        ("d1", "a row is a dict"),
        ({"t": NOW}, "needs its key"),
        ({"key": "d1", "t": NOW, "value": {}}, "no field 'value'"),
        ({"key": None, "t": NOW}, "must be text"),
        ({"key": True, "t": NOW}, "not bool"),
        ({"key": 2**63, "t": NOW}, "64-bit"),
        ({"key": " d1", "t": NOW}, "no space"),
        ({"key": "d1", "t": "2026-13-01T00:00:00"}, "ISO 8601"),
        ({"key": "d1", "t": 5}, "ISO 8601 text or a datetime"),
        ({"key": "d1", "t": NOW + timedelta(minutes=5, seconds=1)}, "five minutes"),
        ({"key": "d1", "t": NOW, "values": []}, "must be a dict"),
        ({"key": "d1", "t": NOW, "values": {"serial": "x"}}, "is not a value"),
        ({"key": "d1", "t": NOW, "values": {"fp": 1}}, "belongs to the library"),
        ({"key": "d1", "t": NOW, "values": {"lh.rev": 1}}, "property name"),
        ({"key": "d1", "t": ""}, "time t of a row is missing"),
        ({"key": "d1", "t": NOW, "values": {"a b": 1}}, "property name"),
        ({"key": "d1", "t": NOW, "values": {"a b": None}}, "property name"),
        ({"key": "d1", "t": NOW, "values": {"fp": None}}, "belongs to the library"),
        ({"key": "d1", "t": NOW, "values": {"a": [None]}}, "cannot be stored"),
        ({"key": "d1", "t": NOW, "values": {"a": {"b": 1}}}, "cannot be stored"),
        ({"key": "d1", "t": NOW, "values": {"a": [[1]]}}, "cannot be stored"),
        ({"key": "d1", "t": NOW, "values": {"last_seen": "yesterday"}}, "last_seen"),
        ({"key": "d1", "t": NOW, "values": {"note": 5}}, "must be text"),
        ({"key": "d1", "t": NOW, "relations": ["r1"]}, "must be a dict"),
        ({"key": "d1", "t": NOW, "relations": {"KNOWS": "p"}}, "no relation 'KNOWS'"),
        ({"key": "d1", "t": NOW, "relations": {"USED_BY": [1.5]}}, "target of USED_BY"),
        ({"key": "d1", "t": NOW, "entry": ""}, "entry id"),
    ],
)
def test_what_cannot_be_stored_is_refused_with_its_reason(raw, says):
    with pytest.raises(Refused, match=says) as refused:
        ready(raw)
    assert refused.value.reason == "invalid"


def test_the_limits_of_a_row():
    assert len(ready({"key": "d1", "t": NOW, "values": {f"v{i}": i for i in range(200)}}).values) == 200
    with pytest.raises(Refused, match="more than 200 values"):
        ready({"key": "d1", "t": NOW, "values": {f"v{i}": i for i in range(201)}})
    assert len(targets(DEVICE, "USED_BY", [f"t{i}" for i in range(200)])) == 200
    with pytest.raises(Refused, match="more than 200 targets"):
        targets(DEVICE, "USED_BY", [f"t{i}" for i in range(201)])
    text = "x" * 99_000
    whole = {"key": "d1", "t": "2026-01-01T00:00:00Z", "values": {"note": text, "other": ""}}
    assert ready(whole).values["note"] == text
    with pytest.raises(Refused, match="200,000"):
        ready({**whole, "values": {"note": text, "other": "y" * 99_000, "more": "z" * 3_000}})


def test_content_compares_values_with_their_types_and_relations_without_empty_ones():
    assert typed(1) != typed(1.0) != typed(True) != typed("1")
    assert typed([1, 2]) == typed((1, 2)) != typed([2, 1])
    one = content_text({"a": 1, "b": [1]}, {"LOCATED_IN": frozenset({"r1"}), "USED_BY": frozenset()})
    same = content_text({"b": (1,), "a": 1}, {"LOCATED_IN": frozenset({"r1"})})
    assert one == same
    assert one != content_text({"a": 1.0, "b": [1]}, {"LOCATED_IN": frozenset({"r1"})})
    assert one != content_text({"a": True, "b": [1]}, {"LOCATED_IN": frozenset({"r1"})})
    assert one != content_text({"a": 1, "b": [1]}, {"LOCATED_IN": frozenset({"r2"})})
    assert content_text({}, {"USED_BY": frozenset({1})}) != content_text({}, {"USED_BY": frozenset({"1"})})


def test_the_text_of_a_kind_in_the_order_it_names_it():
    from devices import MANUAL

    assert text_of(MANUAL, {"body": "b", "title": "t", "other": "o"}) == "t\nb"
    assert text_of(DEVICE, {"status": "x"}) == ""


def test_checked_relations_of_a_kind_without_relations():
    assert checked_relations(ROOM, None) == {}
    with pytest.raises(Refused):
        checked_relations(ROOM, {"LOCATED_IN": "r1"})


def test_a_time_without_a_zone_is_utc_and_a_fraction_is_cut():
    assert ready({"key": "d1", "t": "2026-01-01T00:00:00"}).t == datetime(2026, 1, 1, tzinfo=UTC)
    assert ready({"key": "d1", "t": "2026-01-01T00:00:00.9Z"}).t == datetime(2026, 1, 1, tzinfo=UTC)


def test_a_declared_time_is_text_or_a_datetime_and_is_kept_in_the_one_time_format():
    # API 1.2: a time input is whatever stamp() takes; a naive datetime is UTC, an aware one converted.
    for moment in (
        "2026-01-01T12:00:00.7Z",
        datetime(2026, 1, 1, 12, 0, 0, 700_000, tzinfo=UTC),
        datetime(2026, 1, 1, 12, 0, 0, 700_000),
        datetime(2026, 1, 1, 7, 0, 0, tzinfo=timezone(timedelta(hours=-5))),
    ):
        row = ready({"key": "d1", "t": NOW, "values": {"last_seen": moment}})
        assert row.values == {"last_seen": "2026-01-01T12:00:00"}
    same = ready({"key": "d1", "t": NOW, "values": {"last_seen": "2026-01-01T12:00:00Z"}})
    assert row.fp == same.fp
    for name, moment in (("status", NOW), ("last_seen", datetime(1999, 12, 31, tzinfo=UTC))):
        with pytest.raises(Refused):  # a datetime only where a time is declared, in the window
            ready({"key": "d1", "t": NOW, "values": {name: moment}})
    with pytest.raises(Refused, match="cannot be stored: datetime"):
        ready({"key": "d1", "t": NOW, "values": {"tags": [NOW]}})


def test_names_the_library_once_used_for_itself_are_values_now():
    given = {"kind": "k", "model": "m", "rev": 1, "embedding": [1.0]}
    assert ready({"key": "d1", "t": NOW, "values": given}).values == given


def test_the_fingerprint_follows_the_content():
    one = ready({"key": "d1", "t": NOW, "values": {"a": 1}, "relations": {"USED_BY": ["x", "y"]}})
    same = ready(
        {
            "key": "d2",
            "t": NOW + timedelta(hours=-1),
            "values": {"a": 1},
            "relations": {"USED_BY": ["y", "x"]},
        }
    )
    other = ready({"key": "d1", "t": NOW, "values": {"a": 1.0}, "relations": {"USED_BY": ["x", "y"]}})
    assert one.fp == same.fp != other.fp and len(one.fp) == 32 and int(one.fp, 16) >= 0


@pytest.mark.parametrize(
    ("given_values", "relations", "stored"),
    [
        ({}, {}, "2c2a7c64679df0597cd166c5971c02a6"),
        (
            {
                "status": "ok",
                "temperature": 18.5,
                "count": 3,
                "on": True,
                "tags": ["a", "b"],
                "mixed": [1, 2.5, True],
            },
            {"LOCATED_IN": frozenset({"r1"}), "USED_BY": frozenset({"t1", 7}), "EMPTY": frozenset()},
            "1bfb5154a4804aa0d96c50b384264f69",
        ),
        (
            {"note": 'é漢😀\u2028 "quoted" \\ back'},
            {"R": frozenset({-5, 2**63 - 1})},
            "c936b87d91ce0fc73540ad97d01995a0",
        ),
        ({"one": 1, "onef": 1.0, "t": "1"}, {}, "d3025e42551353b09efd0399a9ddf1b8"),
    ],
)
def test_the_fingerprint_of_a_content_is_the_one_states_already_keep(given_values, relations, stored):
    # Graphs keep these fingerprints on their States: a new way of computing one must give the same.
    assert fingerprint(given_values, relations) == stored


def _content_tuple(given_values: dict, relations: dict) -> tuple:
    """The tuple every stored fingerprint was made from (the repr() of it was digested): the oracle."""
    return (
        tuple(sorted((name, typed(item)) for name, item in given_values.items())),
        tuple(
            sorted(
                (relation, tuple(sorted(typed(target) for target in targets)))
                for relation, targets in relations.items()
                if targets
            )
        ),
    )


SCALARS = (
    st.text(max_size=8)
    | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.booleans()
)
CONTENT_VALUES = st.dictionaries(
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,4}", fullmatch=True),
    SCALARS | st.lists(SCALARS, max_size=3) | st.lists(SCALARS, max_size=2).map(tuple),
    max_size=6,
)
TARGETS = st.frozensets(st.text(max_size=4) | st.integers(-(2**63), 2**63 - 1), max_size=4)


@settings(max_examples=500, deadline=None)
@given(CONTENT_VALUES, st.dictionaries(st.sampled_from(["A", "B_1", "USED_BY"]), TARGETS, max_size=3))
def test_the_content_text_is_the_text_of_the_tuple_stored_fingerprints_were_made_from(
    given_values, relations
):
    assert content_text(given_values, relations) == repr(_content_tuple(given_values, relations))


@settings(max_examples=300, deadline=None)
@given(
    CONTENT_VALUES,
    CONTENT_VALUES,
    st.dictionaries(st.sampled_from(["A", "B_1", "USED_BY"]), TARGETS, max_size=3),
    st.dictionaries(st.sampled_from(["A", "B_1", "USED_BY"]), TARGETS, max_size=3),
)
def test_the_digest_of_the_targets_is_equal_exactly_when_the_targets_are(
    values_a, values_b, links_a, links_b
):
    # What lh.links_fp keeps: a change whose targets it says are the same reads and writes no edge.
    fp_a, linked_a = fingerprints(values_a, links_a)
    fp_b, linked_b = fingerprints(values_b, links_b)
    assert fp_a == fingerprint(values_a, links_a) and fp_b == fingerprint(values_b, links_b)
    same_targets = _content_tuple({}, links_a) == _content_tuple({}, links_b)  # empty relations are none
    assert (linked_a == linked_b) == same_targets
    assert fingerprints(values_b, links_a)[1] == linked_a  # the values never change it
    assert len(linked_a) == 32 and int(linked_a, 16) >= 0


def test_a_row_makes_both_fingerprints_at_once_whichever_it_is_asked_first():
    raw = {"key": "d1", "t": NOW, "values": {"a": 1}, "relations": {"USED_BY": ["x", 1]}}
    first, second = ready(raw), ready(raw)
    links_first = (first.links_fp, first.fp)  # the digest of the targets asked for first
    fp_first = (second.fp, second.links_fp)
    assert links_first == fp_first[::-1]
    assert first.links_fp == fingerprints({}, {"USED_BY": frozenset({"x", 1})})[1]
    assert ready({**raw, "relations": {"USED_BY": ["x", "1"]}}).links_fp != first.links_fp  # 1 is not "1"


def test_a_row_of_builtin_types_is_read_as_it_is_and_any_other_from_its_plain_copy():
    class Text(str):
        pass

    for raw in ({"key": Text("d1"), "t": NOW}, {"key": "d1", "t": NOW, "values": {"a": Text("x")}}):
        with pytest.raises(Refused):
            ready(raw)
    sent = {"key": "d1", "t": NOW, "values": {"a": "x", "b": (1, 2)}, "relations": {"USED_BY": ["t1"]}}
    made = ready(sent)
    assert made.raw is sent and made.values == {"a": "x", "b": [1, 2]}  # read, not copied
    assert made.size == values.measured(values.plain(sent))
    assert ready(dict(sent, values={"a": "x"})).raw == {
        "key": "d1",
        "t": NOW,
        "values": {"a": "x"},
        "relations": {"USED_BY": ["t1"]},
    }


class _Spy:
    """An object that notes every call of its own code: a check must never make one."""

    def __init__(self, calls: list) -> None:
        self.calls = calls

    def __hash__(self) -> int:
        self.calls.append("hash")
        return hash("key")  # the hash of a field the check looks for

    def __eq__(self, other) -> bool:
        self.calls.append("eq")
        return False

    def __repr__(self) -> str:
        self.calls.append("repr")
        return "spy"


@pytest.mark.parametrize(
    "place",
    ["field", "key", "t", "value", "value name", "item", "relations", "target", "entry"],
)
def test_no_object_of_the_callers_runs_code_while_a_row_is_checked_and_the_reason_is_the_copys(place):
    calls: list = []
    spy = _Spy(calls)
    raw = {"key": "d1", "t": NOW, "values": {"a": 1}, "relations": {"USED_BY": ["t1"]}}
    if place == "field":
        raw[spy] = 1
    elif place == "value name":
        raw["values"] = {spy: 1}
    elif place == "item":
        raw["values"] = {"a": [1, spy]}
    elif place == "target":
        raw["relations"] = {"USED_BY": ["t1", spy]}
    else:
        chosen = {"key": "key", "t": "t", "value": "values", "relations": "relations", "entry": "entry"}[
            place
        ]
        raw[chosen] = {"a": spy} if place == "value" else spy
    calls.clear()  # what building the dict called
    with pytest.raises(Refused) as refused:
        ready(raw)
    assert calls == []
    with pytest.raises(Refused) as copied:
        values.plain(raw, "a row")
    assert str(refused.value) == str(copied.value) and "_Spy" in str(refused.value)


@settings(max_examples=500, deadline=None)
@given(
    given=st.text(alphabet=st.characters(max_codepoint=127), max_size=205)
    | st.text(max_size=10)
    | st.integers()
    | st.none()
)
def test_the_fast_key_check_takes_and_refuses_what_values_key_does(given):
    try:
        expected = values.written_key(given)
    except Refused:
        with pytest.raises(Refused):
            checked_key(given)
    else:
        assert checked_key(given) == expected


def test_texts_kept_for_the_fingerprint_give_what_they_were_made_from_and_are_bounded(monkeypatch):
    from lighthouse.write import rows as made

    # the same targets and names again: the same texts, taken from the store
    for _ in range(2):
        for given_values, relations in [
            ({"a": 1}, {"A": frozenset({1})}),
            ({"a": "1"}, {"A": frozenset({"1"})}),
            ({"a": 1.0}, {"A": frozenset({"1", 1})}),
            ({"a": True}, {"A": frozenset()}),
        ]:
            assert content_text(given_values, relations) == repr(_content_tuple(given_values, relations))
    assert made._TARGETS_TEXTS[frozenset({1})] != made._TARGETS_TEXTS[frozenset({"1"})]
    assert made._VALUE_OPENINGS[("a", int)] != made._VALUE_OPENINGS[("a", bool)]
    # a long text is made and not kept: a caller's targets cannot fill the store with megabytes
    wide = frozenset(f"t{number:03d}-{'x' * 190}" for number in range(200))
    assert content_text({}, {"A": wide}) == repr(_content_tuple({}, {"A": wide}))
    assert wide not in made._TARGETS_TEXTS
    # full stores keep what they hold and take no more, and the texts are still made
    monkeypatch.setattr(made, "MAX_TEXTS_KEPT", len(made._TARGETS_TEXTS))
    fresh = frozenset({"never-seen-before"})
    assert content_text({}, {"A": fresh}) == repr(_content_tuple({}, {"A": fresh}))
    assert fresh not in made._TARGETS_TEXTS
