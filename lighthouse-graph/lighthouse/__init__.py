"""Lighthouse: temporal, graph-native memory for AI agents on FalkorDB."""

from .clock import now, stamp
from .graphs import ensure_schema, tenant, world
from .kinds import SELF, Kind
from .read import as_of, history, related
from .values import Refused
from .write.batches import remember
from .write.failures import failures
from .write.partial import update

__all__ = [
    "SELF",
    "Kind",
    "Refused",
    "as_of",
    "ensure_schema",
    "failures",
    "history",
    "now",
    "related",
    "remember",
    "stamp",
    "tenant",
    "update",
    "world",
]
