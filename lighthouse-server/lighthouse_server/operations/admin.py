"""Operations of a tenant's administrator: its kinds and its audit records."""

from __future__ import annotations

from itertools import islice

from .. import audit
from ..export import export
from .table import Operation, Param, page_of


def _declare(call, arguments: dict) -> list:
    return call.parts.kinds.declare(
        call.principal.tenant, arguments["kinds"], call.principal.agent, written_on=call.graph
    )


def _kinds(call, arguments: dict) -> list:
    declared = call.parts.kinds.declared(call.principal.tenant, fresh=True)[0]
    return [declared[label] for label in sorted(declared)]


def _audit(call, arguments: dict) -> dict:
    # Paged in the database: every record can be reached, however many there are.
    offset, size = call.page
    return page_of(audit.read(call.parts.db, call.principal.tenant, offset=offset, limit=size + 1), call.page)


def _export(call, arguments: dict) -> dict:
    # Paged while streaming: every node and edge can be reached, however large the graph.
    offset, size = call.page
    return page_of(list(islice(export(call.graph), offset, offset + size + 1)), call.page)


OPERATIONS = [
    Operation(
        "declare_kinds",
        None,
        "admin",
        (
            Param(
                "kinds",
                "objects",
                'the kinds: each {"label", "key", "times": [...], "text": [...], "relations": {TYPE: label or "self"}, '
                '"dimensions"}; a relation target must be declared too',
                required=True,
            ),
        ),
        '[{"label", "status": "declared" or "unchanged"}]',
        "Declare (or change) the kinds of entities this tenant keeps. Every call that names a kind needs it "
        "declared first. A kind's key cannot change.",
        example={
            "kinds": [
                {"label": "Room", "key": "code"},
                {
                    "label": "Device",
                    "key": "serial",
                    "times": ["last_seen"],
                    "text": ["note"],
                    "relations": {"LOCATED_IN": "Room"},
                },
                {"label": "Note", "text": ["text"], "dimensions": 384},
            ]
        },
        writes=True,
        audited="kind_declared",
        answer=_declare,
    ),
    Operation(
        "kinds",
        None,
        "read",
        (),
        "the declarations of the tenant's kinds, sorted by label",
        "The kinds this tenant declared, with their keys, times, text and relations.",
        answer=_kinds,
    ),
    Operation(
        "audit",
        None,
        "admin",
        (),
        '[{"id", "at", "action", "who", "key_id", "what"}] oldest first',
        "The tenant's audit records: keys created and revoked, kinds declared, forgetting. Nothing edits them.",
        paged=True,
        pages_itself=True,
        answer=_audit,
    ),
    Operation(
        "export",
        None,
        "admin",
        (),
        '[{"type": "node", "id", "labels", "properties"} or {"type": "edge", "id", "relation", "from", "to", '
        '"properties"}], nodes first, paged',
        "Every node and edge of this tenant's graph with its properties, for a copy outside Lighthouse. "
        "Page through it with the cursor; the command line's `lighthouse export` writes it whole.",
        paged=True,
        pages_itself=True,
        answer=_export,
    ),
]
