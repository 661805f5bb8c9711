"""The workers' loop: each round, every tenant graph (`tenant:*`) gets its phases, extraction (when a
model is configured) and embedding (when an embedder is); an idle round is followed by
worker_interval_ms of sleep, which a note kept by the serve ends (wake()). Stopped by a threading.Event, between two notes at the latest.

It runs on a FalkorDB connection of its own, in `lighthouse serve` (a thread, holding the tenant's
writers' gate of the serve while it writes, so a kind declaration never meets its writes) or alone
as `lighthouse work`. Two loops on one database share the tenants: each tenant graph is read by one
worker at a time (claim.py), so no note is asked of the model twice.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time

from lighthouse import tenant
from lighthouse.graphs import TENANT_PREFIX  # the one name tenant() gives a tenant's graph

from ..declarations import Kinds
from ..service import Service
from ..settings import Settings
from ..topology import graph_names  # on a cluster, every primary's
from . import extraction, progress
from .claim import claim, lease_for, me, release
from .embedding import embed_pending
from .model import Model

SEEN_EVERY = 10.0  # seconds between two marks that a worker looks at a graph (status reads them)
_log = logging.getLogger(__name__)


def tenant_ids(db) -> list[str]:
    """Every tenant with a graph, sorted."""
    return sorted(name[len(TENANT_PREFIX) :] for name in graph_names(db) if name.startswith(TENANT_PREFIX))


class Loop:
    """The rounds over every tenant graph, in a thread of its own once started."""

    def __init__(self, settings: Settings, db, *, kinds: Kinds | None = None, say=print) -> None:
        self.settings = settings
        self.db = db
        self.service = Service(db, settings)
        if kinds is not None:
            self.service.kinds = kinds  # the serve's: its writers' gate is the one to hold
        self.model = Model(settings) if settings.model_url else None
        self.stop_event = threading.Event()
        self.wake_event = threading.Event()  # a note arrived: an idle loop starts its next round now
        self.say = say
        self._thread: threading.Thread | None = None
        self._held: dict[str, float] = {}  # tenant -> when this loop last took or kept its graph
        self.owner = me()
        self._told: set[str] = set()  # tenants whose other worker was logged already
        self.rounds = 0

    @property
    def runs_anything(self) -> bool:
        return self.model is not None or bool(self.settings.embedder)

    def describe(self) -> str:
        parts = [
            f"extraction with {self.model.name or 'the model'} at {self.settings.model_url}"
            if self.model is not None
            else "extraction does not run: no model is configured (model_url, LIGHTHOUSE_MODEL_URL)"
        ]
        if not self.settings.embedder:
            parts.append("embedding does not run: no embedder is configured")
        else:
            parts.append(f"embedding with the {self.settings.embedder} embedder")
        return "; ".join(parts)

    def _meaning(self):
        if not self.settings.embedder:
            return None
        try:
            return self.service.embedder()
        except Exception as error:  # noqa: BLE001 - the prompt then carries what words find
            _log.warning("the embedder cannot be loaded for prompts: %s", error)
            return None

    def _holds(self, tenant_id: str, graph) -> bool:
        """Whether this loop reads the tenant's notes: it takes the graph again every SEEN_EVERY s."""
        present = time.monotonic()
        if present - self._held.get(tenant_id, -SEEN_EVERY) < SEEN_EVERY:
            return True
        holder = claim(graph, self.owner, self.model.name, lease_for(self.settings))
        if holder is not None:
            if self._held.pop(tenant_id, None) is not None or tenant_id not in self._told:
                _log.warning("tenant %s: another worker reads its notes (%s)", tenant_id, holder)
                self._told.add(tenant_id)
            return False
        self._held[tenant_id] = present
        return True

    def _extract(self, tenant_id: str, graph, kinds: dict) -> bool:
        if not self._holds(tenant_id, graph) or not kinds:
            return False
        done = extraction.extract_notes(
            graph,
            kinds,
            self.model,
            prompt_entities=self.settings.prompt_entities,
            meaning=self._meaning(),
            owner=self.owner,
            stop=self.stop_event,
            writing=self.service.kinds.gate(tenant_id).writing,
        )
        if done["stopped"] == extraction.LOST_CLAIM:  # taken by another worker: ask again next round
            self._held.pop(tenant_id, None)
        return (done["read"] + done["set_aside"]) > 0 and done["stopped"] is None

    def round(self) -> bool:
        """One round over every tenant; True when some phase did work (so the next round comes at once)."""
        busy = False
        for tenant_id in tenant_ids(self.db):
            if self.stop_event.is_set():
                break
            graph = tenant(self.db, tenant_id)
            try:
                self.service.kinds.keep_layout(tenant_id)
                kinds = self.service.kinds.declared(tenant_id)[1]
                if self.model is not None:
                    busy = self._extract(tenant_id, graph, kinds) or busy
                if self.settings.embedder:
                    embedded = embed_pending(graph, kinds, self.service)
                    busy = busy or bool(isinstance(embedded, dict) and embedded.get("embedded"))
            except Exception as error:  # noqa: BLE001 - one tenant's trouble stops neither the loop nor the others
                _log.exception("the worker failed on tenant %s", tenant_id)
                with contextlib.suppress(Exception):  # the database itself may be what failed
                    progress.note_error(graph, f"{type(error).__name__}: {error}")
        self.rounds += 1
        return busy

    def run(self) -> None:
        """Rounds until the stop event is set; an idle round waits worker_interval_ms."""
        interval = self.settings.worker_interval_ms / 1000
        while not self.stop_event.is_set():
            try:
                busy = self.round()
            except Exception:  # noqa: BLE001 - the database went away: try again after a pause
                _log.exception("a round of the worker failed")
                busy = False
            if not busy and not self.stop_event.is_set():
                self.wake_event.wait(interval)
            self.wake_event.clear()
        for tenant_id in list(self._held):
            with contextlib.suppress(Exception):  # the database may be gone already: the pid tells then
                release(tenant(self.db, tenant_id), self.owner)
        if self.model is not None:
            self.model.close()

    def start(self) -> Loop:
        self._thread = threading.Thread(target=self.run, name="lighthouse-worker", daemon=True)
        self._thread.start()
        return self

    def wake(self) -> None:
        """Ends an idle wait: the serve calls it when notes were kept, so they are read within a round."""
        self.wake_event.set()

    def stop(self, timeout: float = 30.0) -> None:
        self.stop_event.set()
        self.wake_event.set()
        if self._thread is not None:
            self._thread.join(timeout)
