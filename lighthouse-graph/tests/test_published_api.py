"""The acceptance test of the published API (lighthouse-graph 0.1.1): its names, its signatures, and each
function called once by position and once by name on a real graph, with the type and keys of what it gives
and the error type of one bad argument.

The expected signatures are written here as data, from the API's specification: a caller written for
0.1.1 may pass any parameter by position or by name, so the names, their order and their defaults are the
contract. A parameter of ours that the API lacks must come after them, keyword-only, with a default.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import re
import tomllib
from datetime import UTC, datetime
from pathlib import Path
from types import MappingProxyType

import lighthouse
import pytest
from falkordb import Graph
from lighthouse import SELF, WORLD, Kind

PROJECT = Path(__file__).resolve().parents[1]  # lighthouse-graph

API_NAMES = [
    "Kind",
    "SELF",
    "WORLD",
    "stamp",
    "now",
    "world",
    "tenant",
    "ensure_schema",
    "remember",
    "update",
    "history",
    "as_of",
    "related",
    "open_episode",
    "record",
    "close_episode",
    "episode",
    "episodes_about",
    "hand_off",
    "accept",
    "handoffs_for",
    "add_task",
    "claim",
    "complete",
    "release",
    "say",
    "messages",
    "sessions",
    "said_about",
    "said",
    "summarize",
    "context",
    "forget_session",
    "forget_user",
    "pointing_at",
    "similar",
    "search",
    "search_history",
    "search_entries",
    "embed",
    "nearest",
    "embed_entries",
    "nearest_entries",
    "fuse",
    "extract",
    "learn",
    "weigh",
    "used",
    "retire",
    "lesson",
    "lessons_about",
    "write_playbook",
    "playbooks_for",
    "ran",
    "switch",
    "playbook",
    "promote",
    "impact_of_state",
    "impact_of_entry",
    "invalidate_entry",
    "diff_between",
    "what_if",
    "agent_trust",
    "groups",
    "important",
    "between",
    "connection",
    "record_failure",
]
# What we export besides, as documented: reads of what the API writes, one more extraction call, and the
# one family of exceptions.
OUR_NAMES = [
    "failures",
    "task",
    "tasks",
    "extract_again",
    "once",
    "once_settled",
    "Once",
    "note",
    "notes",
    "candidates",
    "confirm",
    "reject",
    "recall",
    "notes_after",
    "notes_by_id",
    "notes_waiting",
    "hold_extraction",
    "leave_extraction",
    "extract_notes",
    "notes_to_extract",
    "keep_note_answer",
    "write_note_rows",
    "finish_note",
    "hold_note_back",
    "set_note_aside",
    "leave_note_waiting",
    "skip_note",
    "keep_extraction_error",
    "give_note_back",
    "notes_set_aside",
    "extraction_progress",
    "extraction_states",
    "vectors_waiting",
    "embedding_progress",
    "keep_embedding_progress",
    "keep_embedding_error",
    "embed_said",
    "said_like",
    "said_waiting",
    "entry_dimensions",
    "entity_keys",
    "state_values",
    "tenant_ids",
    "tenant_graph_name",
    "read_query",
    "ensure_indexes",
    "upgrade_waiting",
    "overview",
    "entities_now",
    "kinds_holding",
    "recent_episodes",
    "recent_notes",
    "conversation_users",
    "recent_history",
    "relation_windows",
    "entity_diff",
    "version_diff",
    "entries_by_id",
    "cited_by",
    "neighbourhood",
    "review_context",
    "LighthouseError",
    "Refused",
    "WrongType",
    "SchemaNotReady",
    "ReceiptMismatch",
    "TooSlow",
    "EmbedderError",
    "ExtractorFailed",
    "ExtractorUnavailable",
]

# The parameters of each function of the API, as its specification writes them.
SIGNATURES = {
    "stamp": "value",
    "now": "",
    "world": "db",
    "tenant": "db, tenant_id",
    "ensure_schema": "graph, kinds=(), wait_seconds=10.0, entry_dimensions=0",
    "remember": "graph, kind, rows, by",
    "update": "graph, kind, key, t, by, values=None, relations=None, entry=None",
    "history": "graph, kind, key",
    "as_of": "graph, kind, key, when",
    "related": "graph, kind, key, relation, when=None",
    "open_episode": "graph, episode_id, by, about=(), at=None",
    "record": "graph, episode_id, entry_type, by, values=None, cites=(), at=None",
    "close_episode": "graph, episode_id, by, outcome=None, cites=(), at=None",
    "episode": "graph, episode_id",
    "episodes_about": "graph, kind, key",
    "hand_off": "graph, handoff_id, by, to, points_to, values=None, at=None",
    "accept": "graph, handoff_id, by",
    "handoffs_for": "graph, agent, waiting_only=True",
    "add_task": "graph, task_id, kind, ref=None, after=()",
    "claim": "graph, agent, kind, lease=None",
    "complete": "graph, agent, task_id",
    "release": "graph, agent, task_id",
    "say": "graph, user, session_id, role, text, by, mentions=(), values=None, at=None",
    "messages": "graph, user, session_id, last=20, before=None",
    "sessions": "graph, user, limit=20",
    "said_about": "graph, user, reference, limit=20",
    "said": "graph, user, question, limit=10, match='all'",
    "summarize": "graph, user, session_id, text, upto, by",
    "context": "graph, user, session_id, last=20",
    "forget_session": "graph, user, session_id",
    "forget_user": "graph, user",
    "pointing_at": "graph, kind, relation, key, when=None",
    "similar": "graph, kind, key, relations=None, limit=10",
    "search": "graph, kind, question, limit=10, match='all'",
    "search_history": "graph, kind, question, limit=10, match='all'",
    "search_entries": "graph, question, limit=10, match='all'",
    "embed": "graph, kind, embedder, model, limit=100",
    "nearest": "graph, kind, question, embedder, model, limit=10",
    "embed_entries": "graph, embedder, model, limit=100",
    "nearest_entries": "graph, question, embedder, model, limit=10",
    "fuse": "rankings, limit=10",
    "extract": "graph, kind, extractor, by, types=None, limit=100",
    "learn": "graph, lesson_id, by, statement, supported_by, about=(), values=None, at=None",
    "weigh": "graph, lesson_id, by, episode_id, agrees, at=None",
    "used": "graph, lesson_id, by, episode_id, helped=None, at=None",
    "retire": "graph, lesson_id, by, why, at=None",
    "lesson": "graph, lesson_id",
    "lessons_about": "graph, kind, key, at_least=1, since=None",
    "write_playbook": "graph, name, by, trigger, steps, supported_by, needs=3, at=None",
    "playbooks_for": "graph, situation",
    "ran": "graph, name, by, episode_id, succeeded=None, stop_after=3, at=None",
    "switch": "graph, name, by, on",
    "playbook": "graph, name, version=None",
    "promote": "graph, by, rule, at_least=3",
    "impact_of_state": "graph, kind, key, since, until",
    "impact_of_entry": "graph, entry_id",
    "invalidate_entry": "graph, entry_id, by, reason, at=None",
    "diff_between": "graph, kinds, t1, t2",
    "what_if": "graph, kinds, hypothetical_rows, at=None, situation=None",
    "agent_trust": "graph, agent",
    "groups": "graph, kinds, relations=None, records=(), at_least=2, limit=100, show=100, at=None",
    "important": "graph, kinds, relation=None, limit=10, at=None",
    "between": "graph, kinds, relations=None, limit=10, sample=None, seed=1, at=None",
    "connection": "graph, start, end, kinds=(), relations=None, max_hops=6, at=None",
    "record_failure": "graph, reason, kind=None, key=None, detail=None, owner=None",
}
# Kind's relations default to an empty dict; a dataclass gives that with a default factory.
KIND_SIGNATURE = "label, key='key', times=(), relations=EMPTY_DICT, text=(), dimensions=0"
REQUIRED = object()


def expected(parameters: str) -> list[tuple[str, object]]:
    """(name, default) for each parameter written as in the specification; REQUIRED for none."""
    arguments = ast.parse(f"def f({parameters}): pass").body[0].args
    defaults = [REQUIRED] * (len(arguments.args) - len(arguments.defaults))
    for default in arguments.defaults:
        defaults.append("EMPTY_DICT" if isinstance(default, ast.Name) else ast.literal_eval(default))
    assert not (arguments.kwonlyargs or arguments.vararg or arguments.kwarg or arguments.posonlyargs)
    return [(argument.arg, default) for argument, default in zip(arguments.args, defaults, strict=True)]


def test_the_expected_signatures_are_those_of_65_functions() -> None:
    functions = [name for name in API_NAMES if name not in ("Kind", "SELF", "WORLD")]
    assert len(API_NAMES) == len(set(API_NAMES)) == 68
    assert list(SIGNATURES) == functions and len(functions) == 65


# (a) The names


def test_all_is_exactly_the_api_and_our_documented_additions() -> None:
    assert len(lighthouse.__all__) == len(set(lighthouse.__all__)), "a name is listed twice"
    assert set(lighthouse.__all__) == set(API_NAMES) | set(OUR_NAMES)
    assert len(lighthouse.__all__) == 138


def test_every_name_of_all_is_there() -> None:
    for name in lighthouse.__all__:
        assert hasattr(lighthouse, name), name
    for name in SIGNATURES:
        assert callable(getattr(lighthouse, name)), name


def test_a_star_import_gives_the_api() -> None:
    space: dict = {}
    exec("from lighthouse import *", space)  # what a caller's star import gets
    assert set(API_NAMES) <= set(space)


def test_the_package_ships_its_type_information() -> None:
    # PEP 561: py.typed beside the modules, so a type checker reads the library's annotations.
    from importlib.resources import files

    assert files("lighthouse").joinpath("py.typed").is_file()
    with open(PROJECT / "pyproject.toml", "rb") as handle:
        wheel = tomllib.load(handle)["tool"]["hatch"]["build"]["targets"]["wheel"]
    assert wheel["packages"] == ["lighthouse"]  # the whole folder, py.typed with it


def test_the_constants() -> None:
    assert SELF == "self" and type(SELF) is str
    assert WORLD == "world" and type(WORLD) is str
    assert isinstance(Kind, type) and dataclasses.is_dataclass(Kind)


# (b) The signatures


def _check_signature(target, parameters: str) -> None:
    found = list(inspect.signature(target).parameters.values())
    wanted = expected(parameters)
    assert [p.name for p in found[: len(wanted)]] == [name for name, _ in wanted], "names or order"
    for parameter, (name, default) in zip(found, wanted, strict=False):
        assert parameter.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD, f"{name} is {parameter.kind}"
        if default is REQUIRED:
            assert parameter.default is inspect.Parameter.empty, f"{name} has a default"
        elif default == "EMPTY_DICT":
            assert parameter.default is not inspect.Parameter.empty, f"{name} has no default"
        else:
            assert parameter.default == default and type(parameter.default) is type(default), (
                f"{name}={parameter.default!r}, not {default!r}"
            )
    for extra in found[len(wanted) :]:
        assert extra.kind is inspect.Parameter.KEYWORD_ONLY, f"{extra.name} of ours is not keyword-only"
        assert extra.default is not inspect.Parameter.empty, f"{extra.name} of ours has no default"


@pytest.mark.parametrize("name", list(SIGNATURES))
def test_the_signature_is_the_api_s(name: str) -> None:
    _check_signature(getattr(lighthouse, name), SIGNATURES[name])


def test_the_signature_of_kind_is_the_api_s() -> None:
    _check_signature(Kind, KIND_SIGNATURE)
    assert [field.name for field in dataclasses.fields(Kind)] == [
        name for name, _ in expected(KIND_SIGNATURE)
    ]
    thing = Kind("Thing")
    assert type(thing.relations) is MappingProxyType and dict(thing.relations) == {}


# (c) Each function on a real graph

T0, T1, T2, T3, T4 = (f"2026-01-0{day}T00:00:00Z" for day in range(1, 6))
ROOM = Kind("Room", key="code", text=("title",))
DEVICE = Kind(
    "Device",
    key="serial",
    times=("seen",),
    relations={"LOCATED_IN": ROOM, "PART_OF": SELF},
    text=("note",),
    dimensions=3,
)
ENGINE = {"fp", "valid_from", "valid_to", "recorded_at", "by", "seen_last", "entry"}
BARE = Kind("Bare")  # no text, no relations, no vectors
EPISODES = ("e1", "e2", "e3")
STAMP = re.compile(r"\A\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\Z")

STATE = {"valid_from", "recorded_at", "by", "fp"}  # besides the values; valid_to, seen_last, entry if set
EPISODE = {"id", "by", "opened_at", "recorded_at", "entry_count"}  # and closed_at once closed
ENTRY = {"id", "seq", "type", "at", "recorded_at", "by"}  # and the values
MESSAGE = {"session", "seq", "role", "text", "at", "recorded_at", "by", "mentions"}  # and the values
LESSON = {"id", "statement", "by", "at", "touched_at", "recorded_at", "support", "against", "used", "helped"}
LESSON |= {"failed"}
PLAYBOOK = {"id", "name", "version", "by", "at", "recorded_at", "enabled", "runs", "succeeded", "failed"}
PLAYBOOK |= {"failed_in_a_row", "trigger", "steps", "supported_by"}
IMPACT = {"downstream_entries", "derived_states", "episodes", "handoffs", "lessons", "playbooks"}
TRUST_COUNTS = {
    "entries_written",
    "entries_invalidated",
    "closed_episodes",
    "corroborated_episodes",
    "contradicted_episodes",
    "playbook_runs",
    "runs_succeeded",
    "runs_failed",
    "states_written",
    "states_short_lived",
}


def both(function, /, **arguments):
    """The function called once with the arguments by position, in the API's order, then once by name."""
    [name] = [name for name in SIGNATURES if getattr(lighthouse, name) is function]
    order = [parameter for parameter, _ in expected(SIGNATURES[name])]
    assert list(arguments) == order[: len(arguments)], "the test gives the arguments out of the API's order"
    return function(*arguments.values()), function(**arguments)


