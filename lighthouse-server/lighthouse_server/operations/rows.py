"""Operations on rows of a kind: write them, read their history, their state at a time, their relations."""

from __future__ import annotations

from lighthouse import as_of, diff_between, history, now, related, remember, update

from ..reading import rows
from .table import Operation, Param

KIND = Param("kind", "kind", "the label of the kind (declared with declare_kinds)", required=True)
KEY = Param("key", "key", "the key of the entity", required=True)


def trusted(state: dict | None) -> dict | None:
    """A State as the service gives it: with its trust always said. The library leaves trust out of a
    structured State never reviewed (the published shape); such a State is confirmed. A State whose own
    values hold a value named trust keeps it (the library draws and reviews none of those)."""
    if state is None or "trust" in state:
        return state
    return {**state, "trust": "confirmed"}


def _entity(call, arguments: dict) -> dict:
    """What counts now: a State a person rejected does not, and the one before it holds on."""
    state = as_of(graph=call.graph, kind=arguments["kind"], key=arguments["key"], when=now(), rejected=False)
    return {"key": arguments["key"], "current": trusted(state)}


def _history(call, arguments: dict) -> list:
    return [trusted(state) for state in history(graph=call.graph, **arguments)]


def _as_of(call, arguments: dict) -> dict | None:
    return trusted(as_of(graph=call.graph, **arguments))


def _entities(call, arguments: dict) -> list:
    kind = arguments["kind"]
    found = rows(
        call.graph,
        f"MATCH (e:Entity:`{kind.label}`) RETURN e.key ORDER BY e.key",
        timeout=call.parts.settings.query_timeout_ms,
    )
    return [row[0] for row in found]


OPERATIONS = [
    Operation(
        "remember",
        remember,
        "write",
        (
            KIND,
            Param(
                "rows",
                "objects",
                'the rows: each {"key", "t" (the time the fact became true), "values": {...}, '
                '"relations": {TYPE: key or [keys]}, "entry": an entry id as evidence}',
                required=True,
            ),
        ),
        'a list of receipts, one per row in order: {"key", "status"} with status created, changed, inserted, '
        "unchanged, stale, conflict, missing, invalid or failed (and a reason for the last three)",
        "Store facts about entities of a kind as rows. A row says what the entity's values and relations are "
        "from time t on; an unchanged row changes nothing, a later one opens a new version and keeps the old one "
        "in its history. Bad rows are refused one by one with a reason; the others are still stored.",
        example={
            "kind": "Device",
            "rows": [
                {
                    "key": "d1",
                    "t": "2026-01-01T00:00:00Z",
                    "values": {"status": "ok", "note": "pump room sensor"},
                    "relations": {"LOCATED_IN": "r1"},
                }
            ],
        },
        agent_as="by",
        writes=True,
    ),
    Operation(
        "update",
        update,
        "write",
        (
            KIND,
            KEY,
            Param("t", "time", "when the change became true", required=True),
            Param("values", "object", "the values that change; the others are kept"),
            Param(
                "relations", "object", "relation type -> key or list of keys, for the relations that change"
            ),
            Param("entry", "text", "the id of the entry this change rests on"),
        ),
        'one receipt {"key", "status"}, status as remember gives, or busy',
        "Change some values or relations of one entity from time t on, keeping the rest as they are.",
        example={"kind": "Device", "key": "d1", "t": "2026-01-02T00:00:00Z", "values": {"status": "worn"}},
        agent_as="by",
        writes=True,
    ),
    Operation(
        "history",
        history,
        "read",
        (KIND, KEY),
        "the versions (States) of the entity, oldest first: its values, valid_from, valid_to once replaced, "
        'recorded_at, by, fp, entry when it rests on one, trust ("confirmed", "candidate" or "rejected") and '
        "review (who, when, why) once reviewed",
        "Every version an entity has had, oldest first, each with the time it became true and the time it "
        "stopped being true (absent while current), and its trust: what a model drew is a candidate until a "
        "person confirms or rejects it.",
        example={"kind": "Device", "key": "d1"},
        paged=True,
        answer=_history,
    ),
    Operation(
        "as_of",
        as_of,
        "read",
        (KIND, KEY, Param("when", "time", "the time to look at", required=True)),
        "the version that was true at that time, shaped as history gives it, or null",
        "What was true about one entity at a given time.",
        example={"kind": "Device", "key": "d1", "when": "2026-01-01T12:00:00Z"},
        answer=_as_of,
    ),
    Operation(
        "related",
        related,
        "read",
        (
            KIND,
            KEY,
            Param("relation", "text", "a relation type of the kind", required=True),
            Param("when", "time", "a time; now if not given"),
        ),
        "the keys the relation points at, sorted",
        "The entities one entity points at through a relation, now or at a given time.",
        example={"kind": "Device", "key": "d1", "relation": "LOCATED_IN"},
        paged=True,
    ),
    Operation(
        "diff_between",
        diff_between,
        "read",
        (
            Param("kinds", "kinds", "the kinds to compare", required=True),
            Param("t1", "time", "the start of the window (not included)", required=True),
            Param("t2", "time", "the end of the window (included)", required=True),
        ),
        "entities_added, values_changed, relations_opened, relations_closed, episodes_opened, episodes_closed",
        "What changed between two times: entities that appeared, values that changed, relations opened and "
        "closed, episodes opened and closed.",
        example={"kinds": ["Device"], "t1": "2025-12-31T00:00:00Z", "t2": "2026-01-03T00:00:00Z"},
    ),
    Operation(
        "entity",
        None,
        "read",
        (KIND, KEY),
        '{"key", "current": the version true now (shaped as history gives it), or null}',
        "The current values of one entity (a version a person rejected does not count: the one before it "
        "holds on).",
        example={"kind": "Device", "key": "d1"},
        answer=_entity,
    ),
    Operation(
        "entities",
        None,
        "read",
        (KIND,),
        "the keys of the kind's entities, sorted",
        "List the keys of the entities of a kind, a page at a time.",
        example={"kind": "Device"},
        paged=True,
        answer=_entities,
    ),
]
