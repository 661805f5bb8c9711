"""The `lighthouse` command: the demo on the FalkorDB the environment names, one setting for the graph."""

from __future__ import annotations

import io
import os
import subprocess
import sys

import pytest
from lighthouse import history
from lighthouse.graphs import schema_turn
from lighthouse_server.command import DEFAULT_GRAPH, graph_name, main
from lighthouse_server.command.transfer import Progress
from lighthouse_server.demo import DEVICE


def test_the_graph_is_named_by_one_setting(monkeypatch):
    monkeypatch.delenv("LIGHTHOUSE_GRAPH", raising=False)
    assert graph_name() == DEFAULT_GRAPH == "world"
    monkeypatch.setenv("LIGHTHOUSE_GRAPH", "desk")
    assert graph_name() == "desk"
    assert graph_name("given") == "given"


def test_demo_writes_under_the_graph_it_is_given_and_reads_it_back(db, tmp_path, capsys):
    name = f"demo_{os.getpid()}_{tmp_path.name[-8:]}"
    try:
        assert main(["demo", "--data", str(tmp_path), "--graph", name]) == 0
        assert "remember first" in capsys.readouterr().out
        assert [state["status"] for state in history(db.select_graph(name), DEVICE, "d1")][-1] == "ok"
        assert name in db.list_graphs()
    finally:
        with schema_turn(db.select_graph(name), 10.0):  # a deletion drops indexes: in the schema turn
            db.select_graph(name).delete()


