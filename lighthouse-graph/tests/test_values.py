"""Every input limit: what a name, a key, a value, a row, a lease and a question may hold."""

from __future__ import annotations

import json

import hypothesis
import pytest
from hostile import PosingAsKind
from hypothesis import strategies as st
from lighthouse import values
from lighthouse.graphs import ensure_schema
from lighthouse.kinds import Kind
from lighthouse.values import (
    INT_RANGE,
    MAX_ITEMS,
    MAX_KEPT,
    MAX_LEASE,
    MAX_NAME,
    MAX_QUESTION,
    MAX_QUESTION_WORDS,
    MAX_ROW,
    MAX_TEXT,
    MAX_VALUES,
    MAX_WORD,
    Refused,
    WrongType,
)

HOSTILE_TEXT = [
    ("a\x00b", "NUL"),
    ("\x00", "NUL"),
    ("a\ud800b", "lone surrogate"),
    ("\udfff", "lone surrogate"),
    ("\ud83d", "lone surrogate"),  # half of an emoji
]


def _id(given: object) -> str | None:
    """A test id that reads nothing of a hostile object (pytest would measure and print it)."""
    return None if type(given) in (str, int, float, bool, type(None)) else values.sort_of(given)


def test_the_limits_are_those_of_the_notes() -> None:
    assert (MAX_NAME, MAX_VALUES, MAX_ITEMS, MAX_TEXT, MAX_ROW, MAX_KEPT) == (
        200,
        200,
        1_000,
        100_000,
        200_000,
        2_000,
    )
    assert (MAX_QUESTION, MAX_QUESTION_WORDS, MAX_WORD, MAX_LEASE) == (1_000, 20, 50, 7 * 24 * 3600)
    assert values.MAX_TARGETS == 200 and values.MAX_REFERENCES == 200


def test_refused_carries_a_reason() -> None:
    assert Refused("why").reason == "invalid"
    assert Refused("why", "missing").reason == "missing"
    assert str(Refused("why")) == "why"
    assert issubclass(Refused, ValueError) and issubclass(WrongType, TypeError)


# text()


def test_text_up_to_the_limit() -> None:
    assert values.text("x" * MAX_TEXT, "t") == "x" * MAX_TEXT
    with pytest.raises(Refused, match=r"^t must be text of at most 100000 characters$"):
        values.text("x" * (MAX_TEXT + 1), "t")
    assert values.text("abc", "t", limit=3) == "abc"
    with pytest.raises(Refused, match="at most 3 characters"):
        values.text("abcd", "t", limit=3)


def test_the_reason_for_a_long_text_is_the_one_the_api_gives() -> None:
    with pytest.raises(Refused) as raised:
        values.text("x" * (MAX_TEXT + 1), "text")
    assert str(raised.value) == "text must be text of at most 100000 characters"


def test_text_keeps_what_can_be_stored() -> None:
    for given in ["", " ", "line\nbreak", "tab\t", "é😀\u202e", "\ufeff", "\U0010ffff", "\\\"'`"]:
        assert values.text(given, "t") == given


@pytest.mark.parametrize(("given", "says"), HOSTILE_TEXT)
def test_text_refuses_nul_and_lone_surrogates(given, says) -> None:
    with pytest.raises(Refused, match=says):
        values.text(given, "the note")


@pytest.mark.parametrize("given", [None, 1, 1.5, b"bytes", ["a"], {"a": 1}])
def test_text_refuses_what_is_not_text(given) -> None:
    with pytest.raises(Refused, match="must be text"):
        values.text(given, "the note")


def test_text_refuses_a_str_subclass() -> None:
    class Sly(str):
        def replace(self, *args):  # the client escapes quotes with replace()
            return self

    with pytest.raises(Refused, match="t must be text, not Sly"):
        values.text(Sly('a"b'), "t")


# name()


def test_a_name_of_200_characters_and_not_201() -> None:
    assert values.name("n" * MAX_NAME) == "n" * MAX_NAME
    assert values.name("é" * MAX_NAME) == "é" * MAX_NAME
    with pytest.raises(Refused, match="must be text of 1 to 200 characters"):
        values.name("n" * (MAX_NAME + 1))
    with pytest.raises(Refused, match="must be text of 1 to 200 characters"):
        values.name("n" * 10_000)


