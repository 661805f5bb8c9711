"""What the command line refuses, and how: one line and an exit code, never a traceback, nothing written
where it was not asked, and what an import had written when it stopped."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest
from lighthouse_server.importing import import_rows
from service_process import Lighthouse, environment

KINDS = [{"label": "Device", "key": "serial"}]


@pytest.fixture
def here(tmp_path):
    """A data directory of its own with tenant acme and the kind Device declared."""
    lighthouse = Lighthouse(tmp_path / "data")
    (tmp_path / "kinds.json").write_text(json.dumps(KINDS))
    declared = lighthouse.command("kinds", "declare", "--tenant", "acme", str(tmp_path / "kinds.json"))
    assert declared.returncode == 0, declared.stderr
    return lighthouse


def _refused(done: subprocess.CompletedProcess, code: int, said: str) -> None:
    assert done.returncode == code, (done.returncode, done.stdout, done.stderr)
    assert said in done.stderr, done.stderr
    assert "Traceback" not in done.stderr, done.stderr


def test_bad_arguments_are_one_line_and_an_exit_code(here, tmp_path):
    for command in (
        ("history", "Device", "d1", "--tenant", "Acme"),
        ("failures", "--tenant", "Acme"),
        ("keys", "list", "--tenant", "Acme"),
        ("keys", "revoke", ""),
        ("call", "history", json.dumps({"kind": "Device", "key": 1}).replace("1", "[" * 5000 + "]" * 5000)),
    ):
        _refused(
            here.command(*command, *(["--tenant", "acme"] if command[0] == "call" else [])), 2, "lighthouse"
        )
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    _refused(here.command("kinds", "declare", "--tenant", "acme", str(deep)), 2, "nested too deep")
    _refused(here.command("export", "--tenant", "ghost"), 2, "has no graph")
    long_id = "x" * 100_000
    unknown = here.command("keys", "revoke", long_id)
    assert unknown.returncode == 2 and len(unknown.stderr) < 300, len(unknown.stderr)


def test_a_command_that_only_reads_makes_no_database_where_there_is_none(tmp_path):
    """A mistyped --data is said, not answered with "nothing" from a new empty database made there."""
    nowhere = Lighthouse(tmp_path / "nowhere")
    for command in (
        ("history", "Device", "d1", "--tenant", "acme"),
        ("as-of", "Device", "d1", "2026-01-01", "--tenant", "acme"),
        ("search", "Device", "hot", "--tenant", "acme"),
        ("failures", "--tenant", "acme"),
        ("status",),
        ("set-aside", "--tenant", "acme"),
        ("replay", "acme/1", "--tenant", "acme"),
        ("keys", "list"),
        ("keys", "revoke", "k1"),
        ("kinds", "list", "--tenant", "acme"),
        ("export", "--tenant", "acme"),
        ("backup", str(tmp_path / "backup")),
    ):
        _refused(nowhere.command(*command), 2, "there is no data directory")
        assert not (tmp_path / "nowhere").exists(), command
    assert not (tmp_path / "backup").exists()
    # A command that writes makes the directory: that is how a database is begun from the command line.
    made = nowhere.command("keys", "create", "--tenant", "acme", "--agent", "planner", "--scope", "read")
    assert made.returncode == 0, made.stderr
    listed = nowhere.command("keys", "list")
    assert listed.returncode == 0 and json.loads(listed.stdout)["tenant"] == "acme", listed.stderr


def test_the_demo_writes_into_no_tenant_or_service_graph(here):
    for name in ("tenant:acme", "lighthouse:service"):
        _refused(here.command("demo", "--graph", name), 2, "may not be a tenant's")


def test_import_reads_only_a_regular_file_and_any_bytes_cost_only_their_line(here, tmp_path):
    _refused(
        here.command("import", "/dev/zero", "--tenant", "acme", "--kind", "Device"), 2, "not a regular file"
    )
    fifo = tmp_path / "rows.fifo"
    os.mkfifo(fifo)
    _refused(
        here.command("import", str(fifo), "--tenant", "acme", "--kind", "Device"), 2, "not a regular file"
    )
    rows = [json.dumps({"key": f"e{n}", "t": "2026-01-01T00:00:00Z"}).encode() for n in range(3)]
    rows[1] = b'{"key": "e1", "t": "2026-01-01T00:00:00Z", "values": {"note": "caf\xe9"}}'  # Latin-1
    latin = tmp_path / "latin.jsonl"
    latin.write_bytes(b"\n".join(rows) + b"\n")
    done = here.command("import", str(latin), "--tenant", "acme", "--kind", "Device")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["receipts"] == {"created": 2} and report["bad_lines"] == [
        {"line": 2, "error": "not UTF-8 text"}
    ]
    _refused(
        here.command("import", str(latin), "--tenant", "acme", "--kind", "Device", "--agent", ""), 2, "by"
    )


def test_an_open_quote_says_which_lines_it_took(here, tmp_path):
    lines = ["key,t", "qa,2026-01-01T00:00:00Z", 'qb,2026-01-01T00:00:00Z,"oops']
    lines += [f"q{n},2026-01-01T00:00:00Z" for n in range(10)]
    quoted = tmp_path / "quoted.csv"
    quoted.write_text("\n".join(lines) + "\n")
    done = here.command("import", str(quoted), "--tenant", "acme", "--kind", "Device")
    assert done.returncode == 0, done.stderr
    (bad,) = json.loads(done.stdout)["bad_lines"]
    assert bad["line"] == 3 and "lines 3 to 13 were read as this row" in bad["error"], bad


def test_export_replaces_no_device_or_link(here, tmp_path):
    link = tmp_path / "link.jsonl"
    link.symlink_to(tmp_path / "target.jsonl")
    _refused(here.command("export", "--tenant", "acme", "--out", str(link)), 2, "not a regular file")
    assert link.is_symlink() and not (tmp_path / "target.jsonl").exists()
    _refused(here.command("export", "--tenant", "acme", "--out", "/dev/null"), 2, "not a regular file")
    assert not os.path.isfile("/dev/null")


def test_an_import_that_stops_says_what_it_had_written(graph):
    from lighthouse import Kind, ensure_schema

    device = Kind("Device", key="serial")
    ensure_schema(graph, [device])

    def lines():
        for n in range(1_200):
            yield json.dumps({"key": f"s{n}", "t": "2026-01-01T00:00:00Z"}) + "\n"
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt) as stopped:
        import_rows(graph, device, "feed", lines(), batch=500)
    (said,) = stopped.value.__notes__
    assert "import stopped at line 1200: 1000 rows were written before it" in said
    assert "{'created': 1000}" in said and "the 200 rows after them may not have been" in said


def test_a_signal_mid_import_prints_what_was_written(here, tmp_path):
    big = tmp_path / "big.jsonl"
    rows = (json.dumps({"key": f"b{n}", "t": "2026-01-01T00:00:00Z"}) + "\n" for n in range(400_000))
    big.write_text("".join(rows))
    command = [sys.executable, "-m", "lighthouse_server.command", "import", str(big), "--tenant", "acme"]
    command += ["--kind", "Device", "--data", str(here.data)]
    running = subprocess.Popen(
        command, env=environment(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    said: list[str] = []
    reading = threading.Thread(target=lambda: said.extend(running.stderr), daemon=True)
    reading.start()
    deadline = time.monotonic() + 60
    while not any("importing" in line for line in said) and time.monotonic() < deadline:
        time.sleep(0.05)  # the progress bar's label: the rows are being written
    time.sleep(1.5)
    running.send_signal(signal.SIGINT)
    out = running.stdout.read()
    running.wait(timeout=60)
    reading.join(timeout=10)
    err = "".join(said)
    assert running.returncode == 130, (out, err[-500:])
    assert "import stopped at line" in err and "rows were written before it" in err, err[-500:]


def test_serve_on_a_taken_port_says_so_before_any_banner(here):
    import socket

    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        done = here.command("serve", "--port", str(port))
    _refused(done, 2, "is taken")
    assert "Lighthouse on" not in done.stdout + done.stderr
    # Said before FalkorDB starts: serve holds its port first, so its FalkorDB's free port is never it.
    assert "the database was saved" not in done.stdout + done.stderr and "workers:" not in done.stdout