def test_a_bad_environment_is_a_clear_error(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("FALKORDB_PORT", "not a port")
    assert main(["demo", "--data", str(tmp_path)]) == 2
    assert "FALKORDB_PORT" in capsys.readouterr().err


def test_the_command_needs_a_subcommand():
    with pytest.raises(SystemExit):
        main([])


def test_the_installed_command_runs_the_demo(tmp_path):
    """`lighthouse demo` as the README runs it, with no option: its own embedded FalkorDB, persisted under
    ./data, stopped cleanly."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("FALKORDB_", "LIGHTHOUSE_"))}
    command = [sys.executable, "-m", "lighthouse_server.command", "demo"]
    run = {"env": environment, "cwd": tmp_path, "capture_output": True, "text": True, "timeout": 120}
    done = subprocess.run(command, **run)
    assert done.returncode == 0, done.stderr
    assert "group sizes: [5]" in done.stdout
    assert (tmp_path / "data" / "appendonlydir").is_dir()  # persisted
    again = subprocess.run(command, **run)
    assert "remember first: [{'key': 'd1', 'status': 'unchanged'}]" in again.stdout  # the data was kept


def _subcommands(parser, path=()):
    """Every (sub)command path of the parser, nested ones included."""
    for action in parser._actions:  # argparse keeps its subparsers only here
        if action.__class__.__name__ == "_SubParsersAction":
            for name, sub in action.choices.items():
                yield (*path, name), sub
                yield from _subcommands(sub, (*path, name))


def test_every_subcommand_has_help(capsys):
    from lighthouse_server.command import parser

    paths = dict(_subcommands(parser()))
    assert {
        ("serve",),
        ("mcp",),
        ("keys", "create"),
        ("keys", "list"),
        ("keys", "revoke"),
        ("kinds", "declare"),
        ("kinds", "list"),
        ("import",),
        ("export",),
        ("backup",),
        ("restore",),
        ("history",),
        ("as-of",),
        ("search",),
        ("failures",),
        ("call",),
        ("demo",),
    } <= set(paths)
    for path, sub in paths.items():
        with pytest.raises(SystemExit) as exited:
            main([*path, "--help"])
        assert exited.value.code == 0
        shown = capsys.readouterr().out
        assert shown.startswith("usage: lighthouse " + " ".join(path)), path
        assert sub.description or any(action.help for action in sub._actions if action.dest != "help"), path


def test_serve_help_names_its_settings(capsys):
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    shown = capsys.readouterr().out
    for option in ("--data", "--host", "--port", "--config", "--fsync"):
        assert option in shown


def test_quick_looks_go_through_the_operations_table(lighthouse):
    tenant, key = lighthouse.tenant()
    row = {"key": "q1", "t": "2026-01-01T00:00:00Z", "values": {"note": "quick look"}}
    lighthouse.result("remember", {"kind": "Device", "rows": [row]}, key)
    looked = lighthouse.command("history", "Device", "q1", "--tenant", tenant)
    assert looked.returncode == 0, looked.stderr
    import json

    assert json.loads(looked.stdout)["items"][0]["note"] == "quick look"
    found = lighthouse.command("search", "Device", "quick", "--tenant", tenant)
    assert json.loads(found.stdout)[0]["key"] == "q1"
    at = lighthouse.command("as-of", "Device", "q1", "2026-01-02T00:00:00Z", "--tenant", tenant)
    assert json.loads(at.stdout)["note"] == "quick look"
    assert json.loads(lighthouse.command("failures", "--tenant", tenant).stdout) == []
    unknown = lighthouse.command("history", "Boat", "q1", "--tenant", tenant)
    assert unknown.returncode == 2 and "not_found" in unknown.stderr
    called = lighthouse.command("call", "entities", '{"kind": "Device"}', "--tenant", tenant)
    assert json.loads(called.stdout)["items"] == ["q1"]


def test_import_export_backup_and_restore(lighthouse, tmp_path):
    import json

    tenant, key = lighthouse.tenant()
    rows = tmp_path / "rows.jsonl"
    good = {"key": "i1", "t": "2026-01-01T00:00:00Z", "values": {"note": "imported"}}
    rows.write_text(
        json.dumps(good) + "\n{not json\n" + json.dumps({**good, "key": "i2", "t": "2999-01-01"}) + "\n"
    )
    done = lighthouse.command("import", str(rows), "--tenant", tenant, "--kind", "Device")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["receipts"] == {"created": 1, "invalid": 1} and [
        bad["line"] for bad in summary["bad_lines"]
    ] == [2]
    assert "line 2:" in done.stderr
    assert lighthouse.result("entities", {"kind": "Device"}, key)["items"] == ["i1"]
    exported = tmp_path / "tenant.jsonl"
    assert lighthouse.command("export", "--tenant", tenant, "--out", str(exported)).returncode == 0
    lines = [json.loads(line) for line in exported.read_text().splitlines()]
    assert any(line["type"] == "node" and line["properties"].get("note") == "imported" for line in lines)
    other, _ = lighthouse.tenant()
    assert "imported" not in lighthouse.command("export", "--tenant", other).stdout
    copy = tmp_path / "backup"
    assert lighthouse.command("backup", str(copy)).returncode == 0, "backup"
    restored = tmp_path / "restored"

    def restore() -> subprocess.CompletedProcess:
        return subprocess.run(
            [
                sys.executable,
                "-m",
                "lighthouse_server.command",
                "restore",
                str(copy),
                "--data",
                str(restored),
            ],
            env={k: v for k, v in os.environ.items() if not k.startswith(("FALKORDB_", "LIGHTHOUSE_"))},
            capture_output=True,
            text=True,
            timeout=300,
        )

    done = restore()
    assert done.returncode == 0, done.stderr
    from lighthouse_server.embedded import start

    with start(data_dir=restored) as server:
        graph = server.client().select_graph(f"tenant:{tenant}")
        query = "MATCH (n) RETURN labels(n), properties(n) ORDER BY id(n)"
        assert (
            graph.ro_query(query).result_set
            == lighthouse.db().select_graph(f"tenant:{tenant}").ro_query(query).result_set
        )
        service = server.client().select_graph("lighthouse:service")
        actions = service.ro_query(
            "MATCH (a:AuditRecord {tenant: $t}) RETURN a.action ORDER BY a.serial", {"t": tenant}
        )
        assert [row[0] for row in actions.result_set][-1] == "restored"
    again = restore()
    assert again.returncode == 2 and "restore" in again.stderr  # the data directory is not empty


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_import_progress_is_a_redrawn_line_on_a_terminal_and_its_label_once_elsewhere():
    shown = _Terminal()
    with Progress(200, "importing", shown) as bar:
        bar.update(50)  # within REDRAW_S of the first drawing: not drawn again yet
        bar.update(150)
    lines = shown.getvalue().split("\r")[1:]
    assert lines[0] == f"importing  [{'':<36}]    0%"
    assert lines[-1] == f"importing  [{'#' * 36}]  100%\n"
    assert len(lines) == 2 and bar.done == 200
    piped = io.StringIO()
    with Progress(0, "importing", piped) as bar:
        bar.update(10)
    assert piped.getvalue() == "importing\n"
