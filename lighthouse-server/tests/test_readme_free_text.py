"""The README's free-text walk-through, run as a person would: the stand-in model, `serve` pointed at it,
a note sent with curl, and the fact the worker drew from it read back with curl."""

from __future__ import annotations

import json
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

from lighthouse_server.embedded import free_port
from service_process import environment
from test_readme_service import (
    LIGHTHOUSE,
    README,
    _curl,
    _kinds_of_comment,
    _line,
    _run,
    _wait_for_health,
    _walk_through,
)

ROOT = Path(__file__).resolve().parents[2]


def _free_text_block() -> list[str]:
    """The sh block of "### Free text: notes, the workers, status, replay" that starts the stand-in."""
    section = README.split("\n### Free text: notes, the workers, status, replay\n", 1)[1].split("\n### ", 1)[
        0
    ]
    for block in re.findall(r"```sh\n(.*?)```", section, re.S):
        if "fake_model.py" in block:
            return [line.strip() for line in block.splitlines() if line.strip() and not line.startswith("#")]
    raise AssertionError("the README has no free-text walk-through")


def test_the_readme_free_text_walk_through_runs_as_written(tmp_path: Path) -> None:
    lines = _free_text_block()
    # The key and the kinds of the service walk-through, made as it makes them.
    service_lines = _walk_through()
    key = json.loads(_run(_line(service_lines, "uv run lighthouse keys create"), tmp_path).stdout)["key"]
    declare = _line(service_lines, "uv run lighthouse kinds declare")
    (tmp_path / "kinds.json").write_text(json.dumps(_kinds_of_comment(declare)))
    _run(declare, tmp_path)

    # Only the ports and the data directory change (8001 and 8765 may be taken on this machine).
    model_port, port = free_port(), free_port()
    model_line = _line(lines, "uv run python lighthouse-server/tests/fake_model.py")
    assert model_line.endswith("--port 8001 &")
    model_words = shlex.split(model_line.rstrip("&").replace("8001", str(model_port)))
    serve_line = _line(lines, "LIGHTHOUSE_MODEL_URL=")
    words = shlex.split(
        serve_line.replace("8001", str(model_port))
        .replace("./data", str(tmp_path / "data"))
        .replace("8765", str(port))
    )
    assigned = dict(word.split("=", 1) for word in words if "=" in word and not word.startswith("-"))
    assert words[len(assigned) : len(assigned) + 4] == ["uv", "run", "lighthouse", "serve"]
    log = tmp_path / "serve.log"
    assert model_words[:3] == ["uv", "run", "python"]
    model = subprocess.Popen([sys.executable, *model_words[3:]], cwd=ROOT, env=environment())
    with log.open("w") as output:
        serve = subprocess.Popen(
            [*LIGHTHOUSE, *words[len(assigned) + 3 :]],
            cwd=tmp_path,
            env=environment(**assigned),
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    try:
        _wait_for_health(serve, port, log)
        note_line, history_line = [line for line in lines if line.startswith("curl ")]
        said = _curl(
            shlex.split(note_line.replace("lh_...", key).replace("localhost:8765", f"localhost:{port}"))
        )
        assert said["result"]["status"] == "recorded", said
        asked = shlex.split(
            history_line.replace("lh_...", key).replace("localhost:8765", f"localhost:{port}")
        )
        deadline = time.monotonic() + 60
        while not (states := _curl(asked)["result"]["items"]) and time.monotonic() < deadline:
            time.sleep(0.2)
        (state,) = states
        assert state["status"] == "hot" and state["trust"] == "candidate" and state["by"] == "model:stand-in"
        assert state["entry"] == said["result"]["id"]
    finally:
        serve.send_signal(signal.SIGTERM)
        code = serve.wait(timeout=60)
        model.send_signal(signal.SIGTERM)
        model.wait(timeout=30)
    assert code == 0, log.read_text()
