"""References: their forms, their limits, and the one read that says which of them exist."""

from __future__ import annotations

import pytest
from hostile import PosingAsKind
from lighthouse import Kind, ensure_schema, remember
from lighthouse.graphs import read
from lighthouse.references import (
    describe,
    existing,
    finding,
    from_store,
    is_record,
    missing,
    ordered,
    parse,
    parse_all,
    pattern,
    stored_references,
)
from lighthouse.values import MAX_REFERENCES, Refused
from oracle import sent

HALL = Kind("Hall", key="code")
VALVE = Kind("Valve", key="tag", relations={"IN": HALL})


class Counting:
    """The real graph, counting the read-only queries sent through it."""

    def __init__(self, graph) -> None:
        self.graph = graph
        self.reads = 0

    def ro_query(self, *args, **kwargs):
        self.reads += 1
        return self.graph.ro_query(*args, **kwargs)


def _valves(graph) -> None:
    ensure_schema(graph, [VALVE])
    rows = [
        {"key": "v1", "t": "2026-01-01T00:00:00Z", "values": {"open": True}, "relations": {"IN": "h1"}},
        {"key": 5, "t": "2026-01-01T00:00:00Z", "values": {"open": False}},
    ]
    assert [r["status"] for r in remember(graph, VALVE, by="test", rows=rows)] == ["created", "created"]


# parse


def test_parse_gives_label_and_key_for_each_form():
    assert parse((VALVE, "v1")) == ("Valve", "v1")
    assert parse((VALVE, 5)) == ("Valve", 5)
    assert parse(("Valve", "v1")) == ("Valve", "v1")
    assert parse(["Valve", "v1"]) == ("Valve", "v1")
    assert parse("look/3") == ("Entry", "look/3")
    assert parse(("Episode", "e1")) == ("Episode", "e1")
    assert parse(("Lesson", "hot-in-r2")) == ("Lesson", "hot-in-r2")
    assert parse(("Playbook", "hot-device#2")) == ("Playbook", "hot-device#2")


@pytest.mark.parametrize(
    "reference",
    [
        None,
        5,
        3.5,
        {"Valve": "v1"},
        ("Valve",),
        ("Valve", "v1", "extra"),
        ("Valve", None),
        ("Valve", True),
        ("Valve", 2.5),
        ("Valve", 2**63),
        ("Valve", ""),
        ("Valve", " v1"),
        ("Valve", "x" * 201),
        ("Valve", "a\x00b"),
        ("Valve", "a\ud800b"),
        ("Valve", "line\nbreak"),
        ("Va lve", "v1"),
        ("Valve`) DETACH DELETE (n", "v1"),
        ("1Valve", "v1"),
        (None, "v1"),
        ("State", "v1"),
        ("Stamp", "s"),
        ("WriteFailure", "f"),
        ("Agent", "watcher"),
        ("Episode", 5),
        ("Entry", 7),
        "",
        "x" * 206,  # an entry id: a name of 200, "/" and at most 5,000
        "entry\x00",
    ],
)
def test_parse_refuses_what_is_not_a_reference(reference):
    with pytest.raises(Refused) as refused:
        parse(reference)
    assert refused.value.reason == "invalid"


def test_parse_all_drops_duplicates_and_keeps_order():
    given = ["e/1", (VALVE, "v1"), ("Entry", "e/1"), [VALVE, "v1"], (VALVE, 1), (VALVE, "1")]
    assert parse_all(given, entity_label=False) == [
        ("Entry", "e/1"),
        ("Valve", "v1"),
        ("Valve", 1),
        ("Valve", "1"),
    ]
    # The pairs the library kept as text name an entity by its label (entity_label, the default).
    assert parse_all([("Valve", "v1"), ["Valve", 1], (VALVE, "v1")]) == [("Valve", "v1"), ("Valve", 1)]
    assert parse_all(()) == [] and parse_all([]) == []
    assert all(type(found) is tuple for found in parse_all(given))