def refused_as(error: type[Exception], function, /, *arguments, **named) -> Exception:
    """Calls the function and expects error: ValueError and TypeError are told apart."""
    with pytest.raises(error) as raised:
        function(*arguments, **named)
    other = TypeError if error is ValueError else ValueError
    assert not isinstance(raised.value, other), f"{type(raised.value).__name__} is also a {other.__name__}"
    return raised.value


def refusal(receipt: object, status: str = "invalid") -> None:
    assert type(receipt) is dict and set(receipt) == {"id", "status", "reason"}, receipt
    assert receipt["id"] is None and receipt["status"] == status and type(receipt["reason"]) is str


def is_utc(moment: object) -> bool:
    return (
        type(moment) is datetime
        and moment.utcoffset() is not None
        and moment.utcoffset().total_seconds() == 0
    )


def embedder(texts: list[str]) -> list[list[float]]:
    """A model of three numbers: by the length and the first letter of each text, never all zeros."""
    return [[1.0, float(len(text) % 7), float(ord(text[:1] or "a") % 5)] for text in texts]


def failures_of(graph, reason: str) -> list[list]:
    return graph.query("MATCH (f:WriteFailure) WHERE f.reason = $r RETURN f.times", {"r": reason}).result_set


@pytest.fixture
def built(graph):
    """A small world made with the API's own calls: a room, two devices (one updated), three closed
    episodes about the first device, each with an observation and an outcome."""
    assert lighthouse.ensure_schema(graph, [DEVICE, ROOM], 10.0, 3) is None
    rooms = lighthouse.remember(
        graph, ROOM, [{"key": "r1", "t": T0, "values": {"title": "pump room"}}], "feed"
    )
    assert rooms == [{"key": "r1", "status": "created"}]
    rows = [
        {
            "key": "d1",
            "t": T0,
            "values": {"note": "hot pump sensor", "status": "ok", "seen": T0},
            "relations": {"LOCATED_IN": "r1"},
        },
        {
            "key": "d2",
            "t": T0,
            "values": {"note": "cold valve"},
            "relations": {"LOCATED_IN": "r1", "PART_OF": "d1"},
        },
    ]
    assert lighthouse.remember(graph, DEVICE, rows, "feed") == [
        {"key": "d1", "status": "created"},
        {"key": "d2", "status": "created"},
    ]
    assert lighthouse.update(graph, DEVICE, "d1", T1, "feed", {"status": "hot"})["status"] == "changed"
    for episode_id in EPISODES:
        assert (
            lighthouse.open_episode(graph, episode_id, "watcher", [(DEVICE, "d1")], T1)["status"] == "opened"
        )
        look = lighthouse.record(
            graph, episode_id, "look", "watcher", {"note": "the pump runs hot", "temp": 91}, (), T1
        )
        assert look["status"] == "recorded", look
        closed = lighthouse.close_episode(graph, episode_id, "watcher", {"fixed": True}, [look["id"]], T2)
        assert closed["status"] == "recorded", closed
    return graph


