"""The model the extraction worker asks: any OpenAI-compatible chat endpoint, for one JSON answer.

POST {model_url}/chat/completions with the bearer model_key, the model model_name and
response_format json_object; the answer is the first choice's message content, read as JSON. Every way
an ask can fail is one ModelFailure with a kind: "malformed" (the content is not a JSON object),
"server" (5xx), "client" (another 4xx), "timeout", "unreachable" (no connection), "rate_limited" (429)
or "misconfigured" (401, 403, 404: a wrong key, URL or model name). model_timeout_s bounds the whole
ask, from the connection to the last byte of the answer: past it the connection is cut (a model that
trickles its answer a byte at a time is as late as one that says nothing). Each failed ask counts toward
model_attempts except "unreachable", "rate_limited" and "misconfigured" (WAITING): those may be the
model's fault rather than the note's, so ask() raises them at once and the round
(lighthouse.extract_notes(), with extraction.py's extractor) judges them against the model's answers to
other notes; ask(patient=True) retries them too.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from dataclasses import dataclass

import httpx

from ..settings import Settings

BACKOFF_FIRST = 0.05  # seconds before the second ask of a note; doubled for each ask after it
BACKOFF_MOST = 2.0  # seconds: the longest wait between two asks
MAX_ANSWER = 1_000_000  # characters of one answer's content; more is malformed
UNREACHABLE = "unreachable"
BUSY = "rate_limited"
MISCONFIGURED = "misconfigured"
SETTINGS_REFUSED = frozenset({401, 403, 404})  # the key, the URL or the model name is wrong
WAITING = frozenset({UNREACHABLE, BUSY, MISCONFIGURED, "stopped"})  # the note waits: not its fault


class ModelFailure(Exception):
    """One ask that gave no usable answer: `kind` says how, the message what was seen."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.asks = 1  # how many asks of the note failed before this one was raised

    def __str__(self) -> str:
        return f"{self.kind}: {super().__str__()}"


def backoff(attempt: int) -> float:
    """Seconds to wait after the attempt-th failed ask (1 is the first): short and bounded."""
    return min(BACKOFF_FIRST * 2 ** (attempt - 1), BACKOFF_MOST)


@dataclass(frozen=True)
class Asked:
    """A usable answer: the JSON object the model gave, and how many asks it took."""

    answer: dict
    asks: int


class Model:
    """One OpenAI-compatible chat endpoint, with one HTTP client kept open between asks."""

    def __init__(self, settings: Settings) -> None:
        if not settings.model_url:
            raise ValueError("no model is configured (model_url is empty)")
        self.url = settings.model_url.rstrip("/") + "/chat/completions"
        self.name = settings.model_name
        self.attempts = settings.model_attempts
        self.timeout = float(settings.model_timeout_s)
        headers = {"Authorization": f"Bearer {settings.model_key}"} if settings.model_key else {}
        # A connection of its own for each ask: the watchdog of an ask cuts the connection it opened.
        self._client = httpx.Client(
            headers=headers, timeout=self.timeout, limits=httpx.Limits(max_keepalive_connections=0)
        )

    def close(self) -> None:
        self._client.close()

    def ask_once(self, messages: list[dict]) -> dict:
        """The model's JSON object for these messages; ModelFailure for every other outcome."""
        body = {"model": self.name, "messages": messages, "response_format": {"type": "json_object"}}
        watchdog = _Watchdog(self.timeout)
        try:
            answered = self._client.post(self.url, json=body, extensions={"trace": watchdog.trace})
        except httpx.HTTPError as error:
            if isinstance(error, httpx.TimeoutException) or watchdog.expired.is_set():
                raise ModelFailure(
                    "timeout",
                    f"no whole answer in {self.timeout:g} s from {self.url}: {type(error).__name__}",
                ) from None
            raise ModelFailure(UNREACHABLE, f"{self.url} cannot be reached: {error}") from None
        finally:
            watchdog.cancel()
        if answered.status_code >= 500:
            raise ModelFailure("server", f"{self.url} answered {answered.status_code}: {answered.text[:300]}")
        if answered.status_code == 429:
            raise ModelFailure(BUSY, f"{self.url} answered 429 (too many requests): {answered.text[:300]}")
        if answered.status_code in SETTINGS_REFUSED:
            raise ModelFailure(
                MISCONFIGURED,
                f"{self.url} answered {answered.status_code} (check model_url, model_name and model_key): "
                f"{answered.text[:300]}",
            )
        if answered.status_code >= 400:
            raise ModelFailure("client", f"{self.url} answered {answered.status_code}: {answered.text[:300]}")
        return _content(answered)

    def ask(
        self, messages: list[dict], shaped=None, stop: threading.Event | None = None, *, patient: bool = False
    ) -> Asked:
        """Asks until a usable answer comes, at most model_attempts times, with backoff between; the
        last ModelFailure when none did. shaped(answer) raises ModelFailure "malformed" for JSON that is
        not of the asked shape. A model unreachable, rate limited or refusing our settings is raised at
        once unless patient (it may not be the note's fault); a stop always is."""
        stop = stop or threading.Event()
        attempt = 0
        while True:
            attempt += 1
            try:
                answer = self.ask_once(messages)
                if shaped is not None:
                    shaped(answer)
                return Asked(answer, attempt)
            except ModelFailure as failure:
                failure.asks = attempt
                if (failure.kind in WAITING and not patient) or attempt >= self.attempts:
                    raise
            if stop.wait(backoff(attempt)):
                raise ModelFailure("stopped", "the worker was stopped between two asks")


class _Watchdog:
    """Cuts an ask's connection once `seconds` have passed since it began: httpx's timeouts bound each
    read, so an answer that trickles in would otherwise take as long as the model liked."""

    def __init__(self, seconds: float) -> None:
        self.expired = threading.Event()
        self._stream = None  # the connection's network stream, once connected
        self._timer = threading.Timer(seconds, self._cut)
        self._timer.daemon = True
        self._timer.start()

    def trace(self, name: str, info: dict) -> None:
        """httpx's trace extension: keeps the stream the connection (or its TLS) opened."""
        if name in ("connection.connect_tcp.complete", "connection.start_tls.complete"):
            self._stream = info.get("return_value")

    def _cut(self) -> None:
        self.expired.set()
        if self._stream is not None:  # still connecting: the connect timeout, the same seconds, ends it
            with contextlib.suppress(OSError, AttributeError):
                self._stream.get_extra_info("socket").shutdown(socket.SHUT_RDWR)  # wakes the blocked read

    def cancel(self) -> None:
        self._timer.cancel()


def _content(answered: httpx.Response) -> dict:
    """The JSON object in the first choice's message content; ModelFailure "malformed" otherwise."""
    try:
        envelope = answered.json()
        content = envelope["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError):
        raise ModelFailure("malformed", f"not a chat completion: {answered.text[:300]}") from None
    if not isinstance(content, str):
        raise ModelFailure("malformed", f"the message content is not text: {str(content)[:300]}")
    if len(content) > MAX_ANSWER:
        raise ModelFailure("malformed", f"the answer is longer than {MAX_ANSWER:,} characters")
    try:
        answer = json.loads(content)
    except ValueError as error:
        raise ModelFailure("malformed", f"the answer is not JSON ({error}): {content[:300]}") from None
    if not isinstance(answer, dict):
        raise ModelFailure("malformed", f"the answer is not a JSON object: {content[:300]}")
    return answer
