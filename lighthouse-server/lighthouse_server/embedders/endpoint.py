"""An embedder that asks any OpenAI-compatible embeddings endpoint: POST {url}/embeddings.

The library takes an embedder as a function (a list of texts in, one vector per text out); this one
sends the texts in batches to the endpoint named by the settings embeddings_url, embeddings_model and
embeddings_key. Its dimensions are learned from the endpoint's first answer and every later answer
must keep them. Whatever goes wrong (no answer, a status that is not 200, JSON of another shape)
raises EmbeddingsFailed with a message that says what the endpoint did, and nothing is stored.
"""

from __future__ import annotations

import math

import httpx

from ..problems import Unavailable
from .typed import Embedder

TIMEOUT_S = 30.0  # one answer of the endpoint; past it the ask failed
BATCH = 64  # texts one request carries: endpoints limit the size of a request
PROBE = "dimensions"  # the text asked once, to learn how many numbers a vector of the model has
SHOWN = 200  # characters of an endpoint's answer quoted in an error


class EmbeddingsFailed(Unavailable):
    """The embeddings endpoint gave no usable answer; the message says what it did."""


def _vectors(answer: httpx.Response, where: str, count: int) -> list[list[float]]:
    """The vectors of one answer, in the order of the texts asked; EmbeddingsFailed for any other shape."""
    if answer.status_code != 200:
        raise EmbeddingsFailed(f"{where} answered {answer.status_code}: {answer.text[:SHOWN]!r}")
    try:
        body = answer.json()
    except ValueError:
        raise EmbeddingsFailed(
            f"{where} answered something that is not JSON: {answer.text[:SHOWN]!r}"
        ) from None
    data = body.get("data") if isinstance(body, dict) else None
    if not isinstance(data, list) or len(data) != count:
        raise EmbeddingsFailed(f"{where} answered no list of {count} embeddings under data")
    found: dict[int, list[float]] = {}
    for place, item in enumerate(data):
        vector = item.get("embedding") if isinstance(item, dict) else None
        index = item.get("index", place) if isinstance(item, dict) else None
        if type(index) is not int or not 0 <= index < count or index in found:
            raise EmbeddingsFailed(f"{where} answered embedding {place} with a wrong index")
        if (
            not isinstance(vector, list)
            or not vector
            or not all(type(x) in (int, float) and math.isfinite(x) for x in vector)
        ):
            raise EmbeddingsFailed(f"{where} answered embedding {place} that is not a list of numbers")
        found[index] = [float(x) for x in vector]
    return [found[index] for index in range(count)]


def http_embedder(url: str, model: str, key: str = "", *, timeout: float = TIMEOUT_S) -> Embedder:
    """The Embedder (function, model, dimensions) for the endpoint at the base URL `url` (e.g. http://host/v1).

    Asks the endpoint once, here, to learn the dimensions; raises EmbeddingsFailed when it cannot, or
    when url or model is empty. embedder(texts) asks BATCH texts a request and raises EmbeddingsFailed
    when an answer fails or its vectors have other dimensions than the first.
    """
    if not url:
        raise EmbeddingsFailed('embedder = "http" needs embeddings_url, the endpoint\'s base URL')
    if not model:
        raise EmbeddingsFailed('embedder = "http" needs embeddings_model, the model the endpoint runs')
    where = f"the embeddings endpoint {url.rstrip('/')}/embeddings"
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    client = httpx.Client(timeout=timeout, headers=headers)

    def asked(texts: list[str]) -> list[list[float]]:
        try:
            answer = client.post(f"{url.rstrip('/')}/embeddings", json={"model": model, "input": texts})
        except httpx.TimeoutException:
            raise EmbeddingsFailed(f"{where} did not answer within {timeout:g} s") from None
        except httpx.HTTPError as error:
            raise EmbeddingsFailed(f"{where} cannot be reached: {error}") from None
        return _vectors(answer, where, len(texts))

    dimensions = len(asked([PROBE])[0])

    def embedder(texts: list[str]) -> list[list[float]]:
        if not isinstance(texts, list) or not all(isinstance(text, str) for text in texts):
            raise TypeError("the embedder reads a list of texts")
        vectors: list[list[float]] = []
        for start in range(0, len(texts), BATCH):
            vectors += asked(texts[start : start + BATCH])
        for vector in vectors:
            if len(vector) != dimensions:
                raise EmbeddingsFailed(
                    f"{where} answered a vector of {len(vector)} numbers; its first had {dimensions}"
                )
        return vectors

    return Embedder(embedder, model, dimensions)
