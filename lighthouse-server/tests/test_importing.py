"""import_rows() from JSON Lines and CSV into a kind: good rows stored, bad lines reported by number and
costing only themselves, the library's refusals counted as receipts, arguments refused before anything."""

from __future__ import annotations

import io
import json
from pathlib import Path

import lighthouse
import pytest
from lighthouse import Kind, Refused, WrongType
from lighthouse_server.importing import MAX_BAD_LINES, import_rows

ROOM = Kind("Room", key="code")
DEVICE = Kind(
    "Device", key="serial", times=("last_seen",), text=("note",), relations={"IN": ROOM, "NEAR": ROOM}
)


@pytest.fixture
def schema(graph):
    lighthouse.ensure_schema(graph, [DEVICE, ROOM])
    return graph


def current(graph, key) -> dict | None:
    return lighthouse.as_of(graph, DEVICE, key, "2026-11-01T00:00:00Z")


def count(graph, label: str) -> int:
    return graph.ro_query(f"MATCH (n:{label}) RETURN count(n)").result_set[0][0]


def failures(graph) -> int:
    return graph.ro_query("MATCH (f:WriteFailure) RETURN count(f)").result_set[0][0]


def test_json_lines_are_written_and_each_bad_line_costs_only_itself(schema, tmp_path: Path) -> None:
    lines = [
        json.dumps({"key": "d1", "t": "2026-10-01T08:00:00Z", "values": {"watts": 40, "note": "fan"}}),
        "",  # blank: skipped
        '{"key": "d2", "t": "2026-10-01T08:00:00Z", "values": {"watts": 41}',  # line 3: cut short
        json.dumps(
            {"key": "d2", "t": "2026-10-01T08:00:00Z", "relations": {"IN": "b2"}, "values": {"on": True}}
        ),
        "[1, 2]",  # line 5: not an object
        json.dumps({"key": "d3", "t": "not a time"}),  # the library refuses it: an invalid receipt
        json.dumps(
            {"key": "d1", "t": "2026-10-02T08:00:00Z", "values": {"watts": 45, "last_seen": "2026-10-02"}}
        ),
        json.dumps(
            {"key": "d1", "t": "2026-10-02T08:00:00Z", "values": {"watts": 45, "last_seen": "2026-10-02"}}
        ),
        json.dumps({"key": "d4", "t": "2026-10-01", "entry": "no-such-episode/1"}),  # missing
    ]
    path = tmp_path / "rows.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    report = import_rows(schema, DEVICE, "loader", path, batch=2)
    assert report["rows"] == 6
    assert report["receipts"] == {"changed": 1, "created": 2, "invalid": 1, "missing": 1, "unchanged": 1}
    assert [bad["line"] for bad in report["bad_lines"]] == [3, 5]
    assert report["bad_lines"][0]["error"].startswith("not JSON: ")
    assert report["bad_lines"][1]["error"] == "a row must be a JSON object, not list"
    assert [state["watts"] for state in lighthouse.history(schema, DEVICE, "d1")] == [40, 45]
    assert lighthouse.history(schema, DEVICE, "d1")[0]["note"] == "fan"
    assert current(schema, "d2")["on"] is True
    assert lighthouse.related(schema, DEVICE, "d2", "IN") == ["b2"]
    assert current(schema, "d3") is None and failures(schema) == 2  # the library kept its two refusals


CSV_TEXT = (
    "key,t,watts:int,ratio:float,on:bool,note,tags:json,rel:IN,rel:NEAR,last_seen\n"
    'd1,2026-10-01T08:00:00Z,40,0.5,true,a fan,"[""x"", ""y""]",b2,b3;b4,2026-10-01\n'
    "d2,2026-10-01T08:00:00Z,,,no,,,,,\n"  # empty cells: absent
    "d3,2026-10-01T08:00:00Z,41,0.5,true,x,[],b2,b3,2026-10-01,one too many\n"  # line 4: too many cells
    "d4,2026-10-01T08:00:00Z,forty,,,,,,,\n"  # line 5: not an int
    "\n"
    'd5,2026-10-01T08:00:00Z,42,,,"two\nlines",,,,\n'  # lines 7-8: one row
    "d6,2026-10-01T08:00:00Z,43,,maybe,,,,,\n"  # line 9: not a bool
    "d7,2026-10-01T08:00:00Z,44,,,,,,\n"  # line 10: too few cells
    ",2026-10-01T08:00:00Z,45,,,,,,,\n"  # no key: the library refuses it
)


