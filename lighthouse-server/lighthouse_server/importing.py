"""Rows from a JSON Lines or CSV file written into a kind through lighthouse.remember, in batches.

JSON Lines (format="jsonl"): one row object a line, exactly the row of remember():
    {"key": "d1", "t": "2026-10-12T08:00:00Z", "values": {"room": "B2", "watts": 40},
     "relations": {"IN": "b2"}, "entry": "ep1/3"}
Blank lines are skipped.

CSV (format="csv"): a header line, then one row a line (RFC 4180 quoting; a quoted cell may span lines).
    key    the row's key (text); `key:int` for a whole-number key
    t      the row's time (ISO 8601)
    entry  optional: the id of the entry the row rests on
    NAME   a value, as text; `NAME:int`, `NAME:float`, `NAME:bool` (true/false, 1/0, yes/no) or
           `NAME:json` (any JSON value, e.g. a list) give it that type
    rel:TYPE   the targets of relation TYPE: keys separated by ";" (blank: none)
An empty cell means "no value" (the value is absent from the row, as None is in remember()).

A line that cannot be read (not JSON, not an object, too many or too few cells, a cell that is not of its
column's type) is reported in "bad_lines" with its line number (1 is the first line of the file) and
costs only that row. A row that is read but that the library refuses gets its refusal receipt, counted
in "receipts" like every other status, and is stored as a WriteFailure by the library.
"""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO

import lighthouse
from lighthouse import Kind, Refused, WrongType

FORMATS = ("jsonl", "csv")
MAX_BATCH = 10_000
MAX_BAD_LINES = 1000  # reported one by one; past them only counted in the last entry
MAX_ERROR = 200  # characters of a parser's message kept per bad line
RELATION_PREFIX = "rel:"
TARGET_SEPARATOR = ";"
_TRUE, _FALSE = ("true", "1", "yes"), ("false", "0", "no")

# (line number, lines read so far, the row or None, the error or None); neither row nor error: a skipped line
Parsed = tuple[int, int, dict | None, str | None]


def _line_error(error: Exception) -> str:
    return str(error)[:MAX_ERROR] or type(error).__name__


def _unreadable(text: str) -> str | None:
    """Why a line read from a file is not text: bytes that are not UTF-8 come as lone surrogates."""
    try:
        text.encode("utf-8")
    except UnicodeError:
        return "not UTF-8 text"
    return None


def _jsonl(lines: Iterable[str]) -> Iterator[Parsed]:
    for number, line in enumerate(lines, start=1):
        try:
            if not isinstance(line, str):
                raise ValueError(f"a line must be text, not {type(line).__name__}")
            if not line.strip():
                yield number, number, None, None
                continue
            if problem := _unreadable(line):
                raise ValueError(problem)
            row = json.loads(line)
        except ValueError as error:
            what = "not JSON: " if isinstance(error, json.JSONDecodeError) else ""
            yield number, number, None, what + _line_error(error)
            continue
        except Exception as error:  # a hostile line object: it costs its own line only
            yield number, number, None, f"the line cannot be read: {type(error).__name__}"
            continue
        if type(row) is not dict:
            yield number, number, None, f"a row must be a JSON object, not {type(row).__name__}"
            continue
        yield number, number, row, None


def _cell(text: str, kind_of_column: str) -> object:
    """A CSV cell as its column's type; ValueError if it is not one."""
    if kind_of_column == "text":
        return text
    if kind_of_column == "int":
        return int(text.strip())
    if kind_of_column == "float":
        return float(text.strip())
    if kind_of_column == "bool":
        folded = text.strip().lower()
        if folded in _TRUE or folded in _FALSE:
            return folded in _TRUE
        raise ValueError(f"{text[:50]!r} is not true or false")
    return json.loads(text)  # json


def _column(name: str) -> tuple[str, str, str]:
    """(where, name, type) of a header cell: where is key, t, entry, value or relation."""
    if name.startswith(RELATION_PREFIX):
        return "relation", name[len(RELATION_PREFIX) :], "text"
    base, _, typed = name.partition(":")
    if typed and typed not in ("int", "float", "bool", "json"):
        raise Refused(f"the CSV column {name!r} has an unknown type: int, float, bool or json")
    where = base if base in ("key", "t", "entry") else "value"
    if where in ("t", "entry") and typed:
        raise Refused(f"the CSV column {name!r} takes no type: it is text")
    return where, base, typed or "text"


def _csv_header(header: list[str]) -> list[tuple[str, str, str]]:
    columns = [_column(name.strip()) for name in header]
    named = [(where, name) for where, name, _ in columns]
    if ("key", "key") not in named or ("t", "t") not in named:
        raise Refused("the CSV header must name the columns key and t")
    if len(set(named)) != len(named):
        raise Refused("the CSV header names a column twice")
    return columns


def _csv_row(columns: list[tuple[str, str, str]], cells: list[str]) -> dict:
    row: dict = {"values": {}, "relations": {}}
    for (where, name, typed), cell in zip(columns, cells, strict=True):
        if cell == "":
            continue  # absent
        try:
            value = _cell(cell, typed)
        except ValueError as error:
            raise ValueError(f"column {name!r}: {_line_error(error)}") from None
        if where == "value":
            row["values"][name] = value
        elif where == "relation":
            row["relations"][name] = [key.strip() for key in cell.split(TARGET_SEPARATOR) if key.strip()]
        else:
            row[where] = value
    return row