@pytest.mark.parametrize("given", ["ann", "d1-overheat/1", "a b", "Élan", "设备", "😀", "x:y@z", "a'b\"c"])
def test_names_that_are_printable_are_kept(given) -> None:
    assert values.name(given) == given


@pytest.mark.parametrize(
    ("given", "says"),
    [
        ("", "1 to 200 characters"),
        (" ann", "either end"),
        ("ann ", "either end"),
        ("ann\n", "either end"),
        ("\u00a0ann", "either end"),
        ("\u3000ann", "either end"),  # an ideographic space
        ("a\nb", "can be printed"),
        ("a\tb", "can be printed"),
        ("a\x7fb", "can be printed"),
        ("a\x85b", "can be printed"),  # a C1 control: next line
        ("a\u202eb", "can be printed"),  # a right-to-left override
        ("a\u200bb", "can be printed"),  # a zero-width space
        ("a\ufeffb", "can be printed"),  # a byte order mark
        ("a\u2028b", "can be printed"),  # a line separator
        ("a\u2029b", "can be printed"),  # a paragraph separator
        ("a\ue000b", "can be printed"),  # private use
        ("a\U000f0000b", "can be printed"),  # private use, beyond the first plane
        ("a\u0378b", "can be printed"),  # unassigned
        ("a\x00b", "can be printed"),  # a NUL is a control
        ("a\ud800b", "can be printed"),  # a lone surrogate
        (None, "NoneType"),
        (5, "1 to 200 characters"),
        (b"ann", "bytes"),
        (["ann"], "list"),
    ],
    ids=_id,
)
def test_names_that_cannot_be_printed_are_refused(given, says) -> None:
    with pytest.raises(Refused, match=says) as raised:
        values.name(given, "the agent")
    assert str(raised.value).startswith("the agent must be text")


def test_every_ascii_character_is_kept_or_refused_as_its_unicode_category_says() -> None:
    import unicodedata

    for code in range(128):
        given = f"a{chr(code)}b"
        if unicodedata.category(chr(code))[0] == "C":
            with pytest.raises(Refused, match="can be printed"):
                values.name(given)
        else:
            assert values.name(given) == given


class _Sly(str):
    """A str that lies about itself, and raises when it is printed or measured."""

    def __str__(self):
        raise RuntimeError("no str")

    __repr__ = __str__

    def __len__(self):
        raise RuntimeError("no len")

    def strip(self, *args):
        return self


@pytest.mark.parametrize("given", [_Sly("ann"), _Sly("")], ids=["a", "empty"])
def test_a_str_subclass_is_not_a_name_even_when_it_raises(given) -> None:
    with pytest.raises(Refused, match="the agent must be text of 1 to 200 characters: _Sly"):
        values.name(given, "the agent")
    with pytest.raises(Refused, match="must be text"):
        values.key(given, "the key")


def test_a_name_message_says_must_be_text_whatever_is_wrong() -> None:
    for given in ["", " a", "a\n", "x" * 201, None, 1.5, True, _Sly("a")]:
        with pytest.raises(Refused, match="must be text"):
            values.name(given)


def test_a_refusal_message_shows_hostile_input_short_and_ascii() -> None:
    with pytest.raises(Refused) as raised:
        values.name("\u202e" + "x" * 150)
    message = str(raised.value)
    assert message.isascii()
    assert len(message) < 200


# key()


def test_a_key_is_a_name_or_a_64_bit_whole_number() -> None:
    assert values.key("d1") == "d1"
    assert values.key(0) == 0 and values.written_key(1) == 1 and values.written_key("0") == "0"
    with pytest.raises(Refused, match="may not be 0"):  # FalkorDB 4.22.1 loses it from its index
        values.written_key(0)
    assert values.key(INT_RANGE[1]) == 2**63 - 1
    assert values.key(INT_RANGE[0]) == -(2**63)
    with pytest.raises(Refused, match="64-bit"):
        values.key(2**63)
    with pytest.raises(Refused, match="64-bit"):
        values.key(-(2**63) - 1)
    with pytest.raises(Refused, match="bool"):
        values.key(True)
    with pytest.raises(Refused, match="must be text"):
        values.key(1.0)
    with pytest.raises(Refused, match="must be text"):
        values.key(None)
    with pytest.raises(Refused, match="must be text of 1 to 200"):
        values.key("k" * 201)
    with pytest.raises(Refused, match="must be text of 1 to 200"):
        values.key("")


