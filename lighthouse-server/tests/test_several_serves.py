"""Two `lighthouse serve` processes on the tests' 3 + 3 cluster: each note is read by one worker (asked
of the model once), and a console session started on one holds on the other and across a restart."""

from __future__ import annotations

import time
import uuid

import httpx
from console_world import same_site
from lighthouse_server import keys
from service_process import Lighthouse

NOTES = 6


def test_two_serves_share_the_tenants_work_and_the_console_sessions(
    falkordb_cluster, cluster_db, serves, fake, tmp_path
):
    keys.ensure_service_schema(cluster_db)
    name = f"s{uuid.uuid4().hex[:10]}"
    key = keys.create(cluster_db, name, "agent", list(keys.SCOPES))["key"]
    seeds = ",".join(falkordb_cluster.seeds)
    settings = {
        "falkordb_cluster": seeds,
        "model_url": fake.url,
        "model_name": "fake",
        "worker_interval_ms": "50",
    }
    first = Lighthouse(tmp_path / "first", **settings).start()
    serves.append(first)
    second = Lighthouse(tmp_path / "second", **settings).start()
    serves.append(second)
    headers = {"Authorization": f"Bearer {key}"}
    kinds = {"kinds": [{"label": "Device", "key": "serial"}]}
    assert (
        httpx.post(f"{first.url}/v1/declare_kinds", json=kinds, headers=headers, timeout=60).status_code
        == 200
    )
    for number in range(NOTES):
        serve = (first, second)[number % 2]
        body = {"text": f"note number {number} of {name}", "source": "agent"}
        assert httpx.post(f"{serve.url}/v1/note", json=body, headers=headers, timeout=60).status_code == 200
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        status = httpx.post(f"{first.url}/v1/status", json={}, headers=headers, timeout=60).json()["result"]
        if status["extraction"]["notes_read"] >= NOTES:
            break
        time.sleep(0.2)
    assert status["extraction"]["notes_read"] == NOTES and status["extraction"]["notes_waiting"] == 0
    asked = [ask.note for ask in fake.asks if name in ask.note]
    assert sorted(asked) == sorted(f"note number {number} of {name}" for number in range(NOTES))

    signed = httpx.post(
        f"{first.url}/console/sign-in", data={"key": key}, headers=same_site(first), timeout=60
    )
    assert signed.status_code == 303 and signed.headers["location"] == "/console/"
    cookies = {"lh_console": signed.cookies["lh_console"]}
    for serve in (first, second):
        page = httpx.get(f"{serve.url}/console/", cookies=cookies, timeout=60)
        assert page.status_code == 200, (serve.url, page.status_code)
    second.stop()
    serves.remove(second)
    again = Lighthouse(tmp_path / "second", **settings).start()
    serves.append(again)
    assert httpx.get(f"{again.url}/console/", cookies=cookies, timeout=60).status_code == 200
    ended = httpx.get(f"{again.url}/console/", cookies={"lh_console": "nobody.x"}, timeout=60)
    assert ended.status_code == 303  # an unknown session is sent to sign in
