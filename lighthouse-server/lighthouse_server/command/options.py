"""The options every service command shares, and the settings they give."""

from __future__ import annotations

import getpass

from ..settings import Settings, load


def add_common(sub) -> None:
    sub.add_argument("--data", default=None, help="data directory of the embedded FalkorDB (default: ./data)")
    sub.add_argument("--config", default=None, help="a TOML file of settings (default: LIGHTHOUSE_CONFIG)")


def settings_of(arguments, **more) -> Settings:
    overrides = {"data": arguments.data, **more}
    return load(arguments.config, overrides)


def person() -> str:
    """Who runs a command, for the audit records it writes."""
    try:
        return f"cli:{getpass.getuser()}"
    except (KeyError, OSError):
        return "cli"
