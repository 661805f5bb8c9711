"""The rows of remember and update_rows spelled out for one tenant: its kinds' labels, key names, times,
texts and relation types, so that an agent writes rows right from the tool list alone."""

from __future__ import annotations

import copy

from ..operations.table import TIME_FORMAT

ROW_TOOLS = ("remember", "update_rows")


def tailored(schema: dict, kinds: dict) -> dict:
    """The input schema of a row tool with the declared kinds (label -> lighthouse.Kind) in it."""
    if not kinds:
        return schema
    shaped = copy.deepcopy(schema)
    properties = shaped["properties"]
    properties["kind"]["enum"] = sorted(kinds)
    row = properties["rows"]["items"]
    values, relations = row["properties"]["values"], row["properties"]["relations"]
    value_names: dict[str, dict] = {}
    relation_names: dict[str, dict] = {}
    said = []
    for label, kind in sorted(kinds.items()):
        for name in kind.times:
            value_names[name] = {
                "type": "string",
                "format": "date-time",
                "description": f"a time: {TIME_FORMAT}",
            }
        for name in kind.text:
            value_names.setdefault(name, {"type": "string", "description": "text, found by its words"})
        for relation, target in sorted(kind.relations.items()):
            relation_names[relation] = {
                **relations["additionalProperties"],
                "description": f"{label} -> the key (or keys) of a {target.label}",
            }
        parts = [f"key is its {kind.key}"]
        if kind.times:
            parts.append("times " + ", ".join(kind.times))
        if kind.text:
            parts.append("text " + ", ".join(kind.text))
        if kind.relations:
            parts.append(
                "relations " + ", ".join(f"{name} -> {t.label}" for name, t in sorted(kind.relations.items()))
            )
        said.append(f"{label}: {'; '.join(parts)}")
    if value_names:
        values["properties"] = value_names
    if relation_names:
        relations["properties"] = relation_names
    properties["rows"]["description"] += ". Kinds: " + ". ".join(said) + "."
    return shaped
