"""The kinds each tenant declares: stored in the tenant's own graph, read by every process.

A declaration is JSON: {"label", "key", "times", "text", "relations": {TYPE: target label or "self"},
"dimensions"}. It lives on a node labelled `lh.KindDeclaration` (no Kind label can hold a dot) in
the graph tenant() gives, so a restart or another process sees it. ensure_schema() runs once per
change, while that tenant's calls wait; ensure_schema calls of one process never overlap (the
test FalkorDB crashed on two concurrent GRAPH.CONSTRAINT CREATE).
"""

from __future__ import annotations

import json
import threading
import time
from contextlib import contextmanager

from lighthouse import SELF, Kind, SchemaNotReady, ensure_schema, now, tenant, upgrade_waiting

from .problems import Problem
from .reading import rows

DECLARATION = "`lh.KindDeclaration`"
FIELDS = ("label", "key", "times", "text", "relations", "dimensions")
REREAD_AFTER = 2.0  # seconds: how stale another process's declaration may be seen here
SCHEMA_LOCK = threading.Lock()  # one ensure_schema at a time in this process


class _SchemaGate:
    """A tenant's schema: many calls using it at once (reads and writes alike), or one change alone."""

    def __init__(self) -> None:
        self._condition = threading.Condition()
        self._users = 0
        self._changing = False

    @contextmanager
    def using(self):
        with self._condition:
            while self._changing:
                self._condition.wait()
            self._users += 1
        try:
            yield
        finally:
            with self._condition:
                self._users -= 1
                self._condition.notify_all()

    writing = using  # the name worker/loop.py and console/app.py still call

    @contextmanager
    def changing(self):
        with self._condition:
            while self._changing:
                self._condition.wait()
            self._changing = True
            while self._users:
                self._condition.wait()
        try:
            yield
        finally:
            with self._condition:
                self._changing = False
                self._condition.notify_all()


def _text_list(declaration: dict, name: str) -> list[str]:
    value = declaration.get(name, [])
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise Problem("invalid_argument", f"{name} of a kind must be a list of property names")
    return value


def checked(declaration: object) -> dict:
    """A declaration with only its known fields, in JSON form; Problem invalid_argument otherwise."""
    if not isinstance(declaration, dict):
        raise Problem("invalid_argument", "a kind declaration must be a JSON object")
    unknown = sorted(set(declaration) - set(FIELDS))
    if unknown:
        raise Problem(
            "invalid_argument", f"a kind declaration has no field {unknown[0]!r}; it has {', '.join(FIELDS)}"
        )
    label, key = declaration.get("label"), declaration.get("key", "key")
    relations = declaration.get("relations", {})
    dimensions = declaration.get("dimensions", 0)
    if not isinstance(label, str) or not isinstance(key, str):
        raise Problem("invalid_argument", "label and key of a kind must be text")
    if not isinstance(relations, dict) or not all(isinstance(target, str) for target in relations.values()):
        raise Problem(
            "invalid_argument", 'relations of a kind map a relation type to a target label or "self"'
        )
    if type(dimensions) is not int:
        raise Problem("invalid_argument", "dimensions of a kind must be a whole number from 0 to 4096")
    return {
        "label": label,
        "key": key,
        "times": _text_list(declaration, "times"),
        "text": _text_list(declaration, "text"),
        "relations": dict(relations),
        "dimensions": dimensions,
    }


def built(declarations: dict[str, dict]) -> dict[str, Kind]:
    """Kind objects for declarations by label; each relation target must be declared among them."""
    made: dict[str, Kind] = {}
    waiting = dict(declarations)
    while waiting:
        progressed = False
        for label, declaration in list(waiting.items()):
            targets = [target for target in declaration["relations"].values() if target not in (SELF, label)]
            missing = [target for target in targets if target not in declarations]
            if missing:
                raise Problem("not_found", f"kind {label!r} points at {missing[0]!r}, which is not declared")
            if any(target not in made for target in targets):
                continue
            relations = {
                relation: SELF if target in (SELF, label) else made[target]
                for relation, target in declaration["relations"].items()
            }
            try:
                made[label] = Kind(
                    label,
                    key=declaration["key"],
                    times=tuple(declaration["times"]),
                    relations=relations,
                    text=tuple(declaration["text"]),
                    dimensions=declaration["dimensions"],
                )
            except (ValueError, TypeError) as error:
                raise Problem("invalid_argument", f"kind {label!r}: {error}") from None
            del waiting[label]
            progressed = True
        if not progressed:
            raise Problem("invalid_argument", f"kinds {sorted(waiting)} point at each other in a circle")
    return made


