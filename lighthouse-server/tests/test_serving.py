"""`lighthouse serve` as a process: a clean stop on SIGTERM with every acknowledged write kept, no orphan
FalkorDB after a kill -9, a restart on the same data directory, and a database that stops answering."""

from __future__ import annotations

import json
import os
import signal
import threading
import time

import httpx
from lighthouse_server import keys
from lighthouse_server.access import password_of
from lighthouse_server.database import RUNNING
from lighthouse_server.embedded import start
from lighthouse_server.problems import DATABASE_RETRY_AFTER
from redis import Redis
from service_process import KINDS, Lighthouse


def _falkordb_pid(data) -> int:
    found = json.loads((data / RUNNING).read_text())
    return Redis(found["host"], found["port"], password=password_of(data)).info("server")["process_id"]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is not alive
        return "zombie" not in open(f"/proc/{pid}/status").read().lower().split("state:")[1][:20]
    except OSError:
        return False


def test_sigterm_during_writes_loses_no_acknowledged_write_and_a_restart_keeps_everything(tmp_path, serves):
    running = Lighthouse(tmp_path / "data", fsync="always")
    serves.append(running.start())
    key = running.key("durable")
    running.result("declare_kinds", {"kinds": KINDS}, key)
    first = running.result(
        "say",
        {"user": "u", "session_id": "s", "role": "user", "text": "once"},
        key,
        headers={"Idempotency-Key": "k1"},
    )
    acknowledged: list[str] = []
    stop = threading.Event()

    def write() -> None:
        number = 0
        with httpx.Client(timeout=30) as client:
            while not stop.is_set():
                row = {"key": f"w{number}", "t": "2026-01-01T00:00:00Z", "values": {"note": "x"}}
                try:
                    answer = client.post(
                        f"{running.url}/v1/remember",
                        json={"kind": "Device", "rows": [row]},
                        headers={"Authorization": f"Bearer {key}"},
                    )
                except httpx.HTTPError:
                    return
                if answer.status_code == 200 and answer.json()["result"][0]["status"] == "created":
                    acknowledged.append(row["key"])
                number += 1

    writers = [threading.Thread(target=write) for _ in range(3)]
    for writer in writers:
        writer.start()
    time.sleep(1.5)
    falkordb = _falkordb_pid(running.data)
    assert running.stop(signal.SIGTERM) == 0
    stop.set()
    for writer in writers:
        writer.join(timeout=30)
    assert not _alive(falkordb)
    assert len(acknowledged) > 10
    again = running.start()
    kept = again.result("entities", {"kind": "Device", "page_size": 1000}, key)["items"]
    assert set(acknowledged) <= set(kept)
    repeat = again.result(
        "say",
        {"user": "u", "session_id": "s", "role": "user", "text": "once"},
        key,
        headers={"Idempotency-Key": "k1"},
    )
    assert repeat == first and len(again.result("messages", {"user": "u", "session_id": "s"}, key)) == 1
    assert again.stop() == 0


def test_kill_9_leaves_no_falkordb_and_the_next_start_works(tmp_path, serves):
    running = Lighthouse(tmp_path / "data", fsync="always")  # what everysec may lose: embedded.start()
    serves.append(running.start())
    key = running.key("killed")
    running.result("declare_kinds", {"kinds": KINDS}, key)
    falkordb = _falkordb_pid(running.data)
    running.process.kill()
    running.process.wait(timeout=30)
    running.log.close()
    deadline = time.monotonic() + 10
    while _alive(falkordb) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(falkordb)
    again = running.start()
    assert [kind["label"] for kind in again.result("kinds", {}, key)] == ["Device", "Note", "Room"]
    assert again.stop() == 0


def test_a_database_that_stops_answering_is_503(tmp_path, serves):
    external = start()  # not serve's own: nobody starts it again
    running = Lighthouse(tmp_path / "data")
    running.extra = {"FALKORDB_URL": f"redis://127.0.0.1:{external.port}"}
    serves.append(running.start())
    key = keys.create(external.client(), "down", "planner", list(keys.SCOPES))["key"]
    external.stop()
    time.sleep(0.5)
    health = httpx.get(f"{running.url}/health")
    assert health.status_code == 503 and health.json()["status"] == "degraded"
    assert health.headers["retry-after"] == str(DATABASE_RETRY_AFTER)
    time.sleep(2.5)  # the key's check is remembered for 2 s
    answer = running.post("kinds", {}, key)
    assert answer.status_code == 503 and answer.json()["error"]["code"] == "database_unavailable"
    assert answer.headers["retry-after"] == str(DATABASE_RETRY_AFTER)
    # MCP too: the key cannot be checked, which is not the caller's fault (503, not 401)
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
    mcp = httpx.post(
        f"{running.url}/mcp",
        json=initialize,
        headers={"Authorization": f"Bearer {key}", "Accept": "application/json, text/event-stream"},
        timeout=30,
    )
    assert mcp.status_code == 503 and mcp.json()["error"]["code"] == "database_unavailable", mcp.text
    assert running.stop() == 0