@pytest.fixture
def learned(built):
    receipt = lighthouse.learn(
        built, "l1", "watcher", "hot pumps need a look", ["e1", "e2"], [(DEVICE, "d1")], None, T3
    )
    assert receipt == {"id": "l1", "status": "learned"}
    return built


@pytest.fixture
def written(built):
    receipt = lighthouse.write_playbook(
        built, "cool", "watcher", {"status": "hot"}, [{"do": "open valve"}], EPISODES, 3, T3
    )
    assert receipt == {"id": "cool#1", "version": 1, "status": "written"}
    return built


@pytest.fixture
def talked(built):
    for text in ("the pump is hot", "the valve is cold"):
        receipt = lighthouse.say(
            built, "ann", "s1", "user", text, "desk", [(DEVICE, "d1")], {"mood": "calm"}, T3
        )
        assert receipt["status"] == "said", receipt
    return built


@pytest.fixture
def tasked(built):
    assert lighthouse.add_task(built, "t1", "check", "d1") is True
    return built


@pytest.fixture
def given(built):
    receipt = lighthouse.hand_off(
        built, "h1", "watcher", "fixer", [(DEVICE, "d1"), "e1/1"], {"note": "look at it"}, T3
    )
    assert receipt == {"id": "h1", "status": "given"}
    return built


# Kinds and time


def test_kind_by_position_and_by_name() -> None:
    by_position = Kind("Pump", "tag", ["installed"], {"FEEDS": SELF}, ["note"], 4)
    by_name = Kind(
        label="Pump", key="tag", times=["installed"], relations={"FEEDS": SELF}, text=["note"], dimensions=4
    )
    for kind in (by_position, by_name):
        assert (kind.label, kind.key, kind.times, kind.text, kind.dimensions) == (
            "Pump",
            "tag",
            ("installed",),
            ("note",),
            4,
        )
        assert kind.relations["FEEDS"] is kind
    assert by_position != by_name and len({by_position, by_name}) == 2
    refused_as(TypeError, Kind, "Pump", times="installed")
    refused_as(ValueError, Kind, "State")


def test_stamp() -> None:
    assert both(lighthouse.stamp, value="2026-10-12T09:14:11.943Z") == (
        "2026-10-12T09:14:11",
        "2026-10-12T09:14:11",
    )
    assert lighthouse.stamp(None) is None and lighthouse.stamp(value="  ") is None
    assert lighthouse.stamp(datetime(2026, 10, 12, 9, 14, 11, 943_000)) == "2026-10-12T09:14:11"
    refused_as(TypeError, lighthouse.stamp, 1767268800)
    refused_as(ValueError, lighthouse.stamp, "soon")


def test_now() -> None:
    found = lighthouse.now()
    assert type(found) is str and STAMP.match(found)
    assert lighthouse.stamp(found) == found


# Graphs and schema


def test_world(db) -> None:
    for graph in both(lighthouse.world, db=db):
        assert isinstance(graph, Graph) and graph.name == "world"


def test_tenant(db) -> None:
    for graph in both(lighthouse.tenant, db=db, tenant_id="acme-1"):
        assert isinstance(graph, Graph) and graph.name == "tenant:acme-1"
    for bad in ("Acme", None, "-acme", "a" * 64, 7):
        refused_as(ValueError, lighthouse.tenant, db, bad)


def test_ensure_schema(graph) -> None:
    assert both(
        lighthouse.ensure_schema, graph=graph, kinds=[DEVICE, ROOM], wait_seconds=10.0, entry_dimensions=3
    ) == (
        None,
        None,
    )
    error = refused_as(ValueError, lighthouse.ensure_schema, graph, [DEVICE], 10.0, True)
    assert "entry_dimensions" in str(error)
    refused_as(
        ValueError, lighthouse.ensure_schema, graph, [Kind("Room", key="code"), Kind("Room", key="name")]
    )


# Writes


def test_remember(built) -> None:
    rows = [{"key": "d3", "t": T0, "values": {"note": "spare"}}]
    assert both(lighthouse.remember, graph=built, kind=DEVICE, rows=rows, by="feed") == (
        [{"key": "d3", "status": "created"}],
        [{"key": "d3", "status": "unchanged"}],
    )
    assert lighthouse.remember(built, DEVICE, (row for row in []), "feed") == []
    [invalid] = lighthouse.remember(built, DEVICE, [{"key": "d4"}], "feed")  # no t
    assert set(invalid) == {"key", "status", "reason"} and invalid["status"] == "invalid"
    refused_as(ValueError, lighthouse.remember, built, DEVICE, [{"key": "d5", "t": T0}], "")
    assert lighthouse.history(built, DEVICE, "d5") == []


def test_update(built) -> None:
    first, second = (
        lighthouse.update(built, DEVICE, "d2", T2, "feed", {"status": "hot"}, None, None),
        lighthouse.update(graph=built, kind=DEVICE, key="d2", t=T3, by="feed", values={"status": "cold"}),
    )
    assert first == {"key": "d2", "status": "changed"} and second == {"key": "d2", "status": "changed"}
    stale = lighthouse.update(built, DEVICE, "d2", T1, "feed", {"status": "warm"})
    assert stale["status"] == "stale" and set(stale) == {"key", "status", "reason"}
    assert "2026-01-04T00:00:00" in stale["reason"]
    refused_as(ValueError, lighthouse.update, built, DEVICE, "d2", T4, 5, {"status": "x"})


# Reads


def test_history(built) -> None:
    for states in both(lighthouse.history, graph=built, kind=DEVICE, key="d1"):
        assert type(states) is list and len(states) == 2
        old, new = states
        assert set(old) == STATE | {"valid_to", "note", "status", "seen"}
        assert set(new) == STATE | {"note", "status", "seen"}
        assert (old["status"], new["status"]) == ("ok", "hot")
        assert all(is_utc(state[name]) for state in states for name in ("valid_from", "recorded_at", "seen"))
        assert type(new["fp"]) is str and new["by"] == "feed"
    assert lighthouse.history(built, DEVICE, "nobody") == []
    refused_as(ValueError, lighthouse.history, built, DEVICE, 1.5)


def test_as_of(built) -> None:
    for state in both(lighthouse.as_of, graph=built, kind=DEVICE, key="d1", when="2026-01-01T12:00:00Z"):
        assert (
            type(state) is dict
            and state["status"] == "ok"
            and set(state) == STATE | {"valid_to", "note", "status", "seen"}
        )
    assert lighthouse.as_of(built, DEVICE, "d1", "2025-06-01T00:00:00Z") is None
    refused_as(ValueError, lighthouse.as_of, built, DEVICE, "d1", None)
    refused_as(TypeError, lighthouse.as_of, built, DEVICE, "d1", 1767268800)


def test_related(built) -> None:
    assert both(lighthouse.related, graph=built, kind=DEVICE, key="d2", relation="LOCATED_IN", when=None) == (
        ["r1"],
        ["r1"],
    )
    assert lighthouse.related(built, DEVICE, "d2", "PART_OF", T1) == ["d1"]
    error = refused_as(ValueError, lighthouse.related, built, DEVICE, "d1", "NEAR")
    assert "no relation 'NEAR'" in str(error)


# Episodes


def test_open_episode(built) -> None:
    assert both(
        lighthouse.open_episode, graph=built, episode_id="e9", by="watcher", about=[(DEVICE, "d1")], at=T1
    ) == (
        {"id": "e9", "status": "opened"},
        {"id": "e9", "status": "exists"},
    )
    refusal(lighthouse.open_episode(built, "e8", "watcher", None))
    refusal(lighthouse.open_episode(built, "e8", "watcher", [(DEVICE, "nobody")]), "missing")
    refused_as(ValueError, lighthouse.open_episode, built, "", "watcher")


def test_record(built) -> None:
    lighthouse.open_episode(built, "e9", "watcher", (), T1)
    first = lighthouse.record(built, "e9", "look", "watcher", {"temp": 80}, [(DEVICE, "d1")], T3)
    second = lighthouse.record(
        graph=built, episode_id="e9", entry_type="look", by="watcher", values=None, cites=(), at=None
    )
    assert first == {"id": "e9/1", "seq": 1, "status": "recorded"}
    assert second == {"id": "e9/2", "seq": 2, "status": "recorded"}
    closed = lighthouse.record(built, "e1", "look", "watcher")
    refusal(closed, "closed")
    assert closed["reason"] == "the episode is closed"
    refusal(lighthouse.record(built, "e9", "look", "watcher", None, None))
    refused_as(ValueError, lighthouse.record, built, "e9", "outcome", "watcher")