def test_csv_rows_with_typed_columns_and_relations(schema) -> None:
    progress: list[int] = []
    report = import_rows(
        schema, DEVICE, "loader", io.StringIO(CSV_TEXT, newline=""), format="csv", progress=progress.append
    )
    assert report["rows"] == 4
    assert report["receipts"] == {"created": 3, "invalid": 1}
    assert [(bad["line"], bad["error"]) for bad in report["bad_lines"]] == [
        (4, "11 cells where the header has 10"),
        (5, "column 'watts': invalid literal for int() with base 10: 'forty'"),
        (9, "column 'on': 'maybe' is not true or false"),
        (10, "9 cells where the header has 10"),
    ]
    assert sum(progress) == 11  # every physical line, the header and the blank one included
    first = current(schema, "d1")
    assert (first["watts"], first["ratio"], first["on"], first["note"], first["tags"]) == (
        40,
        0.5,
        True,
        "a fan",
        ["x", "y"],
    )
    assert lighthouse.related(schema, DEVICE, "d1", "NEAR") == ["b3", "b4"]
    second = current(schema, "d2")
    assert second["on"] is False and "watts" not in second and "note" not in second
    assert lighthouse.related(schema, DEVICE, "d2", "IN") == []
    assert current(schema, "d5")["note"] == "two\nlines"
    assert count(schema, "Device") == 3


def test_a_csv_key_column_may_be_typed(graph) -> None:
    numbered = Kind("Counter", key="id")
    lighthouse.ensure_schema(graph, [numbered])
    report = import_rows(graph, numbered, "loader", ["key:int,t,n:int\n", "7,2026-10-01,1\n"], format="csv")
    assert report == {"rows": 1, "receipts": {"created": 1}, "bad_lines": []}
    assert lighthouse.history(graph, numbered, 7)[0]["n"] == 1


def test_a_file_of_thousands_of_lines_goes_in_batches(schema, tmp_path: Path) -> None:
    path = tmp_path / "many.jsonl"
    with path.open("w", encoding="utf-8") as out:
        for n in range(3000):
            if n % 500 == 499:
                out.write("{broken\n")
            else:
                out.write(json.dumps({"key": f"d{n}", "t": "2026-10-01", "values": {"n": n}}) + "\n")
    calls: list[int] = []
    report = import_rows(schema, DEVICE, "loader", str(path), batch=400, progress=calls.append)
    assert report["rows"] == 2994 and report["receipts"] == {"created": 2994}
    assert [bad["line"] for bad in report["bad_lines"]] == [500, 1000, 1500, 2000, 2500, 3000]
    assert sum(calls) == 3000 and len(calls) == 8  # after each of the 8 batches (7 full, 1 partial)
    assert count(schema, "Device") == 2994
    assert current(schema, "d2998")["n"] == 2998


def test_lines_that_are_not_utf8_or_not_text_cost_their_line(schema, tmp_path: Path) -> None:
    path = tmp_path / "mixed.jsonl"
    good = json.dumps({"key": "d1", "t": "2026-10-01"}).encode()
    path.write_bytes(good + b"\n" + b'{"key": "d\xff", "t": "2026-10-01"}\n' + b"[[[[" * 100_000 + b"\n")
    report = import_rows(schema, DEVICE, "loader", path)
    assert report["receipts"] == {"created": 1}
    assert [(bad["line"], bad["error"][:14]) for bad in report["bad_lines"]] == [
        (2, "not UTF-8 text"),
        (3, "the line canno"),
    ]
    csv_path = tmp_path / "mixed.csv"
    csv_path.write_bytes(b"\xef\xbb\xbfkey,t\nd2,2026-10-01\nd\xff,2026-10-01\n")  # a BOM, then a bad byte
    report = import_rows(schema, DEVICE, "loader", csv_path, format="csv")
    assert report == {
        "rows": 1,
        "receipts": {"created": 1},
        "bad_lines": [{"line": 3, "error": "not UTF-8 text"}],
    }

    class Hostile(str):
        def strip(self, *args):
            raise RuntimeError("no")

    report = import_rows(
        schema,
        DEVICE,
        "loader",
        [b'{"key": 1}', 5, Hostile("{}"), json.dumps({"key": "d3", "t": "2026-10-01"})],
    )
    assert report["receipts"] == {"created": 1}
    assert [bad["line"] for bad in report["bad_lines"]] == [1, 2, 3]


