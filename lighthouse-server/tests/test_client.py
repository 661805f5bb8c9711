"""The Python client against the session's real serve: a method per operation of the table (and no
other), the README's example, errors as ServiceError, and retries through a real loopback proxy that
drops, delays or refuses the first attempt, each retry carrying the same Idempotency-Key."""

from __future__ import annotations

import inspect
import re
import socket
import subprocess
import sys
import threading
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

import pytest
from lighthouse_server.client import Client, ServiceError, Unreachable
from lighthouse_server.client import methods as written_methods
from lighthouse_server.client.methods import Methods
from lighthouse_server.client.writing import source
from lighthouse_server.embedded import free_port
from lighthouse_server.operations import TABLE
from service_process import KINDS

REPOSITORY = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPOSITORY / "lighthouse-graph" / "tests"))
from test_readme import run_block  # noqa: E402 - the library's README runner: shown values are checked

ROW = {"key": "d1", "t": "2026-01-01T00:00:00Z", "values": {"status": "ok"}}


@pytest.fixture
def tenant_key(lighthouse):
    """A key of a fresh tenant with the walk-through's kinds declared."""
    key = lighthouse.key(f"k{uuid.uuid4().hex[:10]}")
    lighthouse.result("declare_kinds", {"kinds": KINDS}, key)
    return key


def test_methods_py_is_what_the_table_writes():
    assert Path(written_methods.__file__).read_text() == source(), (
        "run: uv run python -m lighthouse_server.client.writing"
    )


def test_every_operation_has_a_method_and_every_method_an_operation():
    methods = {
        name for name, _ in inspect.getmembers(Methods, inspect.isfunction) if not name.startswith("_")
    }
    assert methods == set(TABLE)
    for name, operation in TABLE.items():
        parameters = inspect.signature(getattr(Methods, name)).parameters
        expected = {param.name for param in operation.all_params()} | (
            {"idempotency_key"} if operation.writes else set()
        )
        assert set(parameters) - {"self"} == expected, name
        required = [p.name for p in parameters.values() if p.default is inspect.Parameter.empty][1:]
        assert required == [param.name for param in operation.all_params() if param.required], name


def _loaded_by(statement: str) -> set[str]:
    said = f"import sys; {statement}; print(' '.join(sys.modules))"
    return set(
        subprocess.run(
            [sys.executable, "-c", said], capture_output=True, text=True, check=True
        ).stdout.split()
    )


def test_the_client_imports_only_httpx_and_the_standard_library():
    more = _loaded_by("import lighthouse_server.client") - _loaded_by("import httpx")
    outside = {name for name in more if name.split(".")[0] not in sys.stdlib_module_names}
    assert outside == {
        "lighthouse_server",
        *(f"lighthouse_server.client{part}" for part in ("", ".calls", ".methods")),
    }


def test_the_readme_example_runs_against_serve(lighthouse, tenant_key):
    text = (REPOSITORY / "README.md").read_text()
    section = text.split("\n### The Python client\n", 1)[1].split("\n### ", 1)[0]
    (block,) = re.findall(r"```py\n(.*?)```", section, re.S)
    assert '"http://127.0.0.1:8765", "lh_..."' in block
    block = block.replace('"http://127.0.0.1:8765", "lh_..."', f'"{lighthouse.url}", "{tenant_key}"')
    assert run_block(block, {}) == 7


def test_writes_and_reads_and_the_error_shape(lighthouse, tenant_key):
    with Client(lighthouse.url, tenant_key) as client:
        assert client.remember("Device", [ROW]) == [{"key": "d1", "status": "created"}]
        assert (
            client.call("as_of", {"kind": "Device", "key": "d1", "when": "2026-01-02T00:00:00Z"})["status"]
            == "ok"
        )
        assert client.health()["status"] == "ok"
        when = datetime(2026, 1, 3, tzinfo=UTC)  # a datetime is sent as ISO text
        assert client.update("Device", "d1", when, values={"status": "hot"})["status"] == "changed"
        assert [
            state["status"]
            for state in client.pages("history", {"kind": "Device", "key": "d1", "page_size": 1})
        ] == [
            "ok",
            "hot",
        ]


def test_refusals_come_as_service_errors(lighthouse, tenant_key):
    read_only = lighthouse.key(f"r{uuid.uuid4().hex[:10]}", scopes=["read"])
    with Client(lighthouse.url, read_only) as client:
        with pytest.raises(ServiceError) as forbidden:
            client.remember("Device", [ROW])
        assert (forbidden.value.code, forbidden.value.status) == ("forbidden", 403)
        assert "write" in forbidden.value.message
    with Client(lighthouse.url, "lh_not-a-key") as client, pytest.raises(ServiceError) as unknown:
        client.kinds()
    assert (unknown.value.code, unknown.value.status) == ("unauthorized", 401)
    with Client(lighthouse.url, tenant_key) as client:
        with pytest.raises(ServiceError) as wrong:
            client.call("remember", {"kind": "Device", "rows": [ROW], "by": "someone"})
        assert wrong.value.status == 400 and "by" in wrong.value.message
        with pytest.raises(ValueError, match="printable ASCII"):
            client.remember("Device", [ROW], idempotency_key="bad\nkey")
        with pytest.raises(ValueError, match="name of an operation"):
            client.call("../health")


