"""`lighthouse work`, `status`, `replay` and `set-aside` on a data directory no serve holds: their
help, and what they say with no model configured."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from lighthouse_server.command import main
from service_process import Lighthouse


@pytest.mark.parametrize(
    ("command", "said"),
    [
        ("work", ["model_url", "LIGHTHOUSE_MODEL_URL", "does not run", "one worker per database"]),
        ("status", ["--tenant", "--key", "every tenant", "running serve"]),
        ("replay", ["NOTE_ID", "--tenant", "set-aside"]),
        ("set-aside", ["--tenant", "--limit"]),
    ],
)
def test_each_command_says_what_it_does(capsys, command, said):
    with pytest.raises(SystemExit) as stopped:
        main([command, "--help"])
    assert stopped.value.code == 0
    shown = " ".join(capsys.readouterr().out.split())
    for words in said:
        assert words in shown, words


def test_on_a_data_directory_of_its_own(tmp_path):
    here = Lighthouse(tmp_path / "data")
    refused = here.command("work")
    assert refused.returncode == 2
    assert "extraction does not run: no model is configured" in refused.stderr
    assert "nothing to run" in refused.stderr
    looked = here.command("status")  # no tenant yet: nothing to say
    assert looked.returncode == 0 and looked.stdout == "", looked.stderr
    one = here.command("status", "--tenant", "acme")
    assert one.returncode == 0, one.stderr
    status = json.loads(one.stdout)
    assert status["tenant"] == "acme" and status["extraction"]["state"] == "not configured"
    assert status["embedding"]["state"] == "not configured"
    said = json.loads(one.stderr.split("lighthouse status: database: ", 1)[1].splitlines()[0])
    assert said == {"status": "ok", "database": "ok", "topology": "single"}
    replayed = here.command("replay", "acme/1", "--tenant", "acme")
    assert replayed.returncode == 2 and json.loads(replayed.stdout)["status"] == "unknown"
    listed = here.command("set-aside", "--tenant", "acme")
    assert listed.returncode == 0 and listed.stdout == ""
    bad = here.command("set-aside", "--tenant", "acme", "--limit", "0")
    assert bad.returncode == 2 and "invalid_argument" in bad.stderr


README = (Path(__file__).resolve().parents[2] / "README.md").read_text()


def test_the_readme_lines_of_status_set_aside_and_replay_run_as_written(tmp_path):
    block = next(
        shown for shown in re.findall(r"```sh\n(.*?)```", README, re.S) if "lighthouse set-aside" in shown
    )
    lines = [shlex.split(line.split("#", 1)[0]) for line in block.splitlines() if line.strip()]
    assert [words[:3] for words in lines] == [["uv", "run", "lighthouse"]] * 3
    (tmp_path / "data").mkdir()  # a data directory with nothing in it yet: the read-only commands read it
    here = Lighthouse(tmp_path / "data")
    status, aside, replayed = (here.command(*words[3:]) for words in lines)
    assert [words[3] for words in lines] == ["status", "set-aside", "replay"]
    assert status.returncode == 0 and json.loads(status.stdout)["tenant"] == "acme", status.stderr
    assert aside.returncode == 0 and aside.stdout == "", aside.stderr  # nothing set aside here
    # The README's note id names no note of this fresh directory: a receipt that says so, exit 2.
    assert replayed.returncode == 2 and json.loads(replayed.stdout)["status"] == "unknown", replayed.stderr
