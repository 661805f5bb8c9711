"""The evaluation's data: long multi-session conversations of several users, and questions about them,
generated from a seed by the templates of facts.py, events.py and filler.py.

Each user has sessions on days spread over most of a year; each session is a conversation of turns
(user, assistant) with a said-time. Most turns are unrelated talk (filler.py); a few sessions run to
thousands of words. The facts a user tells are planted as user turns at random places in chosen
sessions, and every question records the sessions (and turns) that hold its evidence:

- single: a fact stated once, in one session (a long one half the time);
- multi: a fact spread over two sessions, each holding a part of the answer;
- temporal: one of three events of a sort, each in its own session, picked by its distance in time from
  another event (the anchor, whose session is evidence too) or from when the question is asked;
- update: a value stated, then replaced in a later session: the later session is the evidence, the
  earlier one is `older` and must rank below it;
- abstention: a question whose answer no session holds.

The same seed and size give the same conversations and questions, turn for turn.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from . import events, facts, filler

ABILITIES = ("single", "multi", "temporal", "update", "abstention")
BEGINNING = datetime(2025, 1, 6, tzinfo=UTC)  # the first possible session; all are in the past
SPAN_DAYS = 320  # the sessions of a user fall in this many days
TURN_SECONDS = 40  # between two turns of a session
NAMES = ("ada", "bruno", "chiara", "dev", "elif", "farid", "greta", "hugo", "ines", "jun", "kofi", "lena")
NUMBERS = (
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
)


@dataclass(frozen=True)
class Size:
    users: int
    sessions: int  # per user
    turns: tuple[int, int]  # turns of a session, lowest and highest
    long_turns: tuple[int, int]  # turns of a long session
    long_share: float  # of the sessions
    questions: dict  # ability -> questions per user


SIZES = {
    "tiny": Size(
        2, 8, (2, 6), (24, 30), 0.15, {"single": 3, "multi": 2, "temporal": 3, "update": 2, "abstention": 2}
    ),
    "small": Size(
        3,
        24,
        (8, 16),
        (70, 100),
        0.15,
        {"single": 12, "multi": 6, "temporal": 8, "update": 8, "abstention": 6},
    ),
    "default": Size(
        6,
        34,
        (12, 24),
        (80, 120),
        0.2,
        {"single": 30, "multi": 12, "temporal": 16, "update": 15, "abstention": 15},
    ),
}


@dataclass(frozen=True)
class Turn:
    role: str  # "user" or "assistant"
    text: str
    at: datetime


@dataclass
class Session:
    id: str  # "<user>-s<number>": the episode of its notes and the session of its messages
    user: str
    began: datetime
    long: bool
    turns: list[Turn] = field(default_factory=list)

    def words(self) -> int:
        return sum(len(turn.text.split()) for turn in self.turns)


@dataclass(frozen=True)
class Evidence:
    session: str
    turn: int  # its place in the session, from 0
    holds: str  # the part of the answer (or the anchor) the turn says, word for word


@dataclass(frozen=True)
class Question:
    id: str
    user: str
    ability: str
    text: str
    asked_at: datetime
    answer: tuple[str, ...]  # empty for abstention
    evidence: tuple[Evidence, ...]  # empty for abstention
    older: tuple[Evidence, ...] = ()  # an update's replaced statement, which must rank below the evidence


@dataclass
class Conversations:
    seed: int
    size: str
    users: list[str]
    sessions: dict[str, Session]  # id -> session, each user's in time order
    questions: list[Question]

    def of(self, user: str) -> list[Session]:
        return [session for session in self.sessions.values() if session.user == user]

    def turn_count(self) -> int:
        return sum(len(session.turns) for session in self.sessions.values())


@dataclass
class _Planted:
    """A statement waiting for its place: the Evidence once the session's turns are laid out."""

    session: Session
    text: str
    holds: str
    place: int = -1

    def evidence(self) -> Evidence:
        return Evidence(self.session.id, self.place, self.holds)


