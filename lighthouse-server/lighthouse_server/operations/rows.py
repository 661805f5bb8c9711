"""Operations on rows of a kind: write them, read their history, their state at a time, their relations."""

from __future__ import annotations

from lighthouse import as_of, diff_between, entity_keys, history, now, related, remember, update

from ..problems import Problem
from .table import Operation, Param, page_of

ROW_FIELDS = ("key", "t", "values", "relations", "entry")
UPDATE_ROWS_MOST = 1_000
RECEIPT_STATUSES = (
    "created, changed, inserted, unchanged, stale, conflict, missing, invalid, failed or busy (a reason with "
    "the last five)"
)

KIND = Param("kind", "kind", "the label of the kind (declared with declare_kinds)", required=True)
KEY = Param("key", "key", "the key of the entity", required=True)


def trusted(state: dict | None) -> dict | None:
    """A State as the service gives it: with its trust always said. The library leaves trust out of a
    structured State never reviewed (the published shape); such a State is confirmed. A State whose own
    values hold a value named trust keeps it (the library draws and reviews none of those)."""
    if state is None or "trust" in state:
        return state
    return {**state, "trust": "confirmed"}


def relations_at(call, kind, key, when=None) -> dict[str, list]:
    """Relation type -> the keys the entity points at through it: its open edges (when None) or those
    valid at when."""
    return {
        relation: related(call.graph, kind, key, relation, when=when) for relation in sorted(kind.relations)
    }


def with_relations(call, kind, key, state: dict | None) -> dict | None:
    """A State with "relations": those valid from its start (a value of its own named relations stays)."""
    if state is None or "relations" in state:
        return state
    return {**state, "relations": relations_at(call, kind, key, state["valid_from"])}


def _entity(call, arguments: dict) -> dict:
    """What counts now: a State a person rejected does not, and the one before it holds on."""
    kind, key = arguments["kind"], arguments["key"]
    state = as_of(graph=call.graph, kind=kind, key=key, when=now(), rejected=False)
    return {"key": key, "current": trusted(state), "relations": relations_at(call, kind, key)}


def _history(call, arguments: dict) -> dict:
    """One page of the States, each with its relations (read for the page's States only)."""
    offset, size = call.page
    states = history(graph=call.graph, **arguments)[offset : offset + size + 1]
    page = page_of(states, call.page)
    kind, key = arguments["kind"], arguments["key"]
    page["items"] = [with_relations(call, kind, key, trusted(state)) for state in page["items"]]
    return page


def _as_of(call, arguments: dict) -> dict | None:
    arguments.setdefault("when", now())
    state = trusted(as_of(graph=call.graph, **arguments))
    return with_relations(call, arguments["kind"], arguments["key"], state)


def _update_rows(call, arguments: dict) -> list:
    """update() for each row in order: what a row names changes, the rest of its entity is kept."""
    given = arguments["rows"]
    if len(given) > UPDATE_ROWS_MOST:
        raise Problem("invalid_argument", f"rows holds at most {UPDATE_ROWS_MOST} rows")
    receipts = []
    for row in given:
        unknown = sorted(set(row) - set(ROW_FIELDS)) if isinstance(row, dict) else []
        if not isinstance(row, dict) or unknown:
            said = f"no field {unknown[0][:100]!r}" if unknown else "a row is a JSON object"
            receipts.append(
                {"key": None, "status": "invalid", "reason": f"{said}: a row has {', '.join(ROW_FIELDS)}"}
            )
            continue
        receipts.append(
            update(
                call.graph,
                arguments["kind"],
                row.get("key"),
                row.get("t"),
                arguments["by"],
                values=row.get("values"),
                relations=row.get("relations"),
                entry=row.get("entry"),
            )
        )
    return receipts


def _entities(call, arguments: dict) -> dict:
    """One page of the kind's keys, read as one: the page's items and one more (that one says a next
    page exists), never the whole kind."""
    kind = arguments["kind"]
    offset, size = call.page
    found = entity_keys(
        call.graph, kind, skip=offset, limit=size + 1, timeout=call.parts.settings.query_timeout_ms
    )
    return page_of(found, call.page)


OPERATIONS = [
    Operation(
        "remember",
        remember,
        "write",
        (
            KIND,
            Param(
                "rows",
                "rows",
                "the full pictures: each row is ALL that is true of its entity from t on",
                required=True,
            ),
        ),
        'a list of receipts, one per row in order: {"key", "status"}, status ' + RECEIPT_STATUSES + "; a "
        'row that ended values or relations has "ended": {"values": [names], "relations": {type: [keys]}}',
        "FULL PICTURE WRITE: each row replaces its entity's whole state from time t on. Every value and "
        "relation the row leaves out ENDS at t (it stays in the history). To change only some values or "
        "relations and keep the rest, use update_rows. A row equal to the current state changes nothing; "
        "bad rows are refused one by one with a reason, the others are still stored.",
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
        "update_rows",
        update,
        "write",
        (
            KIND,
            Param(
                "rows",
                "rows",
                f"at most {UPDATE_ROWS_MOST}; each names only what changes of its entity from t on",
                required=True,
            ),
        ),
        'a list of receipts, one per row in order: {"key", "status"}, status ' + RECEIPT_STATUSES,
        "Change what each row names (values, relations) from time t on and keep everything else its entity "
        "holds; a value or a relation type set to null ends it. An entity not known yet is created with "
        "what the row names. Use it for one entity or many.",
        example={
            "kind": "Device",
            "rows": [{"key": "d1", "t": "2026-01-01T12:00:00Z", "values": {"status": "warm"}}],
        },
        agent_as="by",
        writes=True,
        answer=_update_rows,
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
        "review (who, when, why) once reviewed, and relations: {type: [keys]} valid from its start",
        "Every version an entity has had, oldest first, each with the time it became true and the time it "
        "stopped being true (absent while current), and its trust: what a model drew is a candidate until a "
        "person confirms or rejects it.",
        example={"kind": "Device", "key": "d1"},
        paged=True,
        answer=_history,
        pages_itself=True,
    ),
    Operation(
        "as_of",
        as_of,
        "read",
        (KIND, KEY, Param("at", "time", "the time to look at; now if not given", to="when", also=("when",))),
        "the version that was true at that time, shaped as history gives it (its relations too), or null",
        "What was true about one entity at a given time.",
        example={"kind": "Device", "key": "d1", "at": "2026-01-01T12:00:00Z"},
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
            Param("at", "time", "a time; now if not given", to="when", also=("when",)),
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
            Param(
                "since",
                "time",
                "the start of the window (not included)",
                required=True,
                to="t1",
                also=("t1",),
            ),
            Param("until", "time", "the end of the window (included)", required=True, to="t2", also=("t2",)),
        ),
        "entities_added, values_changed, relations_opened, relations_closed, episodes_opened, episodes_closed",
        "What changed between two times: entities that appeared, values that changed, relations opened and "
        "closed, episodes opened and closed.",
        example={"kinds": ["Device"], "since": "2025-12-31T00:00:00Z", "until": "2026-01-03T00:00:00Z"},
    ),
    Operation(
        "entity",
        None,
        "read",
        (KIND, KEY),
        '{"key", "current": the version true now (shaped as history gives it), or null, "relations": '
        "{type: [keys]} it points at now}",
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
        pages_itself=True,
    ),
]
