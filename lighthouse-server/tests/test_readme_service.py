"""The README's walk-through of the service, run as a person would: create a key, declare the kinds,
start `serve`, remember a Device with curl, and send it again with the same Idempotency-Key."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
from lighthouse_server.embedded import free_port
from service_process import environment

README = (Path(__file__).resolve().parents[2] / "README.md").read_text()
# Already inside the project's environment: `uv run` here would only resync it (and contend with the
# other helpers' runs for the lock), so `uv run lighthouse` is this interpreter running the same entry point.
LIGHTHOUSE = [sys.executable, "-m", "lighthouse_server.command"]
RECEIPT = [{"key": "d1", "status": "created"}]


def _walk_through() -> list[str]:
    """The lines of the sh block of "## The service", with continued lines joined."""
    section = README.split("\n## The service\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, re.S).group(1)
    return [line.strip() for line in block.replace("\\\n", " ").splitlines() if line.strip()]


def _line(lines: list[str], start: str) -> str:
    (found,) = [line for line in lines if line.startswith(start)]
    return found


def _run(line: str, cwd: Path) -> subprocess.CompletedProcess:
    words = shlex.split(line, comments=True)
    assert words[:3] == ["uv", "run", "lighthouse"], line
    done = subprocess.run(
        [*LIGHTHOUSE, *words[3:]], cwd=cwd, env=environment(), capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done


def _kinds_of_comment(line: str) -> list[dict]:
    """The kinds.json the comment after `kinds declare` suggests, its "..." (more fields) left out."""
    shown = line.split("#", 1)[1].strip()
    return json.loads(shown.replace(", ...", ""))


def _curl(words: list[str]) -> dict:
    """The curl line's request, with the real curl when there is one, else the same request by httpx."""
    if shutil.which("curl"):
        done = subprocess.run(words, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)
    url = next(word for word in words[1:] if "/v1/" in word)
    headers = dict(words[at + 1].split(": ", 1) for at, word in enumerate(words) if word == "-H")
    body = words[words.index("-d") + 1]  # curl -d posts these bytes as they are
    return httpx.post(f"http://{url}", content=body, headers=headers, timeout=60).json()


def _wait_for_health(serve: subprocess.Popen, port: int, log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert serve.poll() is None, log.read_text()
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise AssertionError(f"serve did not answer /health: {log.read_text()}")


def test_the_readme_service_walk_through_runs_as_written(tmp_path: Path) -> None:
    lines = _walk_through()
    created = _run(_line(lines, "uv run lighthouse keys create"), tmp_path)
    key = json.loads(created.stdout)["key"]
    assert key.startswith("lh_")

    declare = _line(lines, "uv run lighthouse kinds declare")
    (tmp_path / "kinds.json").write_text(json.dumps(_kinds_of_comment(declare)))
    _run(declare, tmp_path)

    # Only the data directory and the port change: the data is made absolute in this test's own
    # directory (the one keys and kinds used), and 8765 may be taken on this machine by another serve.
    port = free_port()
    serve_line = _line(lines, "uv run lighthouse serve")
    assert "--data ./data --port 8765" in serve_line
    words = shlex.split(serve_line.replace("./data", str(tmp_path / "data")).replace("8765", str(port)))
    log = tmp_path / "serve.log"
    with log.open("w") as output:
        serve = subprocess.Popen(
            [*LIGHTHOUSE, *words[3:]],
            cwd=tmp_path,
            env=environment(),
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    try:
        _wait_for_health(serve, port, log)
        curl_line = _line(lines, "curl ")
        assert "lh_..." in curl_line and "localhost:8765" in curl_line
        curl = shlex.split(curl_line.replace("lh_...", key).replace("localhost:8765", f"localhost:{port}"))
        first = _curl(curl)
        assert first == {"result": RECEIPT}
        assert _curl(curl) == first  # the same Idempotency-Key: the first answer, nothing written again
        history = httpx.post(
            f"http://127.0.0.1:{port}/v1/history",
            json={"kind": "Device", "key": "d1"},
            headers={"Authorization": f"Bearer {key}"},
            timeout=60,
        )
        assert history.status_code == 200, history.text
        states = history.json()["result"]["items"]
        assert len(states) == 1 and states[0]["status"] == "ok", states
    finally:
        serve.send_signal(signal.SIGTERM)
        code = serve.wait(timeout=60)
    assert code == 0, log.read_text()