def offset_words(days: int) -> str:
    """A distance in time as a person says it: "five days", "three weeks", "two months"."""
    if days < 14:
        return f"{NUMBERS[days]} days"
    if days < 63:
        weeks = round(days / 7)
        return "a week" if weeks == 1 else f"{NUMBERS[weeks]} weeks"
    months = round(days / 30.4)
    return "a month" if months == 1 else f"{NUMBERS[min(months, 13)]} months"


class _UserPlan:
    """The sessions of one user, and the statements planted in them."""

    def __init__(self, rng: random.Random, user: str, size: Size):
        self.rng, self.user, self.size = rng, user, size
        days = sorted(rng.sample(range(SPAN_DAYS), size.sessions))
        self.sessions = []
        for number, day in enumerate(days, start=1):
            began = BEGINNING + timedelta(days=day, hours=rng.randrange(8, 21), minutes=rng.randrange(60))
            self.sessions.append(
                Session(f"{user}-s{number:03d}", user, began, rng.random() < size.long_share)
            )
        self.planted: dict[str, list[_Planted]] = {session.id: [] for session in self.sessions}
        self.asked_at = self.sessions[-1].began + timedelta(days=2)

    def plant(self, session: Session, template: str, value: str) -> _Planted:
        planted = _Planted(session, template.format(v=value), value)
        self.planted[session.id].append(planted)
        return planted

    def apart(self, count: int, gap_days: int) -> list[Session] | None:
        """count sessions on days at least gap_days apart, in time order; None when none are found."""
        for _ in range(200):
            chosen = sorted(self.rng.sample(self.sessions, count), key=lambda session: session.began)
            if all((b.began - a.began).days >= gap_days for a, b in zip(chosen, chosen[1:], strict=False)):
                return chosen
        return None

    def lay_out(self) -> None:
        """Each session's turns: filler talk, with its planted statements at random places."""
        for session in self.sessions:
            low, high = self.size.long_turns if session.long else self.size.turns
            pairs = self.rng.randrange(low, high + 1) // 2
            topic = self.rng.choice(sorted(filler.TOPICS))
            exchanges: list[tuple[str, str, _Planted | None]] = []
            for _ in range(pairs):
                if self.rng.random() < 0.15:
                    topic = self.rng.choice(sorted(filler.TOPICS))
                sentences = self.rng.randrange(2, 6)
                exchanges.append(
                    (filler.request(self.rng, topic), filler.answer(self.rng, topic, sentences), None)
                )
            for planted in self.planted[session.id]:
                reply = filler.acknowledgement(self.rng)
                exchanges.insert(self.rng.randrange(len(exchanges) + 1), (planted.text, reply, planted))
            for said, reply, planted in exchanges:
                if planted is not None:
                    planted.place = len(session.turns)
                for role, text in (("user", said), ("assistant", reply)):
                    at = session.began + timedelta(seconds=TURN_SECONDS * len(session.turns))
                    session.turns.append(Turn(role, text, at))


def _single(plan: _UserPlan, count: int) -> list[tuple]:
    asked = []
    for question, statement, values in plan.rng.sample(facts.SINGLE, min(count, len(facts.SINGLE))):
        longs = [session for session in plan.sessions if session.long]
        pool = longs if longs and plan.rng.random() < 0.5 else plan.sessions
        value = plan.rng.choice(values)
        asked.append(
            ("single", question, (value,), [plan.plant(plan.rng.choice(pool), statement, value)], [])
        )
    return asked


def _multi(plan: _UserPlan, count: int) -> list[tuple]:
    asked = []
    for question, statements, values in plan.rng.sample(facts.MULTI, min(count, len(facts.MULTI))):
        chosen = plan.apart(len(statements), 1)
        if chosen is None:
            continue
        drawn = plan.rng.sample(values, len(statements))
        planted = [plan.plant(s, t, v) for s, t, v in zip(chosen, statements, drawn, strict=True)]
        asked.append(("multi", question, tuple(drawn), planted, []))
    return asked


def _update(plan: _UserPlan, count: int) -> list[tuple]:
    asked = []
    for question, earlier, later, values in plan.rng.sample(events.UPDATES, min(count, len(events.UPDATES))):
        chosen = plan.apart(2, 14)
        if chosen is None:
            continue
        old, new = plan.rng.sample(values, 2)
        replaced = plan.plant(chosen[0], earlier, old)
        asked.append(("update", question, (new,), [plan.plant(chosen[1], later, new)], [replaced]))
    return asked