def test_bad_lines_past_the_limit_are_counted_not_listed(schema) -> None:
    report = import_rows(schema, DEVICE, "loader", ["nope\n"] * (MAX_BAD_LINES + 5))
    assert len(report["bad_lines"]) == MAX_BAD_LINES + 1
    assert report["bad_lines"][-1] == {"line": None, "error": "5 more bad lines not listed"}
    assert report["rows"] == 0 and report["receipts"] == {}


class Watched:
    """Lines that remember whether anybody read them."""

    def __init__(self) -> None:
        self.read = False

    def __iter__(self):
        self.read = True
        yield json.dumps({"key": "d1", "t": "2026-10-01"})


class Sneaky(str):
    def __str__(self):
        raise RuntimeError("no")

    def __len__(self):
        raise RuntimeError("no")


@pytest.mark.parametrize(
    ("arguments", "error", "says"),
    [
        ({"by": ""}, Refused, "must be text"),
        ({"by": Sneaky("loader")}, Refused, "must be text"),
        ({"by": None}, Refused, "must be text"),
        ({"kind": "Device"}, Refused, "kind must be a Kind"),
        ({"format": "xml"}, Refused, "format must be 'jsonl' or 'csv'"),
        ({"format": None}, Refused, "format must be"),
        ({"batch": 0}, Refused, "batch must be a whole number from 1 to 10000"),
        ({"batch": True}, Refused, "batch must be a whole number"),
        ({"batch": "5"}, Refused, "batch must be a whole number"),
        ({"progress": 5}, WrongType, "progress must be callable"),
    ],
)
def test_bad_arguments_raise_before_anything_is_read_or_written(schema, arguments, error, says) -> None:
    lines = Watched()
    call = {"graph": schema, "kind": DEVICE, "by": "loader", "source": lines, **arguments}
    with pytest.raises(error, match=says):
        import_rows(**call)
    assert lines.read is False
    assert count(schema, "Device") == 0 and failures(schema) == 0


def test_a_source_that_cannot_be_used_raises(schema, tmp_path: Path) -> None:
    with pytest.raises(Refused, match="cannot be read"):
        import_rows(schema, DEVICE, "loader", tmp_path / "absent.jsonl")
    with pytest.raises(WrongType, match="source must be text"):
        import_rows(schema, DEVICE, "loader", b'{"key": "d1"}\n')
    with pytest.raises(WrongType, match="source must be text"):
        import_rows(schema, DEVICE, "loader", io.BytesIO(b"x"))
    with pytest.raises(WrongType, match="source must be a path"):
        import_rows(schema, DEVICE, "loader", 42)
    assert count(schema, "Device") == 0


@pytest.mark.parametrize(
    ("header", "says"),
    [
        ("key,watts\n", "must name the columns key and t"),
        ("key,t,watts:date\n", "unknown type"),
        ("key,t,t:int\n", "takes no type"),
        ("key,t,watts,watts\n", "names a column twice"),
    ],
)
def test_a_csv_header_that_cannot_be_used_refuses_the_file(schema, header, says) -> None:
    with pytest.raises(Refused, match=says):
        import_rows(schema, DEVICE, "loader", [header, "d1,2026-10-01,1\n"], format="csv")
    assert count(schema, "Device") == 0


def test_an_empty_source_writes_nothing(schema) -> None:
    assert import_rows(schema, DEVICE, "loader", []) == {"rows": 0, "receipts": {}, "bad_lines": []}
    assert import_rows(schema, DEVICE, "loader", ["\n"], format="csv") == {
        "rows": 0,
        "receipts": {},
        "bad_lines": [],
    }
