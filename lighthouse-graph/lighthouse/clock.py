"""The one time format of the library: UTC, whole seconds, sent to FalkorDB as localdatetime text."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

FUTURE_TOLERANCE = timedelta(minutes=5)


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
        if text.endswith(("Z", "z")):
            text = text[:-1] + "+00:00"
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            raise TimeError(f"not an ISO 8601 time: {value!r}") from None
    else:
        raise TimeError(f"a time is ISO 8601 text or a datetime, not {type(value).__name__}")
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise TimeError(f"a time needs its zone (Z for UTC): {value!r}")
    if moment.microsecond:
        raise TimeError(f"a time is in whole seconds: {value!r}")
    moment = moment.astimezone(UTC)
    if moment.year < 1 or moment.year > 9999:
        raise TimeError(f"a time is out of range: {value!r}")
    return moment


def checked(value: object, *, present: datetime | None = None) -> datetime:
    """parse(), and refused when more than five minutes in the future."""
    moment = parse(value)
    if moment - (present or now()) > FUTURE_TOLERANCE:
        raise TimeError(f"a time is at most five minutes in the future: {value!r}")
    return moment


def stamp(value: object | None = None) -> str:
    """The text FalkorDB's localdatetime() reads: YYYY-MM-DDTHH:MM:SS, UTC. Without a value: now."""
    moment = now() if value is None else parse(value)
    return moment.strftime("%Y-%m-%dT%H:%M:%S")


def from_store(value: object) -> datetime | None:
    """A time as FalkorDB gives it back (a naive datetime or epoch seconds), as an aware UTC datetime."""
    if value is None:
        return None
    if isinstance(value, datetime):
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    if isinstance(value, int | float):
        return datetime.fromtimestamp(int(value), UTC)
    raise TimeError(f"not a stored time: {value!r}")
