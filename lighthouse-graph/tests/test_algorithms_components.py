"""Union-find and the one order and size of the answers of groups()."""

from __future__ import annotations

import random

import plain
import pytest
from lighthouse.algorithms.components import components, name_key, names_in, shaped


@pytest.mark.parametrize("seed", range(6))
def test_components_are_those_of_a_plain_union_find(seed):
    chance = random.Random(seed)
    size = chance.randint(1, 80)
    edges = [(chance.randrange(size), chance.randrange(size)) for _ in range(chance.randint(0, size))]
    found = {frozenset(group) for group in components(size, edges)}
    assert found == plain.groups(range(size), edges)


def test_groups_come_largest_first_then_by_their_first_member():
    given = [
        (1, [("Device", "b")]),
        (2, [("Room", 2), ("Device", "z")]),
        (1, [("Device", 10)]),
        (2, [("Room", "a"), ("Device", "y")]),
        (1, [("Device", 9)]),
    ]
    found = shaped(given, 1, 10, 10)
    assert [group["members"] for group in found] == [
        [("Device", "y"), ("Room", "a")],
        [("Device", "z"), ("Room", 2)],
        [("Device", 9)],
        [("Device", 10)],
        [("Device", "b")],
    ]
    assert [group["members"] for group in shaped(given, 1, 2, 10)] == [
        group["members"] for group in found[:2]
    ]
    assert name_key(("Device", 10)) < name_key(("Device", "1"))


def test_a_group_lists_at_most_show_members_and_keeps_its_size():
    big = [("Device", number) for number in range(30)]
    given = [(len(big), big), (5, [("Room", n) for n in range(5)]), (1, [("Team", "t")])]
    found = shaped(given, 1, 10, 4)
    assert [group["size"] for group in found] == [30, 5, 1]
    assert [group["members"] for group in found] == [
        big[:4],
        [("Room", n) for n in range(4)],
        [("Team", "t")],
    ]
    assert names_in(found) == 9
    assert [group["size"] for group in shaped(given, 5, 10, 4)] == [30, 5]  # at_least leaves out the small
    assert shaped(given, 31, 10, 4) == []
