"""The client's calls: one `POST /v1/<operation>` each, with the API key as bearer token.

A call that times out or cannot reach the service is sent again, `attempts` times in all, after a
backoff that doubles; so is one the service answers 503 with Retry-After (its database starting
again), after the time it names. A write carries one Idempotency-Key on every attempt (the caller's,
else one made for the call), so the service stores it once however often it arrives. Any other error
answer raises ServiceError with the service's code, message and status. Only httpx and the standard
library are imported: the client needs neither the library nor the server's dependencies.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from datetime import date, datetime
from typing import Any

import httpx

from .methods import Methods

RETRY_AFTER_MOST_S = 30  # the longest a Retry-After of the service is waited for


class ServiceError(Exception):
    """An error answer of the service: its code (e.g. "invalid_argument"), message and HTTP status."""

    def __init__(self, code: str, message: str, status: int, retry_after: int | None = None) -> None:
        super().__init__(f"{code} ({status}): {message}")
        self.code, self.message, self.status, self.retry_after = code, message, status, retry_after


class Unreachable(ConnectionError):
    """No answer after every attempt: each timed out or found no service. The last error is its cause."""


def _json(value: object) -> object:
    if isinstance(value, datetime | date):
        return value.isoformat()  # a datetime without a zone is read as UTC by the service
    raise TypeError(f"{type(value).__name__} cannot be sent as JSON")


def _header(what: str, value: str) -> str:
    if not isinstance(value, str) or not value or not (value.isascii() and value.isprintable()):
        raise ValueError(f"the {what} must be printable ASCII text")
    return value


class Client(Methods):
    """The HTTP API of a `lighthouse serve`: a method per operation (methods.py), or call(name, args).

    url: where the service listens, e.g. "http://127.0.0.1:8765". key: an API key ("lh_..."; None for
    `health` only). tenant: a tenant id sent as Lighthouse-Tenant on every call (a tenant other than the
    key's is refused, 403), to make sure the key acts where it is meant to.
    timeout_s: the most one attempt may take. attempts: tries of one call, at least 1. backoff_s: the
    wait before the second attempt, doubled before each next one.
    """

    def __init__(
        self,
        url: str = "http://127.0.0.1:8765",
        key: str | None = None,
        *,
        tenant: str | None = None,
        timeout_s: float = 60.0,
        attempts: int = 4,
        backoff_s: float = 0.25,
    ) -> None:
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            raise ValueError("url must be an http:// or https:// URL")
        if type(attempts) is not int or attempts < 1:
            raise ValueError("attempts must be a whole number, at least 1")
        headers = {"Content-Type": "application/json"}
        if key is not None:
            headers["Authorization"] = f"Bearer {_header('key', key)}"
        if tenant is not None:
            headers["Lighthouse-Tenant"] = _header("tenant", tenant)
        self.url = url.rstrip("/")
        self.attempts, self.backoff_s = attempts, backoff_s
        self._http = httpx.Client(headers=headers, timeout=timeout_s)

    def call(
        self, operation: str, arguments: dict | None = None, *, idempotency_key: str | None = None
    ) -> Any:
        """The result of one operation by its name; idempotency_key for a write (none for a read)."""
        return self._sent(operation, arguments or {}, idempotency_key)

    def pages(self, operation: str, arguments: dict | None = None) -> Iterator:
        """Every item of a paged operation ({"items", "next_cursor"}), page after page."""
        arguments = dict(arguments or {})
        while True:
            page = self._sent(operation, arguments, None)
            yield from page["items"]
            if page["next_cursor"] is None:
                return
            arguments["cursor"] = page["next_cursor"]

    def _send(self, operation: str, arguments: dict, writes: bool, idempotency_key: str | None) -> Any:
        given = {name: value for name, value in arguments.items() if value is not None}
        if writes and idempotency_key is None:
            idempotency_key = f"client-{uuid.uuid4().hex}"
        return self._sent(operation, given, idempotency_key)

    def _sent(self, operation: str, arguments: dict, idempotency_key: str | None) -> Any:
        if not isinstance(operation, str) or not operation.isidentifier():
            raise ValueError("operation must be the name of an operation, e.g. 'remember'")
        body = json.dumps(arguments, default=_json, ensure_ascii=False).encode()
        headers = (
            {}
            if idempotency_key is None
            else {"Idempotency-Key": _header("idempotency key", idempotency_key)}
        )
        wait = self.backoff_s
        for attempt in range(1, self.attempts + 1):
            try:
                answer = self._http.post(f"{self.url}/v1/{operation}", content=body, headers=headers)
            except (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError) as error:
                if attempt == self.attempts:
                    raise Unreachable(
                        f"{operation}: no answer from {self.url} after {attempt} attempts ({type(error).__name__})"
                    ) from error
            else:
                if answer.status_code == 200:
                    return answer.json()["result"]
                problem = _problem(answer)
                if problem.status != 503 or problem.retry_after is None or attempt == self.attempts:
                    raise problem
                wait = max(wait, min(problem.retry_after, RETRY_AFTER_MOST_S))
            time.sleep(wait)
            wait *= 2
        raise AssertionError("unreachable: the last attempt returns or raises")

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *_exc) -> None:
        self.close()


def _problem(answer: httpx.Response) -> ServiceError:
    """The service's error shape as an exception; an answer of another shape (a proxy's) as its text."""
    try:
        error = answer.json()["error"]
        code, message = str(error["code"]), str(error["message"])
    except (ValueError, KeyError, TypeError):
        return ServiceError("unexpected_answer", answer.text[:500], answer.status_code)
    after = answer.headers.get("retry-after", "")
    return ServiceError(code, message, answer.status_code, int(after) if after.isdecimal() else None)
