"""The parts one process runs with, built once at its start and handed to what uses them.

serve builds them before the workers' loop and the service, so both hold the same tenants' kinds and
gates; an operation reaches them through its Call (operations/table.py), never through the service.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from .declarations import Kinds
from .gathering import Gathering
from .problems import ModelUnavailable
from .settings import Settings


class ConfiguredEmbedder:
    """The embedder the settings configure, loaded on its first use: calling it gives (embedder, model,
    dimensions), or None when none is configured.

    "local" loads the bundled model (EmbedderUnavailable when its extra is missing); "http" asks the
    embeddings endpoint once for its dimensions (EmbeddingsFailed when it cannot). A failed load is not
    kept: the next call tries again."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._loaded: tuple | None = None
        self._lock = threading.Lock()

    def __call__(self) -> tuple | None:
        if not self.settings.embedder:
            return None
        with self._lock:
            if self._loaded is None:
                if self.settings.embedder == "http":
                    from .worker.embeddings_http import http_embedder

                    self._loaded = http_embedder(
                        self.settings.embeddings_url,
                        self.settings.embeddings_model,
                        self.settings.embeddings_key,
                    )
                else:
                    from .embedders import local_embedder

                    self._loaded = local_embedder()
        return self._loaded

    def dimensions(self) -> int:
        """The size of the vectors it gives (0 without one, or when it cannot say): what a declaration
        makes the entries' vector index with."""
        if not self.settings.embedder:
            return 0
        if self.settings.embedder == "local":
            from .embedders import DIMENSIONS

            return DIMENSIONS
        try:
            return self()[2]
        except ModelUnavailable:
            return 0


def _no_workers() -> None:
    """A process without workers of its own: a kept note waits for the next round of another's."""


@dataclass(frozen=True)
class Parts:
    """The clients and parts of one process: the database client, the settings, the tenants' kinds and
    their gates, the configured embedder, the gathering of small writes, and noted(), which wakes this
    process's idle workers when notes were kept."""

    db: object  # falkordb.FalkorDB
    settings: Settings
    kinds: Kinds
    embedder: ConfiguredEmbedder
    gathering: Gathering = field(default_factory=Gathering)
    noted: Callable[[], None] = _no_workers

    def health(self) -> dict:
        """Whether the database answers."""
        try:
            self.db.connection.ping()
        except Exception:  # noqa: BLE001 - any failure to answer is "unreachable"
            return {"status": "degraded", "database": "unreachable"}
        return {"status": "ok", "database": "ok"}

    @classmethod
    def built(
        cls,
        db,
        settings: Settings,
        *,
        kinds: Kinds | None = None,
        embedder: ConfiguredEmbedder | None = None,
        noted: Callable[[], None] | None = None,
    ) -> Parts:
        """The parts over db and settings; kinds and embedder given where another part holds them already
        (serve's workers' loop), noted where this process runs workers."""
        if embedder is None:
            embedder = ConfiguredEmbedder(settings)
        if kinds is None:
            kinds = Kinds(db, entry_dimensions=embedder.dimensions)
        return cls(db, settings, kinds, embedder, noted=noted if noted is not None else _no_workers)