def test_a_key_that_is_an_int_subclass_is_refused() -> None:
    class Sly(int):
        def __str__(self):  # the client writes numbers into the query with str()
            return "1 MATCH (n) DETACH DELETE n"

    with pytest.raises(Refused, match="must be text or a whole number, not Sly"):
        values.key(Sly(7))


# property_name()


@pytest.mark.parametrize(
    "given", ["status", "a", "A1_b", "_x", "_", "__", "x" * 64, "x" * 100, "kind", "rev"]
)
def test_a_property_name_is_a_plain_identifier(given) -> None:
    assert values.property_name(given) == given


@pytest.mark.parametrize(
    ("given", "says"),
    [
        ("", "property name"),
        ("x" * 101, "property name"),
        ("1st", "property name"),
        ("a-b", "property name"),
        ("a b", "property name"),
        ("status\n", "property name"),
        ("n.x = 1, n.y", "property name"),
        ("`x`", "property name"),
        ("é", "property name"),
        ("lh.rev", "property name"),  # the library's own names hold a dot: no value can take one
        (5, "property name"),
        (None, "property name"),
        (_Sly("status"), "property name"),
        ("key", "belongs to the library"),
        ("words", "belongs to the library"),
        ("valid_from", "belongs to the library"),
        ("fp", "belongs to the library"),
        ("by", "belongs to the library"),
    ],
    ids=_id,
)
def test_a_property_name_that_is_not_plain_or_is_owned_is_refused(given, says) -> None:
    with pytest.raises(Refused, match=says):
        values.property_name(given)


def test_a_record_reserves_the_names_it_is_given_instead() -> None:
    reserved = frozenset({"id", "seq", "words"})
    assert values.property_name("key", reserved=reserved) == "key"
    assert values.property_name("valid_from", reserved=reserved) == "valid_from"
    with pytest.raises(Refused, match="'seq' belongs to the library"):
        values.property_name("seq", reserved=reserved)
    with pytest.raises(Refused, match="property name"):
        values.property_name("a b", reserved=frozenset())
    assert values.values({"key": 1, "fp": "x"}, reserved=reserved) == {"key": 1, "fp": "x"}
    with pytest.raises(Refused, match="'id' belongs to the library"):
        values.values({"id": 1}, reserved=reserved)


# plain()


class _Unprintable:
    def __str__(self):
        raise RuntimeError("no str")

    __repr__ = __str__


class _Raising(dict):
    def items(self):
        raise RuntimeError("no items")

    def __iter__(self):
        raise RuntimeError("no iter")

    def __len__(self):
        raise RuntimeError("no len")


class _RaisingList(list):
    def __iter__(self):
        raise RuntimeError("no iter")

    def __len__(self):
        raise RuntimeError("no len")


class _LyingName(type):
    @property
    def __name__(cls):
        raise RuntimeError("no name")


class _Nameless(metaclass=_LyingName):
    pass


def test_plain_copies_plain_values_as_they_are() -> None:
    from datetime import UTC, datetime

    device = Kind("Device")
    moment = datetime(2026, 1, 1, tzinfo=UTC)
    given = {
        "n": None,
        "flag": True,
        "count": 2**70,  # plain() copies; the checks after it measure
        "ratio": 0.5,
        "text": "a\x00",
        "at": moment,
        "kind": device,
        "pair": (device, "d1"),
        "items": [1, [2, {"deep": ()}]],
    }
    copied = values.plain(given, "the row")
    assert copied == given
    assert copied is not given and copied["items"] is not given["items"]
    assert type(copied["pair"]) is tuple and copied["pair"][0] is device and copied["at"] is moment
    given["items"][1].append("later")  # a change the caller makes later does not reach the copy
    assert copied["items"] == [1, [2, {"deep": ()}]]
    for one in (None, False, 0, -1.5, "", moment, device):
        assert values.plain(one) is one


