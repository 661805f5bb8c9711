"""A model for the tests of recall by meaning, the same in every process, with no weights; and the
answers of an embedder that cannot be stored."""

from __future__ import annotations

import hashlib
import math

from lighthouse import Kind
from lighthouse.values import words

DIMS = 64
MANUAL = Kind("Manual", key="code", text=("title", "body"), dimensions=DIMS)
PLAIN = Kind("Plain", text=("note",))  # text, but no vectors
T = [f"2026-01-0{day}T00:00:00Z" for day in range(1, 10)]


def bag(texts: list[str]) -> list[list[float]]:
    """A model that is the same in every process: each word adds 1 at a place its hash picks."""
    found = []
    for text in texts:
        vector = [0.0] * DIMS
        vector[0] = 0.01  # so a text whose words all fall elsewhere still has a direction
        for word in words(text).split():
            vector[1 + int(hashlib.sha256(word.encode()).hexdigest(), 16) % (DIMS - 1)] += 1.0
        found.append(vector)
    return found


class Counting:
    """The bag model, remembering every list of texts it was asked about."""

    def __init__(self, then=None) -> None:
        self.asked: list[list[str]] = []
        self.then = then

    def __call__(self, texts: list[str]) -> list[list[float]]:
        self.asked.append(list(texts))
        if self.then is not None:
            self.then(texts)
        return bag(texts)

    @property
    def texts(self) -> int:
        return sum(len(one) for one in self.asked)


class Answer:
    def __init__(self, answer) -> None:
        self.answer = answer

    def __call__(self, texts):
        return self.answer(texts)


BAD_ANSWERS = {
    "too few": lambda texts: bag(texts)[1:],
    "too many": lambda texts: [*bag(texts), bag(["x"])[0]],
    "too short": lambda texts: [vector[:-1] for vector in bag(texts)],
    "too long": lambda texts: [[*vector, 1.0] for vector in bag(texts)],
    "nan": lambda texts: [[math.nan, *vector[1:]] for vector in bag(texts)],
    "inf": lambda texts: [[*vector[:-1], math.inf] for vector in bag(texts)],
    "-inf": lambda texts: [[-math.inf, *vector[1:]] for vector in bag(texts)],
    "zeros": lambda texts: [[0.0] * DIMS for _ in texts],
    "one zero vector": lambda texts: [*bag(texts)[:-1], [0] * DIMS],
    "a dict": lambda texts: {text: vector for text, vector in zip(texts, bag(texts), strict=True)},
    "a string": lambda texts: "vectors",
    "none": lambda texts: None,
    "a generator": lambda texts: (vector for vector in bag(texts)),
    "a text in a vector": lambda texts: [["1.0"] * DIMS for _ in texts],
    "a bool in a vector": lambda texts: [[True] * DIMS for _ in texts],
    "a vector that is a string": lambda texts: ["x" * DIMS for _ in texts],
    "a vector that is a dict": lambda texts: [dict.fromkeys(range(DIMS), 1.0) for _ in texts],
    "a huge whole number": lambda texts: [[10**400] * DIMS for _ in texts],
}
