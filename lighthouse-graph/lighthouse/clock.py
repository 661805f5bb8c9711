"""The one time format of the library: UTC, whole seconds, sent to FalkorDB as localdatetime text."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

FUTURE_TOLERANCE = timedelta(minutes=5)
# FalkorDB 4.22 compares two localdatetimes by the difference of their seconds in 32 bits: times 2**31 s
# (68 years) or more apart compare wrong, in filters, indexes and ORDER BY alike, and times 2**32 s apart
# compare equal. So every time the library takes lies in one window narrower than that.
EARLIEST = datetime(2000, 1, 1, tzinfo=UTC)
LATEST = EARLIEST + timedelta(seconds=2**31 - 1)  # 2068-01-19T03:14:07Z


class TimeError(ValueError):
    """A time that the library cannot store as given."""


def now() -> datetime:
    """The present, in UTC, to the second."""
    return datetime.now(UTC).replace(microsecond=0)


def parse(value: object) -> datetime:
    """An aware UTC datetime in whole seconds, from ISO text or a datetime; refuses what is ambiguous."""
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, str):
        if len(value) > 40:
            raise TimeError("a time is at most 40 characters of ISO 8601")
        text = value.strip()
        # Python's parser stops at a NUL, so "…12:00:00\x00junk+00:00" would read as a time.
        if not (text.isascii() and text.isprintable()):
            raise TimeError(f"not an ISO 8601 time: {value!r}")
        if text.endswith(("Z", "z")):
            text = text[:-1] + "+00:00"
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            raise TimeError(f"not an ISO 8601 time: {value!r}") from None
    else:
        raise TimeError(f"a time is ISO 8601 text or a datetime, not {type(value).__name__}")
    try:
        offset = moment.utcoffset()
        if offset is not None:
            moment = moment.astimezone(UTC)
    except (ValueError, OverflowError, TypeError):  # a zone of a day or more; before year 1 in UTC
        raise TimeError(f"a time has a zone that cannot be used or is out of range: {value!r}") from None
    if offset is None:
        raise TimeError(f"a time needs its zone (Z for UTC): {value!r}")
    # After the shift to UTC: an offset can carry a fraction of a second too.
    if moment.microsecond:
        raise TimeError(f"a time is in whole seconds: {value!r}")
    if not EARLIEST <= moment <= LATEST:
        raise TimeError(
            f"a time is from {stamp_of(EARLIEST)}Z to {stamp_of(LATEST)}Z, the times FalkorDB "
            f"compares right: {value!r}"
        )
    return moment


def checked(value: object, *, present: datetime | None = None) -> datetime:
    """parse(), and refused when more than five minutes in the future."""
    moment = parse(value)
    if moment - (present or now()) > FUTURE_TOLERANCE:
        raise TimeError(f"a time is at most five minutes in the future: {value!r}")
    return moment


def stamp(value: object | None = None) -> str:
    """The text FalkorDB's localdatetime() reads: YYYY-MM-DDTHH:MM:SS, UTC. Without a value: now."""
    return stamp_of(now() if value is None else parse(value))


def stamp_of(moment: datetime) -> str:
    """The text of a UTC datetime that is already checked."""
    # Not strftime: its %Y does not pad years before 1000 on every platform.
    return (
        f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}"
        f"T{moment.hour:02d}:{moment.minute:02d}:{moment.second:02d}"
    )


def from_store(value: object) -> datetime | None:
    """A time as FalkorDB gives it back (a naive datetime or epoch seconds), as an aware UTC datetime."""
    if value is None:
        return None
    if isinstance(value, datetime):
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            return datetime.fromtimestamp(int(value), UTC)
        except (ValueError, OverflowError, OSError):  # NaN, infinity, or past year 9999
            raise TimeError(f"not a stored time: {value!r}") from None
    raise TimeError(f"not a stored time: {value!r}")