def test_plain_keeps_the_order_of_a_dict() -> None:
    assert list(values.plain({"b": 1, "a": 2, "c": 3})) == ["b", "a", "c"]


class _SubInt(int):
    pass


class _SubFloat(float):
    pass


class _SubDict(dict):
    pass


class _SubList(list):
    pass


class _SubTuple(tuple):
    pass


@pytest.mark.parametrize(
    ("given", "says"),
    [
        (_Sly("x"), "the row holds a _Sly, which cannot be stored"),
        (_SubInt(3), "holds a _SubInt"),
        (_SubFloat(1.5), "holds a _SubFloat"),
        (_SubDict(a=1), "holds a _SubDict"),
        (_SubList([1]), "holds a _SubList"),
        (_SubTuple((1,)), "holds a _SubTuple"),
        (_Raising(a=1), "holds a _Raising"),
        (_RaisingList([1]), "holds a _RaisingList"),
        (_Unprintable(), "holds a _Unprintable"),
        (_Nameless(), "holds a _Nameless"),
        (PosingAsKind(), "holds a PosingAsKind"),
        ({1, 2}, "holds a set"),
        (frozenset(), "holds a frozenset"),
        (b"x", "holds a bytes"),
        (bytearray(b"x"), "holds a bytearray"),
        (object(), "holds a object"),
        (print, "holds a builtin_function_or_method"),
        (Kind, "holds a type"),
        (iter([1]), "holds a list_iterator"),
        ((n for n in range(3)), "holds a generator"),
        (range(3), "holds a range"),
        (1j, "holds a complex"),
        ({1: "a"}, "has a key that is not text: int"),
        ({_Sly("a"): 1}, "has a key that is not text: _Sly"),
        ({("a",): 1}, "has a key that is not text: tuple"),
        ({"a": {"b": [_Unprintable()]}}, "holds a _Unprintable"),
        ([1, 2, _Sly("x")], "holds a _Sly"),
        (("ok", _RaisingList()), "holds a _RaisingList"),
        ({"v": _Nameless()}, "holds a _Nameless"),
    ],
    ids=_id,
)
def test_plain_refuses_what_is_not_exactly_plain(given, says) -> None:
    with pytest.raises(Refused, match=says) as raised:
        values.plain(given, "the row")
    assert raised.value.reason == "invalid"
    assert str(raised.value).isascii()


def test_plain_is_called_the_input_by_default() -> None:
    with pytest.raises(Refused, match="^the input holds a set, which cannot be stored$"):
        values.plain({1})


def test_plain_refuses_what_is_nested_too_deep_or_holds_itself() -> None:
    deep: list = []
    for _ in range(values.MAX_DEPTH - 1):
        deep = [deep]
    assert values.plain(deep) == deep  # twenty containers, one inside the other: the most allowed
    with pytest.raises(Refused, match="nested more than 20 deep"):
        values.plain([deep])
    very: dict = {}
    for _ in range(100_000):
        very = {"v": very}
    with pytest.raises(Refused, match="nested more than 20 deep"):
        values.plain(very)
    loop: list = []
    loop.append(loop)
    with pytest.raises(Refused, match="nested more than 20 deep"):
        values.plain(loop)
    cycle: dict = {}
    cycle["me"] = cycle
    with pytest.raises(Refused, match="nested more than 20 deep"):
        values.plain({"row": cycle})


def test_the_name_of_a_type_is_read_even_when_its_class_lies() -> None:
    assert values.sort_of(_Nameless()) == "_Nameless"
    assert values.sort_of(PosingAsKind()) == "PosingAsKind"
    assert values.sort_of(_Sly("x")) == "_Sly"
    assert values.printable(_Nameless()) == "_Nameless"
    for check in (values.name, values.key, values.text, values.property_name, values.values):
        with pytest.raises(Refused, match="_Nameless"):
            check(_Nameless(), "it")
    with pytest.raises(Refused, match="_Nameless"):
        values.scalar(_Nameless(), "v")
    with pytest.raises(WrongType, match="_Nameless"):
        values.question(_Nameless())


