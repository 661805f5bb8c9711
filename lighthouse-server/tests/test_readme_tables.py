"""The README's generated tables (settings, operations, commands) match the code they are made from."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

import pytest
from lighthouse_server import readme_tables, settings
from lighthouse_server.operations import TABLE, Operation
from lighthouse_server.readme_tables import README, ReadmeError, drifted, filled, main

REGENERATE = "run `uv run python -m lighthouse_server.readme_tables` and commit README.md"


def test_the_readme_holds_what_the_code_makes():
    assert drifted(README.read_text(encoding="utf-8")) == [], REGENERATE


def test_the_check_command_says_so(tmp_path, capsys):
    copy = tmp_path / "README.md"
    copy.write_text(README.read_text(encoding="utf-8"), encoding="utf-8")
    assert main([str(copy), "--check"]) == 0
    copy.write_text(copy.read_text().replace("| `port` | `LIGHTHOUSE_PORT` | `8765` |", "| `port` | x | 1 |"))
    assert main([str(copy), "--check"]) == 1
    assert "the settings section differs from the code" in capsys.readouterr().err
    assert main([str(copy)]) == 0  # written again from the code
    assert copy.read_text() == README.read_text(encoding="utf-8")
    assert main([str(tmp_path / "absent.md"), "--check"]) == 2


def test_every_setting_is_a_row_with_its_variable_default_and_docstring():
    table = readme_tables.settings_table()
    assert table.count("\n") == 2 + len(settings.ENVIRONMENT)
    assert (
        "| `body_limit` | `LIGHTHOUSE_BODY_LIMIT` | `8388608` | bytes of one request body; more is 413 |"
        in table
    )
    assert "| `model_url` | `LIGHTHOUSE_MODEL_URL` | empty | base URL of an OpenAI-compatible chat" in table


def test_a_setting_added_to_the_class_shows_up_described_by_its_docstring_or_comment(monkeypatch):
    @dataclass(frozen=True)
    class Grown:
        port: int = 8765
        """the port | with a pipe"""
        shards: int = 3  # masters of a local cluster

    @dataclass(frozen=True)
    class Undescribed:
        port: int = 8765
        nodes: str = ""

    monkeypatch.setattr(settings, "ENVIRONMENT", {"port": "LIGHTHOUSE_PORT"})
    monkeypatch.setattr(settings, "Settings", Grown)
    table = readme_tables.settings_table()
    assert "| `port` | `LIGHTHOUSE_PORT` | `8765` | the port \\| with a pipe |" in table
    assert "| `shards` | none | `3` | masters of a local cluster |" in table
    monkeypatch.setattr(settings, "Settings", Undescribed)
    with pytest.raises(ReadmeError, match="the setting port has no docstring"):
        readme_tables.settings_table()


def test_every_operation_is_a_row_in_the_table_order_with_its_area(monkeypatch):
    table = readme_tables.operations_table()
    rows = [line for line in table.splitlines()[2:]]
    assert [row.split("`")[1] for row in rows] == list(TABLE)
    assert "|  | `update_rows` | `write` | yes |" in table
    added = Operation("weather", None, "read", (), "object", "Says the weather. Then more words.")
    monkeypatch.setitem(TABLE, "weather", added)
    assert (
        readme_tables.operations_table().splitlines()[-1]
        == "|  | `weather` | `read` |  | Says the weather. |"
    )


def test_every_command_and_subcommand_is_a_row_with_its_help():
    table = readme_tables.commands_table()
    assert "| `lighthouse serve` |" in table
    assert "| `lighthouse keys create` |" in table


def test_a_command_without_help_is_refused(monkeypatch):
    bare = argparse.ArgumentParser(prog="lighthouse")
    commands = bare.add_subparsers()
    commands.add_parser("shown", help="a line")
    commands.add_parser("silent")
    monkeypatch.setattr("lighthouse_server.command.parser", lambda: bare)
    with pytest.raises(ReadmeError, match="the command silent has no help"):
        readme_tables.commands_table()


def test_markers_are_kept_and_the_text_around_them_is_not_touched():
    made = {"one": lambda: "| a |\n"}
    text = "before\n<!-- generated: one -->\nold\n<!-- end: one -->\nafter\n"
    assert filled(text, made) == "before\n<!-- generated: one -->\n| a |\n<!-- end: one -->\nafter\n"
    assert filled(filled(text, made), made) == filled(text, made)
    assert drifted(text, made) == ["one"]
    assert drifted(filled(text, made), made) == []


@pytest.mark.parametrize(
    ("text", "refusal"),
    [
        ("no markers\n", "must hold the section 'one' once.* \\(found 0\\)"),
        ("<!-- generated: one -->\n<!-- end: one -->\n" * 2, "\\(found 2\\)"),
        ("<!-- generated: one -->\n<!-- end: one -->\n<!-- generated: two -->\n<!-- end: two -->\n", "'two'"),
        ("<!-- generated: one -->\nnever ended\n", "\\(found 0\\)"),
    ],
)
def test_a_readme_without_its_sections_once_is_refused(text, refusal):
    with pytest.raises(ReadmeError, match=refusal):
        filled(text, {"one": lambda: ""})
