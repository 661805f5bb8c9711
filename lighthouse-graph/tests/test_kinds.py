"""Kind, SELF and the names the library owns: what a kind may declare, and what it is refused."""

from __future__ import annotations

import dataclasses
from types import MappingProxyType

import lighthouse as lh
import pytest
from devices import DEVICE
from hostile import PosingAsKind, PosingAsText
from lighthouse.errors import Refused, WrongType
from lighthouse.kinds import (
    ENGINE_NAMES,
    OWNED_LABELS,
    OWNED_NAMES,
    OWNED_RELATIONS,
    PLAIN_NAME,
    RESERVED_RELATIONS,
    REVISION,
    SELF,
    STATE_KIND,
    VECTOR,
    VECTOR_MODEL,
    Kind,
    is_kind,
    is_owned,
)

ROOM = Kind("Room", key="code")


def test_a_kind_keeps_what_it_declares() -> None:
    device = Kind(
        "Device",
        key="serial",
        times=("last_seen",),
        text=("note", "title"),
        relations={"LOCATED_IN": ROOM, "PART_OF": SELF},
        dimensions=384,
    )
    assert device.label == "Device"
    assert device.key == "serial"
    assert device.times == ("last_seen",)
    assert device.text == ("note", "title")
    assert device.dimensions == 384
    assert device.target("LOCATED_IN") is ROOM
    assert device.target("PART_OF") is device  # SELF: the kind that declares it
    assert device.embed_label == "DeviceToEmbed"
    assert repr(device) == "Kind('Device', key='serial')"


def test_the_defaults() -> None:
    thing = Kind("Thing")
    assert thing.key == "key"
    assert (thing.times, thing.text, thing.relations, thing.dimensions) == ((), (), {}, 0)
    assert type(thing.relations) is MappingProxyType
    assert SELF == "self" and type(SELF) is str


def test_the_fields_are_those_of_the_api_in_its_order() -> None:
    fields = dataclasses.fields(Kind)
    assert [field.name for field in fields] == ["label", "key", "times", "relations", "text", "dimensions"]
    defaults = {field.name: field.default for field in fields if field.default is not dataclasses.MISSING}
    assert defaults == {"key": "key", "times": (), "text": (), "dimensions": 0}
    assert next(field for field in fields if field.name == "relations").default_factory() == {}
    assert all(field.init and field.kw_only is False for field in fields)


def test_a_kind_takes_its_fields_by_position() -> None:
    room = Kind("Room", "code", ["built"], {"NEXT_TO": SELF}, ["title"], 8)
    assert (room.label, room.key, room.times, room.text, room.dimensions) == (
        "Room",
        "code",
        ("built",),
        ("title",),
        8,
    )
    assert room.relations["NEXT_TO"] is room


def test_relations_are_a_read_only_copy_of_the_dict() -> None:
    given = {"LOCATED_IN": ROOM}
    device = Kind("Device", relations=given)
    assert type(device.relations) is MappingProxyType and dict(device.relations) == {"LOCATED_IN": ROOM}
    with pytest.raises(TypeError):
        device.relations["PART_OF"] = ROOM  # type: ignore[index]
    given["PART_OF"] = ROOM  # a change to the dict given later has no effect
    del given["LOCATED_IN"]
    assert dict(device.relations) == {"LOCATED_IN": ROOM}
    with pytest.raises(ValueError, match="no relation 'PART_OF'"):
        device.target("PART_OF")


@pytest.mark.parametrize("target", [SELF, "self", "".join(["se", "lf"])])
def test_every_str_equal_to_self_is_the_kind_itself(target) -> None:
    team = Kind("Team", relations={"REPORTS_TO": target, "IN": ROOM})
    assert team.relations["REPORTS_TO"] is team
    assert team.relations["IN"] is ROOM