def test_the_checks_refuse_containers_that_are_subclasses() -> None:
    with pytest.raises(Refused, match="must be a dict, not _Raising"):
        values.values(_Raising(a=1))
    with pytest.raises(Refused, match="must be a dict, not _SubDict"):
        values.values(_SubDict(a=1))
    with pytest.raises(Refused, match="cannot be stored: _RaisingList"):
        values.value(_RaisingList([1]), "v")


# scalar(), value(), values()


@pytest.mark.parametrize(
    "given", [True, False, 0, -1, 2**63 - 1, -(2**63), 1.5, -0.0, 1e308, 5e-324, "", "text", "é" * 10]
)
def test_scalars_that_can_be_stored(given) -> None:
    found = values.scalar(given, "v")
    assert found == given and type(found) is type(given)


@pytest.mark.parametrize(
    ("given", "says"),
    [
        (float("nan"), "finite"),
        (float("inf"), "finite"),
        (float("-inf"), "finite"),
        (2**63, "64-bit"),
        (-(2**63) - 1, "64-bit"),
        (None, "cannot be stored"),
        (b"x", "cannot be stored"),
        ({"a": 1}, "cannot be stored"),
        ([1], "cannot be stored"),
        (object(), "cannot be stored"),
        ("x" * (MAX_TEXT + 1), "at most 100000 characters"),
        ("a\x00", "NUL"),
        ("\ud800", "lone surrogate"),
    ],
)
def test_scalars_that_cannot_be_stored_are_refused(given, says) -> None:
    with pytest.raises(Refused, match=says):
        values.scalar(given, "v")


LARGEST = 1.7976931348623157e308  # FalkorDB 4.22 gives it back as infinity


@pytest.mark.parametrize(
    ("given", "stored"),
    [
        (0.1 + 0.2, 0.3),
        (1 / 3, 0.333333333333333),
        (123456789.123456789, 123456789.123457),
        (2.2250738585072014e-308, 2.2250738585072e-308),
        (1.797693134862315e308, 1.79769313486231e308),  # rounds down: still finite
        (-1.79769313486231e308, -1.79769313486231e308),
        (0.5, 0.5),
        (5e-324, 5e-324),
        (-0.0, -0.0),
    ],
)
def test_a_float_is_kept_to_15_significant_digits(given, stored) -> None:
    for found in (values.stored_float(given, "v"), values.scalar(given, "v"), values.value([given], "v")[0]):
        assert found == stored and type(found) is float
    assert str(values.stored_float(given, "v")).startswith("-") == str(given).startswith("-")
    assert values.values({"v": given, "w": [given]}) == {"v": stored, "w": [stored]}
    assert values.stored_float(stored, "v") == stored  # kept so, it stays so


@pytest.mark.parametrize("given", [LARGEST, -LARGEST, 1.7976931348623155e308])
def test_a_float_that_would_read_back_as_infinity_is_refused(given) -> None:
    for check in (values.stored_float, values.scalar, values.value):
        with pytest.raises(Refused, match="too large to be read back"):
            check(given, "v")
    with pytest.raises(Refused, match="an item of v is too large"):
        values.value([1.0, given], "v")
    with pytest.raises(Refused, match="'huge' is too large"):
        values.values({"huge": given})


def test_a_subclass_of_a_scalar_is_refused() -> None:
    class SlyFloat(float):
        def __str__(self):
            return "1}) DETACH DELETE n //"

    class SlyInt(int):
        def __repr__(self):
            raise RuntimeError("no")

    for given in (SlyFloat(2.5), SlyInt(3), _Sly("text")):
        with pytest.raises(Refused, match="^v cannot be stored: _?Sly"):
            values.scalar(given, "v")
        with pytest.raises(Refused):
            values.value([given], "v")


def test_a_list_value_of_1000_items_and_not_1001() -> None:
    assert values.value(list(range(MAX_ITEMS)), "v") == list(range(MAX_ITEMS))
    assert values.value(("a", "b"), "v") == ["a", "b"]  # a tuple is stored as a list
    assert values.value([], "v") == []
    with pytest.raises(Refused, match="more than 1,000"):
        values.value(list(range(MAX_ITEMS + 1)), "v")