def test_serve_starts_its_falkordb_again_after_a_kill_and_loses_no_acknowledged_write(tmp_path, serves):
    running = Lighthouse(tmp_path / "data")
    serves.append(running.start())
    key = running.key("healed")
    running.result("declare_kinds", {"kinds": KINDS}, key)
    acknowledged: list[str] = []
    refused: list[httpx.Response] = []
    writing = threading.Event()

    def writer(number: int) -> None:
        serial = 0
        while writing.is_set():
            serial += 1
            name = f"w{number}-{serial}"
            row = {"key": name, "t": "2026-01-01T00:00:00Z", "values": {"note": "kept"}}
            try:
                answer = running.post("remember", {"kind": "Device", "rows": [row]}, key)
            except httpx.HTTPError:
                continue
            if answer.status_code == 200 and answer.json()["result"][0]["status"] == "created":
                acknowledged.append(name)
            elif answer.status_code != 200:
                refused.append(answer)

    writing.set()
    writers = [threading.Thread(target=writer, args=(number,)) for number in range(4)]
    for thread in writers:
        thread.start()
    time.sleep(1.0)
    killed = _falkordb_pid(running.data)
    os.kill(killed, signal.SIGKILL)
    killed_at = time.monotonic()
    back_in = None
    while time.monotonic() - killed_at < 30:
        if httpx.get(f"{running.url}/health").status_code == 200:
            back_in = time.monotonic() - killed_at
            break
        time.sleep(0.05)
    time.sleep(1.0)  # writes after the restart, too
    writing.clear()
    for thread in writers:
        thread.join(timeout=30)
    assert back_in is not None and back_in < 10, back_in  # back within seconds, serve never restarted
    assert running.process.poll() is None and _falkordb_pid(running.data) != killed
    assert acknowledged and refused  # writes went on before and after; some met the database down
    for answer in refused:
        assert answer.status_code == 503 and answer.json()["error"]["code"] == "database_unavailable"
        assert answer.headers["retry-after"] == str(DATABASE_RETRY_AFTER)
    graph = running.db().select_graph("tenant:healed")
    kept = {row[0] for row in graph.ro_query("MATCH (e:Device) RETURN e.serial").result_set}
    assert set(acknowledged) <= kept  # no acknowledged write lost
    said = (running.data.parent / f"serve-{running.port}.log").read_text()
    assert "exited with code -9; starting it again" in said and "FalkorDB runs again" in said
    assert running.stop() == 0


def test_an_external_falkordb_is_used_and_left_running_and_a_request_in_flight_finishes(tmp_path, serves):
    external = start()
    try:
        running = Lighthouse(tmp_path / "data", query_timeout_ms="3000")
        serves.append(running)
        running.extra = {"FALKORDB_URL": f"redis://127.0.0.1:{external.port}"}
        running.start()
        key = keys.create(external.client(), "outside", "planner", list(keys.SCOPES))["key"]
        running.result("declare_kinds", {"kinds": KINDS}, key)
        rows = [
            {"key": f"n{number}", "t": "2026-01-01T00:00:00Z", "values": {"note": "x"}}
            for number in range(30)
        ]
        running.result("remember", {"kind": "Device", "rows": rows}, key)
        everything = ",".join(f"({name}:Entity)" for name in "abcdef")
        slow = {
            "query": f"MATCH {everything} WHERE a.key + b.key + c.key + d.key + e.key + f.key = '' RETURN a"
        }
        answers: list[httpx.Response] = []
        asking = threading.Thread(target=lambda: answers.append(running.post("cypher", slow, key)))
        asking.start()
        time.sleep(1.0)
        assert running.stop(signal.SIGTERM) == 0
        asking.join(timeout=30)
        assert answers and answers[0].json()["error"]["code"] == "too_slow"  # answered, not cut off
        assert not (running.data / RUNNING).exists()
        graph = external.client().select_graph("tenant:outside")
        assert graph.ro_query("MATCH (e:Entity) RETURN count(e)").result_set == [[30]]  # still running
    finally:
        external.stop()