@pytest.mark.parametrize(
    "reference",
    [("Valve", "v1"), ["Valve", 5], ("Hall", "h1"), ("Handoff", "h1"), ("Task", "t1"), ("Note", "n")],
)
def test_a_reference_a_caller_gives_names_an_entity_by_its_kind_only(reference):
    # API 1.2: "(Kind, key) for an entity; (label, id) for a record ..., with label one of Entry, Episode,
    # Lesson, Playbook".
    with pytest.raises(Refused) as refused:
        parse_all([reference], entity_label=False)
    assert refused.value.reason == "invalid"
    with pytest.raises(Refused):
        parse(reference, entity_label=False)


def test_one_label_with_two_key_names_is_invalid():
    other = Kind("Valve", key="serial")
    with pytest.raises(Refused, match="^about names Valve with two different keys$") as refused:
        parse_all([(VALVE, "v1"), (other, "v2")], "about")
    assert refused.value.reason == "invalid"
    same = Kind("Valve", key="tag")  # another Kind of the label, with the same key: one kind
    assert parse_all([(VALVE, "v1"), (same, "v2")]) == [("Valve", "v1"), ("Valve", "v2")]


def test_parse_all_refuses_none():
    # The API: None where references are wanted gives an invalid receipt, so the parse refuses it.
    with pytest.raises(Refused, match="must be a list or tuple, not NoneType") as refused:
        parse_all(None)
    assert refused.value.reason == "invalid"
    with pytest.raises(Refused, match="^mentions must be a list or tuple"):
        parse_all(None, "mentions")


def test_parse_all_takes_200_and_refuses_201():
    assert len(parse_all([f"e/{n}" for n in range(MAX_REFERENCES)])) == MAX_REFERENCES
    with pytest.raises(Refused, match="more than 200"):
        parse_all([f"e/{n}" for n in range(MAX_REFERENCES + 1)])


@pytest.mark.parametrize("given", ["e/1", {"e/1": 1}, 5, (VALVE, "v1")])
def test_parse_all_needs_a_list(given):
    # A tuple (VALVE, "v1") is a list of two references, and VALVE alone is not one.
    with pytest.raises(Refused):
        parse_all(given)


def test_records_and_entities_are_told_apart():
    assert is_record("Entry") and is_record("Playbook") and is_record("Task")
    assert not is_record("Valve")
    assert pattern("Lesson", "x", "$k") == "(x:`Lesson` {id: $k})"
    assert pattern("Valve", "x", "$k") == "(x:`Valve`:Entity {key: $k})"
    with pytest.raises(Refused):
        pattern("Valve`) DELETE (x", "x", "$k")


def test_ordered_sorts_by_the_text_of_the_tuple_without_duplicates():
    given = [("Valve", "b"), ("Episode", "z"), ("Valve", 10), ("Valve", "a"), ("Valve", 2), ("Valve", "b")]
    # str() of the tuple: "('Valve', 'a')" < "('Valve', 10)" < "('Valve', 2)", as the API orders them
    expected = [("Episode", "z"), ("Valve", "a"), ("Valve", "b"), ("Valve", 10), ("Valve", 2)]
    assert ordered(given) == expected
    assert ordered(given) == sorted(set(given), key=str)
    assert ordered([["Valve", 7], ("Valve", 7), ("Valve", "7")]) == [("Valve", "7"), ("Valve", 7)]
    assert all(type(found) is tuple for found in ordered([["Valve", 7]]))
    assert ordered([]) == []


def test_from_store_names_records_by_id_and_entities_by_key():
    assert from_store(["Entry"], "e/1", None) == ("Entry", "e/1")
    assert from_store(["Entity", "Valve"], "an id value", "v1") == ("Valve", "v1")
    assert from_store(["Valve", "Entity", "ValveToEmbed"], None, 5) == ("Valve", 5)
    with pytest.raises(Refused, match="not something a reference can name"):
        from_store(["Entity"], None, "k")
    assert stored_references([None, [["Valve", "Entity"], None, "v1"], [["Episode"], "e", None]]) == [
        ("Episode", "e"),
        ("Valve", "v1"),
    ]
    assert describe(("Valve", 5)) == "Valve 5"


