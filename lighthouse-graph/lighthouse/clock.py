"""The one time format of the library: UTC, whole seconds, sent to FalkorDB as localdatetime text.

stamp() and now() are public; the rest is how every module takes a time in and reads one back.
A time given as text is ISO 8601 ("Z", an offset, a fraction or a date alone); a time without a zone
is taken as UTC, and a fraction of a second is cut off, not rounded.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from functools import lru_cache

from .errors import TimeError, WrongType
from .values import sort_of

FUTURE_TOLERANCE = timedelta(minutes=5)
MAX_TIME_TEXT = 64  # characters of a time given as text
# FalkorDB 4.22 compares two localdatetimes by the difference of their seconds in 32 bits: times 2**31 s
# (68 years) or more apart compare wrong, in filters, indexes and ORDER BY alike, and times 2**32 s apart
# compare equal. So every time the library stores or compares lies in one window narrower than that.
EARLIEST = datetime(2000, 1, 1, tzinfo=UTC)
LATEST = EARLIEST + timedelta(seconds=2**31 - 1)  # 2068-01-19T03:14:07Z


def present() -> datetime:
    """The present, in UTC, to the second."""
    # Not now(UTC).replace(microsecond=0): replace() took 2.2 µs of the 2.9 (Python 3.12), and every
    # single write asks for the present once or twice.
    return datetime.fromtimestamp(int(time.time()), UTC)


def now() -> str:
    """The current UTC time as 'YYYY-MM-DDTHH:MM:SS'."""
    return _second_stamp(int(time.time()))


@lru_cache(maxsize=4)  # calls within one second share its text: 0.4 µs a call where making it is 1.8
def _second_stamp(second: int) -> str:
    return _stamp_text(datetime.fromtimestamp(second, UTC))


def given(value: object) -> bool:
    """False for None and blank text: what counts as a time not given."""
    return not (value is None or (type(value) is str and not value.strip()))


def moment_of(value: object) -> datetime:
    """An aware UTC datetime in whole seconds from what stamp() accepts; TimeError or WrongType if not."""
    if type(value) is datetime:
        return _in_utc(value, value)
    if type(value) is str:
        if len(value) > MAX_TIME_TEXT:
            raise TimeError(f"a time is at most {MAX_TIME_TEXT} characters of ISO 8601")
        return _moment_of_text(value)
    raise WrongType(f"a time is ISO 8601 text or a datetime, not {sort_of(value)}")


# The rows of a batch mostly share their times (a poll's t, a value's time): each text is read once. A
# datetime is immutable, so the one read can be given out again; a text that is no time is not kept.
@lru_cache(maxsize=1024)
def _moment_of_text(value: str) -> datetime:
    text = value.strip()
    # Python's parser stops at a NUL, so "…12:00:00\x00junk+00:00" would read as a time.
    if not (text.isascii() and text.isprintable()):
        raise TimeError(f"not an ISO 8601 time: {ascii(value)}")
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        moment = datetime.fromisoformat(text)
    except (ValueError, OverflowError):
        raise TimeError(f"not an ISO 8601 time: {ascii(value)}") from None
    return _in_utc(moment, value)


def _in_utc(moment: datetime, value: object) -> datetime:
    try:
        moment = moment.astimezone(UTC) if moment.utcoffset() is not None else moment.replace(tzinfo=UTC)
    # A zone of a day or more, before year 1 in UTC, or a tzinfo of the caller's that raises.
    except Exception:
        raise TimeError(f"a time has a zone that cannot be used or is out of range: {ascii(value)}") from None
    return moment.replace(microsecond=0)


def stamp(value: object) -> str | None:
    """'YYYY-MM-DDTHH:MM:SS' in UTC, or None for None and blank text.

    Raises TimeError (a ValueError) for text that is not a time or is over 64 characters, WrongType (a
    TypeError) for anything that is neither text nor a datetime.
    """
    if not given(value):
        return None
    return stamp_of(moment_of(value))


def parse(value: object) -> datetime:
    """A time the library can store and compare: moment_of(), inside the window FalkorDB compares right."""
    if not given(value):
        raise TimeError("a time is needed here")
    moment = moment_of(value)
    if not EARLIEST <= moment <= LATEST:
        raise TimeError(
            f"a time is from {stamp_of(EARLIEST)}Z to {stamp_of(LATEST)}Z, the times FalkorDB "
            f"compares right: {ascii(value) if type(value) is str else stamp_of(moment)}"
        )
    return moment


def looked_at(value: object, what: str | None = None) -> datetime:
    """parse(), for the time a read looks at: a time after the window is its last second, which sees
    exactly what any later time would (no stored time lies past it), so as_of(..., "2100-01-01") gives the
    current State. A time before the window is refused: its first second would see what began then.

    what: the argument's name, which a refusal then names (API 2.4: "when is missing", "when: not an ISO
    8601 time: ..."), as TimeError or WrongType still."""
    try:
        if given(value) and moment_of(value) > LATEST:
            return LATEST
        return parse(value)
    except TimeError as error:
        if what is None:
            raise
        if not given(value):
            raise TimeError(f"{what} is missing: a time is needed here") from None
        raise TimeError(f"{what}: {error}") from None
    except WrongType as error:
        if what is None:
            raise
        raise WrongType(f"{what}: {error}") from None


def checked(value: object, *, present_time: datetime | None = None) -> datetime:
    """parse(), and refused when more than five minutes in the future."""
    moment = parse(value)
    if moment - (present_time or present()) > FUTURE_TOLERANCE:
        raise TimeError(f"a time is at most five minutes in the future: {stamp_of(moment)}")
    return moment


def written_at(at: object) -> str:
    """The time of a record write: now when not given (None or blank), else a checked time, as text.

    A time of a write is content, so anything that is not one, a wrong type included, is a TimeError
    (a Refused): the write's one try turns it into a refusal receipt."""
    if not given(at):
        return now()
    try:
        return stamp_of(checked(at))
    except WrongType as error:
        raise TimeError(str(error)) from None


def stamp_of(moment: datetime) -> str:
    """The text of a UTC datetime that is already checked."""
    # Kept only for UTC: equal instants in other zones are equal keys, and would share one text.
    return _utc_stamp(moment) if moment.tzinfo is UTC else _stamp_text(moment)


def _stamp_text(moment: datetime) -> str:
    # Not strftime: its %Y does not pad years before 1000 on every platform; isoformat() pads them, and
    # is written in C (half the time of formatting the six fields here).
    return moment.isoformat(timespec="seconds")[:19]


# A write formats each row's time three or four times, and the rows of a batch mostly share it: a text
# kept is 0.1 µs where isoformat() is 1 µs.
_utc_stamp = lru_cache(maxsize=4096)(_stamp_text)


def from_store(value: object) -> datetime | None:
    """A time as FalkorDB gives it back (a naive datetime or epoch seconds), as an aware UTC datetime."""
    if value is None:
        return None
    if type(value) is datetime and value.tzinfo is UTC:  # as the client gives a stored time back
        return value
    if isinstance(value, datetime):
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            return datetime.fromtimestamp(int(value), UTC)
        except (ValueError, OverflowError, OSError):  # NaN, infinity, or past year 9999
            raise TimeError(f"not a stored time: {value!r}") from None
    raise TimeError(f"not a stored time: {value!r}")
