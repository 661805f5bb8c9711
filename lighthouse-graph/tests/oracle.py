"""An independent oracle of the write rule, in plain Python, written from the seed and not from the library.

Rows go in in arrival order; out come the receipts, the history of each key (versions with valid_from,
valid_to, seen_last, values, relations, entry), what held at any time, and the intervals in which each
relation target held. It knows nothing of queries, plans or waves.
"""

from __future__ import annotations

import threading
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from hypothesis import strategies as st
from lighthouse.kinds import is_owned
from lighthouse.read import as_of, history, related

ACCEPTED = frozenset({"created", "changed", "inserted", "unchanged"})


def moment(value: object) -> datetime:
    """A time as the oracle keeps it: an aware UTC datetime."""
    if isinstance(value, datetime):
        return value.astimezone(UTC)
    text = str(value)
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    return datetime.fromisoformat(text).astimezone(UTC)


def canon(item: object) -> object:
    """A value with its type, so that 1, 1.0, True and "1" are four different things."""
    if isinstance(item, list | tuple):
        return ("list", tuple(canon(one) for one in item))
    return (type(item).__name__, item)


def ordered(targets) -> list:
    return sorted(targets, key=lambda one: (type(one).__name__, one))


@dataclass
class Version:
    valid_from: datetime
    valid_to: datetime | None
    seen_last: datetime | None
    values: dict
    relations: dict  # relation -> frozenset of targets, only relations with targets
    entry: str | None = None

    def says(self) -> tuple:
        return says(self.values, self.relations)


def says(values: dict, relations: dict) -> tuple:
    """What a row or a version says: compared with types, relations without targets left out."""
    return (
        frozenset((name, canon(item)) for name, item in values.items()),
        frozenset((rel, frozenset(map(canon, targets))) for rel, targets in relations.items() if targets),
    )


@dataclass
class Oracle:
    """The write rule over any number of keys of one kind."""

    times: tuple[str, ...] = ()  # value names that are instants
    entries: set = field(default_factory=set)  # entry ids that exist
    keys: dict = field(default_factory=dict)  # canon(key) -> list[Version], oldest first

    # --- rows -------------------------------------------------------------------------------------
    def normal(self, row: dict) -> tuple:
        values = {
            name: (moment(item) if name in self.times else item)
            for name, item in (row.get("values") or {}).items()
        }
        relations = {}
        for relation, given in (row.get("relations") or {}).items():
            listed = [] if given is None else given if isinstance(given, list | tuple) else [given]
            if listed:
                relations[relation] = frozenset(listed)
        return row["key"], moment(row["t"]), values, relations, row.get("entry")

    def remember(self, rows: list[dict]) -> list[str]:
        return [self.one(row) for row in rows]

    def one(self, row: dict) -> str:
        key, t, values, relations, entry = self.normal(row)
        if entry is not None and entry not in self.entries:
            return "missing"
        return self._place(canon(key), t, values, relations, entry)

    def _place(self, key, t: datetime, values: dict, relations: dict, entry) -> str:
        versions = self.keys.setdefault(key, [])
        new = Version(t, None, None, values, relations, entry)
        if not versions:
            versions.append(new)
            return "created"
        spot = self._index_at(versions, t)  # the version t falls in, or None when before the first
        later = versions[spot + 1] if spot is not None and spot + 1 < len(versions) else None
        if spot is None:
            later = versions[0]
        if spot is not None:
            held = versions[spot]
            if t == held.valid_from:
                return "unchanged" if held.says() == new.says() else "conflict"
            if held.says() == new.says():
                if t > (held.seen_last or held.valid_from):
                    held.seen_last = t
                return "unchanged"
            if held.seen_last is not None and t <= held.seen_last:
                return "stale" if t < held.seen_last else "conflict"
            held.valid_to = t
            if later is None:
                versions.append(new)
                return "changed"
        assert later is not None
        if later.says() == new.says():  # the next version starts earlier
            if later.seen_last is None:
                later.seen_last = later.valid_from
            later.valid_from = t
            return "inserted"
        new.valid_to = later.valid_from
        versions.insert(0 if spot is None else spot + 1, new)
        return "inserted"

    @staticmethod
    def _index_at(versions: list[Version], t: datetime) -> int | None:
        found = None
        for index, version in enumerate(versions):
            if version.valid_from <= t:
                found = index
        return found

    # --- update() ---------------------------------------------------------------------------------
    def update(self, key, t, values: dict | None = None, relations: dict | None = None, entry=None) -> str:
        """A partial update: what it names changes from t on, the rest is kept from the current version."""
        if entry is not None and entry not in self.entries:
            return "missing"
        versions = self.keys.get(canon(key))
        t = moment(t)
        current = (
            versions[-1] if versions else Version(t, None, None, {}, {}, None)
        )  # created from what it names
        if t < current.valid_from:
            return "stale"
        merged = dict(current.values)
        for name, item in (values or {}).items():
            if item is None:
                merged.pop(name, None)
            else:
                merged[name] = moment(item) if name in self.times else item
        linked = dict(current.relations)
        for relation, given in (relations or {}).items():
            listed = [] if given is None else given if isinstance(given, list | tuple) else [given]
            linked[relation] = frozenset(listed)
        linked = {relation: targets for relation, targets in linked.items() if targets}
        return self._place(canon(key), t, merged, linked, entry)

    # --- reads ------------------------------------------------------------------------------------
    def history(self, key) -> list[Version]:
        return list(self.keys.get(canon(key), []))

    def as_of(self, key, at) -> Version | None:
        at = moment(at)
        for version in self.keys.get(canon(key), []):
            if version.valid_from <= at and (version.valid_to is None or at < version.valid_to):
                return version
        return None

    def related(self, key, relation: str, at) -> list:
        version = self.as_of(key, at)
        return [] if version is None else ordered(version.relations.get(relation, ()))

    def current(self, key) -> Version | None:
        versions = self.keys.get(canon(key))
        return versions[-1] if versions else None

    def spans(self, key) -> dict:
        """(relation, canon(target)) -> the intervals it held, each as long as it can be: [(from, to)]."""
        found: dict = {}
        for version in self.keys.get(canon(key), []):
            for relation, targets in version.relations.items():
                for target in targets:
                    listed = found.setdefault((relation, canon(target)), [])
                    if listed and listed[-1][1] == version.valid_from:
                        listed[-1] = (listed[-1][0], version.valid_to)
                    else:
                        listed.append((version.valid_from, version.valid_to))
        return found


