"""Conversations with lighthouse: 5,000 say() over 50 users, then messages(last=20) and context().

Each user has one session; the messages go round the users, as many conversations at once would. Every
tenth message mentions a device. context() reads a session whose first 60 messages are summed up
(summarize() is called before it, not timed), so each answer is the summary, the last 20 messages, and
20 waiting in between.

say() is limited by FalkorDB's write: its blind shape (`say_shape`) is at 37 to 39 % of the floor, and
under cProfile 0.33 to 0.36 ms a call is the library's and the client's Python against 2.1 to 2.7 ms
waiting for the reply. messages() and context() read a message's mentions from the list it keeps (its
MENTIONS edges stay for said_about()); what is left is the reply of 20 messages and its parsing.
"""

from __future__ import annotations

from breakdown import unwatched
from fleet import DEVICE, VOCABULARY
from lighthouse import context, messages, say, summarize
from registry import Context, Measured, expect, timed_calls, workload

USERS = 50
MESSAGES = 5_000
SESSION = "main"
READS = 1_000  # messages(last=20) calls
CONTEXTS = 200  # context() calls
LAST = 20
SUMMED_UPTO = 60
SPEAKER = "bench-assistant"


def _user(number: int) -> str:
    return f"user{number:02d}"


def _said(number: int, ctx: Context) -> dict:
    """The number-th message of the run: which user, and what say() is given."""
    user = number % USERS
    seq = number // USERS + 1
    words = " ".join(VOCABULARY[(number * step + seq) % len(VOCABULARY)] for step in (3, 11, 29))
    mentions = [(DEVICE, ctx.fleet.keys[number % ctx.fleet.count])] if number % 10 == 0 else ()
    return {
        "user": _user(user),
        "seq": seq,
        "role": "user" if seq % 2 else "assistant",
        "by": _user(user) if seq % 2 else SPEAKER,
        "text": f"message {seq} of {_user(user)}: the {words} looked fine today",
        "mentions": mentions,
    }


def _expected(ctx: Context) -> dict[str, list[dict]]:
    """What each user's session should hold, in order."""
    found: dict[str, list[dict]] = {}
    for number in range(MESSAGES):
        given = _said(number, ctx)
        found.setdefault(given["user"], []).append(given)
    return found


def _differs(got: dict, wanted: dict) -> str | None:
    """Why a message that a read gave is not the one said; None when it is."""
    mentions = [("Device", key) for _kind, key in wanted["mentions"]]
    shown = {
        "session": got.get("session"),
        "seq": got.get("seq"),
        "role": got.get("role"),
        "by": got.get("by"),
        "text": got.get("text"),
        "mentions": got.get("mentions"),
    }
    expected = {
        "session": SESSION,
        "seq": wanted["seq"],
        "role": wanted["role"],
        "by": wanted["by"],
        "text": wanted["text"],
        "mentions": mentions,
    }
    if got.get("at") is None or got.get("recorded_at") is None:
        return "a message without its times"
    if set(got) != {*shown, "at", "recorded_at"}:
        return f"a message with other keys: {sorted(got)}"
    return None if shown == expected else f"got {shown}, not {expected}"


@workload(
    "say",
    "calls",
    floor="indexed_match",
    target=0.60,
    about="say() of 5,000 messages round 50 users (one session each), every tenth mentioning a device",
)
def say_calls(ctx: Context) -> Measured:
    """5,000 say() calls: each receipt said, numbered in its session."""
    given = [_said(number, ctx) for number in range(MESSAGES)]
    receipts, seconds = timed_calls(
        lambda one: say(
            ctx.graph, one["user"], SESSION, one["role"], one["text"], one["by"], mentions=one["mentions"]
        ),
        given,
    )
    for one, receipt in zip(given, receipts, strict=True):
        wanted = {"id": SESSION, "seq": one["seq"], "status": "said"}
        expect(receipt == wanted, f"say({one['user']}, message {one['seq']}) gave {receipt}, not {wanted}")
    stored = (
        unwatched(ctx.graph)
        .ro_query(
            "MATCH (s:Session)-[:HAS]->(m:Message) WHERE s.id = $session RETURN count(DISTINCT s), count(m)",
            {"session": SESSION},
        )
        .result_set[0]
    )
    expect(
        stored == [USERS, MESSAGES], f"say: sessions and messages stored {stored}, not {USERS}, {MESSAGES}"
    )
    return Measured(len(given), seconds, len(receipts))


@workload(
    "messages",
    "calls",
    needs=("say",),
    floor="indexed_match",
    target=0.50,
    about="messages(last=20) of a random user's session of 100",
)
def messages_calls(ctx: Context) -> Measured:
    """1,000 messages(last=20) calls; each must be the last 20 messages said, in order."""
    expected = _expected(ctx)
    users = [_user(ctx.rng.randrange(USERS)) for _ in range(READS)]
    answers, seconds = timed_calls(lambda user: messages(ctx.graph, user, SESSION, last=LAST), users)
    for user, answer in zip(users, answers, strict=True):
        wanted = expected[user][-LAST:]
        expect(len(answer) == len(wanted), f"messages({user}): {len(answer)} messages, not {len(wanted)}")
        for got, one in zip(answer, wanted, strict=True):
            why = _differs(got, one)
            expect(why is None, f"messages({user}) message {one['seq']}: {why}")
    return Measured(len(users), seconds, len(answers))


@workload(
    "context",
    "calls",
    needs=("say",),
    floor="indexed_match",
    target=0.40,
    about="context() of a random user's session: its summary, the last 20 messages, how many wait",
)
def context_calls(ctx: Context) -> Measured:
    """200 context() calls on sessions summed up to message 60: summary, messages 81 to 100, 20 waiting."""
    expected = _expected(ctx)
    for user in expected:
        receipt = summarize(unwatched(ctx.graph), user, SESSION, f"summary of {user}", SUMMED_UPTO, SPEAKER)
        wanted = {"id": SESSION, "upto": SUMMED_UPTO, "status": "summed"}
        expect(receipt == wanted, f"summarize({user}) gave {receipt}, not {wanted}")
    users = [_user(ctx.rng.randrange(USERS)) for _ in range(CONTEXTS)]
    answers, seconds = timed_calls(lambda user: context(ctx.graph, user, SESSION, last=LAST), users)
    for user, answer in zip(users, answers, strict=True):
        said = expected[user]
        given = said[max(SUMMED_UPTO, len(said) - LAST) :]
        waiting = len(said) - len(given) - SUMMED_UPTO
        head = {name: answer.get(name) for name in ("summary", "upto", "waiting")}
        wanted = {"summary": f"summary of {user}", "upto": SUMMED_UPTO, "waiting": waiting}
        expect(head == wanted, f"context({user}) gave {head}, not {wanted}")
        expect(
            len(answer["messages"]) == len(given),
            f"context({user}): {len(answer['messages'])} messages, not {len(given)}",
        )
        for got, one in zip(answer["messages"], given, strict=True):
            why = _differs(got, one)
            expect(why is None, f"context({user}) message {one['seq']}: {why}")
    return Measured(len(users), seconds, len(answers))
