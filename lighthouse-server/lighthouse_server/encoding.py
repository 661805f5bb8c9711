"""What the library gives, as JSON: datetimes as ISO text, tuples (reference pairs) as lists, Kinds by label.

Nothing else changes: a result keeps the keys and order the library gives it.
"""

from __future__ import annotations

import json
import math
from datetime import date, datetime

from falkordb import Edge, Node, Path
from lighthouse import Kind


def jsonable(value: object) -> object:
    """A copy of value made only of JSON's types."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(key): jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [jsonable(item) for item in value]
    if isinstance(value, Kind):
        return value.label
    if isinstance(value, Node):
        return {"labels": list(value.labels or []), "properties": jsonable(value.properties)}
    if isinstance(value, Edge):
        return {"type": value.relation, "properties": jsonable(value.properties)}
    if isinstance(value, Path):
        return {"nodes": jsonable(value.nodes()), "edges": jsonable(value.edges())}
    return str(value)


def dumps(value: object) -> str:
    """Compact JSON of a jsonable value, the same text for the same value (sorted keys are not used:
    the library's key order is part of what it gives)."""
    return json.dumps(jsonable(value), ensure_ascii=False, separators=(",", ":"))
