"""The console page of an entity with 1,000 States (each with its note as evidence, and a relation that
changes with each), from the real `lighthouse serve`: every State shown, and what the page cost on the
server in its Server-Timing header. How long it takes is measured by bench/console_page.py (target: under
300 ms on the server), never asserted here: a test that fails when the machine is busy proves nothing."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from console_world import signed_in
from service_process import Lighthouse

STATES = 1_000
START = datetime(2025, 1, 1, tzinfo=UTC)


def test_an_entity_with_1000_states_is_shown_whole_with_its_cost_on_the_server(serves, tmp_path):
    # A serve of its own with no embedder: the shared one embeds every note it is given meanwhile, on
    # the same two cores, and the figure would measure that.
    lighthouse = Lighthouse(tmp_path / "data").start()
    serves.append(lighthouse)
    _tenant, admin = lighthouse.tenant("load")
    said = lighthouse.result(
        "notes",
        {"items": [{"text": f"reading {number} of the long pump"} for number in range(STATES)]},
        admin,
    )
    assert all(receipt["status"] == "recorded" for receipt in said)
    rows = [
        {
            "key": "long-pump",
            "t": (START + timedelta(hours=7 * number)).isoformat(),
            "values": {"status": f"reading {number}", "note": f"the long pump, reading {number}"},
            "relations": {"LOCATED_IN": f"room-{number % 20}"},
            "entry": said[number]["id"],
        }
        for number in range(STATES)
    ]
    written = lighthouse.result("remember", {"kind": "Device", "rows": rows}, admin)
    assert {receipt["status"] for receipt in written} <= {"created", "changed"}, written[:3]
    count = len(
        lighthouse.result("history", {"kind": "Device", "key": "long-pump", "page_size": 1000}, admin)[
            "items"
        ]
    )
    assert count == STATES

    client, _csrf = signed_in(lighthouse, admin)
    page = client.get("/console/entity?kind=Device&key=long-pump")
    assert page.status_code == 200
    assert page.text.count('class="state ') == count and page.text.count('class="state-row') == count
    timing = re.fullmatch(r"page;dur=([0-9]+\.[0-9])", page.headers["server-timing"])
    assert timing is not None and float(timing.group(1)) > 0, page.headers["server-timing"]
    # The oldest State and the newest, each with its note as evidence and its room.
    assert "reading 0 of the long pump" in page.text and "reading 999 of the long pump" in page.text
    assert page.text.count("room-19") >= STATES // 20
