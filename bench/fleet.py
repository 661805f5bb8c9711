"""The entities the benchmark writes (devices in rooms, used by teams), and what each should hold.

The fleet keeps every row the library accepted, so the reads can be checked against what was written:
sorted by time, a run of rows with the same content is one State that began with its first row.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from lighthouse import Kind, clock

DIMENSIONS = 64  # of the test embedder's vectors (recall_work.py): the kind is searched by meaning too
ROOM = Kind("Room", key="code")
TEAM = Kind("Team", key="name")
DEVICE = Kind(
    "Device",
    key="serial",
    times=("last_seen",),
    text=("note",),
    relations={"LOCATED_IN": ROOM, "USED_BY": TEAM},
    dimensions=DIMENSIONS,
)
ROOMS = 200
TEAMS = 40
AGENT = "bench"

# Words of the notes that questions ask for: each device's note holds three of them, so a question of
# two or three finds a few devices. No stop word, and no two with one stem (the text index stems).
_WORDS = """
    amber basalt cedar delta ember falcon garnet harbor indigo jasper kelp lagoon marble nectar onyx
    pepper quartz raven saffron timber umber velvet walnut yarrow zephyr acorn birch canyon dune elm
    fjord glacier heron island juniper kestrel lotus meadow nutmeg orchid prairie quill reef spruce
    thistle tundra valley willow aspen bramble clover dahlia egret fern grove hazel iris jade lichen
    maple nettle oak pine rowan sage tulip vine wren alder badger comet drift estuary flint gale
    hollow ivory jetty knoll lark moss nova opal pebble quarry ridge slate thorn vapor wharf yew zinc
"""
VOCABULARY = tuple(_WORDS.split())
NOTE_WORDS = 3

# What the reads give besides the values of a State.
STATE_FIELDS = frozenset({"valid_from", "valid_to", "seen_last", "recorded_at", "by", "entry", "fp"})


def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True)
class Expected:
    """One State as the fleet expects it: when it held, its values, its relation targets."""

    valid_from: datetime
    valid_to: datetime | None
    values: dict
    relations: dict  # relation -> sorted list of targets


def _content(row: dict) -> tuple:
    relations = {
        name: tuple(sorted(targets if isinstance(targets, list) else [targets]))
        for name, targets in row["relations"].items()
    }
    return tuple(sorted(row["values"].items())), tuple(sorted(relations.items()))


@dataclass
class Fleet:
    """count devices; created at `created`, changed at `changed`, late rows in between."""

    count: int
    created: datetime
    changed: datetime
    keys: list[str] = field(default_factory=list)
    words: list[tuple[str, ...]] = field(default_factory=list)  # the vocabulary words of each note
    written: dict[str, list[dict]] = field(default_factory=dict)  # key -> rows accepted, any order

    @classmethod
    def of(cls, count: int) -> Fleet:
        # Times well in the past, whole hours: every row is accepted as of any time the run takes.
        created = clock.present().replace(minute=0, second=0) - timedelta(days=30)
        fleet = cls(count, created, created + timedelta(days=10))
        fleet.keys = [f"d{index:06d}" for index in range(count)]
        chooser = random.Random(count)  # the same fleet of a size in every run, whatever --seed says
        fleet.words = [tuple(chooser.sample(VOCABULARY, NOTE_WORDS)) for _ in range(count)]
        return fleet

    def _row(self, index: int, t: datetime, status: str, room_shift: int = 0) -> dict:
        room = f"r{(index + room_shift) % ROOMS:03d}"
        teams = [f"t{(index + step * 7) % TEAMS:02d}" for step in range(3)]
        return {
            "key": self.keys[index],
            "t": iso(t),
            "values": {
                "status": status,
                "note": f"sensor {index} in room {room} near the {' '.join(self.words[index])}, "
                f"watched by {' '.join(teams)}; checked weekly",
                "temperature": 18.0 + (index % 120) / 10,
                "firmware": f"2.{index % 9}.{index % 4}",
                "last_seen": iso(self.created),
            },
            "relations": {"LOCATED_IN": room, "USED_BY": teams},
        }

    def create_rows(self) -> list[dict]:
        return [self._row(index, self.created, "ok") for index in range(self.count)]

    def change_rows(self) -> list[dict]:
        """Each device a later row with one value changed: status ok -> hot."""
        return [self._row(index, self.changed, "hot") for index in range(self.count)]

    def late_rows(self, indexes: list[int], times: list[datetime]) -> list[dict]:
        """Rows between the create and the change: another status and another room."""
        return [self._row(index, t, "warm", room_shift=1) for index, t in zip(indexes, times, strict=True)]

    def accepted(self, rows: list[dict]) -> None:
        """Keeps rows that the library stored (their receipts were checked by the caller)."""
        for row in rows:
            self.written.setdefault(row["key"], []).append(row)

    def states(self, key: str) -> list[Expected]:
        """The States a key should have, oldest first."""
        rows = sorted(self.written.get(key, []), key=lambda row: row["t"])
        runs: list[tuple[datetime, dict]] = []
        for row in rows:
            if runs and _content(runs[-1][1]) == _content(row):
                continue
            runs.append((clock.parse(row["t"]), row))
        found = []
        for place, (start, row) in enumerate(runs):
            end = runs[place + 1][0] if place + 1 < len(runs) else None
            found.append(Expected(start, end, self.shown_values(row), _relations(row)))
        return found

    def current(self, key: str) -> Expected | None:
        """The State that holds now: the one with the latest start."""
        found = self.states(key)
        return found[-1] if found else None

    def ever(self, key: str) -> set[tuple[str, str]]:
        """Every (relation, target) the key ever held: the edges a question without a time follows."""
        return {
            (name, target)
            for row in self.written.get(key, [])
            for name, targets in row["relations"].items()
            for target in (targets if isinstance(targets, list) else [targets])
        }

    def moment(self, rng: random.Random) -> datetime:
        """A random whole second from a day before the create to two days after the change."""
        start = self.created - timedelta(days=1)
        span = int((self.changed - start).total_seconds()) + 2 * 86_400
        return start + timedelta(seconds=rng.randint(0, span))

    def at(self, key: str, moment: datetime) -> Expected | None:
        for state in self.states(key):
            if state.valid_from <= moment and (state.valid_to is None or moment < state.valid_to):
                return state
        return None

    @staticmethod
    def shown_values(row: dict) -> dict:
        """The values of a row as the reads give them back: times as aware datetimes."""
        return {
            name: clock.parse(item) if name in DEVICE.times else item for name, item in row["values"].items()
        }


def _relations(row: dict) -> dict:
    return {
        name: sorted(targets if isinstance(targets, list) else [targets])
        for name, targets in row["relations"].items()
    }


def state_differs(got: dict | None, expected: Expected | None) -> str | None:
    """Why a State that history() or as_of() gave is not the one expected; None when it is."""
    if expected is None:
        return None if got is None else f"expected no State, got one from {got.get('valid_from')}"
    if got is None:
        return f"expected the State from {expected.valid_from}, got none"
    if got.get("valid_from") != expected.valid_from or got.get("valid_to") != expected.valid_to:
        return (
            f"expected {expected.valid_from}..{expected.valid_to}, "
            f"got {got.get('valid_from')}..{got.get('valid_to')}"
        )
    shown = {name: item for name, item in got.items() if name not in STATE_FIELDS}
    if shown != expected.values:
        return f"expected values {expected.values}, got {shown}"
    if got.get("by") != AGENT:
        return f"expected by={AGENT!r}, got {got.get('by')!r}"
    return None