def test_a_str_subclass_equal_to_self_is_the_kind_itself_and_cannot_lie() -> None:
    class Sly(str):
        def __eq__(self, other):
            raise RuntimeError("no")

        __hash__ = str.__hash__

    team = Kind("Team", relations={"REPORTS_TO": Sly("self")})
    assert team.relations["REPORTS_TO"] is team
    with pytest.raises(WrongType, match="a Kind or SELF"):
        Kind("Team", relations={"REPORTS_TO": Sly("Room")})


def test_a_kind_is_hashable_and_frozen_in_every_field() -> None:
    device = Kind("Device", relations={"IN": ROOM})
    assert {device: 1}[device] == 1 and device in {device}
    for name in ("label", "key", "times", "relations", "text", "dimensions"):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(device, name, getattr(device, name))


def test_two_kinds_are_equal_only_when_they_are_the_same_object() -> None:
    # Queries are cached per kind: two kinds of one label may differ in what they declare.
    first, second = Kind("Pump"), Kind("Pump")
    assert first != second
    assert first == first
    assert len({first, second}) == 2


def test_a_kind_is_frozen() -> None:
    with pytest.raises(AttributeError):
        ROOM.label = "Other"  # type: ignore[misc]
    assert ROOM.label == "Room"


def test_target_of_an_undeclared_relation_is_refused() -> None:
    with pytest.raises(Refused, match="no relation 'NEAR'"):
        ROOM.target("NEAR")
    with pytest.raises(Refused, match="no relation list"):
        ROOM.target(["NEAR"])  # not even hashable: still a refusal


def test_target_of_a_hostile_relation_is_refused() -> None:
    class Sly(str):
        def __hash__(self):
            raise RuntimeError("no")

        __repr__ = __str__ = __hash__

    with pytest.raises(Refused, match="no relation Sly"):
        Kind("Device", relations={"IN": ROOM}).target(Sly("IN"))


@pytest.mark.parametrize(
    "label",
    [
        "",
        "1Device",
        "Dev ice",
        "Dev-ice",
        "Device\n",  # $ would let a final newline through
        "Device`) DETACH DELETE (n",
        "Dévice",
        "D" * 101,
        None,
        3,
        b"Device",
        ("Device",),
    ],
)
def test_a_label_that_is_not_a_property_name_is_refused(label) -> None:
    with pytest.raises(Refused, match="property name"):
        Kind(label)


def test_a_label_of_100_characters_is_the_longest() -> None:
    assert Kind("D" * 100).label == "D" * 100
    assert Kind("_Device").label == "_Device"
    with pytest.raises(Refused, match="property name"):
        Kind("D" * 101)


def test_a_hostile_label_is_refused_without_being_printed() -> None:
    class Sly(str):
        def __repr__(self):
            raise RuntimeError("no")

        __str__ = __repr__

    class Unprintable:
        __repr__ = __str__ = Sly.__repr__

    for label in (Sly("Device"), Unprintable()):
        with pytest.raises(Refused, match="property name") as raised:
            Kind(label)
        assert type(label).__name__ in str(raised.value)


API_LABELS = [
    "State",
    "WriteFailure",
    "Task",
    "Agent",
    "Episode",
    "Entry",
    "Handoff",
    "Lesson",
    "Playbook",
    "Step",
    "Trigger",
    "Entity",
    "Stamp",
    "Session",
    "Message",
    "Reference",
]


@pytest.mark.parametrize(
    "label", sorted(OWNED_LABELS) + ["DeviceToEmbed", "ToEmbed", "DeviceVector", "Vector"]
)
def test_a_label_the_library_owns_is_refused(label) -> None:
    with pytest.raises(Refused, match="belongs to the library"):
        Kind(label)


def test_the_owned_labels_are_those_of_the_api() -> None:
    assert set(API_LABELS) <= OWNED_LABELS
    assert Kind("Vectors").label == "Vectors" and Kind("Embedded").label == "Embedded"


ENGINE = ["fp", "valid_from", "valid_to", "recorded_at", "by", "seen_last", "entry", "words"]