# existing() and missing()


def test_existing_finds_entities_and_records_in_one_read(graph):
    _valves(graph)
    graph.query(
        "CREATE (:Entry {id: 'e/1'}), (:Episode {id: 'e'}), (:Lesson {id: 'l1'}), (:Playbook {id: 'p#1'})"
    )
    asked = parse_all(
        [
            (VALVE, "v1"),
            (VALVE, 5),
            (HALL, "h1"),
            "e/1",
            ("Episode", "e"),
            ("Lesson", "l1"),
            ("Playbook", "p#1"),
            (VALVE, "5"),  # the key 5 is a number: "5" is another key
            (VALVE, "v9"),
            "e/2",
            ("Lesson", "l2"),
            ("Playbook", "p#2"),
        ]
    )
    counted = Counting(graph)
    found = existing(counted, asked)
    assert counted.reads == 1
    assert found == set(asked[:7])
    assert missing(graph, asked) == asked[7:]


def test_each_way_of_finding_gives_the_same_nodes(graph):
    """Up to FEW references are found one OPTIONAL MATCH each, more by one CALL {} per label."""
    from lighthouse.references import FEW

    _valves(graph)
    graph.query("CREATE (:Entry {id: 'e/1'}), (:Episode {id: 'e'}), (:Valve {key: 'bare'})")
    asked = parse_all(
        [(VALVE, "v9"), (VALVE, 5), "e/1", (VALVE, "bare"), (HALL, "h1"), (VALVE, "5"), "e/2"]
        + [("Episode", "e"), (VALVE, "v1")]
    )
    present = {(VALVE.label, 5), ("Entry", "e/1"), ("Hall", "h1"), ("Episode", "e"), (VALVE.label, "v1")}
    for size in range(1, len(asked) + 1):
        part = asked[:size]
        clause, params = finding(part, places=True)
        assert ("CALL {" in clause) == (size > FEW)
        rows = read(graph, clause + "RETURN [pair IN found | pair[1]]", params)
        assert sorted(rows[0][0]) == [place for place, ref in enumerate(part) if ref in present], size
        clause, params = finding(part)  # the nodes alone, as the writes take them
        assert ("CALL {" in clause) == (size > FEW)
        rows = read(graph, clause + "RETURN [node IN found | coalesce(node.key, node.id)]", params)
        assert sorted(rows[0][0], key=str) == sorted(
            [key for label, key in part if (label, key) in present], key=str
        )


def test_a_node_with_the_label_but_not_an_entity_is_not_found(graph):
    graph.query("CREATE (:Valve {key: 'bare'}), (:Entity {key: 'bare'}), (:Entry {key: 'e/1'})")
    assert existing(graph, [("Valve", "bare"), ("Entry", "e/1")]) == set()
    many = [("Valve", "bare"), ("Entry", "e/1"), ("Valve", "a"), ("Valve", "b"), ("Valve", "c")]
    assert existing(graph, many) == set()


def test_existing_on_a_graph_that_does_not_exist_finds_nothing(graph):
    assert existing(graph, [("Valve", "v1"), ("Entry", "e/1")]) == set()
    assert missing(graph, [("Valve", "v1")]) == [("Valve", "v1")]
    assert existing(graph, []) == set()


def test_finding_binds_node_and_place_and_guards_the_count(graph):
    _valves(graph)
    clause, params = finding([("Valve", "v1"), ("Hall", "h1"), ("Valve", "nope")], places=True)
    result = read(graph, clause + "RETURN [pair IN found | [pair[0].key, pair[1]]], size(found)", params)
    pairs, size = result[0]
    assert sorted(pairs) == [["h1", 1], ["v1", 0]]
    assert size == 2
    clause, params = finding([])
    assert params == {}
    assert read(graph, clause + "RETURN size(found)", params) == [[0]]


def _noted(graph, things: list, text: str) -> str:
    """made_where_found() of a Note linked to what things name."""
    from lighthouse.references import made_where_found

    def linking(node: str) -> str:
        return f"CREATE (note)-[:ON]->({node})"

    return made_where_found(
        graph, things, "(old:Note {text: $text})", "CREATE (note:Note {text: $text})", linking, {"text": text}
    )


