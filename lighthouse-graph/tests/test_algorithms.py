"""groups(), important(), between(), connection() now: against plain implementations, FalkorDB's own
algorithms checked, answers kept until the graph grows, refusals and limits."""

from __future__ import annotations

from datetime import UTC, datetime

import plain
import pytest
from devices import DEVICE, KINDS, PERSON, ROOM, TEAM
from lighthouse import Refused, ensure_schema, open_episode, remember
from lighthouse.algorithms import centrality, kept
from lighthouse.algorithms.components import name_key
from lighthouse.algorithms.connection import connection
from lighthouse.algorithms.groups import groups
from lighthouse.algorithms.ranking import between, important

T1, T2, T3 = "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z"
ALL = ["Person", "Device", "Room", "Team"]


class Counting:
    """The graph, with every query it is sent written down: to count round trips, not to fake them."""

    def __init__(self, graph):
        self.graph = graph
        self.sent: list[str] = []

    def query(self, text, params=None, **options):
        self.sent.append(text)
        return self.graph.query(text, params, **options)

    def ro_query(self, text, params=None, **options):
        self.sent.append(text)
        return self.graph.ro_query(text, params, **options)

    def __getattr__(self, name):
        return getattr(self.graph, name)

    def computed(self) -> list[str]:
        """The queries sent that were not the look at the stamp and the counts."""
        return [text for text in self.sent if "db.meta.stats" not in text]


@pytest.fixture
def world(graph):
    ensure_schema(graph, KINDS)
    return graph


def put(graph, kind, key, t, values=None, **relations):
    receipts = remember(
        graph, kind, by="test", rows=[{"key": key, "t": t, "values": values or {}, "relations": relations}]
    )
    assert receipts[0]["status"] in ("created", "changed", "inserted", "unchanged"), receipts


def the_seed(graph):
    put(graph, DEVICE, "d1", T1, {"status": "ok"}, LOCATED_IN="r1", USED_BY=["red", "blue"])
    put(graph, DEVICE, "d1", T2, {"status": "hot"}, LOCATED_IN="r2", USED_BY=["blue"])


def as_sets(answer) -> set[frozenset]:
    return {frozenset(group["members"]) for group in answer}


def scores(answer) -> dict:
    return {one["entity"]: one["score"] for one in answer}


# --- the seed's example -------------------------------------------------------------------------------


def test_the_seed_example(world):
    the_seed(world)
    found = groups(world, [DEVICE])
    assert found[0]["size"] == 5
    assert found[0]["members"] == [
        ("Device", "d1"),
        ("Room", "r1"),
        ("Room", "r2"),
        ("Team", "blue"),
        ("Team", "red"),
    ]
    assert connection(world, (DEVICE, "d1"), (ROOM, "r1")) == [
        {
            "from": ("Device", "d1"),
            "relation": "LOCATED_IN",
            "to": ("Room", "r1"),
            "forward": True,
            "current": False,
            "since": datetime(2026, 1, 1, tzinfo=UTC),
            "until": datetime(2026, 1, 2, tzinfo=UTC),
        }
    ]


def test_a_step_tells_of_the_relation_that_holds_now_else_the_one_that_ended_last(world):
    put(world, DEVICE, "d1", T1, LOCATED_IN="r1")
    put(world, DEVICE, "d1", T2, LOCATED_IN="r2")
    put(world, DEVICE, "d1", T3, LOCATED_IN="r1")  # a second edge to r1, open
    step = connection(world, (DEVICE, "d1"), (ROOM, "r1"))[0]
    assert (step["current"], step["since"], step["until"]) == (True, datetime(2026, 1, 3, tzinfo=UTC), None)
    put(world, DEVICE, "d1", "2026-01-04T00:00:00Z", LOCATED_IN="r2")  # both edges to r1 closed now
    step = connection(world, (DEVICE, "d1"), (ROOM, "r1"))[0]
    assert (step["current"], step["until"]) == (False, datetime(2026, 1, 4, tzinfo=UTC))


