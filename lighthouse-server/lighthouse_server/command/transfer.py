"""`lighthouse import`, `export`, `backup` and `restore`: data in and out of a tenant or the database.

Thin commands over importing.py, export.py and backup.py; they run on the running server's database
when one holds the data directory, else on one started for the command.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from lighthouse import tenant, tenant_ids

from .. import audit, keys
from ..database import external, opened
from ..declarations import Kinds
from .options import KIND_HELP, TENANT_HELP, add_common, person, settings_of


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
    rows.add_argument(
        "file", metavar="FILE", help="a file: one row a line (JSON Lines) or a header and rows (CSV)"
    )
    rows.add_argument("--tenant", required=True, help=TENANT_HELP)
    rows.add_argument("--kind", required=True, help=KIND_HELP)
    rows.add_argument(
        "--format",
        choices=("jsonl", "csv"),
        default=None,
        help="jsonl or csv (default: by the file's ending, .csv or else JSON Lines)",
    )
    rows.add_argument(
        "--agent",
        default=None,
        help="the `by` of the rows, text of 1 to 200 characters (default: cli:<your user name>)",
    )
    out = commands.add_parser("export", help="a tenant's whole graph as JSON Lines: every node and edge")
    out.add_argument("--tenant", required=True, help=TENANT_HELP)
    out.add_argument(
        "--out", default=None, help="the file to write, a path: new or regular (default: standard output)"
    )
    copy = commands.add_parser(
        "backup",
        help="a copy of every graph, each by itself, from one server or a cluster, taken while it runs",
    )
    copy.add_argument("directory", metavar="DIRECTORY", help="a new or empty directory for the copy, a path")
    copy.add_argument(
        "--snapshot",
        action="store_true",
        help="instead, one snapshot of the whole server at one instant (one server on this machine only)",
    )
    back = commands.add_parser(
        "restore", help="put a backup's graphs into the database (a snapshot: into an empty --data)"
    )
    back.add_argument("directory", metavar="DIRECTORY", help="the directory a backup wrote, a path")
    back.add_argument(
        "--replace", action="store_true", help="overwrite graphs of the same name (default: refuse)"
    )
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
        if arguments.tenant not in tenant_ids(db):  # every primary's graphs on a cluster
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
    from ..graph_backup import backup_graphs

    with opened(settings_of(arguments), reading=True) as db:
        if arguments.snapshot:
            manifest = backup(db, arguments.directory)
            said = ("directory", "created_at", "graphs", "counts")
        else:
            manifest = backup_graphs(db, arguments.directory)
            said = ("directory", "created_at", "topology", "graphs")
    print(json.dumps({name: manifest.get(name) for name in said}))
    return 0


def run_restore(arguments) -> int:
    try:
        return _restore(arguments)
    except (OSError, ValueError, TypeError, RuntimeError) as error:  # a file, a row or a backup refused
        return _refused("restore", error)


def _restore(arguments) -> int:
    from ..backup import BackupError, restore
    from ..graph_backup import is_graph_backup, restore_graphs

    settings = settings_of(arguments)
    if is_graph_backup(arguments.directory):
        with opened(settings) as db:
            report = restore_graphs(db, arguments.directory, replace=arguments.replace)
            what = {"backup": arguments.directory, "created_at": report["created_at"]}
            audited(db, [one["name"] for one in report["graphs"]], "restored", what)
        print(json.dumps(report))
        return 0
    if external(settings) is not None:
        raise BackupError(
            "a snapshot backup restores into an empty data directory of the embedded server, not into "
            "the database falkordb_url names: take a backup without --snapshot to restore it there"
        )
    report = restore(arguments.directory, settings.data)
    with opened(settings) as db:
        audited(
            db,
            report["graphs"],
            "restored",
            {"backup": arguments.directory, "created_at": report["created_at"]},
        )
    print(json.dumps({name: report.get(name) for name in ("data_dir", "created_at", "graphs", "checked")}))
    return 0


def audited(db, graphs: list[str], action: str, what: dict) -> None:
    """An audit record for each tenant whose graph a restore or a move wrote."""
    keys.ensure_service_schema(db)
    for name in graphs:
        if name.startswith("tenant:"):
            audit.write(
                db, tenant=name.removeprefix("tenant:"), action=action, who=person(), key_id=None, what=what
            )
