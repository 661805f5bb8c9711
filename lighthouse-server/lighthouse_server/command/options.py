"""The options every service command shares, and the settings they give."""

from __future__ import annotations

import getpass

from ..problems import Problem
from ..settings import Settings, load

TENANT_HELP = "the tenant id: 1 to 63 of a-z, 0-9, _ and -, starting with a letter or digit (e.g. acme)"
KIND_HELP = "the label of a kind the tenant declared (e.g. Device)"
KEY_HELP = "the entity's key: text, or a whole number when it is all digits (e.g. d1)"
TIME_HELP = "a time, ISO 8601 (e.g. 2026-01-31T12:00:00Z; without a zone it is UTC)"


def add_common(sub) -> None:
    sub.add_argument(
        "--data", default=None, help="the data directory of the embedded FalkorDB, a path (default: ./data)"
    )
    sub.add_argument(
        "--config",
        default=None,
        help="a TOML file of settings, a path (default: the file LIGHTHOUSE_CONFIG names)",
    )


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
