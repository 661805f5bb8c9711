"""The model's answer for one note: its facts, of the asked shape {"facts": [...]}, which the library
writes as candidates (lighthouse.write_note_rows()), and a State's own values as the prompt shows them.
"""

from __future__ import annotations

from datetime import datetime

from lighthouse import Kind, stamp, state_values

from .model import ModelFailure

MAX_FACTS = 1_000  # facts one answer may hold


def facts_of(answer: object) -> list:
    """The facts of an answer of the asked shape, {"facts": [...]}; ModelFailure "malformed" otherwise."""
    if not isinstance(answer, dict) or set(answer) != {"facts"} or not isinstance(answer["facts"], list):
        shown = str(answer)[:300]
        raise ModelFailure("malformed", f'the answer is not {{"facts": [...]}}: {shown}')
    if len(answer["facts"]) > MAX_FACTS:
        raise ModelFailure("malformed", f"the answer holds more than {MAX_FACTS:,} facts")
    return answer["facts"]


def own_values(kind: Kind, state: dict) -> dict:
    """The entity's own values in a State as the reads give it (lighthouse.state_values()), times as text."""
    return {
        name: stamp(item) if isinstance(item, datetime) else item
        for name, item in state_values(kind, state).items()
    }
