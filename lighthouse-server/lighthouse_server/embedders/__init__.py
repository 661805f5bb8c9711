"""The service's embedders, each an Embedder (typed.py): the bundled local model (local.py) and any
OpenAI-compatible embeddings endpoint (endpoint.py); Configured, the one the settings name, loaded on
first use and handed to what embeds (the operations, the declarations, the embedding worker)."""

from __future__ import annotations

import threading

from ..problems import Unavailable
from .endpoint import EmbeddingsFailed, http_embedder
from .local import DIMENSIONS, MODEL_NAME, EmbedderUnavailable, local_embedder
from .typed import Embedder

__all__ = [
    "DIMENSIONS",
    "MODEL_NAME",
    "Configured",
    "Embedder",
    "EmbedderUnavailable",
    "EmbeddingsFailed",
    "http_embedder",
    "local_embedder",
]


class Configured:
    """The embedder the settings name ("local", "http" or none), loaded on first use. A failed load is
    not kept: the next use tries again."""

    def __init__(self, settings) -> None:
        self.setting = settings.embedder
        self.url, self.model_named, self.key = (
            settings.embeddings_url,
            settings.embeddings_model,
            settings.embeddings_key,
        )
        self._loaded: Embedder | None = None
        self._lock = threading.Lock()

    @property
    def configured(self) -> bool:
        return bool(self.setting)

    @property
    def model(self) -> str | None:
        """The model the settings name, without loading or asking it; None when none is set."""
        if self.setting == "http":
            return self.model_named or None
        return MODEL_NAME if self.setting == "local" else None

    @property
    def endpoint(self) -> tuple:
        """What tells two configured embedders apart (the worker rests a failed one by it)."""
        return (self.setting, self.url, self.model_named)

    def load(self) -> Embedder | None:
        """The Embedder, loaded on first use; None when none is configured. "local" loads the bundled
        model (EmbedderUnavailable when its extra is missing); "http" asks the endpoint once for its
        dimensions (EmbeddingsFailed when it cannot)."""
        if not self.setting:
            return None
        with self._lock:
            if self._loaded is None:
                if self.setting == "http":
                    self._loaded = http_embedder(self.url, self.model_named, self.key)
                else:
                    self._loaded = local_embedder()
        return self._loaded

    def dimensions(self) -> int:
        """The size of its vectors: 0 without an embedder, or when the endpoint cannot say now."""
        if not self.setting:
            return 0
        if self.setting == "local":
            return DIMENSIONS
        try:
            return self.load().dimensions
        except Unavailable:  # the endpoint cannot be asked now
            return 0