def test_close_episode(built) -> None:
    for episode_id in ("e8", "e9"):
        lighthouse.open_episode(built, episode_id, "watcher", (), T1)
    first = lighthouse.close_episode(built, "e8", "watcher", {"fixed": False}, (), T3)
    second = lighthouse.close_episode(
        graph=built, episode_id="e9", by="watcher", outcome=None, cites=(), at=None
    )
    assert first == {"id": "e8/1", "seq": 1, "status": "recorded"}
    assert second == {"id": "e9/1", "seq": 1, "status": "recorded"}
    refusal(lighthouse.close_episode(built, "e8", "watcher"), "closed")
    refused_as(ValueError, lighthouse.close_episode, built, "e8", None)


def test_episode(built) -> None:
    for found in both(lighthouse.episode, graph=built, episode_id="e1"):
        assert type(found) is dict and set(found) == EPISODE | {"closed_at", "about", "entries"}
        assert found["about"] == [("Device", "d1")] and found["entry_count"] == 2
        look, outcome = found["entries"]
        assert set(look) == ENTRY | {"cites", "note", "temp"} and look["cites"] == []
        assert set(outcome) == ENTRY | {"cites", "fixed"} and outcome["cites"] == [("Entry", "e1/1")]
        assert (look["seq"], outcome["seq"], outcome["type"]) == (1, 2, "outcome")
        assert all(is_utc(found[name]) for name in ("opened_at", "closed_at", "recorded_at"))
    assert lighthouse.episode(built, "nothing") is None
    refused_as(ValueError, lighthouse.episode, built, 5)


def test_episodes_about(built) -> None:
    for found in both(lighthouse.episodes_about, graph=built, kind=DEVICE, key="d1"):
        assert type(found) is list and [episode["id"] for episode in found] == ["e3", "e2", "e1"]
        for episode in found:
            assert set(episode) == EPISODE | {"closed_at", "outcome"}
            assert set(episode["outcome"]) >= ENTRY and not {"serial", "words"} & set(episode["outcome"])
    assert lighthouse.episodes_about(built, DEVICE, "d2") == []
    refused_as(ValueError, lighthouse.episodes_about, built, DEVICE, None)


# Handoffs


def test_hand_off(built) -> None:
    points_to = [(DEVICE, "d1"), ("Episode", "e1")]
    assert both(
        lighthouse.hand_off,
        graph=built,
        handoff_id="h9",
        by="watcher",
        to="fixer",
        points_to=points_to,
        values={"note": "x"},
        at=T3,
    ) == ({"id": "h9", "status": "given"}, {"id": "h9", "status": "exists"})
    refusal(lighthouse.hand_off(built, "h8", "watcher", "fixer", []))
    refusal(lighthouse.hand_off(built, "h8", "watcher", "fixer", [(DEVICE, "nobody")]), "missing")
    refused_as(ValueError, lighthouse.hand_off, built, "h8", "watcher", "", [(DEVICE, "d1")])


def test_accept(given) -> None:
    refusal(lighthouse.accept(given, "h1", "watcher"), "refused")  # the giver is not the receiver
    assert both(lighthouse.accept, graph=given, handoff_id="h1", by="fixer") == (
        {"id": "h1", "status": "accepted"},
        {"id": "h1", "status": "exists"},
    )
    refusal(lighthouse.accept(given, "h7", "fixer"), "unknown")
    refused_as(ValueError, lighthouse.accept, given, "h1", "")


def test_handoffs_for(given) -> None:
    for found in both(lighthouse.handoffs_for, graph=given, agent="fixer", waiting_only=True):
        assert type(found) is list and len(found) == 1
        [handoff] = found
        assert set(handoff) == {"id", "by", "to", "at", "recorded_at", "points_to", "note"}
        assert handoff["points_to"] == [("Device", "d1"), ("Entry", "e1/1")]
    lighthouse.accept(given, "h1", "fixer")
    assert lighthouse.handoffs_for(given, "fixer") == []
    [accepted] = lighthouse.handoffs_for(given, "fixer", False)
    assert "accepted_at" in accepted and is_utc(accepted["accepted_at"])
    refused_as(ValueError, lighthouse.handoffs_for, given, None)


# Tasks


def test_add_task(built) -> None:
    assert both(lighthouse.add_task, graph=built, task_id="t9", kind="check", ref="d1", after=()) == (
        True,
        False,
    )
    assert lighthouse.add_task(built, "t8", "check", None, ["t9"]) is True
    refused_as(ValueError, lighthouse.add_task, built, "t7", "check", None, None)
    refused_as(ValueError, lighthouse.add_task, built, "t7", "check", None, ["nothing"])


def test_claim(tasked) -> None:
    first = lighthouse.claim(tasked, "worker", "check", 60)
    assert type(first) is dict and set(first) == {"id", "kind", "ref", "until"}
    assert (first["id"], first["kind"], first["ref"]) == ("t1", "check", "d1") and is_utc(first["until"])
    assert lighthouse.claim(graph=tasked, agent="worker", kind="check", lease=None) is None
    lighthouse.add_task(tasked, "t2", "check")
    second = lighthouse.claim(graph=tasked, agent="worker", kind="check", lease=None)
    assert second == {"id": "t2", "kind": "check", "ref": None, "until": None}
    refused_as(ValueError, lighthouse.claim, tasked, "worker", "check", 0)


def test_complete(tasked) -> None:
    lighthouse.claim(tasked, "worker", "check")
    assert lighthouse.complete(tasked, "other", "t1") is False
    assert both(lighthouse.complete, graph=tasked, agent="worker", task_id="t1") == (True, False)
    refused_as(ValueError, lighthouse.complete, tasked, "", "t1")


def test_release(tasked) -> None:
    lighthouse.claim(tasked, "worker", "check")
    assert both(lighthouse.release, graph=tasked, agent="worker", task_id="t1") == (True, False)
    assert lighthouse.claim(tasked, "other", "check")["id"] == "t1"
    refused_as(ValueError, lighthouse.release, tasked, "worker", None)


# Conversations


def test_say(built) -> None:
    first = lighthouse.say(
        built, "ann", "s9", "user", "the pump is hot", "desk", [(DEVICE, "d1")], {"mood": "calm"}, T3
    )
    second = lighthouse.say(
        graph=built,
        user="ann",
        session_id="s9",
        role="desk",
        text="",
        by="desk",
        mentions=(),
        values=None,
        at=None,
    )
    assert first == {"id": "s9", "seq": 1, "status": "said"} and second == {
        "id": "s9",
        "seq": 2,
        "status": "said",
    }
    refusal(lighthouse.say(built, "ann", "s9", "user", 5, "desk"))
    refusal(lighthouse.say(built, "ann", "s9", "user", "x", "desk", None))
    refused_as(ValueError, lighthouse.say, built, "ann", "s9", "", "text", "desk")


def test_messages(talked) -> None:
    for found in both(lighthouse.messages, graph=talked, user="ann", session_id="s1", last=20, before=None):
        assert type(found) is list and [message["seq"] for message in found] == [1, 2]
        for message in found:
            assert set(message) == MESSAGE | {"mood"} and message["mentions"] == [("Device", "d1")]
            assert message["session"] == "s1" and is_utc(message["at"])
    assert lighthouse.messages(talked, "bob", "s1") == []
    assert lighthouse.messages(talked, "ann", "s1", 20, 1) == []
    refused_as(ValueError, lighthouse.messages, talked, "ann", "s1", 0)


def test_sessions(talked) -> None:
    for found in both(lighthouse.sessions, graph=talked, user="ann", limit=20):
        assert type(found) is list and len(found) == 1
        [session] = found
        assert set(session) == {"id", "opened_at", "active_at", "messages"}
        assert (session["id"], session["messages"]) == ("s1", 2)
    refused_as(ValueError, lighthouse.sessions, talked, "ann", True)


def test_said_about(talked) -> None:
    for found in both(lighthouse.said_about, graph=talked, user="ann", reference=(DEVICE, "d1"), limit=20):
        assert type(found) is list and [message["seq"] for message in found] == [2, 1]
        assert all(set(message) == MESSAGE | {"mood"} for message in found)
    error = refused_as(ValueError, lighthouse.said_about, talked, "ann", 5)
    assert str(error).startswith("reference: not a reference")


def test_said(talked) -> None:
    for found in both(lighthouse.said, graph=talked, user="ann", question="pump", limit=10, match="all"):
        assert type(found) is list and [message["text"] for message in found] == ["the pump is hot"]
        assert set(found[0]) == MESSAGE | {"mood", "score"} and type(found[0]["score"]) is float
    assert lighthouse.said(talked, "ann", "?!") == []
    refused_as(TypeError, lighthouse.said, talked, "ann", 5)
    refused_as(ValueError, lighthouse.said, talked, "ann", "pump", 10, "some")


