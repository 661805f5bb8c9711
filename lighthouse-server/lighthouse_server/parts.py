"""The parts one process runs with, built once at its start and handed to what uses them.

serve builds them before the workers' loop and the service, so both hold the same tenants' kinds and
gates; an operation reaches them through its Call (operations/table.py), never through the service.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from .declarations import Kinds
from .embedders import Configured
from .gathering import Gathering
from .settings import Settings


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
    embedder: Configured
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
        embedder: Configured | None = None,
        noted: Callable[[], None] | None = None,
    ) -> Parts:
        """The parts over db and settings; kinds and embedder given where another part holds them already
        (serve's workers' loop), noted where this process runs workers."""
        if embedder is None:
            embedder = Configured(settings)
        if kinds is None:
            kinds = Kinds(db, entry_dimensions=embedder.dimensions)
        return cls(db, settings, kinds, embedder, noted=noted if noted is not None else _no_workers)