def test_made_where_found_makes_only_when_new_and_every_reference_exists(graph, db):
    graph.query("CREATE (:Episode {id: 'e1'}), (:Valve:Entity {key: 'v1'})")
    with sent(db, graph.name) as commands:
        assert _noted(graph, [("Episode", "e1"), ("Episode", "e2")], "a") == "missing"
    assert [command for command, _ in commands] == ["GRAPH.QUERY"]  # one query, a refusal too
    assert graph.query("MATCH (n:Note) RETURN count(n)").result_set == [[0]]
    with sent(db, graph.name) as commands:
        assert _noted(graph, [("Episode", "e1"), ("Valve", "v1")], "b") == "made"
    assert [command for command, _ in commands] == ["GRAPH.QUERY"]
    # Taken, whether or not what it names exists: "exists", and nothing changes.
    with sent(db, graph.name) as commands:
        assert _noted(graph, [("Episode", "e1")], "b") == "exists"
    assert [command for command, _ in commands] == ["GRAPH.QUERY"]
    assert _noted(graph, [("Episode", "nope")], "b") == "exists"
    linked = "MATCH (n:Note)-[:ON]->(x) RETURN n.text, coalesce(x.id, x.key) ORDER BY coalesce(x.id, x.key)"
    assert graph.query(linked).result_set == [["b", "e1"], ["b", "v1"]]
    # No reference: made once.
    assert _noted(graph, [], "c") == "made"
    assert _noted(graph, [], "c") == "exists"


def test_made_where_found_raises_when_the_answer_says_neither_made_nor_why(graph):
    from lighthouse.errors import ReceiptMismatch

    class Silent:  # the real graph, whose writes are answered by a query that makes and says nothing
        name = graph.name

        def query(self, *_args, **_kwargs):
            return graph.query("RETURN 1 LIMIT 0")

    with pytest.raises(ReceiptMismatch, match="made nothing and did not say why"):
        _noted(Silent(), [], "a")


def test_made_where_found_with_more_references_than_a_few_takes_them_as_a_list(graph):
    from lighthouse.references import FEW

    many = [("Valve", f"v{n}") for n in range(FEW + 3)]
    graph.query(
        "UNWIND range(0, $n - 1) AS n CREATE (:Valve:Entity {key: 'v' + toString(n)})", {"n": FEW + 2}
    )
    assert _noted(graph, many, "a") == "missing"  # the last one names nothing
    assert graph.query("MATCH (n:Note) RETURN count(n)").result_set == [[0]]
    assert _noted(graph, many[:-1], "a") == "made"
    assert graph.query("MATCH (:Note {text: 'a'})-[:ON]->(x) RETURN count(x)").result_set == [[FEW + 2]]
    assert _noted(graph, many[:-1], "a") == "exists"


def test_an_object_that_fails_when_read_is_refused_not_an_error_of_another_kind():
    from lighthouse.references import parse, parse_all

    class Unreadable(list):
        def __len__(self):
            raise RuntimeError("no")

    class Unprintable:
        def __repr__(self):
            raise RuntimeError("no")

        __str__ = __repr__

    class Sly(str):
        def __len__(self):
            raise RuntimeError("no")

        __repr__ = __str__ = __hash__ = __len__

    with pytest.raises(Refused, match="must be a list or tuple, not Unreadable"):
        parse_all(Unreadable([("Device", "d1")]))
    with pytest.raises(Refused, match="not Unreadable"):
        parse(Unreadable([("Device", "d1")]))
    with pytest.raises(Refused):
        parse_all([(Unprintable(), "d1")])
    for hostile in (
        Sly("e/1"),
        ("Valve", Sly("v1")),
        (Sly("Valve"), "v1"),
        [Sly("e/1")],
        (PosingAsKind(), "v1"),
    ):
        with pytest.raises(Refused) as refused:
            parse(hostile)
        assert refused.value.reason == "invalid"
        with pytest.raises(Refused):
            parse_all([hostile])
