"""Who may open the embedded FalkorDB and its data: its owner alone.

The data directory holds a password generated at its first start (PASSWORD_FILE, readable by its owner
only), which the embedded FalkorDB requires of every client and which every command that opens the
database reads; the directory is 0700 and every file in it 0600, whatever the umask, and the server
makes its files under umask 077. The password reaches redis-server on its standard input, never on
its command line, which every user of the machine can read.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from pathlib import Path

from .problems import DatabaseUnavailable

PASSWORD_FILE = "falkordb.password"
OWNER_ONLY_UMASK = 0o077
_PASSWORD_BYTES = 32


class AccessError(DatabaseUnavailable, RuntimeError):
    """The data directory's password cannot be read or made; the message says why."""

    exit_code = 2  # the data directory given cannot be used


def owner_only(folder: Path) -> None:
    """The directory 0700, and each directory below it 0700 and each file 0600 (links are left alone)."""
    os.chmod(folder, 0o700)
    for path in folder.rglob("*"):
        with contextlib.suppress(OSError):  # a file the server removes meanwhile
            mode = path.lstat().st_mode
            if stat.S_ISDIR(mode):
                os.chmod(path, 0o700)
            elif stat.S_ISREG(mode):
                os.chmod(path, 0o600)


def owner_file(path: Path, text: str) -> None:
    """Writes text to path, a file only its owner may read or write, whatever the umask."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as out:
        os.fchmod(out.fileno(), 0o600)  # a file that was there keeps its mode through O_CREAT
        out.write(text)


def password_of(folder: Path, *, create: bool = False) -> str | None:
    """The password of the data directory's FalkorDB; None where there is none and create is False.
    With create, one is generated and kept when there is none. AccessError when it cannot be read."""
    path = Path(folder) / PASSWORD_FILE
    try:
        found = path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        found = ""
    except (OSError, UnicodeError) as error:
        raise AccessError(f"the password file {path} cannot be read: {error}") from None
    if found:
        return found
    if not create:
        return None
    made = secrets.token_urlsafe(_PASSWORD_BYTES)
    try:
        owner_file(path, made + "\n")
    except OSError as error:
        raise AccessError(f"the password file {path} cannot be written: {error.strerror or error}") from None
    return made


def server_config(password: str | None) -> bytes:
    """The configuration redis-server reads on its standard input (`redis-server -`)."""
    if password is None:
        return b""
    if not password.isascii() or not password.isprintable() or '"' in password or "\\" in password:
        raise AccessError("the password must be printable ASCII without quotes or backslashes")
    return f'requirepass "{password}"\n'.encode()