def test_summarize(talked) -> None:
    first = lighthouse.summarize(talked, "ann", "s1", "they spoke of the pump", 1, "desk")
    second = lighthouse.summarize(
        graph=talked, user="ann", session_id="s1", text="and the valve", upto=2, by="desk"
    )
    assert first == {"id": "s1", "upto": 1, "status": "summed"} and second == {
        "id": "s1",
        "upto": 2,
        "status": "summed",
    }
    refusal(lighthouse.summarize(talked, "ann", "s1", "too far", 3, "desk"))
    refusal(lighthouse.summarize(talked, "ann", "s1", "back", 1, "desk"), "stale")
    refusal(lighthouse.summarize(talked, "ann", "nothing", "x", 1, "desk"), "unknown")
    refused_as(ValueError, lighthouse.summarize, talked, "ann", "s1", "x", 1, "")


def test_context(talked) -> None:
    for found in both(lighthouse.context, graph=talked, user="ann", session_id="s1", last=20):
        assert type(found) is dict and set(found) == {"summary", "upto", "messages", "waiting"}
        assert (found["summary"], found["upto"], found["waiting"]) == (None, 0, 0)
        assert [message["seq"] for message in found["messages"]] == [1, 2]
    assert lighthouse.context(talked, "ann", "nothing") == {
        "summary": None,
        "upto": 0,
        "messages": [],
        "waiting": 0,
    }
    refused_as(ValueError, lighthouse.context, talked, "ann", "nothing", 0)


def test_forget_session(talked) -> None:
    assert both(lighthouse.forget_session, graph=talked, user="ann", session_id="s1") == (
        {"id": "s1", "status": "forgotten", "messages": 2},
        {"id": "s1", "status": "unknown", "messages": 0},
    )
    refused_as(ValueError, lighthouse.forget_session, talked, "ann", "")


def test_forget_user(talked) -> None:
    assert both(lighthouse.forget_user, graph=talked, user="ann") == (
        {"user": "ann", "sessions": 1, "messages": 2},
        {"user": "ann", "sessions": 0, "messages": 0},
    )
    refused_as(ValueError, lighthouse.forget_user, talked, None)


# Recall


def test_pointing_at(built) -> None:
    assert both(
        lighthouse.pointing_at, graph=built, kind=DEVICE, relation="PART_OF", key="d1", when=None
    ) == (["d2"], ["d2"])
    assert lighthouse.pointing_at(built, DEVICE, "LOCATED_IN", "r1", T1) == ["d1", "d2"]
    error = refused_as(ValueError, lighthouse.pointing_at, built, DEVICE, "NEAR", "d1")
    assert "no relation" in str(error)


def test_similar(built) -> None:
    for found in both(lighthouse.similar, graph=built, kind=DEVICE, key="d1", relations=None, limit=10):
        assert found == [{"key": "d2", "shared": 1, "through": [("LOCATED_IN", "r1")]}]
    assert lighthouse.similar(built, DEVICE, "nobody") == []
    refused_as(ValueError, lighthouse.similar, built, DEVICE, "d1", None, 0)


def test_search(built) -> None:
    for found in both(lighthouse.search, graph=built, kind=DEVICE, question="pump", limit=10, match="all"):
        assert type(found) is list and [hit["key"] for hit in found] == ["d1"]
        assert set(found[0]) == {"key", "score", "values"} and type(found[0]["score"]) is float
        # The current properties but the key and words: the values, and what the engine keeps beside them.
        values = found[0]["values"]
        assert {"note", "status", "seen"} <= set(values) and set(values) - {
            "note",
            "status",
            "seen",
        } <= ENGINE
        assert values["status"] == "hot" and not {"key", "serial", "words"} & set(values)
    refused_as(TypeError, lighthouse.search, built, DEVICE, 5)
    assert "no text" in str(refused_as(ValueError, lighthouse.search, built, BARE, "pump"))
    refused_as(ValueError, lighthouse.search, built, DEVICE, "pump", 10, "most")


def test_search_history(built) -> None:
    for found in both(
        lighthouse.search_history, graph=built, kind=DEVICE, question="pump", limit=10, match="all"
    ):
        assert type(found) is list and [hit["key"] for hit in found] == ["d1", "d1"]
        for hit in found:
            assert set(hit) == {"key", "score", "state"} and type(hit["score"]) is float
            assert STATE | {"note", "status", "seen"} <= set(hit["state"]) and "words" not in hit["state"]
    refused_as(TypeError, lighthouse.search_history, built, DEVICE, None)


def test_search_entries(built) -> None:
    for found in both(lighthouse.search_entries, graph=built, question="pump", limit=10, match="all"):
        assert type(found) is list and sorted(hit["id"] for hit in found) == ["e1/1", "e2/1", "e3/1"]
        for hit in found:
            assert set(hit) == {"id", "score", "entry"} and type(hit["score"]) is float
            assert ENTRY | {"serial", "note", "temp"} == set(hit["entry"])
    refused_as(TypeError, lighthouse.search_entries, built, ["pump"])


def test_embed(built) -> None:
    assert both(lighthouse.embed, graph=built, kind=DEVICE, embedder=embedder, model="m1", limit=100) == (
        {"embedded": 2, "waiting": 0},
        {"embedded": 0, "waiting": 0},
    )
    refused_as(TypeError, lighthouse.embed, built, DEVICE, "not callable", "m1")
    assert "no vectors" in str(refused_as(ValueError, lighthouse.embed, built, ROOM, embedder, "m1"))
    assert "embedder" in str(
        refused_as(ValueError, lighthouse.embed, built, DEVICE, lambda texts: [[0.0] * 3], "m2")
    )


def test_nearest(built) -> None:
    lighthouse.embed(built, DEVICE, embedder, "m1")
    for found in both(
        lighthouse.nearest,
        graph=built,
        kind=DEVICE,
        question="hot pump",
        embedder=embedder,
        model="m1",
        limit=10,
    ):
        assert type(found) is list and sorted(hit["key"] for hit in found) == ["d1", "d2"]
        assert all(set(hit) == {"key", "score", "values"} and type(hit["score"]) is float for hit in found)
    assert lighthouse.nearest(built, DEVICE, "  ", embedder, "m1") == []
    refused_as(TypeError, lighthouse.nearest, built, DEVICE, 5, embedder, "m1")


def test_embed_entries(built) -> None:
    assert both(lighthouse.embed_entries, graph=built, embedder=embedder, model="m1", limit=100) == (
        {"embedded": 3, "waiting": 0},
        {"embedded": 0, "waiting": 0},
    )
    refused_as(TypeError, lighthouse.embed_entries, built, None, "m1")
    refused_as(ValueError, lighthouse.embed_entries, built, embedder, "m1", 0)


def test_nearest_entries(built) -> None:
    lighthouse.embed_entries(built, embedder, "m1")
    for found in both(
        lighthouse.nearest_entries, graph=built, question="pump", embedder=embedder, model="m1", limit=10
    ):
        assert type(found) is list and sorted(hit["id"] for hit in found) == ["e1/1", "e2/1", "e3/1"]
        assert all(set(hit) == {"id", "score", "entry"} and "serial" in hit["entry"] for hit in found)
    refused_as(TypeError, lighthouse.nearest_entries, built, 5, embedder, "m1")


def test_fuse() -> None:
    rankings = {"graph": [{"key": "x"}, {"key": "y"}], "words": [{"key": "y", "score": 9.0}]}
    for found in both(lighthouse.fuse, rankings=rankings, limit=10):
        assert found == [
            {"key": "y", "score": 1 / 62 + 1 / 61, "places": {"graph": 2, "words": 1}},
            {"key": "x", "score": 1 / 61, "places": {"graph": 1}},
        ]
    assert lighthouse.fuse({}) == []
    refused_as(ValueError, lighthouse.fuse, [("graph", [])])
    assert "must be a list" in str(refused_as(TypeError, lighthouse.fuse, {"graph": "x"}))


# Extraction


def test_extract(built) -> None:
    def extractor(entry: dict) -> list[dict]:
        assert {"id", "seq", "type", "at", "serial", "recorded_at", "by"} <= set(
            entry
        ) and "words" not in entry
        return [{"key": "from-" + entry["id"], "values": {"note": "read"}}]

    assert both(
        lighthouse.extract,
        graph=built,
        kind=DEVICE,
        extractor=extractor,
        by="reader",
        types=["look"],
        limit=100,
    ) == (
        {"read": 3, "rows": {"created": 3}, "waiting": 0},
        {"read": 0, "rows": {}, "waiting": 0},
    )
    assert lighthouse.history(built, DEVICE, "from-e1/1")[0]["entry"] == "e1/1"
    refused_as(TypeError, lighthouse.extract, built, DEVICE, "not callable", "reader")
    refused_as(TypeError, lighthouse.extract, built, ROOM, lambda entry: "no", "reader")
    refused_as(ValueError, lighthouse.extract, built, ROOM, extractor, "reader", "look")


