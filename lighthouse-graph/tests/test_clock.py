"""The one time format: stamp() and now() as the API gives them; present(), given(), moment_of(), parse(),
checked(), written_at() and from_store() inside the library; and what FalkorDB reads back."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone, tzinfo

import pytest
from lighthouse import clock
from lighthouse.clock import EARLIEST, LATEST, TimeError
from lighthouse.errors import Refused, WrongType

NOON = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)


def test_present_is_utc_in_whole_seconds() -> None:
    before = datetime.now(UTC)
    found = clock.present()
    after = datetime.now(UTC)
    assert found.tzinfo is UTC
    assert found.microsecond == 0
    assert before - timedelta(seconds=1) <= found <= after


def test_now_is_the_text_of_the_present() -> None:
    before = clock.stamp_of(clock.present())
    found = clock.now()
    after = clock.stamp_of(clock.present())
    assert type(found) is str and len(found) == 19
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", found)
    assert before <= found <= after
    assert clock.parse(found).tzinfo is UTC  # and it reads back as a time


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("2026-01-01T12:00:00Z", NOON),
        ("2026-01-01T12:00:00z", NOON),
        ("2026-01-01T12:00:00+00:00", NOON),
        ("2026-01-01T14:00:00+02:00", NOON),
        ("2026-01-01T06:30:00-05:30", NOON),
        ("2026-01-01 12:00:00Z", NOON),
        ("2026-01-01T12:00Z", NOON),
        ("20260101T120000Z", NOON),
        ("2026-01-01T12:00:00.000Z", NOON),  # a fraction of zero is whole seconds
        ("  2026-01-01T12:00:00Z  ", NOON),
        ("2026-01-02T01:00:00+13:00", NOON),
        ("2025-12-31T23:00:00-13:00", NOON),
        ("2026-01-01T12:00:30+00:00:30", NOON),  # an offset with seconds
        ("2000-01-01T00:00:00Z", EARLIEST),
        ("2000-01-01T01:00:00+01:00", EARLIEST),
        ("2068-01-19T03:14:07Z", LATEST),
        ("2068-01-18T23:14:07-04:00", LATEST),
        (NOON, NOON),
        (datetime(2026, 1, 1, 13, 0, tzinfo=timezone(timedelta(hours=1))), NOON),
        # A time without a zone is UTC, a fraction of a second is cut off, and a date alone is midnight.
        ("2026-01-01T12:00:00", NOON),
        ("2026-01-01 12:00", NOON),
        (datetime(2026, 1, 1, 12), NOON),
        ("2026-01-01T12:00:00.5Z", NOON),
        ("2026-01-01T12:00:00.999999Z", NOON),
        ("2026-01-01T12:00:00.943", NOON),
        (datetime(2026, 1, 1, 12, 0, 0, 999_999, tzinfo=UTC), NOON),
        (datetime(2026, 1, 1, 12, 0, 0, 1), NOON),
        ("2026-01-01T13:00:00.75+01:00", NOON),
        ("2026-01-01", datetime(2026, 1, 1, tzinfo=UTC)),
        ("20260101", datetime(2026, 1, 1, tzinfo=UTC)),
        # A fraction hidden in the offset shows once the time is in UTC: it is cut off too.
        (
            datetime(2026, 1, 1, 12, tzinfo=timezone(timedelta(microseconds=500_000))),
            NOON - timedelta(seconds=1),
        ),
    ],
)
def test_parse_reads_iso_text_and_datetimes_as_utc(given, expected) -> None:
    found = clock.parse(given)
    assert found == expected
    assert found.utcoffset() == timedelta(0)
    assert found.tzinfo is UTC


@pytest.mark.parametrize(
    ("given", "says"),
    [
        ("1999-12-31T23:59:59Z", "compares right"),  # one second before the window
        ("2000-01-01T00:59:59+01:00", "compares right"),
        ("2068-01-19T03:14:08Z", "compares right"),  # one second after it
        ("1969-12-31T23:59:59Z", "compares right"),  # FalkorDB cannot even parse this one
        ("1900-01-01T00:00:00Z", "compares right"),
        ("9999-12-31T23:59:59Z", "compares right"),
        (datetime(1, 1, 1, tzinfo=UTC), "compares right"),
        ("0001-01-01T00:00:00+01:00", "out of range"),  # before year 1 in UTC: Python cannot hold it
        ("9999-12-31T23:00:00-02:00", "out of range"),  # after year 9999 in UTC
        ("yesterday", "ISO 8601"),
        ("2026-13-01T00:00:00Z", "ISO 8601"),
        ("2026-02-30T00:00:00Z", "ISO 8601"),
        ("2026-01-01T25:00:00Z", "ISO 8601"),
        ("2026-01-01T12:00:00+24:00", "ISO 8601"),
        ("2026-01-01T12:00:00ZZ", "ISO 8601"),
        ("2026-01-01T12:00:00\x00Z", "ISO 8601"),  # Python's own parser would stop at the NUL
        ("2026-01-01T12:00:00\x00+00:00", "ISO 8601"),
        ("2026-01-01T12:00:00\u00a0Z", "ISO 8601"),
        ("２０２６-01-01T12:00:00Z", "ISO 8601"),
        ("2026-01-01T12:00:00\ud800Z", "ISO 8601"),
        ("+2026-01-01T12:00:00Z", "ISO 8601"),
        ("2026-01-01T12:00:00Z" + " " * 45, "64 characters"),  # 65: one past the limit
        ("x" * 10_000, "64 characters"),
        ("", "needed"),
        ("   ", "needed"),
        ("\t\n", "needed"),
        (None, "needed"),
    ],
)
def test_parse_refuses_what_is_not_one_clear_instant(given, says) -> None:
    with pytest.raises(TimeError, match=says):
        clock.parse(given)


class _Sly(str):
    def strip(self, *args):
        raise RuntimeError("no strip")


class _SlyTime(datetime):
    pass


@pytest.mark.parametrize(
    ("given", "says"),
    [
        (1767268800, "not int"),
        (1767268800.0, "not float"),
        (True, "not bool"),
        (b"2026-01-01T12:00:00Z", "not bytes"),
        (["2026-01-01T12:00:00Z"], "not list"),
        ({"t": "2026-01-01T12:00:00Z"}, "not dict"),
        (NOON.date(), "not date"),
        (NOON.time(), "not time"),
        (_SlyTime(2026, 1, 1, tzinfo=UTC), "not _SlyTime"),  # exactly a datetime, not a subclass
    ],
    ids=lambda given: type(given).__name__,
)
def test_a_time_of_another_type_is_a_wrong_type(given, says) -> None:
    for read in (clock.stamp, clock.moment_of, clock.parse, clock.checked):
        with pytest.raises(WrongType, match=says):
            read(given)
    with pytest.raises(TimeError, match=says):  # the time of a write is content: a refusal
        clock.written_at(given)


def test_a_str_subclass_is_not_a_time_even_when_blank() -> None:
    for given in (_Sly("2026-01-01T12:00:00Z"), _Sly("")):
        assert clock.given(given)
        with pytest.raises(WrongType, match="not _Sly"):
            clock.stamp(given)


def test_a_time_of_64_characters_is_read_and_65_is_not() -> None:
    longest = "2026-01-01T12:00:00Z" + " " * 44
    assert len(longest) == 64
    assert clock.parse(longest) == NOON
    assert clock.stamp(longest) == "2026-01-01T12:00:00"
    for read in (clock.parse, clock.stamp):
        with pytest.raises(TimeError, match="at most 64 characters"):
            read(longest + " ")


@pytest.mark.parametrize(
    ("given", "expected"), [(None, False), ("", False), ("  \t", False), ("x", True), (0, True)]
)
def test_given_is_false_only_for_none_and_blank_text(given, expected) -> None:
    assert clock.given(given) is expected


def test_moment_of_reads_what_stamp_reads_without_the_window() -> None:
    assert clock.moment_of("1999-12-31T23:59:59Z") == datetime(1999, 12, 31, 23, 59, 59, tzinfo=UTC)
    assert clock.moment_of("2026-01-01T12:00:00.5") == NOON
    with pytest.raises(TimeError, match="ISO 8601"):
        clock.moment_of("")  # not given is for stamp() and parse() to say


def test_a_text_read_again_gives_the_same_time_and_a_refused_one_is_refused_again() -> None:
    # A text's reading is kept for the next row that sends it: what it gives must not depend on that.
    for _ in range(3):
        assert clock.moment_of("2026-01-01T13:00:00+01:00") == NOON
        assert clock.moment_of("2026-01-01T12:00:00") == NOON
        with pytest.raises(TimeError, match="ISO 8601"):
            clock.moment_of("2026-01-01T12:00:00\x00+00:00")
        with pytest.raises(TimeError, match="zone"):
            clock.moment_of("0001-01-01T00:00:00+01:00")
        assert clock.checked("2026-01-01T12:00:00Z", present_time=NOON) == NOON
        with pytest.raises(TimeError, match="five minutes"):
            clock.checked("2026-01-01T12:06:00Z", present_time=NOON)  # the present is not kept with it
    naive = datetime(2026, 1, 1, 12, 0, 0, 700)
    assert clock.moment_of(naive) == NOON and naive.microsecond == 700
    # The text of a time is kept too, for UTC only: the same instant in another zone is another text.
    paris = NOON.astimezone(timezone(timedelta(hours=1)))
    assert [clock.stamp_of(NOON), clock.stamp_of(paris), clock.stamp_of(NOON)] == [
        "2026-01-01T12:00:00",
        "2026-01-01T13:00:00",
        "2026-01-01T12:00:00",
    ]


def test_time_error_is_a_refusal_and_a_value_error() -> None:
    assert issubclass(TimeError, Refused) and issubclass(TimeError, ValueError)
    assert TimeError("late").reason == "invalid"


def test_the_window_is_narrower_than_2_to_the_31_seconds() -> None:
    assert datetime(2000, 1, 1, tzinfo=UTC) == EARLIEST
    assert (LATEST - EARLIEST).total_seconds() == 2**31 - 1
    assert clock.stamp(LATEST) == "2068-01-19T03:14:07"


def test_a_zone_that_python_refuses_is_a_time_error() -> None:
    class Broken(tzinfo):
        def utcoffset(self, dt):
            return timedelta(hours=25)

    with pytest.raises(TimeError, match="zone"):
        clock.parse(datetime(2026, 1, 1, tzinfo=Broken()))


def test_a_zone_that_raises_is_a_time_error() -> None:
    class Raising(tzinfo):
        def utcoffset(self, dt):
            raise RuntimeError("no offset")

    for read in (clock.stamp, clock.parse):
        with pytest.raises(TimeError, match="zone"):
            read(datetime(2026, 1, 1, tzinfo=Raising()))


def test_checked_allows_five_minutes_ahead_and_no_more() -> None:
    present = NOON
    ahead = present + timedelta(minutes=5)
    assert clock.checked(ahead, present_time=present) == ahead
    with pytest.raises(TimeError, match="five minutes"):
        clock.checked(present + timedelta(minutes=5, seconds=1), present_time=present)
    assert clock.checked("2000-01-01T00:00:00Z", present_time=present) == EARLIEST
    with pytest.raises(TimeError, match="five minutes"):
        clock.checked(LATEST, present_time=present)


def test_checked_without_present_uses_now() -> None:
    ahead = clock.present() + timedelta(minutes=4)
    assert clock.checked(ahead) == ahead
    with pytest.raises(TimeError, match="five minutes"):
        clock.checked(clock.present() + timedelta(minutes=6))
    with pytest.raises(TimeError, match="five minutes"):
        clock.checked("2068-01-19T03:14:07Z")


def test_checked_refuses_what_parse_refuses() -> None:
    for given in ("1999-12-31T23:59:59Z", "", None, "yesterday"):
        with pytest.raises(TimeError):
            clock.checked(given)


def test_written_at_is_now_when_not_given_and_a_checked_time_when_given() -> None:
    for given in (None, "", "   "):
        before = clock.now()
        found = clock.written_at(given)
        assert before <= found <= clock.now()
    assert clock.written_at("2026-01-01T14:00:00.9+02:00") == "2026-01-01T12:00:00"
    assert clock.written_at(NOON) == "2026-01-01T12:00:00"
    with pytest.raises(TimeError, match="five minutes"):
        clock.written_at(clock.present() + timedelta(minutes=6))
    with pytest.raises(TimeError, match="compares right"):
        clock.written_at("1999-12-31T23:59:59Z")
    with pytest.raises(TimeError, match="ISO 8601"):
        clock.written_at("soon")


@pytest.mark.parametrize(
    ("given", "text"),
    [
        ("2026-01-01T12:00:00Z", "2026-01-01T12:00:00"),
        ("2026-01-01T14:00:00+02:00", "2026-01-01T12:00:00"),
        ("2000-01-01T00:00:00Z", "2000-01-01T00:00:00"),
        ("2068-01-19T03:14:07Z", "2068-01-19T03:14:07"),
        (NOON, "2026-01-01T12:00:00"),
        # As the API gives it: UTC for no zone, the fraction cut off, a date alone at midnight.
        ("2026-10-12T09:14:11.943Z", "2026-10-12T09:14:11"),
        ("2026-10-12T09:14:11.999999", "2026-10-12T09:14:11"),
        ("2026-10-12", "2026-10-12T00:00:00"),
        ("2026-10-12T09:14", "2026-10-12T09:14:00"),
        ("  2026-10-12T09:14:11+05:30 ", "2026-10-12T03:44:11"),
        (datetime(2026, 10, 12, 9, 14, 11, 943_000), "2026-10-12T09:14:11"),
        (datetime(2026, 10, 12, 9, 14, tzinfo=timezone(timedelta(hours=-3))), "2026-10-12T12:14:00"),
        # The window is for what is stored: stamp() gives any time Python can hold in UTC.
        ("1999-12-31T23:59:59Z", "1999-12-31T23:59:59"),
        ("0001-01-01T00:00:00Z", "0001-01-01T00:00:00"),
        ("9999-12-31T23:59:59", "9999-12-31T23:59:59"),
    ],
)
def test_stamp_is_the_text_localdatetime_reads(given, text) -> None:
    found = clock.stamp(given)
    assert found == text and type(found) is str


def test_stamp_of_pads_every_field() -> None:
    # strftime's %Y does not pad years before 1000 on every platform; localdatetime() wants four digits.
    assert clock.stamp_of(datetime(999, 3, 4, 5, 6, 7, tzinfo=UTC)) == "0999-03-04T05:06:07"
    assert clock.stamp_of(datetime(1, 1, 1, tzinfo=UTC)) == "0001-01-01T00:00:00"


@pytest.mark.parametrize("given", [None, "", " ", "\t\n ", "\u3000"])
def test_stamp_of_nothing_is_none(given) -> None:
    assert clock.stamp(given) is None


def test_stamp_takes_one_argument() -> None:
    with pytest.raises(TypeError):
        clock.stamp()  # type: ignore[call-arg]


@pytest.mark.parametrize(
    ("given", "says"),
    [
        ("yesterday", "ISO 8601"),
        ("2026-02-30", "ISO 8601"),
        ("2026-01-01T12:00:00ZZ", "ISO 8601"),
        ("2026-01-01T12:00:00\x00Z", "ISO 8601"),
        ("0001-01-01T00:00:00+01:00", "out of range"),
        ("2026-01-01T12:00:00Z" + " " * 45, "64 characters"),
    ],
)
def test_stamp_refuses_text_that_is_not_a_time(given, says) -> None:
    with pytest.raises(ValueError, match=says) as raised:
        clock.stamp(given)
    assert type(raised.value) is TimeError


@pytest.mark.parametrize(
    ("stored", "expected"),
    [
        (None, None),
        (datetime(2026, 1, 1, 12), NOON),  # naive: UTC by the library's rule
        (NOON, NOON),
        (datetime(2026, 1, 1, 14, tzinfo=timezone(timedelta(hours=2))), NOON),
        (1767268800, NOON),
        (1767268800.9, NOON),
        (0, datetime(1970, 1, 1, tzinfo=UTC)),
    ],
)
def test_from_store_gives_an_aware_utc_datetime(stored, expected) -> None:
    found = clock.from_store(stored)
    assert found == expected
    if found is not None:
        assert found.tzinfo is UTC


@pytest.mark.parametrize("stored", ["2026-01-01T12:00:00", True, float("nan"), float("inf"), 10**20, [1]])
def test_from_store_refuses_what_is_not_a_stored_time(stored) -> None:
    with pytest.raises(TimeError, match="not a stored time"):
        clock.from_store(stored)


@pytest.mark.parametrize(
    "given",
    [
        "2026-01-01T12:00:00Z",
        "2000-01-01T00:00:00Z",
        "2068-01-19T03:14:07Z",
        "2024-02-29T23:59:59+05:45",
    ],
)
def test_a_stamp_goes_through_falkordb_and_back_unchanged(graph, given) -> None:
    stored = graph.query("RETURN localdatetime($t)", {"t": clock.stamp(given)}).result_set[0][0]
    assert clock.from_store(stored) == clock.parse(given)


_COMPARED = "WITH localdatetime($a) AS a, localdatetime($b) AS b RETURN a < b, b > a, a <= b, a = b, a <> b"


def test_the_ends_of_the_window_compare_right_in_falkordb(graph, changed_schema) -> None:
    early, late = clock.stamp(EARLIEST), clock.stamp(LATEST)
    assert graph.query(_COMPARED, {"a": early, "b": late}).result_set == [[True, True, True, False, True]]
    graph.query(
        "UNWIND $times AS t CREATE (:Moment {at: localdatetime(t), text: t})",
        {"times": [late, early, clock.stamp(NOON)]},
    )
    changed_schema(graph, "CREATE INDEX FOR (m:Moment) ON (m.at)")
    ordered = graph.query("MATCH (m:Moment) RETURN m.text ORDER BY m.at").result_set
    assert ordered == [[early], [clock.stamp(NOON)], [late]]
    after = graph.query(
        "MATCH (m:Moment) WHERE m.at > localdatetime($t) RETURN m.text ORDER BY m.text", {"t": early}
    ).result_set
    assert after == [[clock.stamp(NOON)], [late]]


def test_falkordb_compares_times_68_years_apart_wrong(graph) -> None:
    # Why parse() keeps to one window: were FalkorDB to compare these right, this test would fail and
    # the window could go.
    late = datetime(2026, 1, 1, tzinfo=UTC)
    one_past = clock.stamp_of(late - timedelta(seconds=2**31 + 1))
    assert graph.query(_COMPARED, {"a": one_past, "b": clock.stamp(late)}).result_set[0][0] is False
    apart = clock.stamp_of(late - timedelta(seconds=2**32))
    assert graph.query(_COMPARED, {"a": apart, "b": clock.stamp(late)}).result_set[0][3] is True
    with pytest.raises(Exception, match="parse"):
        graph.query("RETURN localdatetime('1969-12-31T23:59:59')")


def test_the_time_a_read_looks_at_names_its_argument_when_refused():
    assert clock.looked_at("2026-01-01T00:00:00Z", "when") == datetime(2026, 1, 1, tzinfo=UTC)
    assert clock.looked_at("2100-01-01", "when") == LATEST  # past the window: its last second
    for blank in (None, "", "  "):
        with pytest.raises(TimeError, match="^when is missing"):
            clock.looked_at(blank, "when")
    with pytest.raises(TimeError, match="^since: not an ISO 8601 time: 'soon'$"):
        clock.looked_at("soon", "since")
    with pytest.raises(TimeError, match="^at: a time is from 2000-01-01"):
        clock.looked_at("1999-12-31", "at")
    with pytest.raises(WrongType, match="^when: a time is ISO 8601 text or a datetime, not int$"):
        clock.looked_at(5, "when")
    with pytest.raises(TimeError, match="^not an ISO 8601 time"):  # without a name, as parse() says it
        clock.looked_at("soon")
