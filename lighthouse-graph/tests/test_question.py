"""What recall reads in a question: the words worth asking, and the time it names read against when it
is asked."""

from __future__ import annotations

from datetime import UTC, datetime

from lighthouse.recall.question import Anchored, Window, asked_words, time_asked

ASKED_AT = datetime(2026, 4, 5, 12, 0, tzinfo=UTC)


def test_the_times_a_question_names():
    assert time_asked("what did I eat yesterday", ASKED_AT) == Window(
        datetime(2026, 4, 4, tzinfo=UTC), datetime(2026, 4, 5, tzinfo=UTC)
    )
    assert time_asked("last month", ASKED_AT) == Window(
        datetime(2026, 3, 1, tzinfo=UTC), datetime(2026, 4, 1, tzinfo=UTC)
    )
    assert time_asked("last year", ASKED_AT) == Window(
        datetime(2025, 1, 1, tzinfo=UTC), datetime(2026, 1, 1, tzinfo=UTC)
    )
    assert time_asked("this week", ASKED_AT).start == datetime(2026, 3, 30, tzinfo=UTC)  # a Monday
    assert time_asked("three days ago", ASKED_AT) == Window(  # that day, give or take one
        datetime(2026, 4, 1, tzinfo=UTC), datetime(2026, 4, 4, tzinfo=UTC)
    )
    assert time_asked("a day ago", ASKED_AT) == Window(
        datetime(2026, 4, 4, tzinfo=UTC), datetime(2026, 4, 5, tzinfo=UTC)
    )
    assert time_asked("two weeks ago", ASKED_AT).holds(datetime(2026, 3, 22, tzinfo=UTC))
    assert time_asked("last Friday", ASKED_AT) == Window(
        datetime(2026, 4, 3, tzinfo=UTC), datetime(2026, 4, 4, tzinfo=UTC)
    )
    assert time_asked("what happened in May", ASKED_AT) == Window(
        datetime(2025, 5, 1, tzinfo=UTC), datetime(2025, 6, 1, tzinfo=UTC)
    )  # the last May that has begun
    assert time_asked("on March 3rd", ASKED_AT) == Window(
        datetime(2026, 3, 3, tzinfo=UTC), datetime(2026, 3, 4, tzinfo=UTC)
    )
    assert time_asked("in December 2025", ASKED_AT).start == datetime(2025, 12, 1, tzinfo=UTC)
    assert time_asked("a week after my birthday party", ASKED_AT) == Anchored(7, 1.75, "my birthday party")
    assert time_asked("where is the pump", ASKED_AT) is None
    assert time_asked("on February 30", ASKED_AT) is None  # no such day
    assert time_asked("two weeks before", ASKED_AT) is None  # before nothing


def test_function_words_are_not_asked():
    assert asked_words("What did I say about the pump?") == "pump"
    assert asked_words("what did I say") == "what did i say"  # nothing else: asked as it is


def test_about_thirteen_days_after_something_said():
    assert time_asked("what film did I see about thirteen days after my holiday?", ASKED_AT) == Anchored(
        13, 3.25, "my holiday"
    )
    assert time_asked("about five days ago", ASKED_AT) == Window(  # that day, give or take one
        datetime(2026, 3, 30, tzinfo=UTC), datetime(2026, 4, 2, tzinfo=UTC)
    )