def test_a_chain_goes_against_the_direction_of_relations_and_through_added_kinds(world):
    the_seed(world)
    put(world, DEVICE, "d2", T1, USED_BY=["red"])
    with pytest.raises(Refused, match="no relation"):  # rooms alone declare none: name a kind that does
        connection(world, (ROOM, "r1"), (ROOM, "r2"))
    found = connection(world, (ROOM, "r1"), (TEAM, "red"), kinds=[DEVICE])
    assert [(s["from"], s["to"], s["forward"]) for s in found] == [
        (("Room", "r1"), ("Device", "d1"), False),
        (("Device", "d1"), ("Team", "red"), True),
    ]
    assert connection(world, (DEVICE, "d1"), (DEVICE, "d1")) == []
    assert connection(world, (DEVICE, "d1"), (DEVICE, "nobody")) is None
    assert connection(world, (DEVICE, "d1"), (DEVICE, "d2"), relations=["LOCATED_IN"]) is None
    assert len(connection(world, (DEVICE, "d1"), (DEVICE, "d2"))) == 2


def test_episodes_join_groups_and_chains_through_about(world):
    put(world, DEVICE, "d1", T1, LOCATED_IN="r1")
    put(world, DEVICE, "d2", T1, LOCATED_IN="r2")
    assert (
        open_episode(world, "e1", by="watcher", about=[(DEVICE, "d1"), (DEVICE, "d2")])["status"] == "opened"
    )
    assert len(groups(world, [DEVICE])) == 2
    joined = groups(world, [DEVICE], records=["Episode"])
    assert joined[0]["members"] == [
        ("Device", "d1"),
        ("Device", "d2"),
        ("Episode", "e1"),
        ("Room", "r1"),
        ("Room", "r2"),
    ]
    only_about = groups(world, [DEVICE], ["ABOUT"], records=["Episode"])
    assert as_sets(only_about) == {frozenset({("Device", "d1"), ("Device", "d2"), ("Episode", "e1")})}
    assert connection(world, (DEVICE, "d1"), (DEVICE, "d2")) is None
    chain = connection(world, (DEVICE, "d1"), (DEVICE, "d2"), relations=["LOCATED_IN", "ABOUT"])
    assert [s["to"] for s in chain] == [("Episode", "e1"), ("Device", "d2")]
    assert chain[0]["forward"] is False and chain[0]["current"] is True and chain[0]["since"] is None


# --- against plain implementations, on random graphs -------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_groups_are_those_of_union_find(world, seed):
    history = plain.random_history(seed)
    history.send(world, remember)
    expected = plain.groups(history.nodes(ALL), [(a, b) for a, b, _ in history.edges()])
    found = groups(world, [PERSON, DEVICE], limit=1000)
    assert as_sets(found) == expected
    order = [(-group["size"], name_key(group["members"][0])) for group in found]
    assert order == sorted(order)
    for group in found:
        assert group["members"] == sorted(group["members"], key=name_key)
    devices = plain.groups(
        history.nodes(["Device", "Room"], relations={"LOCATED_IN"})
        - {n for n in history.nodes(ALL) if n[0] == "Team"},
        [(a, b) for a, b, kind in history.edges() if kind == "LOCATED_IN"],
    )
    assert as_sets(groups(world, [DEVICE], ["LOCATED_IN"], limit=1000)) == devices
    assert groups(world, [PERSON, DEVICE], limit=2) == found[:2]


@pytest.mark.parametrize("seed", range(4))
def test_important_is_pagerank_by_falkordbs_rules(world, seed):
    history = plain.random_history(seed)
    history.send(world, remember)
    expected = plain.pagerank(history.nodes(ALL), [(a, b) for a, b, _ in history.edges()])
    found = scores(important(world, [PERSON, DEVICE], limit=1000))
    assert set(found) == set(expected)
    assert all(abs(found[name] - expected[name]) < 0.0005 for name in expected)
    assert all(abs(found[name] - expected[name]) < 1e-6 for name in expected)  # far closer in fact
    assert abs(sum(found.values()) - 1) < 1e-9
    located = {n for n in history.nodes(ALL) if n[0] in ("Device", "Room")}
    one = plain.pagerank(located, [(a, b) for a, b, kind in history.edges() if kind == "LOCATED_IN"])
    best = important(world, [DEVICE], "LOCATED_IN", limit=3)
    assert len(best) == 3
    assert [entry["entity"] for entry in best] == sorted(one, key=lambda n: (-round(one[n], 9), name_key(n)))[
        :3
    ]


