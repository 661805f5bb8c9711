"""Embedder: the one shape an embedder has in the service, whichever kind the settings name."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple


class Embedder(NamedTuple):
    """A text embedder as the library takes one: `function` (a list of texts in, one vector of
    `dimensions` numbers for each out, what embed() and nearest() call), the `model`'s name (what the
    vectors are marked with) and the vectors' `dimensions`. Calling it calls the function."""

    function: Callable[[list[str]], list[list[float]]]
    model: str
    dimensions: int

    def __call__(self, texts: list[str]) -> list[list[float]]:
        return self.function(texts)