def accepted_in_time_order(rows: list[dict], statuses: list[str]) -> list[dict]:
    """The rows that were not refused, by time (stable): they give the same history in any order."""
    kept = [row for row, status in zip(rows, statuses, strict=True) if status in ACCEPTED]
    return sorted(kept, key=lambda row: moment(row["t"]))


# --- random histories -----------------------------------------------------------------------------

BASE = datetime(2026, 1, 1, tzinfo=UTC)


def at(hours: float) -> str:
    """An ISO time some hours after the base of the random histories."""
    return (BASE + timedelta(hours=hours)).strftime("%Y-%m-%dT%H:%M:%SZ")


_VALUES = {
    "status": st.sampled_from(["ok", "hot"]),
    "level": st.sampled_from([1, 1.0, True, "1", [1, 2]]),  # equal in Python, different here
    "note": st.sampled_from(["pump room sensor", "Pump-room\nsensor"]),
    "last_seen": st.sampled_from([at(0), at(5)]),
}

contents = st.fixed_dictionaries(
    {
        "values": st.fixed_dictionaries({}, optional=_VALUES),
        "relations": st.fixed_dictionaries(
            {},
            optional={
                "LOCATED_IN": st.lists(st.sampled_from(["r1", "r2"]), unique=True, max_size=2),
                "USED_BY": st.lists(st.sampled_from(["red", "blue", 7]), unique=True, max_size=2),
            },
        ),
    }
)


@st.composite
def arrivals(draw, keys: list, entries: tuple = (None,), hours: int = 9, most: int = 6) -> list[dict]:
    """Rows of a few keys: a timeline of each, sent shuffled, with repeats, as one list in arrival order."""
    palette = draw(st.lists(contents, min_size=1, max_size=4))
    pool = []
    for key in keys:
        timeline = draw(
            st.lists(
                st.tuples(st.integers(0, hours), st.integers(0, len(palette) - 1), st.sampled_from(entries)),
                min_size=1,
                max_size=most,
            )
        )
        for hour, chosen, entry in timeline:
            row = {"key": key, "t": at(hour), **palette[chosen]}
            if entry is not None:
                row["entry"] = entry
            pool.append(row)
    repeats = draw(st.lists(st.integers(0, len(pool) - 1), max_size=4))
    return draw(st.permutations(pool + [pool[index] for index in repeats]))


@st.composite
def cuts(draw, rows: list) -> list[list]:
    """The rows split into consecutive calls."""
    points = sorted(set(draw(st.lists(st.integers(1, max(1, len(rows) - 1)), max_size=3))))
    bounds = [0, *points, len(rows)]
    return [rows[a:b] for a, b in zip(bounds, bounds[1:], strict=False) if a < b]


# --- checks against the graph ---------------------------------------------------------------------

_SHOWN = {"valid_from", "valid_to", "seen_last", "recorded_at", "by", "entry", "fp"}


def plain(kind, values: dict) -> dict:
    """Values as history() gives them, for comparing with a version: times as UTC datetimes."""
    return {name: (moment(item) if name in kind.times else item) for name, item in values.items()}


def typed_values(values: dict) -> dict:
    return {name: canon(item) for name, item in values.items()}


