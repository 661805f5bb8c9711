"""Results as JSON: datetimes as ISO text, reference tuples as lists, nothing else changed."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from lighthouse import Kind
from lighthouse_server.encoding import dumps, jsonable


def test_library_values_become_json():
    room = Kind("Room", key="code")
    given = {
        "at": datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
        "members": [("Room", 7), ("Room", "b")],
        "kind": room,
        "score": float("nan"),
        "n": 3,
        "ok": True,
        "none": None,
    }
    assert jsonable(given) == {
        "at": "2026-01-02T03:04:05+00:00",
        "members": [["Room", 7], ["Room", "b"]],
        "kind": "Room",
        "score": None,
        "n": 3,
        "ok": True,
        "none": None,
    }
    assert list(json.loads(dumps({"b": 1, "a": 2}))) == ["b", "a"]  # the library's order is kept
