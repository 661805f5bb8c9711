"""A fake OpenAI-compatible embeddings endpoint: a real HTTP server on loopback, written for the tests.

POST /v1/embeddings {"model", "input": [texts]} answers {"data": [{"embedding", "index"}], "model"}
with a deterministic vector per text: a bag of its words hashed into DIMENSIONS numbers, after a few
synonyms are folded into one word, so that "automobile" is near "car" by meaning and not by words.
`mode` scripts what it answers instead: a status, text that is not JSON, too few vectors, vectors of
other dimensions, or an answer only after `delay` seconds. Every request is kept in `asked`.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DIMENSIONS = 16
SAME = {"automobile": "car", "vehicle": "car", "motorcar": "car", "feline": "cat", "kitten": "cat"}


def vector(text: str, dimensions: int = DIMENSIONS) -> list[float]:
    """The hashed bag of the text's words, synonyms folded; a text without words points one way."""
    numbers = [0.0] * dimensions
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        word = SAME.get(word, word)
        numbers[int(hashlib.sha256(word.encode()).hexdigest(), 16) % dimensions] += 1.0
    if not any(numbers):
        numbers[0] = 1.0
    return numbers


class FakeEmbeddings:
    """The server; start() gives it a free port, url is the base URL (…/v1) to set as embeddings_url."""

    def __init__(self, dimensions: int = DIMENSIONS) -> None:
        self.dimensions = dimensions
        self.mode = "ok"  # ok | status:<code> | not-json | too-few | dimensions:<n>
        self.delay = 0.0
        self.asked: list[dict] = []  # {"authorization", "model", "input"} of each request
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the name http.server calls
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                fake.asked.append(
                    {
                        "path": self.path,
                        "authorization": self.headers.get("Authorization"),
                        "model": body.get("model"),
                        "input": body.get("input"),
                    }
                )
                if fake.delay:
                    time.sleep(fake.delay)
                status, answer = fake.answer(self.path, body)
                data = answer if isinstance(answer, bytes) else json.dumps(answer).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # a client that gave up waiting
                    pass

            def log_message(self, *arguments) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True

    def answer(self, path: str, body: dict) -> tuple[int, object]:
        if path != "/v1/embeddings":
            return 404, {"error": {"message": f"no {path}"}}
        texts = body.get("input")
        if isinstance(texts, str):
            texts = [texts]
        if self.mode.startswith("status:"):
            return int(self.mode.split(":")[1]), {"error": {"message": "scripted failure"}}
        if self.mode == "not-json":
            return 200, b"<html>upstream gateway</html>"
        size = int(self.mode.split(":")[1]) if self.mode.startswith("dimensions:") else self.dimensions
        vectors = [vector(text, size) for text in texts]
        if self.mode == "too-few":
            vectors = vectors[:-1]
        data = [
            {"object": "embedding", "index": place, "embedding": one} for place, one in enumerate(vectors)
        ]
        return 200, {"object": "list", "data": list(reversed(data)), "model": body.get("model")}

    def start(self) -> FakeEmbeddings:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def texts(self) -> list[str]:
        """Every text asked for, in order, the dimension probes included."""
        return [text for request in self.asked for text in request["input"]]
