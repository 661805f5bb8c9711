"""A test domain that belongs to no product: rooms, teams, devices, persons, manuals."""

from __future__ import annotations

from lighthouse.kinds import SELF, Kind

ROOM = Kind("Room", key="code")
TEAM = Kind("Team", key="name")
DEVICE = Kind(
    "Device",
    key="serial",
    times=("last_seen",),
    text=("note",),
    relations={"LOCATED_IN": ROOM, "USED_BY": TEAM},
)
PERSON = Kind("Person", key="name", text=("bio",), relations={"KNOWS": SELF})
# A kind whose text is embedded: its writes mark entities with ManualToEmbed.
MANUAL = Kind("Manual", key="code", text=("title", "body"), dimensions=3)

KINDS = [ROOM, TEAM, DEVICE, PERSON, MANUAL]