@pytest.mark.parametrize("seed", range(4))
def test_between_is_the_count_of_shortest_paths(world, seed):
    history = plain.random_history(seed)
    history.send(world, remember)
    persons = history.nodes(["Person"], relations={"KNOWS"})
    expected = plain.betweenness(persons, [(a, b) for a, b, kind in history.edges() if kind == "KNOWS"])
    found = scores(between(world, [PERSON], limit=1000))
    assert set(found) == persons
    assert all(abs(found[name] - expected[name]) < 1e-9 for name in expected)
    assert any(value > 0 for value in found.values())
    # Devices only point at rooms and teams: nothing lies between.
    assert all(entry["score"] == 0 for entry in between(world, [DEVICE], limit=1000))


@pytest.mark.parametrize("seed", range(3))
def test_connection_is_a_shortest_chain_of_real_relations(world, seed):
    history = plain.random_history(seed)
    history.send(world, remember)
    ever = history.edges(relations={"KNOWS"})
    now = history.edges(at=len(plain.TIMES) - 1, relations={"KNOWS"})
    persons = sorted(history.nodes(["Person"]), key=name_key)
    pairs = [(a, b) for a in persons[:5] for b in persons[-5:]]
    for a, b in pairs:
        length = plain.chain_length(a, b, [(x, y) for x, y, _ in ever])
        chain = connection(world, (PERSON, a[1]), (PERSON, b[1]))
        if length is None:
            assert chain is None
            continue
        assert len(chain) == length
        at = a
        for step in chain:
            assert step["from"] == at
            edge = (step["from"], step["to"]) if step["forward"] else (step["to"], step["from"])
            assert (*edge, step["relation"]) in ever
            holds = {(x, y) for x, y, _ in now}
            assert step["current"] == bool({(step["from"], step["to"]), (step["to"], step["from"])} & holds)
            at = step["to"]
        assert at == b


def test_connection_searches_a_step_a_query_from_the_smaller_end(world):
    chain = [f"p{i}" for i in range(7)]
    for here, there in zip(chain[1:], chain[2:], strict=False):
        put(world, PERSON, here, T1, KNOWS=[there])
    put(world, PERSON, "p0", T1, KNOWS=["p1", *[f"fan{i}" for i in range(30)]])  # a crowded start
    counting = Counting(world)
    found = connection(counting, (PERSON, "p0"), (PERSON, "p6"))
    assert [step["to"][1] for step in found] == ["p1", "p2", "p3", "p4", "p5", "p6"]
    assert len(counting.sent) == 1 + 6  # the two ends, then one query for each relation of the chain
    # The crowded end waits: with a budget that its 31 neighbours would exceed, the chain is still found.
    assert len(connection(world, (PERSON, "p0"), (PERSON, "p6"), most=20)) == 6
    with pytest.raises(Refused, match="more than 5 relations"):
        connection(world, (PERSON, "p0"), (PERSON, "p6"), most=5)


# --- FalkorDB's own algorithms, checked ---------------------------------------------------------------


def test_falkordbs_wcc_agrees_with_union_find_where_other_labels_lie_between(world):
    history = plain.random_history(7)
    history.send(world, remember)
    result = world.ro_query(
        "CALL algo.WCC({nodeLabels: ['Person'], relationshipTypes: ['KNOWS']}) YIELD node, componentId "
        "RETURN componentId, collect(node.key)"
    ).result_set
    found = {frozenset(("Person", key) for key in keys) for _, keys in result}
    knows = [(a, b) for a, b, kind in history.edges() if kind == "KNOWS"]
    assert found == plain.groups(history.nodes(["Person"], relations={"KNOWS"}), knows)


def test_falkordbs_pagerank_restricted_to_a_label_is_wrong_here_and_ours_is_not(world):
    history = plain.random_history(3)
    history.send(world, remember)
    theirs = dict(
        world.ro_query(
            "CALL algo.pageRank('Person', 'KNOWS') YIELD node, score RETURN node.key, score"
        ).result_set
    )
    assert abs(sum(theirs.values()) - 1) > 0.01  # States lie between the persons' node ids
    persons = history.nodes(["Person"], relations={"KNOWS"})
    expected = plain.pagerank(persons, [(a, b) for a, b, kind in history.edges() if kind == "KNOWS"])
    ours = scores(important(world, [PERSON], limit=1000))
    assert all(abs(ours[name] - expected[name]) < 1e-6 for name in expected)