def test_the_engine_names_are_those_of_the_api() -> None:
    assert frozenset(ENGINE) == ENGINE_NAMES


def test_the_library_keeps_its_own_properties_under_names_no_value_can_take() -> None:
    assert (REVISION, STATE_KIND, VECTOR, VECTOR_MODEL) == ("lh.rev", "lh.kind", "lh.vector", "lh.model")
    assert ENGINE_NAMES | {"key", REVISION, STATE_KIND, VECTOR, VECTOR_MODEL} == OWNED_NAMES
    for owned in (REVISION, STATE_KIND, VECTOR, VECTOR_MODEL, "lh.anything_later"):
        assert is_owned(owned) and not PLAIN_NAME.match(owned)
    for owned in ENGINE + ["key"]:
        assert is_owned(owned)
    for value in ("rev", "kind", "model", "embedding", "status", "lh", "lh_rev"):
        assert not is_owned(value)
        assert Kind("Device", key=value).key == value  # every name a value can take is free


@pytest.mark.parametrize("key", ENGINE)
def test_a_key_name_the_library_owns_is_refused(key) -> None:
    with pytest.raises(Refused, match="belongs to the library"):
        Kind("Device", key=key)


@pytest.mark.parametrize("key", ["", "se rial", "serial\n", "1serial", "s" * 101, None, 5, "lh.rev"])
def test_a_key_name_that_is_not_plain_is_refused(key) -> None:
    with pytest.raises(Refused, match="property name"):
        Kind("Device", key=key)


def test_a_key_name_of_100_characters_is_the_longest() -> None:
    assert Kind("Device", key="s" * 100).key == "s" * 100
    assert Kind("Device", key="_serial").key == "_serial"


@pytest.mark.parametrize("group", ["times", "text"])
def test_times_and_text_must_be_tuples_of_plain_free_names(group) -> None:
    with pytest.raises(WrongType, match="tuple or list"):
        Kind("Device", **{group: "note"})
    for wrong in ({"note"}, {"note": 1}, None, 5, iter(["note"])):
        with pytest.raises(WrongType, match="tuple or list"):
            Kind("Device", **{group: wrong})
    with pytest.raises(Refused, match="property name"):
        Kind("Device", **{group: ("no te",)})
    with pytest.raises(Refused, match="property name"):
        Kind("Device", **{group: ("note\n",)})
    with pytest.raises(Refused, match="property name"):
        Kind("Device", **{group: (None,)})
    for engine in ENGINE:
        with pytest.raises(Refused, match="belongs to the library"):
            Kind("Device", **{group: (engine,)})
    with pytest.raises(Refused, match="cannot also be in"):
        Kind("Device", key="serial", **{group: ("serial",)})
    found = Kind("Device", **{group: ["note", "title"]})  # a list is taken, and kept as a tuple
    assert getattr(found, group) == ("note", "title") and type(getattr(found, group)) is tuple
    assert getattr(Kind("Device", **{group: ("note",)}), group) == ("note",)


@pytest.mark.parametrize("group", ["times", "text"])
def test_times_and_text_that_raise_when_read_are_a_wrong_type(group) -> None:
    class Raising(list):
        def __iter__(self):
            raise RuntimeError("no")

    class Sly(str):
        pass

    with pytest.raises(WrongType, match="not Raising"):
        Kind("Device", **{group: Raising(["note"])})
    with pytest.raises(WrongType, match="not Sly"):
        Kind("Device", **{group: Sly("note")})
    with pytest.raises(Refused, match="property name"):
        Kind("Device", **{group: (Sly("note"),)})


def test_a_value_cannot_be_both_a_time_and_a_text() -> None:
    with pytest.raises(ValueError, match="both a time and a text"):
        Kind("Device", times=("seen",), text=("seen",))


