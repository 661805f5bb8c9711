"""Every input limit: what a name, a key, a value, a row, a lease and a question may hold."""

from __future__ import annotations

import json

import pytest
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
)

HOSTILE_TEXT = [
    ("a\x00b", "NUL"),
    ("\x00", "NUL"),
    ("a\ud800b", "lone surrogate"),
    ("\udfff", "lone surrogate"),
    ("\ud83d", "lone surrogate"),  # half of an emoji
]


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
    assert issubclass(Refused, ValueError)


# text()


def test_text_up_to_the_limit() -> None:
    assert values.text("x" * MAX_TEXT, "t") == "x" * MAX_TEXT
    with pytest.raises(Refused, match="longer than 100,000"):
        values.text("x" * (MAX_TEXT + 1), "t")
    assert values.text("abc", "t", limit=3) == "abc"
    with pytest.raises(Refused, match="longer than 3"):
        values.text("abcd", "t", limit=3)


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


def test_text_gives_a_plain_str_for_a_subclass() -> None:
    class Sly(str):
        def replace(self, *args):  # the client escapes quotes with replace()
            return self

    found = values.text(Sly('a"b'), "t")
    assert type(found) is str and found == 'a"b'


# name()


def test_a_name_of_200_characters_and_not_201() -> None:
    assert values.name("n" * MAX_NAME) == "n" * MAX_NAME
    assert values.name("é" * MAX_NAME) == "é" * MAX_NAME
    with pytest.raises(Refused, match="longer than 200"):
        values.name("n" * (MAX_NAME + 1))
    with pytest.raises(Refused, match="longer than 200"):
        values.name("n" * 10_000)


@pytest.mark.parametrize("given", ["ann", "d1-overheat/1", "a b", "Élan", "设备", "😀", "x:y@z", "a'b\"c"])
def test_names_that_are_printable_are_kept(given) -> None:
    assert values.name(given) == given


@pytest.mark.parametrize(
    ("given", "says"),
    [
        ("", "non-empty"),
        (" ann", "either end"),
        ("ann ", "either end"),
        ("ann\n", "either end"),
        ("\u00a0ann", "either end"),
        ("a\nb", "cannot be printed"),
        ("a\tb", "cannot be printed"),
        ("a\x7fb", "cannot be printed"),
        ("a\u202eb", "cannot be printed"),  # a right-to-left override
        ("a\u200bb", "cannot be printed"),  # a zero-width space
        ("a\u2028b", "cannot be printed"),  # a line separator
        ("a\u2029b", "cannot be printed"),  # a paragraph separator
        ("a\ue000b", "cannot be printed"),  # private use
        ("a\u0378b", "cannot be printed"),  # unassigned
        ("a\x00b", "NUL"),
        ("a\ud800b", "lone surrogate"),
        (None, "must be text"),
        (5, "must be text"),
    ],
)
def test_names_that_cannot_be_printed_are_refused(given, says) -> None:
    with pytest.raises(Refused, match=says):
        values.name(given, "the agent")


def test_a_refusal_message_shows_hostile_input_short_and_ascii() -> None:
    with pytest.raises(Refused) as raised:
        values.name("\u202e" + "x" * 150)
    message = str(raised.value)
    assert message.isascii()
    assert len(message) < 200


# key()


def test_a_key_is_a_name_or_a_64_bit_whole_number() -> None:
    assert values.key("d1") == "d1"
    assert values.key(0) == 0
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
    with pytest.raises(Refused, match="longer than 200"):
        values.key("k" * 201)


def test_a_key_that_is_an_int_subclass_is_a_plain_int() -> None:
    class Sly(int):
        def __str__(self):  # the client writes numbers into the query with str()
            return "1 MATCH (n) DETACH DELETE n"

    found = values.key(Sly(7))
    assert type(found) is int and str(found) == "7"


# property_name()


@pytest.mark.parametrize("given", ["status", "a", "A1_b", "x" * 64])
def test_a_property_name_is_a_plain_identifier(given) -> None:
    assert values.property_name(given) == given


@pytest.mark.parametrize(
    ("given", "says"),
    [
        ("", "plain name"),
        ("x" * 65, "plain name"),
        ("1st", "plain name"),
        ("_x", "plain name"),
        ("a-b", "plain name"),
        ("a b", "plain name"),
        ("status\n", "plain name"),
        ("n.x = 1, n.y", "plain name"),
        ("`x`", "plain name"),
        ("é", "plain name"),
        (5, "plain name"),
        (None, "plain name"),
        ("key", "belongs to the library"),
        ("words", "belongs to the library"),
        ("valid_from", "belongs to the library"),
        ("embedding", "belongs to the library"),
    ],
)
def test_a_property_name_that_is_not_plain_or_is_owned_is_refused(given, says) -> None:
    with pytest.raises(Refused, match=says):
        values.property_name(given)


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
        ("x" * (MAX_TEXT + 1), "longer"),
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


def test_a_float_subclass_is_a_plain_float() -> None:
    class Sly(float):
        def __str__(self):
            return "1}) DETACH DELETE n //"

    found = values.scalar(Sly(2.5), "v")
    assert type(found) is float and str(found) == "2.5"


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
        ({"a b": 1}, "plain name"),
        ({1: 1}, "plain name"),
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


def test_measured_counts_characters_not_bytes() -> None:
    assert values.measured("é" * 10) == 12


def test_measured_refuses_what_cannot_be_read() -> None:
    loop: list = []
    loop.append(loop)
    with pytest.raises(Refused, match="cannot be read"):
        values.measured(loop)
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


def test_a_whole_number_within_its_bounds_as_a_plain_int() -> None:
    class Sly(int):
        def __str__(self) -> str:
            return "1 OR true"

    assert values.whole(3, "n", 3, 5) == 3 and values.whole(5, "n", 3, 5) == 5
    found = values.whole(Sly(4), "n", 3, 5)
    assert found == 4 and type(found) is int
    for given in [2, 6, 4.0, "4", None, True]:
        with pytest.raises(Refused, match="n is a whole number from 3 to 5"):
            values.whole(given, "n", 3, 5)


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


@pytest.mark.parametrize("given", [None, 5, b"q", ["q"]])
def test_a_question_that_is_not_text_is_refused(given) -> None:
    with pytest.raises(Refused, match="must be text"):
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
