"""The console's pages of records: notes with what was drawn from each (and replaying one set aside),
episodes with their entries in order, and conversations (a user's sessions and messages). Forgetting is
in actions.py."""

from __future__ import annotations

from lighthouse import (
    conversation_users,
    episode,
    extraction_states,
    messages,
    recent_episodes,
    recent_notes,
    sessions,
)
from starlette.responses import RedirectResponse

from ..problems import Problem
from .actions import keep_record
from .pages import (
    PAGE_SIZE,
    WINDOW_AND_WRITER,
    BadChoice,
    as_time,
    given_filters,
    graph_of,
    offset_of,
    writer_and_window,
)
from .rendering import link, page
from .session import check_scope

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


def episodes_page(console, who, query):
    offset = offset_of(query)
    try:
        listed = recent_episodes(graph_of(console, who), offset, PAGE_SIZE, **writer_and_window(query))
    except ValueError as error:  # a writer's name the library refuses
        raise BadChoice(str(error)[:300], names=("by",)) from None
    return page(
        "episodes.html",
        who,
        episodes=listed[:PAGE_SIZE],
        given=given_filters(query, WINDOW_AND_WRITER),
        next_from=offset + PAGE_SIZE if len(listed) > PAGE_SIZE else None,
        previous_from=max(offset - PAGE_SIZE, 0) if offset else None,
    )


def episode_page(console, who, query):
    found = episode(graph_of(console, who), _named(query, "id", "an episode id"))
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


def users_page(console, who, query):
    offset = offset_of(query)
    listed = conversation_users(graph_of(console, who), offset, PAGE_SIZE)
    return page(
        "users.html",
        who,
        users=listed[:PAGE_SIZE],
        done=DONE.get(query.get("done")),
        next_from=offset + PAGE_SIZE if len(listed) > PAGE_SIZE else None,
        previous_from=max(offset - PAGE_SIZE, 0) if offset else None,
    )


def user_page(console, who, query):
    user = _named(query, "user", "a user")
    found = sessions(graph_of(console, who), user, limit=1000)
    return page("user.html", who, user=user, sessions=found)


def session_page(console, who, query):
    user = _named(query, "user", "a user")
    session_id = _named(query, "session", "a session")
    before = query.get("before")
    if before is not None and (not (before.isdecimal() and before.isascii()) or len(before) > 12):
        raise BadChoice("before must be a message's number", names=("before",))
    said = messages(
        graph_of(console, who), user, session_id, last=MOST_MESSAGES, before=int(before) if before else None
    )
    # A long session is read backwards a thousand messages at a time.
    earlier = said[0]["seq"] if len(said) == MOST_MESSAGES and said[0]["seq"] > 1 else None
    return page("session.html", who, user=user, session_id=session_id, messages=said, earlier=earlier)


def _filters(query) -> dict:
    """The filters of the notes page as the library takes them, each checked."""
    chosen = {}
    if query.get("by"):
        chosen["by"] = query["by"].strip()[:200]
    for name in ("since", "until"):
        if query.get(name):
            chosen[name] = as_time(query[name], name)
    return chosen


def notes_page(console, who, query):
    offset = offset_of(query)
    chosen = _filters(query)
    try:
        listed = recent_notes(graph_of(console, who), offset, PAGE_SIZE, **chosen)
    except ValueError as error:
        raise BadChoice(str(error)[:300], names=("by", "since", "until")) from None
    # Where each note of the page is in the extraction: waiting, answered, applied, set aside (why), ...
    states = extraction_states(graph_of(console, who), [one["id"] for one in listed[:PAGE_SIZE]])
    wanted = {name: query.get(name) for name in ("by", "since", "until") if query.get(name)}
    return page(
        "notes.html",
        who,
        notes=listed[:PAGE_SIZE],
        states=states,
        filters=wanted,
        done=REPLAYED.get(query.get("done")),
        next_from=offset + PAGE_SIZE if len(listed) > PAGE_SIZE else None,
        previous_from=max(offset - PAGE_SIZE, 0) if offset else None,
    )


REPLAYED = {
    "replayed": "Given back: the worker reads the note again first, asking the model anew.",
    "not_set_aside": "Nothing was given back: that note is not set aside.",
    "unknown": "Nothing was given back: there is no such note.",
}


def notes_again(console, who, form):
    return notes_page(console, who, {})


def replay(console, who, form):
    check_scope(who, "write", "replaying a note set aside")
    note_id = form.get("note")
    if type(note_id) is not str or not note_id or len(note_id) > 400:
        raise Problem("invalid_argument", "the form names no note")
    receipt = console.service.run(who.principal, "replay", {"note": note_id})
    keep_record(
        who,
        {"action": "replay", "what": note_id, "why": None, "status": receipt.get("status"), "reason": None},
    )
    return RedirectResponse(link("/console/notes", done=receipt.get("status")), status_code=303)