@pytest.mark.parametrize(
    ("given", "says"),
    [
        ([[1]], "an item of v cannot be stored"),
        ([{"a": 1}], "cannot be stored"),
        ([None], "cannot be stored"),
        ([float("nan")], "finite"),
        (["ok", "a\x00"], "NUL"),
        (None, "leave a value out"),
    ],
)
def test_a_value_refuses_what_cannot_be_stored(given, says) -> None:
    with pytest.raises(Refused, match=says):
        values.value(given, "v")


def test_values_up_to_200_and_not_201() -> None:
    given = {f"v{i}": i for i in range(MAX_VALUES)}
    assert values.values(given) == given
    with pytest.raises(Refused, match="more than 200"):
        values.values({f"v{i}": i for i in range(MAX_VALUES + 1)})


def test_values_keeps_order_and_plain_types() -> None:
    found = values.values({"b": 1, "a": (1, 2), "c": "x"})
    assert list(found) == ["b", "a", "c"]
    assert found == {"b": 1, "a": [1, 2], "c": "x"}
    assert values.values(None) == {}
    assert values.values({}) == {}


@pytest.mark.parametrize(
    ("given", "says"),
    [
        ([("a", 1)], "must be a dict"),
        ("a=1", "must be a dict"),
        ({"key": 1}, "belongs to the library"),
        ({"a b": 1}, "property name"),
        ({1: 1}, "property name"),
        ({"a": None}, "leave a value out"),
        ({"a": {"nested": 1}}, "cannot be stored"),
    ],
)
def test_values_refuses_what_is_not_a_map_of_plain_names(given, says) -> None:
    with pytest.raises(Refused, match=says):
        values.values(given)


def test_a_hostile_value_name_is_not_repeated_in_full() -> None:
    with pytest.raises(Refused) as raised:
        values.values({"x" * 1_000_000 + "\u202e": 1})
    assert len(str(raised.value)) < 300
    assert str(raised.value).isascii()


# measured()


def test_a_row_of_200000_characters_and_not_200001() -> None:
    exactly = "x" * (MAX_ROW - 2)  # the two quotes make it 200,000
    assert values.measured(exactly) == MAX_ROW
    with pytest.raises(Refused, match="longer than 200,000"):
        values.measured(exactly + "x")
    assert values.measured({"key": "d1"}) == len(json.dumps({"key": "d1"}))


_JSONABLE = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text() | st.datetimes(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=20,
)


@hypothesis.settings(max_examples=300, deadline=None)
@hypothesis.given(_JSONABLE)
def test_measured_is_the_length_of_the_json_whichever_encoder_writes_it(whole) -> None:
    expected = len(json.dumps(whole, ensure_ascii=False, default=str))
    assert values.measured(whole) == expected
    kept, values._C_MEASURE = values._C_MEASURE, None  # no C encoder: the Python one, the same length
    try:
        assert values.measured(whole) == expected
    finally:
        values._C_MEASURE = kept


def test_measured_counts_characters_not_bytes() -> None:
    assert values.measured("é" * 10) == 12


def test_measured_refuses_what_cannot_be_read() -> None:
    loop: list = []
    loop.append(loop)
    with pytest.raises(Refused, match="nested too deep"):  # it holds itself: no end to its nesting
        values.measured(loop)
    looped: dict = {}
    looped["again"] = looped
    with pytest.raises(Refused, match="nested too deep"):
        values.measured(looped)
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    with pytest.raises(Refused, match="nested too deep"):
        values.measured(deep)

    class Hostile:
        def __str__(self):
            raise RuntimeError("no")

    with pytest.raises(Refused, match="RuntimeError"):
        values.measured({"v": Hostile()})


def test_measured_reads_what_json_cannot_hold_as_text() -> None:
    from datetime import datetime

    assert values.measured({"t": datetime(2026, 1, 1)}) == len('{"t": "2026-01-01 00:00:00"}')


# kept()


def test_kept_is_ascii_json_cut_to_2000() -> None:
    assert values.kept({"a": "é"}) == '{"a": "\\u00e9"}'
    long = values.kept("x" * 10_000)
    assert len(long) == MAX_KEPT and long.startswith('"xxx')
    assert len(values.kept("x" * (MAX_KEPT - 2))) == MAX_KEPT
    assert values.kept("\x00\ud800").isascii()
    assert values.kept(None) == "null"