# Lessons, playbooks, promotion


def test_learn(built) -> None:
    assert both(
        lighthouse.learn,
        graph=built,
        lesson_id="l9",
        by="watcher",
        statement="hot pumps need a look",
        supported_by=["e1", "e2"],
        about=[(DEVICE, "d1")],
        values={"area": "pumps"},
        at=T3,
    ) == ({"id": "l9", "status": "learned"}, {"id": "l9", "status": "exists"})
    refusal(lighthouse.learn(built, "l8", "watcher", "nothing", []))
    refusal(lighthouse.learn(built, "l8", "watcher", "nothing", ["e7"]), "missing")
    refused_as(ValueError, lighthouse.learn, built, "", "watcher", "x", ["e1"])


def test_weigh(learned) -> None:
    assert both(
        lighthouse.weigh, graph=learned, lesson_id="l1", by="reviewer", episode_id="e3", agrees=False, at=T4
    ) == (
        {"id": "l1", "status": "weighed"},
        {"id": "l1", "status": "exists"},
    )
    refusal(lighthouse.weigh(learned, "l7", "reviewer", "e3", True), "unknown")
    refused_as(TypeError, lighthouse.weigh, learned, "l1", "reviewer", "e3", 1)


def test_used(learned) -> None:
    first = lighthouse.used(learned, "l1", "worker", "e3", None, T4)
    second = lighthouse.used(
        graph=learned, lesson_id="l1", by="worker", episode_id="e3", helped=True, at=None
    )
    assert first == {"id": "l1", "status": "used"} and second == {"id": "l1", "status": "judged"}
    assert lighthouse.used(learned, "l1", "worker", "e3", True) == {"id": "l1", "status": "exists"}
    assert lighthouse.used(learned, "l1", "worker", "e2", False) == {"id": "l1", "status": "used"}
    refused_as(TypeError, lighthouse.used, learned, "l1", "worker", "e3", "yes")


def test_retire(learned) -> None:
    assert both(
        lighthouse.retire, graph=learned, lesson_id="l1", by="reviewer", why="it was the fan", at=T4
    ) == (
        {"id": "l1", "status": "retired"},
        {"id": "l1", "status": "exists"},
    )
    refusal(lighthouse.weigh(learned, "l1", "reviewer", "e3", True), "retired")
    refused_as(ValueError, lighthouse.retire, learned, "l1", "reviewer", "")


def test_lesson(learned) -> None:
    for found in both(lighthouse.lesson, graph=learned, lesson_id="l1"):
        assert type(found) is dict
        assert set(found) == LESSON | {"weight", "supported_by", "contradicted_by", "about"}
        assert (found["weight"], found["supported_by"], found["contradicted_by"]) == (2, ["e1", "e2"], [])
        assert found["about"] == [("Device", "d1")] and type(found["weight"]) is int
    assert lighthouse.lesson(learned, "nothing") is None
    refused_as(ValueError, lighthouse.lesson, learned, None)


def test_lessons_about(learned) -> None:
    for found in both(lighthouse.lessons_about, graph=learned, kind=DEVICE, key="d1", at_least=1, since=None):
        assert type(found) is list and [lesson["id"] for lesson in found] == ["l1"]
        assert set(found[0]) == LESSON | {"weight"} and found[0]["weight"] == 2
    assert lighthouse.lessons_about(learned, DEVICE, "d1", 3) == []
    refused_as(ValueError, lighthouse.lessons_about, learned, DEVICE, "d1", True)
    assert "since" in str(refused_as(ValueError, lighthouse.lessons_about, learned, DEVICE, "d1", 1, " "))


def test_write_playbook(built) -> None:
    first = lighthouse.write_playbook(
        built, "cool", "watcher", {"status": "hot"}, [{"do": "open valve"}], EPISODES, 3, T3
    )
    second = lighthouse.write_playbook(
        graph=built,
        name="cool",
        by="watcher",
        trigger={"status": "hot"},
        steps=[{"do": "wait"}],
        supported_by=EPISODES,
        needs=3,
        at=None,
    )
    assert first == {"id": "cool#1", "version": 1, "status": "written"}
    assert second == {"id": "cool#2", "version": 2, "status": "written"}
    refusal(
        lighthouse.write_playbook(built, "warm", "watcher", {"status": "ok"}, [{"do": "x"}], EPISODES, 4),
        "unsupported",
    )
    refusal(lighthouse.write_playbook(built, "warm", "watcher", {"status": "ok"}, [], EPISODES))
    refused_as(
        ValueError, lighthouse.write_playbook, built, "", "watcher", {"status": "ok"}, [{"do": "x"}], EPISODES
    )


def test_playbooks_for(written) -> None:
    for found in both(lighthouse.playbooks_for, graph=written, situation={"status": "hot", "device": "d1"}):
        assert type(found) is list and [playbook["id"] for playbook in found] == ["cool#1"]
        assert set(found[0]) == PLAYBOOK
    assert lighthouse.playbooks_for(written, {"status": "cold"}) == []
    refused_as(TypeError, lighthouse.playbooks_for, written, [("status", "hot")])


def test_ran(written) -> None:
    first = lighthouse.ran(written, "cool", "worker", "e1", True, 3, T4)
    second = lighthouse.ran(
        graph=written, name="cool", by="worker", episode_id="e2", succeeded=None, stop_after=3, at=None
    )
    third = lighthouse.ran(written, "cool", "worker", "e2", False)
    for receipt in (first, second, third):
        assert (
            set(receipt) == {"id", "status", "enabled"}
            and receipt["id"] == "cool#1"
            and receipt["enabled"] is True
        )
    assert [receipt["status"] for receipt in (first, second, third)] == ["recorded", "recorded", "judged"]
    refusal(lighthouse.ran(written, "cool", "worker", "e7"), "missing")
    refused_as(TypeError, lighthouse.ran, written, "cool", "worker", "e3", 1)
    refused_as(ValueError, lighthouse.ran, written, "cool", "worker", "e3", True, 0)


def test_switch(written) -> None:
    assert both(lighthouse.switch, graph=written, name="cool", by="boss", on=False) == (
        {"id": "cool#1", "status": "off"},
        {"id": "cool#1", "status": "exists"},
    )
    refusal(lighthouse.switch(written, "warm", "boss", True), "unknown")
    refused_as(TypeError, lighthouse.switch, written, "cool", "boss", 1)


def test_playbook(written) -> None:
    for found in both(lighthouse.playbook, graph=written, name="cool", version=None):
        assert type(found) is dict and set(found) == PLAYBOOK
        assert (found["id"], found["name"], found["version"], found["enabled"]) == ("cool#1", "cool", 1, True)
        assert found["trigger"] == {"status": "hot"} and found["steps"] == [{"do": "open valve"}]
        assert found["supported_by"] == list(EPISODES)
    assert lighthouse.playbook(written, "cool", 2) is None and lighthouse.playbook(written, "warm") is None
    refused_as(ValueError, lighthouse.playbook, written, "cool", "1")


def test_promote(built) -> None:
    def rule(episode: dict) -> list[dict]:
        return [{"lesson": "pumps", "statement": "pumps run hot", "about": [(DEVICE, "d1")], "agrees": True}]

    first = lighthouse.promote(built, "reviewer", rule, 3)
    assert first == {
        "episodes": 3,
        "lessons": [{"id": "pumps", "status": "learned", "new": 0}],
        "playbooks": [],
        "runs": [],
    }
    second = lighthouse.promote(graph=built, by="reviewer", rule=rule, at_least=3)
    assert set(second) == {"episodes", "lessons", "playbooks", "runs"} and type(second["episodes"]) is int
    assert lighthouse.lesson(built, "pumps")["supported_by"] == list(EPISODES)
    refused_as(TypeError, lighthouse.promote, built, "reviewer", "not callable")
    lighthouse.open_episode(built, "e4", "watcher", [(DEVICE, "d1")], T3)
    lighthouse.close_episode(built, "e4", "watcher", {"fixed": True}, (), T3)  # one the rule has not read
    assert "claim" in str(refused_as(TypeError, lighthouse.promote, built, "reviewer", lambda episode: "no"))
    refused_as(ValueError, lighthouse.promote, built, "reviewer", rule, 0)