def test_falkordbs_betweenness_is_wrong_and_ours_is_not(world):
    history = plain.random_history(0)
    history.send(world, remember)
    persons = history.nodes(["Person"], relations={"KNOWS"})
    expected = plain.betweenness(persons, [(a, b) for a, b, kind in history.edges() if kind == "KNOWS"])
    theirs = world.ro_query(
        "CALL algo.betweenness({nodeLabels: ['Person'], relationshipTypes: ['KNOWS']}) YIELD node, score "
        "RETURN node.key, score"
    ).result_set
    wrong = [key for key, score in theirs if abs(score - expected[("Person", key)]) > 1e-9]
    assert len(wrong) > 3
    ours = scores(between(world, [PERSON], limit=1000))
    assert all(abs(ours[name] - expected[name]) < 1e-9 for name in expected)


def test_a_chain_of_four_gives_each_inner_entity_two(world):
    for here, there in (("a", "b"), ("b", "c"), ("c", "d")):
        put(world, PERSON, here, T1, KNOWS=[there])
    put(world, PERSON, "e", T1)  # linked to nothing: scores 0, not 1
    expected = {("Person", k): v for k, v in {"a": 0.0, "b": 2.0, "c": 2.0, "d": 0.0, "e": 0.0}.items()}
    assert scores(between(world, [PERSON])) == expected


# --- answers kept until the graph grows ---------------------------------------------------------------------


def test_a_repeated_question_does_not_ask_the_database_again(world):
    the_seed(world)
    counting = Counting(world)
    asked = [
        lambda: groups(counting, [DEVICE]),
        lambda: important(counting, [DEVICE], "LOCATED_IN"),
        lambda: between(counting, [DEVICE]),
    ]
    first = [ask() for ask in asked]
    assert len(counting.computed()) == 3
    counting.sent.clear()
    assert [ask() for ask in asked] == first
    assert counting.computed() == [] and len(counting.sent) == 3  # one look at the counts each


def test_a_new_edge_that_the_question_reads_makes_it_new(world):
    the_seed(world)
    counting = Counting(world)
    assert groups(counting, [DEVICE])[0]["size"] == 5
    put(world, DEVICE, "d2", T1, LOCATED_IN="r9")
    counting.sent.clear()
    assert [group["size"] for group in groups(counting, [DEVICE])] == [5, 2]
    assert len(counting.computed()) == 1


def test_a_value_change_or_an_edge_the_question_does_not_read_keeps_the_answer(world):
    the_seed(world)
    counting = Counting(world)
    first = important(counting, [DEVICE], "LOCATED_IN")
    put(world, DEVICE, "d1", T3, {"status": "cold"}, LOCATED_IN="r2", USED_BY=["blue"])
    put(world, DEVICE, "d1", "2026-01-04T00:00:00Z", {"status": "cold"}, LOCATED_IN="r2", USED_BY=["green"])
    counting.sent.clear()
    assert important(counting, [DEVICE], "LOCATED_IN") == first
    assert counting.computed() == []
    assert len(important(counting, [DEVICE])) == 6  # a question that reads USED_BY sees green
    assert len(counting.computed()) == 1


def test_a_new_stamp_makes_every_answer_new(world):
    put(world, DEVICE, "d1", T1, {"status": "ok"}, LOCATED_IN="r1")
    put(world, DEVICE, "d1", T3, {"status": "hot"}, LOCATED_IN="r1")
    counting = Counting(world)
    groups(counting, [DEVICE])
    stamp = world.ro_query("MATCH (s:Stamp) RETURN s.id").result_set[0][0]
    put(world, DEVICE, "d1", T2, {"status": "warm"}, LOCATED_IN="r1")  # late: replaces a NEXT link
    assert world.ro_query("MATCH (s:Stamp) RETURN s.id").result_set[0][0] != stamp
    counting.sent.clear()
    groups(counting, [DEVICE])
    assert len(counting.computed()) == 1


def test_a_caller_gets_a_copy(world):
    the_seed(world)
    found = groups(world, [DEVICE])
    found[0]["members"].clear()
    found.append("mine")
    ranked = important(world, [DEVICE])
    ranked[0]["score"] = 99
    assert groups(world, [DEVICE])[0]["size"] == 5 and len(groups(world, [DEVICE])[0]["members"]) == 5
    assert len(groups(world, [DEVICE])) == 1
    assert important(world, [DEVICE])[0]["score"] < 1


