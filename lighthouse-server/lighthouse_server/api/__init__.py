"""The HTTP API under /v1."""

from .app import build
from .body import BodyLimit

__all__ = ["BodyLimit", "build"]