# Impact, diff, what-if, trust


def test_impact_of_state(built) -> None:
    for found in both(lighthouse.impact_of_state, graph=built, kind=DEVICE, key="d1", since=T0, until=T4):
        assert type(found) is dict and set(found) == IMPACT | {"entity", "direct_entries"}
        assert found["entity"] == ("Device", "d1")
        assert all(type(found[name]) is list for name in IMPACT | {"direct_entries"})
    unknown = lighthouse.impact_of_state(built, DEVICE, "nobody", T0, T4)
    assert all(unknown[name] == [] for name in IMPACT | {"direct_entries"})
    refused_as(TypeError, lighthouse.impact_of_state, built, "Device", "d1", T0, T4)
    assert "earlier" in str(refused_as(ValueError, lighthouse.impact_of_state, built, DEVICE, "d1", T4, T0))


def test_impact_of_entry(built) -> None:
    for found in both(lighthouse.impact_of_entry, graph=built, entry_id="e1/1"):
        assert type(found) is dict and set(found) == IMPACT | {"id", "invalidated"}
        assert found["id"] == "e1/1" and found["invalidated"] is False
        assert "e1/2" in found["downstream_entries"]  # the outcome cites it
    assert lighthouse.impact_of_entry(built, "e7/1") is None
    refused_as(ValueError, lighthouse.impact_of_entry, built, 5)


def test_invalidate_entry(built) -> None:
    first = lighthouse.invalidate_entry(built, "e1/1", "reviewer", "the sensor was broken", T4)
    second = lighthouse.invalidate_entry(graph=built, entry_id="e1/1", by="reviewer", reason="again", at=None)
    assert set(first) == {"id", "status", "impact"} and (first["id"], first["status"]) == (
        "e1/1",
        "invalidated",
    )
    assert set(first["impact"]) == IMPACT | {"id", "invalidated"}
    assert second == {"id": "e1/1", "status": "exists"}
    refusal(lighthouse.invalidate_entry(built, "e2/1", "reviewer", ""))
    refusal(lighthouse.invalidate_entry(built, "e7/1", "reviewer", "gone"), "unknown")
    refused_as(ValueError, lighthouse.invalidate_entry, built, "e2/1", "", "why")


def test_diff_between(built) -> None:
    for found in both(lighthouse.diff_between, graph=built, kinds=[DEVICE], t1=T0, t2=T4):
        assert type(found) is dict
        assert set(found) == {
            "from_time",
            "to_time",
            "entities_added",
            "values_changed",
            "relations_opened",
            "relations_closed",
            "episodes_opened",
            "episodes_closed",
        }
        assert (found["from_time"], found["to_time"]) == ("2026-01-01T00:00:00", "2026-01-05T00:00:00")
        [changed] = found["values_changed"]
        assert set(changed) == {"entity", "before", "after", "changed_keys"} and changed["changed_keys"] == [
            "status"
        ]
        assert found["episodes_opened"] == list(EPISODES) and found["episodes_closed"] == list(EPISODES)
    assert "at least one kind" in str(refused_as(ValueError, lighthouse.diff_between, built, [], T0, T4))
    refused_as(TypeError, lighthouse.diff_between, built, DEVICE, T0, T4)
    assert "not be later" in str(refused_as(ValueError, lighthouse.diff_between, built, [DEVICE], T4, T0))


def test_what_if(built) -> None:
    rows = [(DEVICE, [{"key": "d2", "relations": {}}])]
    for found in both(
        lighthouse.what_if, graph=built, kinds=[DEVICE], hypothetical_rows=rows, at=None, situation=None
    ):
        assert type(found) is dict and set(found) == {
            "at",
            "groups_before",
            "groups_after",
            "rank_shifts",
            "playbooks",
        }
        assert type(found["at"]) is str and found["playbooks"] == []
        assert [group["size"] for group in found["groups_before"]] == [3]
        assert [group["size"] for group in found["groups_after"]] == [2]
    refused_as(TypeError, lighthouse.what_if, built, [DEVICE], {DEVICE: []})
    refused_as(ValueError, lighthouse.what_if, built, [], rows)


def test_agent_trust(built) -> None:
    for found in both(lighthouse.agent_trust, graph=built, agent="watcher"):
        assert type(found) is dict and set(found) == TRUST_COUNTS | {"agent", "score"}
        assert found["agent"] == "watcher" and all(type(found[name]) is int for name in TRUST_COUNTS)
        assert found["score"] is None or (type(found["score"]) is float and 0 <= found["score"] <= 1)
        assert (found["entries_written"], found["closed_episodes"]) == (6, 3)
    refused_as(ValueError, lighthouse.agent_trust, built, "")


# Algorithms


def test_groups(built) -> None:
    for found in both(
        lighthouse.groups,
        graph=built,
        kinds=[DEVICE],
        relations=None,
        records=(),
        at_least=2,
        limit=100,
        show=100,
        at=None,
    ):
        assert type(found) is list and len(found) == 1 and set(found[0]) == {"size", "members"}
        assert found[0]["size"] == 3
        assert sorted(found[0]["members"]) == [("Device", "d1"), ("Device", "d2"), ("Room", "r1")]
    refused_as(TypeError, lighthouse.groups, built, [DEVICE], None, None)
    assert "at least one kind" in str(refused_as(ValueError, lighthouse.groups, built, []))


def test_important(built) -> None:
    for found in both(lighthouse.important, graph=built, kinds=[DEVICE], relation=None, limit=10, at=None):
        assert type(found) is list and len(found) == 3
        assert all(set(item) == {"entity", "score"} and type(item["score"]) is float for item in found)
        assert sum(item["score"] for item in found) == pytest.approx(1.0)
        assert found[0]["entity"] == ("Room", "r1")
    refused_as(ValueError, lighthouse.important, built, [DEVICE], ["LOCATED_IN"])


def test_between(built) -> None:
    for found in both(
        lighthouse.between,
        graph=built,
        kinds=[DEVICE],
        relations=None,
        limit=10,
        sample=None,
        seed=1,
        at=None,
    ):
        assert type(found) is list and found
        assert all(set(item) == {"entity", "score"} and type(item["score"]) is float for item in found)
    refused_as(ValueError, lighthouse.between, built, [DEVICE], None, 10, None, 0)
    assert "kinds must be a list of Kind" in str(refused_as(TypeError, lighthouse.between, built, DEVICE))


def test_connection(built) -> None:
    for found in both(
        lighthouse.connection,
        graph=built,
        start=(DEVICE, "d2"),
        end=(ROOM, "r1"),
        kinds=[DEVICE],
        relations=None,
        max_hops=6,
        at=None,
    ):
        assert type(found) is list and len(found) == 1
        [step] = found
        assert set(step) == {"from", "relation", "to", "forward", "current", "since", "until"}
        assert (step["from"], step["relation"], step["to"]) == (
            ("Device", "d2"),
            "LOCATED_IN",
            ("Room", "r1"),
        )
        assert step["forward"] is True and step["current"] is True and step["until"] is None
    assert lighthouse.connection(built, (DEVICE, "d1"), (DEVICE, "d1"), [DEVICE]) == []
    assert lighthouse.connection(built, (DEVICE, "d1"), (DEVICE, "nobody"), [DEVICE]) is None
    assert str(refused_as(ValueError, lighthouse.connection, built, 5, (ROOM, "r1"))).startswith(
        "start: not a reference"
    )
    refused_as(TypeError, lighthouse.connection, built, (DEVICE, "d2"), (ROOM, "r1"), "Device")


# Failures


def test_record_failure(graph) -> None:
    assert both(
        lighthouse.record_failure,
        graph=graph,
        reason="bad-feed",
        kind=DEVICE,
        key="d1",
        detail="{}",
        owner=None,
    ) == (
        None,
        None,
    )
    assert failures_of(graph, "bad-feed") == [[2]]  # an identical refusal is counted on one node
    lighthouse.record_failure(graph, "bad-feed", DEVICE, "d1", "x" * 5_000, "ann")
    assert sorted(failures_of(graph, "bad-feed")) == [[1], [2]]
    refused_as(ValueError, lighthouse.record_failure, graph, "")
    assert failures_of(graph, "") == []


# Every value name the API allows is stored and read back as given