def test_the_clients_own_arguments_are_checked():
    with pytest.raises(ValueError, match="URL"):
        Client("127.0.0.1:8765")
    with pytest.raises(ValueError, match="attempts"):
        Client(attempts=0)
    with pytest.raises(ValueError, match="key"):
        Client(key="lh_\r\nX-Other: 1")


class Proxy:
    """A loopback HTTP proxy to serve, one request per connection, that does to the n-th request what
    its plan says: "drop" (reads it, sends it on, closes without an answer), "late" (sends the answer
    after `late_s`), "busy" (answers 503 with Retry-After: 1 itself), else passes it through."""

    def __init__(self, upstream_port: int, plan: list[str], late_s: float = 3.5) -> None:
        self.upstream_port, self.plan, self.late_s = upstream_port, list(plan), late_s
        self.seen: list[dict[str, str]] = []  # the headers of each request, in order
        self.listening = socket.create_server(("127.0.0.1", 0))
        self.port = self.listening.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self.listening.accept()
            except OSError:
                return
            threading.Thread(target=self._one, args=(connection,), daemon=True).start()

    def _one(self, connection: socket.socket) -> None:
        with connection:
            request = b""
            while b"\r\n\r\n" not in request:
                request += connection.recv(65536)
            head, body = request.split(b"\r\n\r\n", 1)
            lines = head.decode().split("\r\n")
            headers = {k.lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:])}
            while len(body) < int(headers.get("content-length", 0)):
                body += connection.recv(65536)
            self.seen.append(headers)
            what = self.plan.pop(0) if self.plan else "pass"
            if what == "busy":
                answer = b'{"error": {"code": "database_unavailable", "status": 503, "message": "starting"}}'
                connection.sendall(
                    b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Type: application/json\r\n"
                    + f"Content-Length: {len(answer)}\r\nConnection: close\r\n\r\n".encode()
                    + answer
                )
                return
            kept = [line for line in lines[1:] if not line.lower().startswith("connection:")]
            sent = "\r\n".join([lines[0], *kept, "Connection: close"]).encode() + b"\r\n\r\n" + body
            with socket.create_connection(("127.0.0.1", self.upstream_port)) as upstream:
                upstream.sendall(sent)
                answer = _whole_answer(upstream)
            if what == "drop":
                return
            if what == "late":
                time.sleep(self.late_s)
            connection.sendall(answer)

    def close(self) -> None:
        self.listening.close()


def _whole_answer(upstream: socket.socket) -> bytes:
    """An HTTP answer read up to the end of its body (by its Content-Length)."""
    answer = b""
    while b"\r\n\r\n" not in answer:
        answer += upstream.recv(65536)
    head, body = answer.split(b"\r\n\r\n", 1)
    length = int(re.search(rb"(?i)content-length: *(\d+)", head).group(1))
    while len(body) < length:
        body += upstream.recv(65536)
    return head + b"\r\n\r\n" + body


@pytest.mark.parametrize("plan", [["drop"], ["late", "drop"]])
def test_a_write_whose_answer_is_lost_is_sent_again_with_the_same_key(lighthouse, tenant_key, plan):
    proxy = Proxy(lighthouse.port, plan)
    try:
        with Client(f"http://127.0.0.1:{proxy.port}", tenant_key, timeout_s=3, backoff_s=0.05) as client:
            receipts = client.remember("Device", [ROW])
    finally:
        proxy.close()
    # The first attempt was written; the retry got its answer back, not "unchanged" of a second write.
    assert receipts == [{"key": "d1", "status": "created"}]
    keys = [headers.get("idempotency-key") for headers in proxy.seen]
    # one attempt per failure planned, and more when serve answered slower than the timeout
    assert len(keys) > len(plan) and len(set(keys)) == 1 and keys[0].startswith("client-")
    assert len(lighthouse.result("history", {"kind": "Device", "key": "d1"}, tenant_key)["items"]) == 1


def test_a_503_with_retry_after_is_waited_for_and_a_read_sends_no_key(lighthouse, tenant_key):
    proxy = Proxy(lighthouse.port, ["busy"])
    try:
        with Client(f"http://127.0.0.1:{proxy.port}", tenant_key, backoff_s=0.05) as client:
            started = time.monotonic()
            assert client.kinds()[0]["label"] == "Device"
            assert time.monotonic() - started >= 1.0  # the Retry-After, not the backoff
    finally:
        proxy.close()
    assert len(proxy.seen) == 2 and all("idempotency-key" not in headers for headers in proxy.seen)


def test_the_last_attempt_raises_unreachable():
    nothing = free_port()
    client = Client(f"http://127.0.0.1:{nothing}", "lh_x", attempts=3, backoff_s=0.01)
    with client, pytest.raises(Unreachable, match="after 3 attempts") as failed:
        client.kinds()
    assert isinstance(failed.value, ConnectionError) and failed.value.__cause__ is not None


def test_the_last_503_is_raised_with_its_retry_after(lighthouse, tenant_key):
    proxy = Proxy(lighthouse.port, ["busy"])
    try:
        client = Client(f"http://127.0.0.1:{proxy.port}", tenant_key, attempts=1)
        with client, pytest.raises(ServiceError) as busy:
            client.kinds()
    finally:
        proxy.close()
    assert (busy.value.code, busy.value.status, busy.value.retry_after) == ("database_unavailable", 503, 1)
