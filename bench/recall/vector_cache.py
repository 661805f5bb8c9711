"""Vectors of notes kept on disk between runs (--cache DIR), so that a second run embeds nothing again.

The cache wraps the embedder only where notes are embedded, never where a question is asked: the
latency of an ask always includes embedding its question. Each vector is found by the sha256 of the model
name and the text, so a changed text (a chunk, a transcript) or another model is embedded afresh. A run
that took vectors from the cache says how many: its embedding rate is then not the model's.
"""

from __future__ import annotations

import hashlib
from pathlib import Path


def _key(model: str, text: str) -> str:
    return hashlib.sha256(f"{model}\n{text}".encode()).hexdigest()


class CachedEmbedder:
    """An embedder function that answers from the cache what it holds and asks the model the rest."""

    def __init__(self, function, model: str, folder: str):
        import numpy  # the embedder's own dependency

        self.numpy, self.function, self.model = numpy, function, model
        self.path = Path(folder) / f"{hashlib.sha256(model.encode()).hexdigest()[:16]}.npz"
        self.vectors: dict[str, list[float]] = {}
        self.taken = 0  # vectors answered from the cache
        self.modelled = 0  # vectors the model made
        if self.path.is_file():
            with numpy.load(self.path) as stored:
                for key, vector in zip(stored["keys"], stored["vectors"], strict=True):
                    self.vectors[str(key)] = vector.tolist()

    def __call__(self, texts: list[str]) -> list[list[float]]:
        keys = [_key(self.model, text) for text in texts]
        missing = [place for place, key in enumerate(keys) if key not in self.vectors]
        if missing:
            for place, vector in zip(missing, self.function([texts[p] for p in missing]), strict=True):
                self.vectors[keys[place]] = list(vector)
        self.taken += len(texts) - len(missing)
        self.modelled += len(missing)
        return [self.vectors[key] for key in keys]

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        keys = list(self.vectors)
        vectors = self.numpy.array([self.vectors[key] for key in keys], dtype=self.numpy.float32)
        partial = self.path.with_suffix(".partial.npz")
        self.numpy.savez(partial, keys=self.numpy.array(keys), vectors=vectors)
        partial.replace(self.path)
