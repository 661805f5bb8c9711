"""The workers' loop: each round, every tenant graph (`tenant:*`) gets its phases, extraction (when a
model is configured) and embedding (when an embedder is); an idle round is followed by
worker_interval_ms of sleep, which a note kept by the serve ends (wake()). Stopped by a threading.Event, between two notes at the latest.

It runs on a FalkorDB connection of its own, in `lighthouse serve` (a thread, holding the tenant's
writers' gate of the serve while it writes, so a kind declaration never meets its writes) or alone
as `lighthouse work`. Two loops on one database share the tenants: each tenant graph is read by one
worker at a time (lighthouse.hold_extraction()), so no note is asked of the model twice.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time

from lighthouse import hold_extraction, keep_extraction_error, leave_extraction, tenant, tenant_ids

from ..declarations import Kinds
from ..embedders import Configured, Embedder
from ..settings import Settings
from . import extraction
from .embedding import embed_pending
from .lease import gone, lease_for, me
from .model import Model

SEEN_EVERY = 10.0  # seconds between two marks that a worker looks at a graph (status reads them)
_log = logging.getLogger(__name__)


class Loop:
    """The rounds over every tenant graph, in a thread of its own once started."""

    def __init__(
        self,
        settings: Settings,
        db,
        *,
        kinds: Kinds | None = None,
        embedder: Configured | None = None,
        say=print,
    ) -> None:
        """kinds and embedder: the serve's (its writers' gates are the ones to hold, its embedder the one
        loaded); a loop of its own (`lighthouse work`) makes them from the settings."""
        self.settings = settings
        self.db = db
        self.embedder = embedder if embedder is not None else Configured(settings)
        self.kinds = kinds if kinds is not None else Kinds(db, entry_dimensions=self.embedder.dimensions)
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
        return self.model is not None or self.embedder.configured

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

    def _meaning(self, graph) -> Embedder | None:
        if not self.embedder.configured:
            return None
        try:
            return self.embedder.load()
        except Exception as error:  # noqa: BLE001 - the prompt then carries what words find; the status says why
            _log.warning("the embedder cannot be loaded for prompts: %s", error)
            keep_extraction_error(
                graph, f"the embedder cannot be loaded for prompts: {type(error).__name__}: {error}"
            )
            return None

    def _holds(self, tenant_id: str, graph) -> bool:
        """Whether this loop reads the tenant's notes: it takes the graph again every SEEN_EVERY s."""
        present = time.monotonic()
        if present - self._held.get(tenant_id, -SEEN_EVERY) < SEEN_EVERY:
            return True
        lease = lease_for(self.settings)
        holder = hold_extraction(graph, self.owner, self.model.name or None, lease, gone)
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
        done = extraction.extract_notes_with(
            graph,
            kinds,
            self.model,
            prompt_entities=self.settings.prompt_entities,
            meaning=self._meaning(graph),
            owner=self.owner,
            stop=self.stop_event,
            writing=self.kinds.gate(tenant_id).writing,
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
                self.kinds.keep_layout(tenant_id)
                kinds = self.kinds.declared(tenant_id)[1]
                if self.model is not None:
                    busy = self._extract(tenant_id, graph, kinds) or busy
                if self.embedder.configured:
                    embedded = embed_pending(
                        graph, kinds, self.embedder, changing=self.kinds.gate(tenant_id).changing
                    )
                    busy = busy or bool(isinstance(embedded, dict) and embedded.get("embedded"))
            except Exception as error:  # noqa: BLE001 - one tenant's trouble stops neither the loop nor the others
                _log.exception("the worker failed on tenant %s", tenant_id)
                with contextlib.suppress(Exception):  # the database itself may be what failed
                    keep_extraction_error(graph, f"{type(error).__name__}: {error}")
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
                leave_extraction(tenant(self.db, tenant_id), self.owner)
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