def test_kept_holds_whatever_it_is_given() -> None:
    class Hostile:
        def __repr__(self):
            raise RuntimeError("no repr")

    loop: list = []
    loop.append(loop)
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    for content in [Hostile(), [Hostile()], loop, deep, {1: object()}, {(1, 2): 3}, b"\xff", 10**5000]:
        found = values.kept(content)
        assert isinstance(found, str) and found.isascii() and len(found) <= MAX_KEPT
    assert values.kept(Hostile()) == "<Hostile that cannot be shown>"


# lease()


def test_a_lease_from_one_second_to_seven_days() -> None:
    assert values.lease(1) == 1
    assert values.lease(MAX_LEASE) == 604_800
    for given in [0, -1, MAX_LEASE + 1, 1.0, "60", None, True]:
        with pytest.raises(Refused, match="lease"):
            values.lease(given)


# whole()


def test_a_whole_number_is_exactly_an_int_within_its_bounds() -> None:
    class Sly(int):
        def __str__(self) -> str:
            return "1 OR true"

    assert values.whole(3, "n", 3, 5) == 3 and values.whole(5, "n", 3, 5) == 5
    for given in [2, 6, 4.0, "4", None, True, False, Sly(4), [4]]:
        with pytest.raises(Refused) as raised:
            values.whole(given, "n", 3, 5)
        assert str(raised.value) == "n must be a whole number from 3 to 5"
    with pytest.raises(Refused, match="^limit must be a whole number from 1 to 1000$"):
        values.whole(0, "limit", 1, 1000)


# words()


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("", ""),
        ("Pump room sensor", "pump room sensor"),
        ("first line\nsecond", "first line second"),
        ("no\u00a0break", "no break"),
        ("snake_case-and.dots", "snake case and dots"),
        ("  many   spaces  ", "many spaces"),
        ("ÉLAN Élan élan", "élan élan élan"),  # the index does not fold non-ASCII case
        ("Straße", "strasse"),
        ("Cafe\u0301", "café"),  # a letter and its accent written apart
        ("ﬁre", "fire"),  # a ligature
        ("ＦＵＬＬ", "full"),  # full-width letters
        ("हिन्दी भाषा", "हिन्दी भाषा"),  # marks stay in their word
        ("\u0301 alone", "alone"),
        ("r2d2 x-42", "r2d2 x 42"),
        ('*|@note:x -y "q"', "note x y q"),
        ("a\x00b\ud800c", "a b c"),
        ("设备 😀 ok", "设备 ok"),
    ],
)
def test_words_are_the_folded_letters_and_digits(given, expected) -> None:
    assert values.words(given) == expected


def test_words_of_the_same_text_in_two_forms_are_the_same() -> None:
    assert values.words("CAFÉ ﬁne") == values.words("cafe\u0301 fine")


@hypothesis.given(st.text(alphabet=st.characters(max_codepoint=127), max_size=40))
def test_words_of_an_ascii_text_are_those_the_whole_unicode_way_gives(text) -> None:
    # An ASCII text takes a shorter way; a non-ASCII word after it sends the same text the long way.
    assert f"{values.words(text)} é".lstrip() == values.words(f"{text} é")


# question()


def test_a_question_is_its_words() -> None:
    assert values.question("Sensor in the PUMP room?") == ["sensor", "in", "the", "pump", "room"]
    assert values.question("") == []
    assert values.question("* @note:x | -y") == ["note", "x", "y"]


def test_a_question_uses_20_words_of_50_characters() -> None:
    assert values.question(" ".join(f"w{i}" for i in range(25))) == [f"w{i}" for i in range(20)]
    assert values.question(" ".join(f"w{i}" for i in range(20))) == [f"w{i}" for i in range(20)]
    assert values.question("a" * 50) == ["a" * 50]
    assert values.question("a" * 51) == ["a" * 50]