class Kinds:
    """The declared kinds of every tenant, as this process last read them."""

    def __init__(self, db, entry_dimensions=None) -> None:
        self.db = db
        # A function giving the size of the entries' vectors to make with a declaration (0: none), so
        # the embedding worker need not build that index later while the tenant's calls run.
        self._entry_dimensions = entry_dimensions
        self._known: dict[str, tuple[float, dict[str, dict], dict[str, Kind]]] = {}
        self._gates: dict[str, _SchemaGate] = {}
        self._layout_kept: set[str] = set()  # tenants whose vectors were seen where this version keeps them
        self._lock = threading.Lock()

    def gate(self, tenant_id: str) -> _SchemaGate:
        with self._lock:
            return self._gates.setdefault(tenant_id, _SchemaGate())

    def _read(self, tenant_id: str, graph=None) -> dict[str, dict]:
        found = rows(
            tenant(self.db, tenant_id) if graph is None else graph,
            f"MATCH (d:{DECLARATION}) RETURN d.label, d.declaration ORDER BY d.label",
        )
        return {label: json.loads(text) for label, text in found}

    def declared(self, tenant_id: str, *, fresh: bool = False) -> tuple[dict[str, dict], dict[str, Kind]]:
        with self._lock:
            known = self._known.get(tenant_id)
        if known is None or fresh or time.monotonic() - known[0] > REREAD_AFTER:
            declarations = self._read(tenant_id)
            if known is None or declarations != known[1]:
                known = (time.monotonic(), declarations, built(declarations))
            else:
                known = (time.monotonic(), known[1], known[2])
            with self._lock:
                self._known[tenant_id] = known
        return known[1], known[2]

    def kind(self, tenant_id: str, label: object) -> Kind:
        """The Kind a label names in this tenant; Problem not_found for one not declared."""
        if not isinstance(label, str):
            raise Problem("invalid_argument", "a kind is named by its label, as text")
        kinds = self.declared(tenant_id)[1]
        if label not in kinds:
            kinds = self.declared(tenant_id, fresh=True)[1]
        if label not in kinds:
            raise Problem("not_found", f"no kind {label[:200]!r} is declared in this tenant")
        return kinds[label]

    def keep_layout(self, tenant_id: str) -> None:
        """Once per tenant and process, before its first call: a graph written by an earlier version, whose
        entities keep their vectors themselves (lighthouse.vector_layout), or whose counters and records
        are not yet in the design's form (lighthouse.model_layout), gets ensure_schema(), which moves them,
        while the tenant's calls in this process are held back, as for a declaration. Three reads when
        there is nothing to move, and none after the first call."""
        with self._lock:
            if tenant_id in self._layout_kept:
                return
        kinds = list(self.declared(tenant_id)[1].values())
        graph = tenant(self.db, tenant_id)
        if upgrade_waiting(graph, kinds):
            with self.gate(tenant_id).changing(), SCHEMA_LOCK:
                # Not moved by another thread meanwhile.
                if upgrade_waiting(graph, kinds):
                    self._schema(graph, kinds)
        with self._lock:
            self._layout_kept.add(tenant_id)

    def _schema(self, graph, kinds: list) -> None:
        """ensure_schema() for the kinds, and the entries' vector index when an embedder says its size
        (left as it is when the graph has one of another size: the embedding status says so)."""
        size = self._entry_dimensions() if self._entry_dimensions is not None else 0
        try:
            ensure_schema(graph, kinds=kinds, entry_dimensions=size)
        except SchemaNotReady as error:
            if not size or "Entry already has a vector index" not in str(error):
                raise
            ensure_schema(graph, kinds=kinds)

    def declare(self, tenant_id: str, declarations: list, by: str, *, written_on=None) -> list[dict]:
        """Stores the declarations (a new one, or a changed one with the same key) and runs
        ensure_schema() once for the tenant's kinds, its calls held back meanwhile. written_on: the
        graph the declarations are read from and kept on (the call's, once() for an idempotency key);
        the schema is made on the tenant's graph itself."""
        if not isinstance(declarations, list) or not 1 <= len(declarations) <= 100:
            raise Problem("invalid_argument", "kinds must be a list of 1 to 100 kind declarations")
        given = [checked(declaration) for declaration in declarations]
        graph = tenant(self.db, tenant_id)
        with self.gate(tenant_id).changing():
            before = self._read(tenant_id, written_on)
            for declaration in given:
                earlier = before.get(declaration["label"])
                if earlier is not None and earlier["key"] != declaration["key"]:
                    raise Problem(
                        "invalid_argument",
                        f"kind {declaration['label']!r} is declared with key {earlier['key']!r}: its key cannot change",
                    )
            after = {**before, **{declaration["label"]: declaration for declaration in given}}
            kinds = built(after)
            changed = [
                declaration for declaration in given if before.get(declaration["label"]) != declaration
            ]
            if changed:
                with SCHEMA_LOCK:
                    self._schema(graph, list(kinds.values()))
                for declaration in changed:
                    (graph if written_on is None else written_on).query(
                        f"MERGE (d:{DECLARATION} {{label: $label}}) SET d.declaration = $declaration, "
                        "d.declared_at = $at, d.declared_by = $by",
                        {
                            "label": declaration["label"],
                            "declaration": json.dumps(declaration),
                            "at": now(),
                            "by": by,
                        },
                    )
            with self._lock:
                self._known[tenant_id] = (time.monotonic(), after, kinds)
        return [{"label": d["label"], "status": "declared" if d in changed else "unchanged"} for d in given]