def test_an_entity_takes_every_value_name_but_its_key_and_the_engine_s(built) -> None:
    given = {
        "rev": 1,
        "kind": "k",
        "model": "m",
        "embedding": "e",
        "type": "t",
        "id": "i",
        "at": "a",
        "_x": 2,
    }
    assert (
        lighthouse.remember(built, DEVICE, [{"key": "d7", "t": T0, "values": given}], "feed")[0]["status"]
        == "created"
    )
    [state] = lighthouse.history(built, DEVICE, "d7")
    assert {name: state[name] for name in given} == given and set(state) == STATE | set(given)
    for name in ("serial", *sorted(ENGINE), "words"):
        [receipt] = lighthouse.remember(built, DEVICE, [{"key": "d8", "t": T0, "values": {name: 1}}], "feed")
        assert receipt["status"] == "invalid", name


def test_an_entry_takes_every_value_name_but_those_the_api_reserves(built) -> None:
    given = {"key": 1, "fp": "f", "valid_from": "v", "seen_last": "s", "entry": "e", "rev": 2, "kind": "k"}
    given |= {"model": "m", "episode": "p", "score": 0.5, "invalidated_at": "x"}
    lighthouse.open_episode(built, "e9", "watcher", (), T1)
    assert lighthouse.record(built, "e9", "look", "watcher", given, (), T1)["status"] == "recorded"
    [entry] = lighthouse.episode(built, "e9")["entries"]
    assert {name: entry.get(name) for name in given} == given
    for name in ("id", "seq", "serial", "type", "at", "recorded_at", "by", "cites", "words"):
        refusal(lighthouse.record(built, "e9", "look", "watcher", {name: 1}))


def test_a_handoff_takes_every_value_name_but_those_the_api_reserves(built) -> None:
    given = {"key": 1, "fp": "f", "words": "w", "type": "t", "seq": 3, "kind": "k", "entry": "e", "note": "n"}
    assert lighthouse.hand_off(built, "h9", "watcher", "fixer", ["e1/1"], given, T3)["status"] == "given"
    [handoff] = lighthouse.handoffs_for(built, "fixer")
    assert {name: handoff.get(name) for name in given} == given
    for name in ("id", "by", "to", "at", "recorded_at", "accepted_at", "points_to"):
        refusal(lighthouse.hand_off(built, "h8", "watcher", "fixer", ["e1/1"], {name: 1}))


def test_a_message_takes_every_value_name_but_those_the_api_reserves(built) -> None:
    given = {"fp": "f", "id": "i", "type": "t", "entry": "e", "kind": "k", "owner": "o", "summary": "s"}
    assert lighthouse.say(built, "ann", "s9", "user", "hello", "desk", (), given, T3)["status"] == "said"
    [message] = lighthouse.messages(built, "ann", "s9")
    assert {name: message.get(name) for name in given} == given
    reserved = (
        "key",
        "session",
        "user",
        "seq",
        "role",
        "text",
        "at",
        "recorded_at",
        "by",
        "mentions",
        "score",
    )
    for name in (*reserved, "words"):
        refusal(lighthouse.say(built, "ann", "s9", "user", "hello", "desk", (), {name: 1}))


def test_a_lesson_takes_every_value_name_but_those_the_api_reserves(built) -> None:
    given = {"key": 1, "fp": "f", "words": "w", "type": "t", "seq": 3, "kind": "k", "area": "pumps"}
    assert lighthouse.learn(built, "l9", "watcher", "pumps", ["e1"], (), given, T3)["status"] == "learned"
    found = lighthouse.lesson(built, "l9")
    assert {name: found.get(name) for name in given} == given
    reserved = ("id", "statement", "by", "at", "recorded_at", "touched_at", "weight", "support", "against")
    reserved += ("used", "helped", "failed", "retired_at", "retired_by", "retired_why", "supported_by")
    for name in (*reserved, "contradicted_by", "about"):
        refusal(lighthouse.learn(built, "l8", "watcher", "pumps", ["e1"], (), {name: 1}))


# An identity that is not a name raises, writes nothing and stores no failure


class _Hostile(str):
    """Text that raises when it is printed, measured, stripped or compared."""

    def _raise(self, *args, **kwargs):
        raise RuntimeError("hostile")

    __str__ = __repr__ = __len__ = __iter__ = __hash__ = __eq__ = strip = encode = _raise


NOT_NAMES = ["", " watcher", "watcher\n", "x" * 201, 5, None, b"watcher", _Hostile("watcher")]

# Each write with one identity argument given as `bad`, everything else as a good call would give it.
IDENTITIES = {
    "remember": lambda g, bad: lighthouse.remember(g, DEVICE, [{"key": "d9", "t": T0}], bad),
    "update": lambda g, bad: lighthouse.update(g, DEVICE, "d1", T3, bad, {"status": "x"}),
    "open_episode": lambda g, bad: lighthouse.open_episode(g, bad, "watcher"),
    "record": lambda g, bad: lighthouse.record(g, "e1", "look", bad),
    "close_episode": lambda g, bad: lighthouse.close_episode(g, bad, "watcher"),
    "hand_off": lambda g, bad: lighthouse.hand_off(g, "h9", "watcher", bad, ["e1/1"]),
    "accept": lambda g, bad: lighthouse.accept(g, "h1", bad),
    "add_task": lambda g, bad: lighthouse.add_task(g, bad, "check"),
    "claim": lambda g, bad: lighthouse.claim(g, bad, "check"),
    "complete": lambda g, bad: lighthouse.complete(g, bad, "t1"),
    "release": lambda g, bad: lighthouse.release(g, "worker", bad),
    "say": lambda g, bad: lighthouse.say(g, bad, "s9", "user", "hello", "desk"),
    "summarize": lambda g, bad: lighthouse.summarize(g, "ann", bad, "sum", 1, "desk"),
    "forget_session": lambda g, bad: lighthouse.forget_session(g, "ann", bad),
    "forget_user": lambda g, bad: lighthouse.forget_user(g, bad),
    "extract": lambda g, bad: lighthouse.extract(g, DEVICE, lambda entry: [], bad),
    "learn": lambda g, bad: lighthouse.learn(g, bad, "watcher", "pumps", ["e1"]),
    "weigh": lambda g, bad: lighthouse.weigh(g, "l1", bad, "e3", True),
    "used": lambda g, bad: lighthouse.used(g, "l1", "worker", bad),
    "retire": lambda g, bad: lighthouse.retire(g, "l1", "reviewer", bad),
    "write_playbook": lambda g, bad: lighthouse.write_playbook(
        g, bad, "watcher", {"a": 1}, [{"do": "x"}], EPISODES
    ),
    "ran": lambda g, bad: lighthouse.ran(g, "cool", bad, "e1"),
    "switch": lambda g, bad: lighthouse.switch(g, "cool", bad, False),
    "promote": lambda g, bad: lighthouse.promote(g, bad, lambda episode: []),
    "invalidate_entry": lambda g, bad: lighthouse.invalidate_entry(g, "e1/1", bad, "why"),
    "record_failure": lambda g, bad: lighthouse.record_failure(g, bad),
}


def contents(graph) -> list[str]:
    """Every node and edge of the graph with its labels and properties, as sorted text."""
    nodes = graph.query("MATCH (n) RETURN labels(n), properties(n)").result_set
    edges = graph.query("MATCH (a)-[r]->(b) RETURN type(r), properties(r), id(a), id(b)").result_set
    return sorted(repr(row) for row in nodes + edges)


@pytest.fixture
def everything(learned):
    """The world with a lesson, a playbook, a session, a task and a handoff in it."""
    lighthouse.write_playbook(
        learned, "cool", "watcher", {"status": "hot"}, [{"do": "open valve"}], EPISODES, 3, T3
    )
    lighthouse.say(learned, "ann", "s1", "user", "the pump is hot", "desk", (), None, T3)
    lighthouse.add_task(learned, "t1", "check")
    lighthouse.hand_off(learned, "h1", "watcher", "fixer", ["e1/1"], None, T3)
    return learned


@pytest.mark.parametrize("write", sorted(IDENTITIES))
def test_an_identity_that_is_not_a_name_raises_must_be_text_and_writes_nothing(everything, write) -> None:
    before = contents(everything)
    for bad in NOT_NAMES:
        error = refused_as(ValueError, IDENTITIES[write], everything, bad)
        assert "must be text" in str(error), (write, str(error))
    assert contents(everything) == before


def test_every_function_has_a_behaviour_test() -> None:
    tested = {name.removeprefix("test_") for name in globals() if name.startswith("test_")}
    assert set(SIGNATURES) <= tested, sorted(set(SIGNATURES) - tested)


def test_times_read_back_are_aware_utc(built) -> None:
    # Stored times come as timezone-aware UTC datetimes in whole seconds, never strings.
    [state, _] = lighthouse.history(built, DEVICE, "d1")
    assert state["valid_from"] == datetime(2026, 1, 1, tzinfo=UTC) and state["valid_from"].microsecond == 0