def _temporal(plan: _UserPlan, count: int) -> list[tuple]:
    """Three events of a sort on days apart, and questions that tell one from the others by time only."""
    rng = plan.rng
    anchors = []
    for wording, statement, values in rng.sample(events.ANCHORS, len(events.ANCHORS)):
        session = rng.choice(plan.sessions)
        anchors.append((wording, session.began, plan.plant(session, statement, rng.choice(values))))
    asked: list[tuple] = []
    for wording, statement, values in rng.sample(events.EVENT_SORTS, len(events.EVENT_SORTS)):
        chosen = plan.apart(3, 12)
        if chosen is None or len(asked) >= count:
            continue
        planted = [plan.plant(s, statement, v) for s, v in zip(chosen, rng.sample(values, 3), strict=True)]
        for target in rng.sample(range(3), 3):
            found = _dated_question(rng, plan, wording, [s.began for s in chosen], target, anchors)
            if found is not None and len(asked) < count:
                text, anchor = found
                evidence = [planted[target]] + ([anchor] if anchor is not None else [])
                asked.append(("temporal", text, (planted[target].holds,), evidence, []))
    return asked


def _dated_question(rng, plan, wording, dates, target, anchors) -> tuple[str, _Planted | None] | None:
    """The question that names dates[target] by its distance from an anchor or from the asking, when that
    distance, said in words, fits no other of the dates; else None."""
    choices = [(anchor_wording, began, planted) for anchor_wording, began, planted in anchors]
    rng.shuffle(choices)
    choices.append(("", plan.asked_at, None))  # from when the question is asked
    for anchor_wording, began, planted in choices:
        signed = [(date.date() - began.date()).days for date in dates]  # calendar days, as people count
        days = abs(signed[target])
        if days < 2 or (planted is not None and days > 70):
            continue
        said = offset_words(days)
        clash = any(
            (signed[other] < 0) == (signed[target] < 0)
            and (offset_words(abs(signed[other])) == said or abs(signed[other] - signed[target]) < 7)
            for other in range(len(dates))
            if other != target
        )
        if clash:
            continue
        if planted is None:
            return f"{wording} about {said} ago?", None
        side = "before" if signed[target] < 0 else "after"
        return f"{wording} about {said} {side} {anchor_wording}?", planted
    return None


def _abstention(plan: _UserPlan, count: int) -> list[tuple]:
    chosen = plan.rng.sample(facts.NEVER_SAID, min(count, len(facts.NEVER_SAID)))
    return [("abstention", question, (), [], []) for question in chosen]


_MAKERS = {
    "single": _single,
    "multi": _multi,
    "temporal": _temporal,
    "update": _update,
    "abstention": _abstention,
}


def generate(seed: int = 7, size: str = "default") -> Conversations:
    """The conversations and questions of a seed and a size (a name of SIZES)."""
    if size not in SIZES:
        raise ValueError(f"size is one of {', '.join(SIZES)}, not {size!r}")
    chosen = SIZES[size]
    rng = random.Random(f"recall-evaluation:{seed}:{size}")
    users = rng.sample(NAMES, chosen.users)
    sessions: dict[str, Session] = {}
    questions: list[Question] = []
    for user in users:
        plan = _UserPlan(random.Random(f"{seed}:{size}:{user}"), user, chosen)
        drafts = []
        for ability in ABILITIES:
            drafts += _MAKERS[ability](plan, chosen.questions[ability])
        plan.lay_out()
        for number, (ability, text, answer, evidence, older) in enumerate(drafts, start=1):
            questions.append(
                Question(
                    f"{user}-q{number:03d}",
                    user,
                    ability,
                    text,
                    plan.asked_at,
                    answer,
                    tuple(planted.evidence() for planted in evidence),
                    tuple(planted.evidence() for planted in older),
                )
            )
        sessions.update({session.id: session for session in plan.sessions})
    return Conversations(seed, size, users, sessions, questions)
