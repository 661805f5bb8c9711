"""Operations on what a model drew: the candidates waiting, a person's confirm or reject, and recall."""

from __future__ import annotations

from lighthouse import candidates, confirm, recall, reject

from ..problems import ModelUnavailable
from .recall import LIMIT, QUESTION
from .rows import KEY, KIND
from .table import Operation, Param

VALID_FROM = Param(
    "valid_from", "time", "when the State began (its valid_from, as history gives it)", required=True
)
KINDS = Param("kinds", "kinds", "labels of the kinds to look in; every declared kind if not given")


def _declared(call, arguments: dict) -> list:
    """The kinds asked for, else every kind the tenant declared."""
    if "kinds" in arguments:
        return arguments["kinds"]
    return list(call.parts.kinds.declared(call.principal.tenant)[1].values())


def _candidates(call, arguments: dict) -> list:
    return candidates(graph=call.graph, kinds=_declared(call, arguments), limit=arguments.get("limit", 100))


def _recall(call, arguments: dict) -> dict:
    """The library's recall with the configured embedder; an embedder that cannot answer leaves the
    meaning ranking out, and "meaning" says so (as search_notes does), rather than failing the call."""
    asked = {
        "when": arguments.get("when"),
        "past": arguments.get("past", False),
        "rejected": arguments.get("rejected", False),
        "limit": arguments.get("limit", 10),
    }
    kinds, question = _declared(call, arguments), arguments["question"]
    if not call.parts.settings.embedder:
        return {**recall(call.graph, kinds, question, **asked), "meaning": "not configured"}
    try:
        embedder, model, _dimensions = call.parts.embedder.load()
        answer = recall(call.graph, kinds, question, embedder=embedder, model=model, **asked)
    except ModelUnavailable as error:
        return {**recall(call.graph, kinds, question, **asked), "meaning": f"failing: {error}"[:500]}
    return {**answer, "meaning": "used"}


_RECEIPT = '{"key", "valid_from", "status": "%s" | "unknown" | "invalid"} (and a reason for the last two)'

OPERATIONS = [
    Operation(
        "candidates",
        candidates,
        "read",
        (KINDS, Param("limit", "int", "how many to give, 1 to 1000 (default 100)")),
        '[{"kind", "key", "state"}] oldest recorded first; state as history gives it, with trust "candidate"',
        "List the facts a model drew from notes that no person has confirmed or rejected yet, oldest first. "
        "Each names its State by kind, key and valid_from; state.entry is the note it came from.",
        example={"kinds": ["Device"]},
        answer=_candidates,
    ),
    Operation(
        "confirm",
        confirm,
        "review",
        (KIND, KEY, VALID_FROM, Param("why", "text", "why it holds (optional)")),
        _RECEIPT % "confirmed",
        "Confirm a fact a model drew (or any State): it is marked confirmed with who (the key's agent), when "
        "and why. Nothing else changes.",
        example={"kind": "Device", "key": "d1", "valid_from": "2026-01-02T00:00:00Z", "why": "seen on site"},
        agent_as="by",
        writes=True,
    ),
    Operation(
        "reject",
        reject,
        "review",
        (KIND, KEY, VALID_FROM, Param("why", "text", "why it is wrong", required=True)),
        _RECEIPT % "rejected",
        "Reject a fact a model drew: it is marked rejected with who, when and why, and recall leaves it out "
        "(the version before it holds on). Nothing is deleted: history still shows it, marked.",
        example={
            "kind": "Device",
            "key": "d1",
            "valid_from": "2026-01-02T00:00:00Z",
            "why": "it never moved",
        },
        agent_as="by",
        writes=True,
    ),
    Operation(
        "recall",
        recall,
        "read",
        (
            QUESTION,
            KINDS,
            Param("at", "time", "the time asked about; now if not given", to="when", also=("when",)),
            Param("past", "bool", "also facts replaced before that time (default false)"),
            Param("rejected", "bool", "also facts a person rejected (default false)"),
            LIMIT,
        ),
        '{"facts": [{"kind", "key", "score", "places", "state", "valid_from", "valid_to", "current", "trust", '
        '"evidence": {"id", "text", "episode", "at", "by"} or null}], "notes": [{"id", "score", "places", "text", '
        '"source", "at", "by", "episode"}], "episodes": [{"id", "score", "found": [note ids], "beside": [notes]}], '
        '"meaning": "used" | "not configured" | "failing: <why>"}, best first',
        "Answer a question from memory: the facts valid now (or at `at`) about what the question's words "
        "and meaning find, across the declared kinds, each with its validity window, its trust (confirmed, "
        "candidate, rejected) and its evidence (the note or entry it came from, with its text), and the notes "
        "that matched (a time the question names, such as 'last month' or 'two weeks before the trip', is read "
        "against when each note was said; of notes that say the same, the newest first), with the episodes "
        "they were said in and the notes said beside them. Use it first when you do not know which search fits.",
        example={"question": "where is the pump"},
        answer=_recall,
    ),
]
