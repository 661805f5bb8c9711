"""What recall() reads in a question besides its meaning: the words worth asking the text index, and
the time it names, read against the time it is asked at.

Words: the question's words less the English function words (what, did, I, the...). The index is
asked one word at a time (text.scored()), and a word that nearly every note holds costs a scan of
them all and ranks nothing: over 10,000 notes, "what did I say about the pump" spent most of half a
second on its seven common words. A question of function words alone is asked as it is.

Time: "today", "yesterday", "N days (weeks, months, years) ago", "last week (month, year)", "this
week (month, year)", "last Monday", "in March", "in March 2026", "on March 3": a window of times
(Window), read against the time asked at. "N days (weeks...) before (after) <something>": a time
relative to when <something> was said (Anchored); recall() finds that note first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from ..values import question as question_words

_LISTED = """a about above after again against all am an and any are as at be because been before being below
    between both but by can could did do does doing down during each few for from further had has have
    having he her here hers herself him himself his how i if in into is it its itself just me more most
    my myself no nor not now of off on once only or other our ours ourselves out over own same she
    should so some such than that the their theirs them themselves then there these they this those
    through to too under until up very was we were what when where which while who whom why will with
    would you your yours yourself yourselves tell told say said remember know recall mention mentioned
    ever last time thing things something anything get got"""
FUNCTION_WORDS = frozenset(_LISTED.split())

MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "couple of": 2,
    "few": 3,
}
UNITS = {"day": 1, "week": 7, "month": 30, "year": 365}
_NUMBER = r"(\d{1,3}|" + "|".join(sorted(NUMBERS, key=len, reverse=True)) + ")"
_UNIT = r"(day|week|month|year)s?"
_AGO = re.compile(rf"\b{_NUMBER}\s+{_UNIT}\s+ago\b")
_RELATIVE = re.compile(rf"\b{_NUMBER}\s+{_UNIT}\s+(before|after)\s+(.+)$")
_NAMED = re.compile(r"\b(last|this|past|previous)\s+(week|month|year)\b")
_WEEKDAY = re.compile(r"\b(last|on|this past)\s+(" + "|".join(WEEKDAYS) + r")\b")
_MONTH_DAY = re.compile(r"\b(" + "|".join(MONTHS) + r")\s+(\d{1,2})(?:st|nd|rd|th)?\b(?:,?\s+(\d{4}))?")
_IN_MONTH = re.compile(r"\b(?:in|during|since|of)\s+(" + "|".join(MONTHS) + r")\b(?:\s+(\d{4}))?")


@dataclass(frozen=True)
class Window:
    """The times a question names: from start, up to (not including) end."""

    start: datetime
    end: datetime

    def holds(self, moment: datetime | None) -> bool:
        return moment is not None and self.start <= moment < self.end


@dataclass(frozen=True)
class Anchored:
    """A time relative to when something was said: `days` after it (before it when negative), give or
    take `slack` days; `about` is the words that find it."""

    days: int
    slack: float
    about: str

    def around(self, said_at: datetime) -> Window:
        middle = said_at + timedelta(days=self.days)
        return Window(middle - timedelta(days=self.slack), middle + timedelta(days=self.slack))


def asked_words(question: str) -> str:
    """The question's words worth asking the text index: its words less the function words, or all of
    them when nothing else is left."""
    found = question_words(question)
    kept = [word for word in found if word not in FUNCTION_WORDS]
    return " ".join(kept or found)


def _day(moment: datetime) -> datetime:
    return moment.replace(hour=0, minute=0, second=0, microsecond=0)


def _month(year: int, month: int) -> Window:
    start = datetime(year, month, 1, tzinfo=UTC)
    end = datetime(year + month // 12, month % 12 + 1, 1, tzinfo=UTC)
    return Window(start, end)


def _count(said: str) -> int:
    return int(said) if said.isdigit() else NUMBERS[said]


def time_asked(question: str, at: datetime) -> Window | Anchored | None:
    """The time a question names, read against `at` (when it is asked), or None when it names none."""
    try:
        return _read_time(question, at)
    except (ValueError, OverflowError):  # a date that is none (February 30, year 0)
        return None


def _read_time(question: str, at: datetime) -> Window | Anchored | None:
    text = " ".join(question.lower().replace("?", " ").split())
    today = _day(at.astimezone(UTC))
    found = _RELATIVE.search(text)
    if found:
        count, unit = _count(found.group(1)), UNITS[found.group(2)]
        about = found.group(4).strip()
        if question_words(about):
            days = count * unit * (1 if found.group(3) == "after" else -1)
            return Anchored(days, max(1.0, count * unit / 4), about)
    found = _AGO.search(text)
    if found:
        count, unit = _count(found.group(1)), UNITS[found.group(2)]
        middle = today - timedelta(days=count * unit)
        if unit == 1:  # "about five days ago": that day, give or take one
            return Window(
                middle - timedelta(days=1 if count > 1 else 0), middle + timedelta(days=2 if count > 1 else 1)
            )
        slack = timedelta(days=max(1.0, count * unit / 4))
        return Window(middle - slack, middle + slack + timedelta(days=1))
    if re.search(r"\byesterday\b", text):
        return Window(today - timedelta(days=1), today)
    if re.search(r"\btoday\b", text):
        return Window(today, today + timedelta(days=1))
    found = _NAMED.search(text)
    if found:
        this = found.group(1) == "this"
        if found.group(2) == "week":
            monday = today - timedelta(days=today.weekday())
            start = monday if this else monday - timedelta(days=7)
            return Window(start, start + timedelta(days=7))
        if found.group(2) == "month":
            year, month = today.year, today.month
            if not this:
                year, month = (year, month - 1) if month > 1 else (year - 1, 12)
            return _month(year, month)
        year = today.year if this else today.year - 1
        return Window(datetime(year, 1, 1, tzinfo=UTC), datetime(year + 1, 1, 1, tzinfo=UTC))
    found = _WEEKDAY.search(text)
    if found:
        back = (today.weekday() - WEEKDAYS.index(found.group(2))) % 7 or 7
        day = today - timedelta(days=back)
        return Window(day, day + timedelta(days=1))
    found = _MONTH_DAY.search(text)
    if found and 1 <= int(found.group(2)) <= 31:
        month, day = MONTHS[found.group(1)], int(found.group(2))
        year = int(found.group(3)) if found.group(3) else today.year
        start = datetime(year, month, day, tzinfo=UTC)
        if not found.group(3) and start > today:
            start = start.replace(year=year - 1)
        return Window(start, start + timedelta(days=1))
    found = _IN_MONTH.search(text)
    if found:
        month = MONTHS[found.group(1)]
        year = int(found.group(2)) if found.group(2) else today.year
        if not found.group(2) and month > today.month:
            year -= 1  # the last one that has begun
        return _month(year, month)
    return None
