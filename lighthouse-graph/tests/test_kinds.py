"""Kind, SELF and the names the library owns: what a kind may declare, and what it is refused."""

from __future__ import annotations

import pytest
from lighthouse.kinds import OWNED_LABELS, OWNED_NAMES, OWNED_RELATIONS, PLAIN_NAME, SELF, Kind

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
    assert (thing.times, thing.text, thing.relations, thing.dimensions) == ((), (), {}, None)
    assert repr(SELF) == "SELF"


def test_two_kinds_are_equal_only_when_they_are_the_same_object() -> None:
    # Queries are cached per kind: two kinds of one label may differ in what they declare.
    first, second = Kind("Pump"), Kind("Pump")
    assert first != second
    assert first == first
    assert len({first, second}) == 2


def test_a_kind_is_frozen() -> None:
    with pytest.raises(AttributeError):
        ROOM.label = "Other"  # type: ignore[misc]


def test_target_of_an_undeclared_relation_is_refused() -> None:
    with pytest.raises(ValueError, match="no relation 'NEAR'"):
        ROOM.target("NEAR")


@pytest.mark.parametrize(
    "label",
    [
        "",
        "1Device",
        "_Device",
        "Dev ice",
        "Dev-ice",
        "Device\n",  # $ would let a final newline through
        "Device`) DETACH DELETE (n",
        "Dévice",
        "D" * 65,
        None,
        3,
        b"Device",
    ],
)
def test_a_label_that_is_not_a_plain_name_is_refused(label) -> None:
    with pytest.raises(ValueError, match="plain name"):
        Kind(label)


def test_a_label_of_64_characters_is_the_longest() -> None:
    assert Kind("D" * 64).label == "D" * 64
    with pytest.raises(ValueError):
        Kind("D" * 65)


@pytest.mark.parametrize("label", sorted(OWNED_LABELS) + ["DeviceToEmbed", "ToEmbed"])
def test_a_label_the_library_owns_is_refused(label) -> None:
    with pytest.raises(ValueError, match="belongs to the library|plain name"):
        Kind(label)


def test_the_owned_labels_are_those_of_the_model() -> None:
    for label in ("Entity", "State", "Episode", "Entry", "Stamp", "WriteFailure", "Session", "Message"):
        assert label in OWNED_LABELS


@pytest.mark.parametrize("key", sorted(OWNED_NAMES - {"key"}))
def test_a_key_name_the_library_owns_is_refused(key) -> None:
    with pytest.raises(ValueError, match="belongs to the library"):
        Kind("Device", key=key)


@pytest.mark.parametrize("key", ["", "se rial", "serial\n", "1serial", "s" * 65, None])
def test_a_key_name_that_is_not_plain_is_refused(key) -> None:
    with pytest.raises(ValueError, match="plain name"):
        Kind("Device", key=key)


@pytest.mark.parametrize("group", ["times", "text"])
def test_times_and_text_must_be_tuples_of_plain_free_names(group) -> None:
    with pytest.raises(ValueError, match="tuple"):
        Kind("Device", **{group: "note"})
    with pytest.raises(ValueError, match="tuple"):
        Kind("Device", **{group: ["note"]})
    with pytest.raises(ValueError, match="plain name"):
        Kind("Device", **{group: ("no te",)})
    with pytest.raises(ValueError, match="plain name"):
        Kind("Device", **{group: ("note\n",)})
    with pytest.raises(ValueError, match="belongs to the library or is the key"):
        Kind("Device", **{group: ("words",)})
    with pytest.raises(ValueError, match="belongs to the library or is the key"):
        Kind("Device", key="serial", **{group: ("serial",)})
    assert getattr(Kind("Device", **{group: ("note",)}), group) == ("note",)


def test_a_value_cannot_be_both_a_time_and_a_text() -> None:
    with pytest.raises(ValueError, match="both a time and a text"):
        Kind("Device", times=("seen",), text=("seen",))


def test_relations_must_be_a_dict_of_capitals_to_kinds() -> None:
    with pytest.raises(ValueError, match="dict"):
        Kind("Device", relations=[("LOCATED_IN", ROOM)])
    with pytest.raises(ValueError, match="capitals"):
        Kind("Device", relations={"located_in": ROOM})
    with pytest.raises(ValueError, match="plain name"):
        Kind("Device", relations={"LOCATED IN": ROOM})
    with pytest.raises(ValueError, match="plain name"):
        Kind("Device", relations={"LOCATED_IN\n": ROOM})
    with pytest.raises(ValueError, match="plain name"):
        Kind("Device", relations={"LOCATED_IN]->(x) DELETE x//": ROOM})
    with pytest.raises(ValueError, match="a Kind or SELF"):
        Kind("Device", relations={"LOCATED_IN": "Room"})
    with pytest.raises(ValueError, match="a Kind or SELF"):
        Kind("Device", relations={"LOCATED_IN": None})


@pytest.mark.parametrize("relation", sorted(OWNED_RELATIONS))
def test_a_relation_type_the_library_owns_is_refused(relation) -> None:
    # A kind's HAS_STATE would read its targets as States, and its States as targets.
    with pytest.raises(ValueError, match="belongs to the library"):
        Kind("Device", relations={relation: ROOM})


def test_the_owned_relations_are_those_of_the_model() -> None:
    for relation in ("HAS_STATE", "NEXT", "FROM", "CITES", "ABOUT", "MENTIONS"):
        assert relation in OWNED_RELATIONS


@pytest.mark.parametrize("dimensions", [1, 384, 4096])
def test_dimensions_from_1_to_4096(dimensions) -> None:
    assert Kind("Manual", text=("body",), dimensions=dimensions).dimensions == dimensions


@pytest.mark.parametrize("dimensions", [0, -1, 4097, 1.0, "384", True])
def test_dimensions_out_of_range_are_refused(dimensions) -> None:
    with pytest.raises(ValueError, match="dimensions"):
        Kind("Manual", text=("body",), dimensions=dimensions)


def test_dimensions_need_text_to_embed() -> None:
    with pytest.raises(ValueError, match="needs text"):
        Kind("Manual", dimensions=384)


@pytest.mark.parametrize(
    ("name", "plain"),
    [
        ("a", True),
        ("A1_b", True),
        ("a" * 64, True),
        ("a" * 65, False),
        ("", False),
        ("_a", False),
        ("a\n", False),
        ("\na", False),
        ("a b", False),
        ("é", False),
        ("a\x00", False),
    ],
)
def test_plain_name(name, plain) -> None:
    assert bool(PLAIN_NAME.match(name)) is plain
