"""The extraction worker in the real processes: inside `lighthouse serve` with a model configured, its
status over HTTP and the command line, replay, no model configured, and a kill -9 of `lighthouse work`
mid-batch followed by a restart: every note answered once, the history as an uninterrupted run's."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time

import anyio
import httpx
from fake_model import FakeModel, Status
from mcp import Client, StdioServerParameters
from service_process import Lighthouse, environment


def _status(server: Lighthouse, key: str) -> dict:
    answer = httpx.get(f"{server.url}/v1/status", headers={"Authorization": f"Bearer {key}"}, timeout=30)
    assert answer.status_code == 200, answer.text
    return answer.json()["result"]


def _until(check, seconds: float = 60.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"not reached in {seconds} s")


def _facts_of_reading(ask) -> dict:
    """'device d<k> reading <n> at <time>' -> the fact that device d<k> read r<n> at that time."""
    found = re.fullmatch(r"device (d\d+) reading (\d+) at (\S+)", ask.note)
    if found is None:
        return {"facts": []}
    key, reading, at = found.groups()
    return {"facts": [{"kind": "Device", "key": key, "t": at, "values": {"status": f"r{reading}"}}]}


def test_serve_runs_the_worker_and_the_status_tells_what_it_did(serves, tmp_path, fake):
    fake.script = lambda ask: (
        Status(500)
        if "broken" in ask.note
        else {"facts": [{"kind": "Device", "key": "d1", "values": {"status": "hot"}}]}
    )
    server = Lighthouse(tmp_path / "data", model_url=fake.url, worker_interval_ms="100", model_attempts="2")
    server.extra = {"LIGHTHOUSE_MODEL": "fake-1"}
    serves.append(server.start())
    tenant, key = server.tenant("w")
    good = server.result("note", {"text": "d1 runs hot"}, key)["id"]
    broken = server.result("note", {"text": "a broken one"}, key)["id"]
    # the status reads the worker's counts and the set-aside notes in two reads: both are waited for
    status = _until(
        lambda: (
            (s := _status(server, key))["extraction"]["notes_set_aside"] == 1
            and s["extraction"]["asks_failed"] == 2
            and s
        )
    )
    extraction = status["extraction"]
    assert status["tenant"] == tenant and extraction["model"] == "fake-1"
    assert (
        extraction["notes_read"] == 1
        and extraction["rows"] == {"created": 1}
        and extraction["asks_failed"] == 2
    )
    assert extraction["state"] == "idle" and extraction["notes_waiting"] == 0
    assert "server" in extraction["last_error"] and broken in extraction["last_error"]
    assert server.post("status", {}, key).json()["result"]["extraction"]["notes_read"] == 1  # POST too
    (state,) = server.result("history", {"kind": "Device", "key": "d1"}, key)["items"]
    assert state["entry"] == good and state["by"] == "model:fake-1" and state["trust"] == "candidate"
    (aside,) = server.result("set_aside", {}, key)
    assert aside["note"] == broken and "500" in aside["error"]
    fake.script = lambda ask: {"facts": [{"kind": "Device", "key": "d2", "values": {"status": "mended"}}]}
    replayed = server.command("replay", broken, "--tenant", tenant)
    assert replayed.returncode == 0, replayed.stderr
    assert json.loads(replayed.stdout) == {"note": broken, "status": "replayed"}
    _until(lambda: _status(server, key)["extraction"]["notes_read"] == 2)
    assert server.result("history", {"kind": "Device", "key": "d2"}, key)["items"][0]["entry"] == broken
    assert server.result("replay", {"note": broken}, key)["status"] == "not_set_aside"
    looked = server.command("status", "--tenant", tenant)  # the graph read directly: the worker is alive
    assert looked.returncode == 0, looked.stderr
    direct = json.loads(looked.stdout)["extraction"]
    assert direct["state"] == "idle" and direct["notes_read"] == 2 and direct["notes_set_aside"] == 0
    through = server.command("status", "--tenant", tenant, key=key)  # through the serve
    assert json.loads(through.stdout)["extraction"]["model"] == "fake-1"
    assert server.stop() == 0
    log = (tmp_path / f"serve-{server.port}.log").read_text()
    assert "workers: extraction with fake-1" in log


def test_a_note_the_model_drops_does_not_hold_back_the_tenants_later_notes(serves, tmp_path, fake):
    def drops_one(ask):
        if "poison" in ask.note:
            return None  # the connection dropped without an answer, for this note only
        return {"facts": [{"kind": "Device", "key": ask.note.split()[-1], "values": {"status": "ok"}}]}

    fake.script = drops_one
    server = Lighthouse(tmp_path / "data", model_url=fake.url, worker_interval_ms="100", model_attempts="2")
    server.extra = {"LIGHTHOUSE_MODEL": "fake-1"}
    serves.append(server.start())
    _tenant, key = server.tenant("dropped")
    poison = server.result("note", {"text": "poison p1"}, key)["id"]
    for name in ("a1", "a2", "a3"):
        server.result("note", {"text": f"after {name}"}, key)
    status = _until(lambda: (s := _status(server, key))["extraction"]["notes_read"] == 3 and s)
    extraction = status["extraction"]
    assert extraction["notes_set_aside"] == 1 and extraction["notes_waiting"] == 0
    assert extraction["state"] == "idle"
    (aside,) = server.result("set_aside", {}, key)
    assert aside["note"] == poison and "unreachable" in aside["error"]
    for name in ("a1", "a2", "a3"):
        assert server.result("history", {"kind": "Device", "key": name}, key)["items"]
    # once a round while it was alone, then model_attempts times once another note was answered
    assert fake.asks_of("poison p1") >= 3
    assert server.stop() == 0


def test_a_note_wakes_the_idle_worker_of_its_serve(serves, tmp_path, fake):
    # An idle worker would wait ten minutes; the note's arrival ends the wait.
    fake.script = lambda ask: {"facts": [{"kind": "Device", "key": "d7", "values": {"status": "woken"}}]}
    server = Lighthouse(tmp_path / "data", model_url=fake.url, worker_interval_ms="600000")
    server.extra = {"LIGHTHOUSE_MODEL": "fake-1"}
    serves.append(server.start())
    _tenant, key = server.tenant("wake")
    time.sleep(1.0)  # the worker's first round is over: it waits now
    began = time.monotonic()
    said = server.result("note", {"text": "d7 woke up"}, key)["id"]
    _until(lambda: server.result("history", {"kind": "Device", "key": "d7"}, key)["items"], seconds=20)
    assert time.monotonic() - began < 20
    assert server.result("history", {"kind": "Device", "key": "d7"}, key)["items"][0]["entry"] == said
    assert server.stop() == 0


def test_without_a_model_nothing_is_drawn_and_the_status_says_not_configured(lighthouse):
    tenant, key = lighthouse.tenant("n")
    lighthouse.result("note", {"text": "d1 runs hot"}, key)
    time.sleep(0.5)
    status = _status(lighthouse, key)
    extraction = status["extraction"]
    assert extraction["state"] == "not configured" and extraction["notes_waiting"] == 1
    assert extraction["notes_read"] == 0 and extraction["oldest_waiting_s"] >= 0
    assert lighthouse.result("history", {"kind": "Device", "key": "d1"}, key)["items"] == []
    log = (lighthouse.data.parent / f"serve-{lighthouse.port}.log").read_text()
    assert "workers: extraction does not run: no model is configured" in log
    refused = lighthouse.command("work")
    assert refused.returncode == 2
    assert "extraction does not run: no model is configured" in refused.stderr
    assert lighthouse.result("replay", {"note": "nothing/1"}, key) == {
        "note": "nothing/1",
        "status": "unknown",
    }
    for name in ("status", "replay", "set_aside"):
        assert lighthouse.post(name, {"note": "x"} if name == "replay" else {}).status_code == 401


def test_a_read_key_cannot_replay(lighthouse):
    tenant, _admin = lighthouse.tenant("r")
    reader = lighthouse.key(tenant, scopes=["read"])
    assert _status(lighthouse, reader)["tenant"] == tenant
    answer = lighthouse.post("replay", {"note": "x/1"}, reader)
    assert answer.status_code == 403 and answer.json()["error"]["code"] == "forbidden"
    assert lighthouse.post("set_aside", {"limit": 0}, reader).json()["error"]["code"] == "invalid_argument"


def _work(server: Lighthouse, fake: FakeModel) -> subprocess.Popen:
    variables = {
        "LIGHTHOUSE_MODEL_URL": fake.url,
        "LIGHTHOUSE_MODEL": "fake-1",
        "LIGHTHOUSE_WORKER_INTERVAL_MS": "100",
        "LIGHTHOUSE_MODEL_TIMEOUT_S": "10",
    }
    return subprocess.Popen(
        [sys.executable, "-m", "lighthouse_server.command", "work", "--data", str(server.data)],
        env=environment(**variables),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def _history(server: Lighthouse, key: str, devices: list[str]) -> list:
    found = []
    for device in devices:
        for state in server.result("history", {"kind": "Device", "key": device}, key)["items"]:
            found.append({name: value for name, value in state.items() if name != "recorded_at"})
    return found


def test_kill_9_of_lighthouse_work_mid_batch_then_restart_reads_every_note_once(serves, tmp_path, fake):
    server = Lighthouse(tmp_path / "data")  # the database; no model here
    serves.append(server.start())
    uninterrupted, key_b = server.tenant("b")
    interrupted, key_a = server.tenant("a")
    devices = ["d0", "d1", "d2"]
    texts = [f"device d{n % 3} reading {n} at 2026-11-20T{n:02d}:00:00Z" for n in range(12)]

    # The run that is not interrupted, on tenant b.
    fake.script = _facts_of_reading
    for text in texts:
        server.result("note", {"text": text, "at": "2026-11-30T00:00:00Z"}, key_b)
    work = _work(server, fake)
    _until(lambda: _status(server, key_b)["extraction"]["notes_read"] == len(texts))
    work.send_signal(signal.SIGTERM)
    assert work.wait(timeout=60) == 0, work.stderr.read()
    expected = _history(server, key_b, devices)
    assert len(expected) == len(texts)
    fake.asks.clear()
    fake.answered.clear()

    # The same notes on tenant a; the worker is killed while the model has the fifth in hand.
    for text in texts:
        server.result("note", {"text": text, "at": "2026-11-30T00:00:00Z"}, key_a)
    killed_on = texts[4]

    def killing(ask):
        if ask.note == killed_on and fake.asks_of(killed_on) == 1:
            os.kill(work.pid, signal.SIGKILL)
            return None  # no answer: the worker is gone
        return _facts_of_reading(ask)

    fake.script = killing
    work = _work(server, fake)
    assert work.wait(timeout=120) == -signal.SIGKILL
    halfway = _status(server, key_a)["extraction"]
    assert halfway["notes_read"] == 4 and halfway["notes_waiting"] == len(texts) - 4

    work = _work(server, fake)
    _until(lambda: _status(server, key_a)["extraction"]["notes_read"] == len(texts))
    work.send_signal(signal.SIGTERM)
    assert work.wait(timeout=60) == 0
    assert all(fake.answered[text] == 1 for text in texts), fake.answered
    assert [fake.asks_of(text) for text in texts] == [2 if text == killed_on else 1 for text in texts]
    assert _history(server, key_a, devices) == expected
    final = _status(server, key_a)["extraction"]
    assert final["rows"] == {"created": 3, "changed": 9} and final["notes_waiting"] == 0


def test_status_replay_and_set_aside_are_mcp_tools(lighthouse):
    tenant, key = lighthouse.tenant("m")
    lighthouse.result("note", {"text": "waiting for a model"}, key)

    # Operators' tools, outside the compact set: listed with mcp_tools = "all" (here over stdio).
    parameters = StdioServerParameters(
        command=sys.executable,
        args=["-m", "lighthouse_server.command", "mcp", "--data", str(lighthouse.data)],
        env=environment(LIGHTHOUSE_KEY=key, LIGHTHOUSE_MCP_TOOLS="all"),
    )

    async def run() -> tuple:
        async with Client(parameters) as client:
            listed = {tool.name: tool for tool in (await client.list_tools()).tools}
            status = await client.call_tool("status", {})
            replayed = await client.call_tool("replay", {"note": "no/1"})
            aside = await client.call_tool("set_aside", {})
            bad = await client.call_tool("replay", {})
            return listed, status, replayed, aside, bad

    listed, status, replayed, aside, bad = anyio.run(run)
    assert listed["status"].annotations.read_only_hint and not listed["replay"].annotations.read_only_hint
    result = status.structured_content["result"]
    assert result["tenant"] == tenant and result["extraction"]["state"] == "not configured"
    assert result["extraction"]["notes_waiting"] == 1
    assert replayed.structured_content["result"] == {"note": "no/1", "status": "unknown"}
    assert aside.structured_content["result"] == []
    assert bad.is_error and bad.structured_content["error"]["code"] == "invalid_argument"