def test_a_graph_without_a_stamp_keeps_nothing(graph):
    put(graph, DEVICE, "d1", T1, LOCATED_IN="r1")
    counting = Counting(graph)
    groups(counting, [DEVICE])
    groups(counting, [DEVICE])
    assert len(counting.computed()) == 2


def test_at_most_64_answers_are_kept_for_a_client(world):
    the_seed(world)
    counting = Counting(world)
    for limit in range(1, kept.MAX_ANSWERS + 2):
        groups(counting, [DEVICE], limit=limit)
    counting.sent.clear()
    groups(counting, [DEVICE], limit=kept.MAX_ANSWERS + 1)
    assert counting.computed() == []
    groups(counting, [DEVICE], limit=1)  # the oldest went
    assert len(counting.computed()) == 1


def test_an_answer_lists_at_most_10000_names(world):
    rows = [{"key": f"d{i:05d}", "t": T1, "relations": {"LOCATED_IN": "big"}} for i in range(10_050)]
    rows += [{"key": "z1", "t": T1, "relations": {"LOCATED_IN": "small"}}]
    assert {r["status"] for r in remember(world, DEVICE, by="test", rows=rows)} == {"created"}
    counting = Counting(world)
    found = groups(counting, [DEVICE], ["LOCATED_IN"], limit=2)
    assert [group["size"] for group in found] == [10_051, 2]
    assert sum(len(group["members"]) for group in found) == kept.MAX_NAMES
    assert found[1]["members"] == []
    counting.sent.clear()
    assert groups(counting, [DEVICE], ["LOCATED_IN"], limit=2) == found
    assert counting.computed() == []


# --- choices, refusals and limits ---------------------------------------------------------------------------


def test_equal_groups_come_in_the_order_of_their_first_member(world):
    for key, room in (("b", "r2"), ("a", 5), ("c", "r1"), (3, "r3")):
        put(world, DEVICE, key, T1, LOCATED_IN=room)
    found = groups(world, [DEVICE], ["LOCATED_IN"])
    assert [group["members"][0] for group in found] == [
        ("Device", 3),
        ("Device", "a"),
        ("Device", "b"),
        ("Device", "c"),
    ]


def test_a_sample_is_drawn_the_same_way_each_time(world):
    for i in range(40):
        put(world, PERSON, f"p{i:02d}", T1, KNOWS=[f"p{(i + 1) % 40:02d}", f"p{(i * 7) % 40:02d}"])
    exact = between(world, [PERSON], limit=40)
    sampled = between(world, [PERSON], sample=8, limit=40)
    assert between(world, [PERSON], sample=8, limit=40) == sampled
    assert scores(sampled) != scores(exact)
    assert scores(between(world, [PERSON], sample=40, limit=40)) == pytest.approx(scores(exact))


def test_the_sources_of_between_follow_the_budget():
    assert centrality.sources(10, 5, 10_000_000, None) == list(range(10))
    fewest = centrality.sources(1_000, 1_000, 10_000, None)
    assert (
        len(fewest) == 32
        and fewest == sorted(fewest)
        and fewest == centrality.sources(1_000, 1_000, 10_000, None)
    )
    assert len(centrality.sources(1_000, 1_000, 100_000, None)) == 100
    assert len(centrality.sources(1_000, 1_000, 100_000, 7)) == 7


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


def test_more_than_the_read_allows_is_refused(world):
    the_seed(world)  # 5 entities and 4 relations
    assert len(important(world, [DEVICE], most=9)) == 5
    with pytest.raises(Refused, match="more than 8"):
        important(world, [DEVICE], limit=2, most=8)
    with pytest.raises(Refused, match="more than 8"):
        between(world, [DEVICE], limit=2, most=8)


def test_questions_about_a_graph_that_does_not_exist_answer_nothing(graph):
    assert groups(graph, [DEVICE]) == []
    assert important(graph, [DEVICE]) == []
    assert between(graph, [DEVICE]) == []
    assert connection(graph, (DEVICE, "d1"), (ROOM, "r1")) is None