def _csv(lines: Iterable[str]) -> Iterator[Parsed]:
    # The reader counts physical lines: a row starts one past where the one before it ended.
    reader = csv.reader(lines, strict=True)
    ended, columns = 0, None
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            return
        except csv.Error as error:
            # An open quote takes the lines after it into its cell: say which lines this one row took.
            took = (
                f" (lines {ended + 1} to {reader.line_num} were read as this row)"
                if reader.line_num > ended + 1
                else ""
            )
            yield ended + 1, reader.line_num, None, f"not CSV: {_line_error(error)}{took}"
            ended = reader.line_num
            continue
        number, ended = ended + 1, reader.line_num
        if not cells or (len(cells) == 1 and not cells[0].strip()):
            yield number, ended, None, None
            continue
        if columns is None:
            columns = _csv_header(cells)  # a header that cannot be used refuses the whole file
            yield number, ended, None, None
            continue
        if any(_unreadable(cell) for cell in cells):
            yield number, ended, None, "not UTF-8 text"
            continue
        if len(cells) != len(columns):
            yield number, ended, None, f"{len(cells)} cells where the header has {len(columns)}"
            continue
        try:
            row = _csv_row(columns, cells)
        except ValueError as error:
            yield number, ended, None, str(error)
            continue
        yield number, ended, row, None


def _lines(source: str | Path | IO[str] | Iterable[str]) -> tuple[Iterable[str], IO | None]:
    """The source's lines, and the file this module opened (to close), if any."""
    if isinstance(source, str | Path):
        try:
            # Bytes that are not UTF-8 are kept (as lone surrogates) so that they cost only their line.
            opened = Path(source).open(encoding="utf-8-sig", errors="surrogateescape", newline="")  # noqa: SIM115 - closed by import_rows
        except OSError as error:
            raise Refused(f"{source} cannot be read: {error.strerror or error}") from None
        return opened, opened
    if isinstance(source, bytes | bytearray | io.BufferedIOBase | io.RawIOBase):
        raise WrongType("source must be text: open the file in text mode (encoding='utf-8')")
    if hasattr(source, "__iter__"):
        return source, None
    raise WrongType(f"source must be a path, a text file or lines, not {type(source).__name__}")


def _checked(graph, kind: object, by: object, format: object, batch: object, progress: object) -> None:
    if type(format) is not str or format not in FORMATS:
        raise Refused(f"format must be 'jsonl' or 'csv', not {format!r}"[:200])
    if type(batch) is not int or not 1 <= batch <= MAX_BATCH:
        raise Refused(f"batch must be a whole number from 1 to {MAX_BATCH}")
    if progress is not None and not callable(progress):
        raise WrongType("progress must be callable or None")
    lighthouse.remember(graph, kind, [], by)  # by and kind checked by the library itself; writes nothing


def import_rows(
    graph,
    kind: Kind,
    by: str,
    source: str | Path | IO[str] | Iterable[str],
    format: str = "jsonl",
    batch: int = 500,
    progress: Callable[[int], object] | None = None,
) -> dict:
    """Reads rows from source and writes them with lighthouse.remember(graph, kind, rows, by), batch at a time.

    source: a path, a text file, or any iterable of lines; format: "jsonl" or "csv" (see the module).
    progress(n) is called after each batch with the number of lines read since the call before it (bad
    and blank lines included), as command.transfer.Progress.update() takes it.
    Returns {"rows": rows given to remember, "receipts": {status: count}, "bad_lines": [{"line", "error"}]}.
    Arguments are checked before anything is read or written: a bad by, format, batch or CSV header
    raises Refused (a ValueError), a kind that is not a Kind or a progress that is not callable raises
    WrongType (a TypeError). What a line holds never raises: it is a bad line or a receipt.
    """
    _checked(graph, kind, by, format, batch, progress)
    lines, opened = _lines(source)
    receipts: Counter[str] = Counter()
    bad_lines: list[dict] = []
    pending: list[dict] = []
    written = last_line = reported_line = 0
    bad_count = 0

    def flush() -> None:
        nonlocal written, reported_line
        if pending:
            receipts.update(receipt["status"] for receipt in lighthouse.remember(graph, kind, pending, by))
            written += len(pending)
            pending.clear()
        if progress is not None and last_line > reported_line:
            progress(last_line - reported_line)
            reported_line = last_line

    try:
        parsed = _csv(lines) if format == "csv" else _jsonl(lines)
        for number, read, row, error in parsed:
            last_line = read
            if row is None and error is None:
                continue
            if error is not None:
                bad_count += 1
                if len(bad_lines) < MAX_BAD_LINES:
                    bad_lines.append({"line": number, "error": error})
                continue
            pending.append(row)
            if len(pending) >= batch:
                flush()
        flush()
    except BaseException as stopped:  # an interrupt or a database gone: what was stored, said with it
        stopped.add_note(
            f"import stopped at line {last_line}: {written} rows were written before it, with receipts "
            f"{dict(sorted(receipts.items()))}; the {len(pending)} rows after them may not have been"
        )
        raise
    finally:
        if opened is not None:
            opened.close()
    if bad_count > len(bad_lines):
        bad_lines.append({"line": None, "error": f"{bad_count - len(bad_lines)} more bad lines not listed"})
    return {"rows": written, "receipts": dict(sorted(receipts.items())), "bad_lines": bad_lines}
