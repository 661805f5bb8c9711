"""`lighthouse import`, `export`, `backup` and `restore`: data in and out of a tenant or the database.

Thin commands over importing.py, export.py and backup.py; they run on the running server's database
when one holds the data directory, else on one started for the command.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from lighthouse import tenant

from .. import audit, keys
from ..database import opened
from ..declarations import Kinds
from .options import add_common, person, settings_of


class Progress:
    """A count of lines done of a total on a stream: a line redrawn at most every REDRAW_S on a terminal;
    elsewhere (a pipe, a log) the label alone, once, when it starts."""

    REDRAW_S = 0.1

    def __init__(self, total: int, label: str, out) -> None:
        self.total, self.label, self.out = max(total, 0), label, out
        self.done = 0
        self._drawn_at = 0.0
        self._terminal = out.isatty()

    def __enter__(self) -> Progress:
        if self._terminal:
            self._draw()
        else:
            print(self.label, file=self.out, flush=True)
        return self

    def update(self, lines: int) -> None:
        self.done += lines
        if self._terminal and time.monotonic() - self._drawn_at >= self.REDRAW_S:
            self._draw()

    def __exit__(self, *_raised) -> None:
        if self._terminal:
            self._draw()
            print(file=self.out, flush=True)

    def _draw(self) -> None:
        self._drawn_at = time.monotonic()
        share = min(self.done / self.total, 1.0) if self.total else 1.0
        bar = "#" * int(share * 36)
        print(f"\r{self.label}  [{bar:<36}]  {share:4.0%}", end="", file=self.out, flush=True)


def _refused(what: str, error: Exception) -> int:
    print(f"lighthouse {what}: {error}", file=sys.stderr)
    return 2


def add(commands) -> None:
    rows = commands.add_parser(
        "import", help="write rows from a JSON Lines or CSV file into a kind, with a progress bar"
    )
    rows.add_argument("file", help="the file: one row a line (JSON Lines) or a header and rows (CSV)")
    rows.add_argument("--tenant", required=True, help="the tenant id")
    rows.add_argument("--kind", required=True, help="the label of a declared kind")
    rows.add_argument(
        "--format", choices=("jsonl", "csv"), default=None, help="default: by the file's ending"
    )
    rows.add_argument("--agent", default=None, help="the `by` of the rows (default: cli:<your user name>)")
    out = commands.add_parser("export", help="a tenant's whole graph as JSON Lines: every node and edge")
    out.add_argument("--tenant", required=True, help="the tenant id")
    out.add_argument("--out", default=None, help="the file to write (default: standard output)")
    copy = commands.add_parser("backup", help="a consistent copy of the whole database, taken while it runs")
    copy.add_argument("directory", help="a new or empty directory for the copy")
    back = commands.add_parser("restore", help="put a backup into an empty data directory (--data)")
    back.add_argument("directory", help="the backup's directory")
    for sub in (rows, out, copy, back):
        add_common(sub)
    rows.set_defaults(run=run_import)
    out.set_defaults(run=run_export)
    copy.set_defaults(run=run_backup)
    back.set_defaults(run=run_restore)


def run_import(arguments) -> int:
    try:
        return _import(arguments)
    except (OSError, ValueError, TypeError, RuntimeError) as error:  # a file, a row or a backup refused
        return _refused("import", error)


def _import(arguments) -> int:
    from ..importing import import_rows

    chosen = arguments.format or ("csv" if arguments.file.lower().endswith(".csv") else "jsonl")
    if not Path(arguments.file).is_file():
        # Read twice (its lines counted for the bar first): a pipe would give its rows to the count.
        raise ValueError(f"{arguments.file} is not a regular file: save the rows to a file and import that")
    with opened(settings_of(arguments)) as db:
        kind = Kinds(db).kind(arguments.tenant, arguments.kind)
        with open(arguments.file, "rb") as source:  # newlines, whatever the bytes between them
            lines = sum(chunk.count(b"\n") for chunk in iter(lambda: source.read(1 << 20), b""))
        with Progress(lines, "importing", sys.stderr) as bar:
            done = import_rows(
                graph=tenant(db, arguments.tenant),
                kind=kind,
                by=person() if arguments.agent is None else arguments.agent,
                source=arguments.file,
                format=chosen,
                progress=bar.update,
            )
    for bad in done["bad_lines"]:
        print(f"line {bad['line']}: {bad['error']}", file=sys.stderr)
    print(json.dumps(done))
    return 0


def run_export(arguments) -> int:
    try:
        return _export(arguments)
    except (OSError, ValueError, TypeError, RuntimeError) as error:  # a file, a row or a backup refused
        return _refused("export", error)


def _export(arguments) -> int:
    from ..export import write_jsonl

    with opened(settings_of(arguments), reading=True) as db:
        graph = tenant(db, arguments.tenant)
        if graph.name not in db.list_graphs():
            raise ValueError(f"the tenant {arguments.tenant!r} has no graph here: nothing was written for it")
        counts = write_jsonl(graph, arguments.out or sys.stdout)
    print(json.dumps(counts), file=sys.stderr)
    return 0


def run_backup(arguments) -> int:
    try:
        return _backup(arguments)
    except (OSError, ValueError, TypeError, RuntimeError) as error:  # a file, a row or a backup refused
        return _refused("backup", error)


def _backup(arguments) -> int:
    from ..backup import backup

    with opened(settings_of(arguments), reading=True) as db:
        manifest = backup(db, arguments.directory)
    print(json.dumps({name: manifest.get(name) for name in ("directory", "created_at", "graphs", "counts")}))
    return 0


def run_restore(arguments) -> int:
    try:
        return _restore(arguments)
    except (OSError, ValueError, TypeError, RuntimeError) as error:  # a file, a row or a backup refused
        return _refused("restore", error)


def _restore(arguments) -> int:
    from ..backup import restore

    settings = settings_of(arguments)
    report = restore(arguments.directory, settings.data)
    with opened(settings) as db:
        keys.ensure_service_schema(db)
        for name in report["graphs"]:
            if name.startswith("tenant:"):
                what = {"backup": arguments.directory, "created_at": report["created_at"]}
                audit.write(
                    db,
                    tenant=name.removeprefix("tenant:"),
                    action="restored",
                    who=person(),
                    key_id=None,
                    what=what,
                )
    print(json.dumps({name: report.get(name) for name in ("data_dir", "created_at", "graphs", "checked")}))
    return 0
