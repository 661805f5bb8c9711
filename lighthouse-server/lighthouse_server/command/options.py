"""The options every service command shares, and the settings they give."""

from __future__ import annotations

import getpass

from ..problems import Problem
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


def serve_headers(key: str, tenant_id: str | None) -> dict[str, str]:
    """The headers a command sends a running serve: its key, and the tenant it acts for (None: none).
    Each must be printable ASCII, else invalid_argument: a CR or LF would be refused by the client only as
    it sends, and read as a serve that does not answer."""
    for what, value in (("key", key), ("tenant id", tenant_id)):
        if value is not None and not (value.isascii() and value.isprintable()):
            raise Problem("invalid_argument", f"the {what} holds a character an HTTP header cannot carry")
    found = {"Authorization": f"Bearer {key}"}
    if tenant_id is not None:
        found["Lighthouse-Tenant"] = tenant_id
    return found