def test_a_question_reads_1000_characters() -> None:
    assert values.question("x" * 999 + " yes") == ["x" * 50]
    assert values.question(" " * 998 + "ab") == ["ab"]
    assert values.question(" " * 999 + "ab") == ["a"]
    assert values.question(" " * 1000 + "ab") == []


@pytest.mark.parametrize("given", [None, 5, b"q", ["q"], _Sly("q")], ids=_id)
def test_a_question_that_is_not_text_is_a_wrong_type(given) -> None:
    with pytest.raises(WrongType, match="a question must be text, not"):
        values.question(given)


# With FalkorDB


def test_every_value_that_is_accepted_is_stored_as_given(graph) -> None:
    given = {
        "text": "a\"b'c\\d`e\n\u2028\U0010ffff",
        "big": INT_RANGE[1],
        "small": INT_RANGE[0],
        "tiny": 5e-324,
        "flag": False,
        "items": ["x", 1, 2.5, True],
        "empty": [],
        "long": "y" * MAX_TEXT,
    }
    checked = values.values(given)
    stored = graph.query("CREATE (n:Thing) SET n = $v RETURN properties(n)", {"v": checked}).result_set
    assert stored[0][0] == given


def test_a_name_at_the_limit_is_stored_as_given(graph) -> None:
    name = values.name("é😀" * 100)
    assert graph.query("RETURN $n", {"n": name}).result_set == [[name]]


@pytest.mark.parametrize(
    ("text", "asked"),
    [
        ("The pump ROOM sensor", "room"),
        ("ÉLAN vital", "élan"),
        ("Cafe\u0301 au lait", "CAFÉ"),
        ("first line\nsecond", "line"),
        ("snake_case", "case"),
        ("हिन्दी भाषा", "हिन्दी"),
        ("设备 ok", "设备"),
    ],
)
def test_the_index_finds_each_word_of_words_by_the_question(graph, text, asked) -> None:
    ensure_schema(graph, [Kind("Note", text=("body",))])  # the full-text index on words, built
    graph.query("CREATE (:Note {words: $w})", {"w": values.words(text)})
    graph.query("CREATE (:Note {words: 'unrelated filler'})")
    [word] = values.question(asked)
    found = graph.query(
        "CALL db.idx.fulltext.queryNodes('Note', $q) YIELD node RETURN node.words", {"q": word}
    ).result_set
    assert found == [[values.words(text)]]


def test_a_float_reads_back_as_it_was_checked_and_a_query_finds_it_by_that_value(graph) -> None:
    given = [0.1 + 0.2, 1 / 3, 123456789.123456789, 1.79769313486231e308, 5e-324, -0.0, 2.5e-5, 1e16]
    checked = values.value(given, "v")
    graph.query("CREATE (:Thing {v: $v})", {"v": checked})
    for place, number in enumerate(checked):
        # each item alone, sent as the caller would send it again, after the same check
        again = values.scalar(given[place], "v")
        found = graph.query("MATCH (n:Thing) RETURN n.v[$i], n.v[$i] = $x", {"i": place, "x": again})
        assert found.result_set == [[number, True]]
    assert graph.query("MATCH (n:Thing) RETURN n.v").result_set == [[checked]]
    # what is refused is what would come back as infinity
    graph.query("CREATE (:Raw {v: $v})", {"v": LARGEST})
    assert graph.query("MATCH (n:Raw) RETURN n.v").result_set == [[float("inf")]]


def test_a_name_seen_before_is_still_refused_where_it_is_reserved() -> None:
    # Plain names that were checked once are not matched again; whether they are reserved still is.
    assert values.values({"status": 1, "level": 2}) == {"status": 1, "level": 2}
    with pytest.raises(Refused, match="belongs to the library"):
        values.values({"status": 1}, reserved=frozenset({"status"}))
    with pytest.raises(Refused, match="property name"):
        values.values({"a b": 1})
    with pytest.raises(Refused, match="property name"):
        values.values({"a b": 1})  # a name refused once is refused again
    assert values.values({"text": "plain"}) == {"text": "plain"}
    with pytest.raises(Refused, match="NUL"):
        values.values({"text": "ascii\x00"})
    with pytest.raises(Refused, match="surrogate"):
        values.values({"text": "é\ud800"})
