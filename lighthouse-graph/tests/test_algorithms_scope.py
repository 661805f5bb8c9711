"""What a question may ask: kinds, relations, records, limits and times, and what is refused."""

from __future__ import annotations

import pytest
from devices import DEVICE, KINDS, ROOM
from lighthouse import Refused, ensure_schema
from lighthouse.algorithms.connection import connection
from lighthouse.algorithms.groups import groups
from lighthouse.algorithms.ranking import between, important
from test_algorithms import T1, the_seed


@pytest.fixture
def world(graph):
    ensure_schema(graph, KINDS)
    return graph


@pytest.mark.parametrize(
    "call",
    [
        lambda g: groups(g, []),
        lambda g: groups(g, DEVICE.relations),
        lambda g: groups(g, ["Device"]),
        lambda g: groups(g, [DEVICE], ["KNOWS"]),
        lambda g: groups(g, [DEVICE], ["ABOUT"]),
        lambda g: groups(g, [DEVICE], records=["Entry"]),
        lambda g: groups(g, [DEVICE], ["LOCATED_IN"], records=["Episode"]),
        lambda g: groups(g, [ROOM]),
        lambda g: groups(g, [DEVICE], limit=0),
        lambda g: groups(g, [DEVICE], limit=True),
        lambda g: groups(g, [DEVICE], at="yesterday"),
        lambda g: groups(g, [DEVICE], most=0),
        lambda g: groups(g, [DEVICE], most=2_000_000),
        lambda g: important(g, [DEVICE], ["LOCATED_IN"]),
        lambda g: important(g, [DEVICE], "KNOWS"),
        lambda g: between(g, [DEVICE], sample=0),
        lambda g: between(g, [DEVICE], sample=1.5),
        lambda g: between(g, [DEVICE], relations=[None]),
        lambda g: connection(g, ("Device", "d1"), (DEVICE, "d2")),
        lambda g: connection(g, (DEVICE, None), (DEVICE, "d2")),
        lambda g: connection(g, (DEVICE, "d1"), (DEVICE, "d2"), relations=["KNOWS"]),
        lambda g: connection(g, (DEVICE, "d1"), (DEVICE, "d2"), relations=["ABOUT"], at=T1),
    ],
)
def test_what_cannot_be_asked_is_refused(world, call):
    the_seed(world)
    with pytest.raises(Refused):
        call(world)
