"""The console's pages of records: episodes with their entries in order, and conversations (a user's
sessions and messages), read only. Forgetting is in actions.py."""

from __future__ import annotations

from lighthouse import conversation_users, episode, messages, recent_episodes, sessions

from ..problems import Problem
from .pages import PAGE_SIZE, graph_of, offset_of
from .rendering import page

MOST_MESSAGES = 1_000  # what messages() gives at most in one call
ENTRIES_SHOWN = 500  # entries of an episode one page shows
# What a forget that sent the visitor here found; any other value is not shown.
DONE = {
    "forgotten": "Forgotten: the sessions and messages are deleted.",
    "unknown": "Nothing was forgotten: no such session or user was found.",
}


def _named(query, name: str, what: str) -> str:
    given = query.get(name)
    if not given:
        raise Problem("invalid_argument", f"{what} is needed")
    return given


def episodes_page(service, who, query):
    offset = offset_of(query)
    listed = recent_episodes(graph_of(service, who), offset, PAGE_SIZE)
    return page(
        "episodes.html",
        who,
        episodes=listed[:PAGE_SIZE],
        next_from=offset + PAGE_SIZE if len(listed) > PAGE_SIZE else None,
        previous_from=max(offset - PAGE_SIZE, 0) if offset else None,
    )


def episode_page(service, who, query):
    found = episode(graph_of(service, who), _named(query, "id", "an episode id"))
    if found is None:
        raise Problem("not_found", "there is no such episode in this tenant")
    own = {"id", "seq", "type", "at", "recorded_at", "by", "cites"}
    own |= {"invalidated_at", "invalidated_by", "invalidated_why"}
    offset = offset_of(query)
    every = found["entries"]
    rows = [
        {"entry": entry, "values": {name: value for name, value in entry.items() if name not in own}}
        for entry in every[offset : offset + ENTRIES_SHOWN]
    ]
    more = offset + ENTRIES_SHOWN < len(every)
    return page(
        "episode.html",
        who,
        episode=found,
        rows=rows,
        next_from=offset + ENTRIES_SHOWN if more else None,
        previous_from=max(offset - ENTRIES_SHOWN, 0) if offset else None,
    )


def users_page(service, who, query):
    offset = offset_of(query)
    listed = conversation_users(graph_of(service, who), offset, PAGE_SIZE)
    return page(
        "users.html",
        who,
        users=listed[:PAGE_SIZE],
        done=DONE.get(query.get("done")),
        next_from=offset + PAGE_SIZE if len(listed) > PAGE_SIZE else None,
        previous_from=max(offset - PAGE_SIZE, 0) if offset else None,
    )


def user_page(service, who, query):
    user = _named(query, "user", "a user")
    found = sessions(graph_of(service, who), user, limit=1000)
    return page("user.html", who, user=user, sessions=found)


def session_page(service, who, query):
    user = _named(query, "user", "a user")
    session_id = _named(query, "session", "a session")
    before = query.get("before")
    if before is not None and (not (before.isdecimal() and before.isascii()) or len(before) > 12):
        raise Problem("invalid_argument", "before must be a message's number")
    said = messages(
        graph_of(service, who), user, session_id, last=MOST_MESSAGES, before=int(before) if before else None
    )
    # A long session is read backwards a thousand messages at a time.
    earlier = said[0]["seq"] if len(said) == MOST_MESSAGES and said[0]["seq"] > 1 else None
    return page("session.html", who, user=user, session_id=session_id, messages=said, earlier=earlier)
