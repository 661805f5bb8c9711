"""A fake OpenAI-compatible chat endpoint for the worker's tests: a real HTTP server on loopback, in a
thread, that answers each ask as a script says and records every prompt it got. Run as a script it is
the README's stand-in model: `python lighthouse-server/tests/fake_model.py --port 8001` draws one fact
from each note written as "<Kind> <key> <value name>: <value>" and none from any other.

The script is a function of the ask (the request's JSON, with the note read out of the prompt) that
gives one of: a dict (the JSON answer, sent as the message content), Raw(text) (content that is not
JSON), Status(code) (an HTTP error), Sleep(seconds, then) (an answer that comes late), Trickle(answer,
every) (an answer whose bytes come one at a time, `every` seconds apart), None (the connection dropped
without an answer).
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass(frozen=True)
class Raw:
    content: str


@dataclass(frozen=True)
class Status:
    code: int


@dataclass(frozen=True)
class Sleep:
    seconds: float
    then: object = None


@dataclass(frozen=True)
class Trickle:
    answer: dict
    every: float = 1.0


@dataclass
class Ask:
    """One request the fake model got: its body, and the note's part of the prompt."""

    body: dict
    system: str
    user: dict
    authorization: str | None
    at: float  # time.monotonic() when it came

    @property
    def note(self) -> str:
        return self.user.get("note", "")


class FakeModel:
    def __init__(self, script=None, port: int = 0) -> None:
        self.script = script or (lambda ask: {"facts": []})
        self.asks: list[Ask] = []
        self.answered: Counter = Counter()  # note text -> answers sent whole (a usable answer or not)
        self._lock = threading.Lock()
        model = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # quiet
                pass

            def do_POST(self) -> None:  # noqa: N802 - the name http.server calls
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length))
                model.handle(self, body)

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def handle(self, handler: BaseHTTPRequestHandler, body: dict) -> None:
        if handler.path != "/v1/chat/completions":
            return self._send(handler, 404, {"error": "no such path"})
        messages = body.get("messages") or [{}, {}]
        ask = Ask(
            body,
            messages[0].get("content", ""),
            json.loads(messages[-1].get("content") or "{}"),
            handler.headers.get("authorization"),
            time.monotonic(),
        )
        with self._lock:
            self.asks.append(ask)
        planned = self.script(ask)
        while isinstance(planned, Sleep):
            time.sleep(planned.seconds)
            planned = planned.then
        if isinstance(planned, Status):
            sent = self._send(handler, planned.code, {"error": {"message": "scripted failure"}})
        elif isinstance(planned, Raw):
            sent = self._send(handler, 200, self._completion(planned.content))
        elif planned is None:  # the connection is dropped without an answer
            return None
        elif isinstance(planned, Trickle):
            sent = self._send(handler, 200, self._completion(json.dumps(planned.answer)), planned.every)
        else:
            sent = self._send(handler, 200, self._completion(json.dumps(planned)))
        if sent:
            with self._lock:
                self.answered[ask.note] += 1
        return None

    def _completion(self, content: str) -> dict:
        return {
            "id": "fake",
            "object": "chat.completion",
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
            ],
        }

    def _send(self, handler: BaseHTTPRequestHandler, code: int, body: dict, every: float = 0.0) -> bool:
        data = json.dumps(body).encode()
        try:
            handler.send_response(code)
            handler.send_header("content-type", "application/json")
            handler.send_header("content-length", str(len(data)))
            handler.end_headers()
            if not every:
                handler.wfile.write(data)
            for byte in data if every else b"":
                handler.wfile.flush()
                time.sleep(every)
                handler.wfile.write(bytes([byte]))
            handler.wfile.flush()
        except OSError:  # the worker went away (timed out, or was killed) before the answer
            return False
        return True

    def asks_of(self, note: str) -> int:
        with self._lock:
            return sum(1 for ask in self.asks if ask.note == note)


def stand_in(ask: Ask) -> dict:
    """The stand-in's rule: "Device d1 status: hot" is the fact that d1's status is hot."""
    head, _, value = ask.note.partition(":")
    words = head.split()
    if len(words) != 3 or not value.strip():
        return {"facts": []}
    kind, key, name = words
    return {"facts": [{"kind": kind, "key": key, "values": {name: value.strip()}}]}


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="a stand-in OpenAI-compatible chat model on loopback")
    parser.add_argument("--port", type=int, default=8001)
    port = parser.parse_args().port
    model = FakeModel(stand_in, port=port)
    print(f"stand-in model at {model.url}", flush=True)
    model.thread.join()