def test_relations_must_be_a_dict_of_property_names_to_kinds() -> None:
    for wrong in ([("LOCATED_IN", ROOM)], None, MappingProxyType({"LOCATED_IN": ROOM}), "LOCATED_IN"):
        with pytest.raises(WrongType, match="relations must be a dict"):
            Kind("Device", relations=wrong)
    assert Kind("Device", relations={"located_in": ROOM}).target("located_in") is ROOM  # any property name
    with pytest.raises(Refused, match="property name"):
        Kind("Device", relations={"LOCATED IN": ROOM})
    with pytest.raises(Refused, match="property name"):
        Kind("Device", relations={"LOCATED_IN\n": ROOM})
    with pytest.raises(Refused, match="property name"):
        Kind("Device", relations={"LOCATED_IN]->(x) DELETE x//": ROOM})
    with pytest.raises(Refused, match="property name"):
        Kind("Device", relations={1: ROOM})
    for target in ("Room", "SELF", None, Kind, 5, ("Room",)):
        with pytest.raises(WrongType, match="a Kind or SELF"):
            Kind("Device", relations={"LOCATED_IN": target})


def test_relations_that_raise_or_lie_when_read_are_refused() -> None:
    class Raising(dict):
        def items(self):
            raise RuntimeError("no")

        keys = __iter__ = items

    assert isinstance(PosingAsKind(), Kind)  # what isinstance() takes for a Kind, the Kind does not
    with pytest.raises(WrongType, match="not Raising"):
        Kind("Device", relations=Raising(IN=ROOM))
    with pytest.raises(WrongType, match="a Kind or SELF, not PosingAsKind"):
        Kind("Device", relations={"IN": PosingAsKind()})
    with pytest.raises(WrongType, match="a Kind or SELF, not PosingAsText"):
        Kind("Device", relations={"IN": PosingAsText()})


@pytest.mark.parametrize("relation", sorted(RESERVED_RELATIONS))
def test_a_relation_type_the_library_reserves_is_refused(relation) -> None:
    # A kind's HAS_STATE would read its targets as States, and its States as targets.
    with pytest.raises(ValueError, match="belongs to the library"):
        Kind("Device", relations={relation: ROOM})


def test_the_reserved_relations_are_the_api_s_and_the_library_s_own_names() -> None:
    # API 2.1: "a relation type is HAS_STATE or NEXT" raises; the others are LH_ names of the library.
    assert {"HAS_STATE", "NEXT"} <= RESERVED_RELATIONS <= OWNED_RELATIONS
    assert all(relation.startswith("LH_") for relation in RESERVED_RELATIONS - {"HAS_STATE", "NEXT"})


def test_the_owned_relations_are_those_of_the_model() -> None:
    for relation in ("HAS_STATE", "NEXT", "FROM", "CITES", "ABOUT", "MENTIONS"):
        assert relation in OWNED_RELATIONS


@pytest.mark.parametrize("dimensions", [0, 1, 384, 4096])
def test_dimensions_from_0_to_4096(dimensions) -> None:
    assert Kind("Manual", text=("body",), dimensions=dimensions).dimensions == dimensions


@pytest.mark.parametrize("dimensions", [-1, 4097, 1.0, "384", True, False, None])
def test_dimensions_out_of_range_are_refused(dimensions) -> None:
    with pytest.raises(Refused, match="^dimensions must be a whole number from 0 to 4096$"):
        Kind("Manual", text=("body",), dimensions=dimensions)


def test_dimensions_need_text_to_embed() -> None:
    with pytest.raises(Refused, match="needs text"):
        Kind("Manual", dimensions=384)
    assert Kind("Manual").dimensions == 0


@pytest.mark.parametrize(
    ("name", "plain"),
    [
        ("a", True),
        ("A1_b", True),
        ("a" * 64, True),
        ("a" * 100, True),
        ("a" * 101, False),
        ("", False),
        ("_a", True),
        ("_", True),
        ("1a", False),
        ("a\n", False),
        ("\na", False),
        ("a b", False),
        ("é", False),
        ("a\x00", False),
    ],
)
def test_plain_name(name, plain) -> None:
    assert bool(PLAIN_NAME.match(name)) is plain


