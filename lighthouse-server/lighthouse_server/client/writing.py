"""Writes methods.py, the client's one method per operation, from the operations table.

Run `uv run python -m lighthouse_server.client.writing` after an operation changes: the test of the
client fails while methods.py and the table disagree. The client itself never imports the table (nor
the library): methods.py is plain Python over httpx.
"""

from __future__ import annotations

from pathlib import Path

from ..operations import TABLE, Operation, Param

WRITTEN = Path(__file__).with_name("methods.py")
_PYTHON_TYPES = {
    "kind": "str",
    "kinds": "list[str]",
    "key": "str | int",
    "ref": "str | list",
    "refs": "list",
    "time": "str | datetime",
    "text": "str",
    "texts": "list[str]",
    "int": "int",
    "bool": "bool",
    "object": "dict",
    "objects": "list[dict]",
    "rows": "list[dict]",
}
_HEADER = '''"""The client's methods, one per operation of the service, with the operation's arguments.

Written by `python -m lighthouse_server.client.writing` from the operations table: do not edit by hand.
Required arguments come first, in the table's order; the others are keyword-only and left out when None.
A time may be ISO 8601 text or a datetime (one without a zone is UTC). Each method returns the
operation's result and raises ServiceError with the service's code, message and status.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any


class Methods:
    """The operations as methods; Client gives them _send()."""

    def _send(self, operation: str, arguments: dict, writes: bool, idempotency_key: str | None) -> Any:
        raise NotImplementedError
'''


def _signature(operation: Operation) -> str:
    params: tuple[Param, ...] = operation.all_params()
    words = ["self"]
    words += [f"{param.name}: {_PYTHON_TYPES[param.type]}" for param in params if param.required]
    optional = [
        f"{param.name}: {_PYTHON_TYPES[param.type]} | None = None" for param in params if not param.required
    ]
    if operation.writes:
        optional.append("idempotency_key: str | None = None")
    if optional:
        words += ["*", *optional]
    return f"    def {operation.name}({', '.join(words)}) -> Any:"


def _docstring(operation: Operation) -> str:
    said = f"{operation.description} Scope: {operation.scope}. Result: {operation.result}."
    if operation.writes:
        said += " A retry sends the same Idempotency-Key (idempotency_key, else one made for the call)."
    # One line per docstring keeps the file short; a backslash or three quotes could not stay as said.
    said = " ".join(said.replace("\\", "\\\\").replace('"""', "'''").split())
    return f'        """{said}"""'


def _method(operation: Operation) -> str:
    names = [param.name for param in operation.all_params()]
    arguments = "{" + ", ".join(f'"{name}": {name}' for name in names) + "}"
    key = "idempotency_key" if operation.writes else "None"
    call = f'        return self._send("{operation.name}", {arguments}, {operation.writes}, {key})'
    return "\n".join([_signature(operation), _docstring(operation), call])


def source() -> str:
    """The text methods.py must hold."""
    return _HEADER + "".join(f"\n{_method(operation)}\n" for operation in TABLE.values())


if __name__ == "__main__":
    WRITTEN.write_text(source())
    print(f"wrote {WRITTEN}")