def check_key(graph, kind, oracle: Oracle, key, probes: list[str], entries: bool = True) -> None:
    """history(), as_of() and related() of one key against the oracle, and the graph's own shape."""
    expected = oracle.history(key)
    found = history(graph, kind, key)
    assert len(found) == len(expected), (key, found, expected)
    for got, want in zip(found, expected, strict=True):
        assert None not in got.values(), got  # an unset property is missing, never None
        assert type(got["fp"]) is str and int(got["fp"], 16) >= 0, got
        assert (got["valid_from"], got.get("valid_to"), got.get("seen_last")) == (
            want.valid_from,
            want.valid_to,
            want.seen_last,
        ), (key, got, want)
        shown = {name: item for name, item in got.items() if name not in _SHOWN}
        assert typed_values(shown) == typed_values(plain(kind, want.values)), (key, got, want)
        if entries:
            assert got.get("entry") == want.entry, (key, got, want)
    for probe in probes:
        state = as_of(graph, kind, key, probe)
        want = oracle.as_of(key, probe)
        assert (state is None) == (want is None), (key, probe, state, want)
        if want is not None:
            assert state["valid_from"] == want.valid_from, (key, probe, state, want)
        for relation in kind.relations:
            assert related(graph, kind, key, relation, probe) == oracle.related(key, relation, probe), (
                key,
                relation,
                probe,
            )
    check_shape(graph, kind, oracle, key)


def check_shape(graph, kind, oracle: Oracle, key) -> None:
    """The NEXT chain, the relation edges (each as long as it can be) and the entity node's values."""
    label = kind.label
    states = graph.ro_query(
        f"MATCH (e:`{label}` {{key: $key}})-[:HAS_STATE]->(s:State) RETURN id(s), s.valid_from, s.valid_to "
        "ORDER BY s.valid_from",
        {"key": key},
    ).result_set
    links = graph.ro_query(
        f"MATCH (e:`{label}` {{key: $key}})-[:HAS_STATE]->(a:State)-[:NEXT]->(b:State) RETURN id(a), id(b)",
        {"key": key},
    ).result_set
    chain = [row[0] for row in states]
    assert sorted(map(tuple, links)) == sorted(zip(chain, chain[1:], strict=False)), (key, states, links)
    for (_, _, end), (_, start, _) in zip(states, states[1:], strict=False):
        assert end == start, (key, states)
    edges = graph.ro_query(
        f"MATCH (e:`{label}` {{key: $key}})-[r]->(x) WHERE type(r) IN $types "
        "RETURN type(r), x.key, r.valid_from, r.valid_to",
        {"key": key, "types": list(kind.relations)},
    ).result_set
    spans: dict = {}
    for relation, target, start, end in edges:
        spans.setdefault((relation, canon(target)), []).append((stored(start), stored(end)))
    assert {pair: sorted(listed) for pair, listed in spans.items()} == oracle.spans(key), (key, edges)
    node = graph.ro_query(f"MATCH (e:`{label}` {{key: $key}}) RETURN properties(e)", {"key": key}).result_set
    current = oracle.current(key)
    if current is None:
        return
    props = node[0][0]
    assert (stored(props.get("valid_from")), stored(props.get("seen_last"))) == (
        current.valid_from,
        current.seen_last,
    ), (key, props, current)
    values = {
        name: (stored(item) if name in kind.times else item)
        for name, item in props.items()
        if not is_owned(name) and name != kind.key
    }
    assert typed_values(values) == typed_values(plain(kind, current.values)), (key, props, current)


def stored(value) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    return datetime.fromtimestamp(int(value), UTC)


def probes_for(rows: list[dict]) -> list[str]:
    """Times to read at: before everything, at each row's time, and half an hour after it."""
    hours = sorted({(moment(row["t"]) - BASE).total_seconds() / 3600 for row in rows})
    return [at(-1)] + [at(hour + shift) for hour in hours for shift in (0, 0.5)]


# --- what a test can see the client send ------------------------------------------------------------


@contextmanager
def sent(db, graph_name: str):
    """The graph commands sent for one graph while the block runs, seen by MONITOR: [(command, text)]."""
    seen: list = []
    marker = f"end-{uuid.uuid4().hex}"
    ready = threading.Event()

    def watch() -> None:
        with db.connection.monitor() as monitor:
            ready.set()
            for command in monitor.listen():
                text = command["command"]
                if marker in text:
                    return
                parts = text.split(" ", 2)
                if len(parts) == 3 and parts[0].upper().startswith("GRAPH.") and parts[1] == graph_name:
                    seen.append((parts[0].upper(), parts[2]))

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    ready.wait(5)
    time.sleep(0.05)  # MONITOR is on once the server answered it; the reply is read before ready
    try:
        yield seen
    finally:
        db.connection.echo(marker)
        watcher.join(10)