T1, T2 = "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z"
POSER = PosingAsKind()
KIND_TAKERS = {
    "history": lambda g: lh.history(g, POSER, "d1"),
    "as_of": lambda g: lh.as_of(g, POSER, "d1", T1),
    "related": lambda g: lh.related(g, POSER, "d1", "IN"),
    "remember": lambda g: lh.remember(g, POSER, [{"key": "d1", "t": T1}], "feed"),
    "update": lambda g: lh.update(g, POSER, "d1", T1, "feed"),
    "search": lambda g: lh.search(g, POSER, "pump"),
    "search_history": lambda g: lh.search_history(g, POSER, "pump"),
    "pointing_at": lambda g: lh.pointing_at(g, POSER, "IN", "r1"),
    "similar": lambda g: lh.similar(g, POSER, "d1"),
    "embed": lambda g: lh.embed(g, POSER, lambda texts: [], "model"),
    "nearest": lambda g: lh.nearest(g, POSER, "pump", lambda texts: [], "model"),
    "extract": lambda g: lh.extract(g, POSER, lambda entry: [], "reader"),
    "ensure_schema": lambda g: lh.ensure_schema(g, [POSER]),
    "failures": lambda g: lh.failures(g, POSER),
    "episodes_about": lambda g: lh.episodes_about(g, POSER, "d1"),
    "lessons_about": lambda g: lh.lessons_about(g, POSER, "d1"),
    "impact_of_state": lambda g: lh.impact_of_state(g, POSER, "d1", T1, T2),
    "diff_between": lambda g: lh.diff_between(g, [POSER], T1, T2),
    "what_if": lambda g: lh.what_if(g, [DEVICE], [(POSER, [{"key": "d1"}])]),
    "groups": lambda g: lh.groups(g, [POSER]),
    "important": lambda g: lh.important(g, [POSER]),
    "between": lambda g: lh.between(g, [POSER]),
    "connection": lambda g: lh.connection(g, (POSER, "d1"), (DEVICE, "d2")),
}


def test_only_a_kind_is_a_kind() -> None:
    assert isinstance(POSER, Kind)  # what isinstance() takes for a Kind, the library does not
    assert is_kind(ROOM) and not is_kind(POSER) and not is_kind("Room")


@pytest.mark.parametrize("call", KIND_TAKERS.values(), ids=KIND_TAKERS.keys())
def test_an_object_posing_as_a_kind_raises_and_writes_nothing(graph, call) -> None:
    graph.query("CREATE (:Marker {n: 1})")
    with pytest.raises((Refused, WrongType)):
        call(graph)
    assert graph.ro_query("MATCH (n) RETURN labels(n)[0], count(n)").result_set == [["Marker", 1]]


@pytest.mark.parametrize(
    "call",
    [
        lambda g: lh.open_episode(g, "e1", "watcher", about=[(POSER, "d1")]),
        lambda g: lh.hand_off(g, "h1", "giver", "taker", [(POSER, "d1")]),
        lambda g: lh.say(g, "u1", "s1", "user", "hello", "chat", mentions=[(POSER, "d1")]),
    ],
    ids=["open_episode", "hand_off", "say"],
)
def test_an_object_posing_as_a_kind_in_a_reference_is_one_refusal(graph, call) -> None:
    receipt = call(graph)
    assert receipt["id"] is None and receipt["status"] == "invalid"
    assert len(lh.failures(graph)) == 1
    assert graph.ro_query("MATCH (n) WHERE NOT n:WriteFailure RETURN count(n)").result_set == [[0]]


def test_a_failure_recorded_with_an_object_posing_as_a_kind_stores_no_kind(graph) -> None:
    lh.record_failure(graph, "invalid", kind=POSER, key="d1")
    assert [failure["kind"] for failure in lh.failures(graph)] == [None]
