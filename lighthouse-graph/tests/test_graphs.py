"""world(), tenant(), read() and ensure_schema(): which graph, its Stamp, and its indexes."""

from __future__ import annotations

import contextlib
import re
import threading
import uuid

import pytest
from lighthouse import graphs
from lighthouse.errors import SchemaNotReady
from lighthouse.graphs import ensure_schema, read, schema_turn, tenant, tenant_graph_name, world
from lighthouse.kinds import OWNED_RELATIONS, SELF, VECTOR, Kind
from lighthouse.read import history
from lighthouse.values import Refused, WrongType
from lighthouse.write.batches import remember
from redis.exceptions import ResponseError

ROOM = Kind("Room", key="code")
TEAM = Kind("Team", key="name", text=("motto",))
DEVICE = Kind(
    "Device",
    key="serial",
    times=("last_seen",),
    text=("note",),
    relations={"LOCATED_IN": ROOM, "USED_BY": TEAM, "PART_OF": SELF},
)
MANUAL = Kind("Manual", key="code", text=("title", "body"), dimensions=8)

RECORD_RANGE = {
    ("State", "valid_from"),
    ("State", "by"),
    ("Entry", "id"),
    ("Entry", "serial"),
    ("Episode", "id"),
    ("Agent", "name"),
    ("Handoff", "id"),
    ("Task", "id"),
    ("Task", "kind"),
    ("Session", "key"),
    ("Message", "key"),
    ("Reference", "key"),
    ("WriteFailure", "lh.fingerprint"),
    ("WriteFailure", "owner"),
    ("Lesson", "id"),
    ("Playbook", "id"),
    ("lh.Extraction", "note"),  # the job of reading notes finds a note's state by its id and by state
    ("lh.Extraction", "state"),
}


def indexes(graph) -> list[tuple]:
    """Every index as (label, property, type, dimension): what the graph holds, sorted."""
    found = []
    for label, props, types, options, entity in (
        read(
            graph,
            "CALL db.indexes() YIELD label, properties, types, options, entitytype "
            "RETURN label, properties, types, options, entitytype",
        )
        or []
    ):
        for prop in props:
            for sort in types[prop]:
                size = (options.get(prop) or {}).get("dimension") if sort == "VECTOR" else None
                found.append((label, prop, sort, size, entity))
    return sorted(found, key=repr)


def stamps(graph) -> list[list]:
    """Each Stamp's id and serial."""
    return read(graph, "MATCH (s:Stamp) RETURN s.id, s.serial")


@pytest.fixture
def named(db):
    """Graphs made under names of a test's own choosing, deleted after it."""
    made: list = []

    def select(chosen):
        made.append(chosen)
        return chosen

    yield select
    for chosen in made:
        # never written; a deletion drops indexes: in the schema turn
        with contextlib.suppress(ResponseError), schema_turn(chosen, 10.0):
            chosen.delete()


# read()


def test_read_gives_nothing_from_a_graph_that_does_not_exist(db) -> None:
    missing = db.select_graph(f"missing_{uuid.uuid4().hex}")
    assert read(missing, "MATCH (n) RETURN n") == []
    assert read(missing, "MATCH (n:Stamp) RETURN n.id", {"x": 1}) == []
    assert missing.name not in db.list_graphs()  # reading made no graph


def test_read_gives_the_rows(graph) -> None:
    graph.query("UNWIND range(1, 3) AS i CREATE (:Thing {i: i})")
    assert read(graph, "MATCH (t:Thing) WHERE t.i >= $low RETURN t.i ORDER BY t.i", {"low": 2}) == [[2], [3]]
    assert read(graph, "MATCH (t:Thing) WHERE t.i > 9 RETURN t.i") == []


def test_read_refuses_a_write(graph) -> None:
    graph.query("CREATE (:Thing)")
    with pytest.raises(ResponseError, match="read-only"):
        read(graph, "CREATE (:Other)")
    assert read(graph, "MATCH (o:Other) RETURN count(o)") == [[0]]


def test_read_raises_on_a_bad_query_of_a_graph_that_exists(graph) -> None:
    graph.query("CREATE (:Thing)")
    with pytest.raises(ResponseError, match="Invalid input"):
        read(graph, "MATCH (n RETURN n")


def test_falkordb_does_not_parse_a_query_of_a_graph_that_does_not_exist(db) -> None:
    # So read() cannot tell a bad query there from an empty answer: a test of each query on a
    # graph that exists is what finds its mistakes.
    missing = db.select_graph(f"missing_{uuid.uuid4().hex}")
    assert read(missing, "MATCH (n RETURN n") == []


def test_read_stops_at_its_timeout(graph) -> None:
    graph.query("CREATE (:Thing)")
    with pytest.raises(ResponseError, match="[Tt]imed out"):
        read(graph, "UNWIND range(1, 5000) AS a UNWIND range(1, 5000) AS b RETURN count(*)", timeout=1)


# world() and tenant()


def test_world_is_the_shared_graph(db) -> None:
    assert graphs.WORLD == "world"
    assert world(db).name == "world"
    assert world(db, name="shared").name == "shared"
    assert world(db, name="a" * 63).name == "a" * 63
    assert world(db, name="0-a_b").name == "0-a_b"


@pytest.mark.parametrize(
    "name",
    ["", "World", "a b", "a/b", "a.b", "world\n", "\nworld", "_world", "-world", "a" * 64, "wörld", None, 5],
)
def test_a_graph_name_that_is_not_plain_is_refused(db, name) -> None:
    with pytest.raises(Refused, match="graph name"):
        world(db, name=name)


@pytest.mark.parametrize("name", ["tenant:acme", "tenant:", "tenant:x"])
def test_a_shared_graph_cannot_take_the_name_of_a_tenant(db, name) -> None:
    with pytest.raises(Refused, match="graph name"):
        world(db, name=name)


def test_tenant_is_tenant_and_its_id(db) -> None:
    assert tenant(db, "acme").name == "tenant:acme"
    assert tenant(db, "a").name == "tenant:a"
    assert tenant(db, "a" * 63).name == "tenant:" + "a" * 63
    assert tenant(db, "world").name == "tenant:world"
    assert tenant(db, "0-a_b").name == "tenant:0-a_b"


@pytest.mark.parametrize("tenant_id", ["acme", "a", "a" * 63, "world", "0-a_b"])
def test_tenant_graph_name_is_the_name_tenant_gives_without_a_graph(db, tenant_id) -> None:
    assert tenant_graph_name(tenant_id) == tenant(db, tenant_id).name == "tenant:" + tenant_id
    assert type(tenant_graph_name(tenant_id)) is str


@pytest.mark.parametrize("tenant_id", [None, "", "Acme", "a" * 64, "acme\n", "-a", "a b", 7, b"acme"])
def test_tenant_graph_name_refuses_what_tenant_refuses(db, tenant_id) -> None:
    with pytest.raises(Refused, match="tenant id") as named:
        tenant_graph_name(tenant_id)
    with pytest.raises(Refused, match="tenant id") as made:
        tenant(db, tenant_id)
    assert str(named.value) == str(made.value)


@pytest.mark.parametrize(
    "tenant_id",
    [
        "",
        "Acme",
        "ac me",
        "acme\n",  # $ would have let this through, to a graph of another name
        "acme\x00",
        "../acme",
        "acme/x",
        "acme*",
        "_acme",
        "-acme",
        "a" * 64,
        "ａｃｍｅ",
        None,
        7,
        ["acme"],
    ],
)
def test_a_tenant_id_that_is_not_plain_is_refused(db, tenant_id) -> None:
    with pytest.raises(Refused, match="tenant id"):
        tenant(db, tenant_id)


def test_a_refused_name_is_shown_short_and_ascii(db) -> None:
    with pytest.raises(Refused) as raised:
        tenant(db, "\u202e" * 1_000)
    assert str(raised.value).isascii() and len(str(raised.value)) < 200


def test_no_tenant_id_reaches_another_graphs_name(db) -> None:
    ids = ["a", "b", "a-b", "a_b", "ab", "world", "tenant_a", "0", "a" * 63]
    names = [tenant(db, one).name for one in ids]
    assert len(set(names)) == len(ids)  # one graph per id
    assert all(re.fullmatch(r"tenant:[a-z0-9][a-z0-9_-]{0,62}", one) for one in names)
    shared = {world(db).name, world(db, name="a").name, world(db, name="world").name}
    assert not shared & set(names)


def test_one_setting_names_one_graph(db, named) -> None:
    name = f"lh_{uuid.uuid4().hex[:12]}"
    chosen = named(world(db, name=name))
    ensure_schema(chosen, [DEVICE])
    receipts = remember(
        chosen,
        DEVICE,
        by="inventory",
        rows=[{"key": "d1", "t": "2026-01-01T00:00:00Z", "values": {"status": "ok"}}],
    )
    assert receipts == [{"key": "d1", "status": "created"}]
    again = world(db, name=name)  # the same setting, selected anew, reads it back
    assert [state["status"] for state in history(again, DEVICE, "d1")] == ["ok"]
    assert name in db.list_graphs()
    assert history(world(db, name=f"lh_{uuid.uuid4().hex[:12]}"), DEVICE, "d1") == []
    assert history(tenant(db, name.replace("_", "-")), DEVICE, "d1") == []


def test_each_tenant_reads_only_its_own_graph(db, named) -> None:
    first_id, second_id = f"t{uuid.uuid4().hex[:10]}", f"t{uuid.uuid4().hex[:10]}"
    first, second = named(tenant(db, first_id)), named(tenant(db, second_id))
    for chosen, status in ((first, "ok"), (second, "hot")):
        ensure_schema(chosen, [DEVICE])
        remember(
            chosen,
            DEVICE,
            by="a",
            rows=[{"key": "d1", "t": "2026-01-01T00:00:00Z", "values": {"status": status}}],
        )
    assert [s["status"] for s in history(tenant(db, first_id), DEVICE, "d1")] == ["ok"]
    assert [s["status"] for s in history(tenant(db, second_id), DEVICE, "d1")] == ["hot"]
    assert stamps(first)[0][0] != stamps(second)[0][0]


# ensure_schema()


def stamp_of(graph, kinds=(), **more) -> str:
    """ensure_schema() (which returns None), then the id of the graph's Stamp."""
    assert ensure_schema(graph, kinds, **more) is None
    return stamps(graph)[0][0]


def test_ensure_schema_gives_one_stamp_once(graph) -> None:
    first = stamp_of(graph, [DEVICE])
    assert re.fullmatch(r"[0-9a-f]{32}", first)
    assert stamps(graph) == [[first, 0]]
    listed = indexes(graph)
    assert stamp_of(graph, [DEVICE]) == first
    assert stamps(graph) == [[first, 0]]
    assert indexes(graph) == listed
    assert ensure_schema(graph) is None  # kinds=() by default


def test_ensure_schema_takes_the_published_parameters_by_position_and_by_name(graph) -> None:
    ensure_schema(graph, (DEVICE,), 10.0, 4)
    ensure_schema(graph=graph, kinds=[DEVICE], wait_seconds=5, entry_dimensions=4)
    assert {row[0]: row[3] for row in indexes(graph) if row[2] == "VECTOR"} == {"Entry": 4, "EntryVector": 4}


def test_unique_constraints_on_every_key_and_record_id(graph) -> None:
    ensure_schema(graph, [DEVICE])
    found = {
        (label, tuple(props), status)
        for _, label, props, _, status in read(
            graph,
            "CALL db.constraints() YIELD type, label, properties, entitytype, status "
            "RETURN type, label, properties, entitytype, status",
        )
    }
    for label in ("Device", "Room", "Team"):
        assert (label, ("key",), "OPERATIONAL") in found
    for label, prop in graphs._UNIQUE:
        assert (label, (prop,), "OPERATIONAL") in found
    graph.query("CREATE (:Room {key: 'r1'})")
    with pytest.raises(ResponseError):
        graph.query("CREATE (:Room {key: 'r1'})")


def test_one_label_with_two_keys_is_refused_before_anything_is_written(db) -> None:
    missing = db.select_graph(f"missing_{uuid.uuid4().hex}")
    other = Kind("Room", key="number")
    with pytest.raises(Refused, match="two keys"):
        ensure_schema(missing, [DEVICE, other])
    pointing = Kind("Lamp", relations={"IN": Kind("Room", key="name")})
    with pytest.raises(Refused, match="two keys"):
        ensure_schema(missing, [DEVICE, pointing])
    assert missing.name not in db.list_graphs()


def test_ensure_schema_again_keeps_a_stamp_that_counted(graph) -> None:
    first = stamp_of(graph, [])
    graph.query("MATCH (s:Stamp) SET s.serial = 41")
    assert stamp_of(graph, [DEVICE]) == first
    assert stamps(graph) == [[first, 41]]


def test_a_stamp_that_kept_its_serial_on_a_tally_counts_on(graph) -> None:
    """A graph written when the serial was on the Stamp's LH_TALLY loop edge (a stale one on the node)."""
    from lighthouse import open_episode, record

    first = stamp_of(graph, [DEVICE])
    assert open_episode(graph, "e", "agent")["status"] == "opened"
    graph.query(
        "MATCH (s:Stamp) CREATE (s)-[:LH_TALLY {serial: 41}]->(s) "
        "SET s.serial = 7 REMOVE s.`lh.counts_on_nodes`"
    )
    assert record(graph, "e", "seen", "agent")["status"] == "recorded"  # moved onto the node
    assert stamps(graph) == [[first, 42]]
    assert read(graph, "MATCH (n:Entry) RETURN n.serial") == [[42]]
    assert read(graph, "MATCH ()-[t:LH_TALLY]->() RETURN count(t)") == [[0]]
    graph.query("MATCH (s:Stamp) CREATE (s)-[:LH_TALLY {serial: 50}]->(s)")
    assert stamp_of(graph, [DEVICE]) == first  # ensure_schema() moves it onto the node too
    assert stamps(graph) == [[first, 50]] and read(graph, "MATCH ()-[t:LH_TALLY]->() RETURN count(t)") == [
        [0]
    ]


def test_a_graph_made_again_under_its_name_has_another_stamp(db) -> None:
    name = f"lh_{uuid.uuid4().hex[:12]}"
    chosen = db.select_graph(name)
    first = stamp_of(chosen, [])
    with schema_turn(chosen, 10.0):  # a deletion drops indexes: in the schema turn
        chosen.delete()
    chosen = db.select_graph(name)
    try:
        second = stamp_of(chosen, [])
        assert second != first
        assert stamps(chosen) == [[second, 0]]
    finally:
        with schema_turn(chosen, 10.0):  # a deletion drops indexes: in the schema turn
            chosen.delete()


def test_the_record_and_text_indexes(graph) -> None:
    ensure_schema(graph, [])
    found = {(label, prop, sort) for label, prop, sort, _, entity in indexes(graph)}
    assert {(label, prop, "RANGE") for label, prop in RECORD_RANGE} <= found
    for label in ("State", "Entry", "Message"):
        assert (label, "words", "FULLTEXT") in found
    assert not any(sort == "VECTOR" for _, _, sort in found)
    edges = {label for label, _, _, _, entity in indexes(graph) if entity != "NODE"}
    assert edges == set(OWNED_RELATIONS)  # each relation type registered before any writer MERGEs on it


def test_a_kind_s_relation_types_are_registered(graph) -> None:
    ensure_schema(graph, [DEVICE])
    edges = {
        label for label, prop, _, _, entity in indexes(graph) if entity != "NODE" and prop == "registered"
    }
    assert {"LOCATED_IN", "USED_BY"} <= edges


def test_each_kind_and_each_target_gets_its_key_and_text_indexes(graph) -> None:
    ensure_schema(graph, [DEVICE])
    found = {(label, prop, sort) for label, prop, sort, _, _ in indexes(graph)}
    for kind in (DEVICE, ROOM, TEAM):  # ROOM and TEAM only as targets of DEVICE
        assert (kind.label, "key", "RANGE") in found
        assert (kind.label, kind.key, "RANGE") in found
    assert (DEVICE.label, "words", "FULLTEXT") in found
    assert (TEAM.label, "words", "FULLTEXT") in found
    assert (ROOM.label, "words", "FULLTEXT") not in found  # no text: no full-text index
    assert not any(label == DEVICE.label and sort == "VECTOR" for label, _, sort in found)


def test_a_kind_keyed_by_key_gets_one_key_index(graph) -> None:
    thing = Kind("Thing")
    ensure_schema(graph, [thing])
    assert [row[:3] for row in indexes(graph) if row[0] == "Thing"] == [("Thing", "key", "RANGE")]


def test_a_kind_with_dimensions_gets_a_vector_index_on_its_vector_nodes(graph) -> None:
    ensure_schema(graph, [MANUAL])
    vectors = [row[:4] for row in indexes(graph) if row[2] == "VECTOR"]
    assert vectors == [("ManualVector", VECTOR, "VECTOR", 8)]
    options = read(
        graph, "CALL db.indexes() YIELD label, options WHERE label = 'ManualVector' RETURN options"
    )
    assert options[0][0][VECTOR]["similarityFunction"] == "cosine"


def test_entry_dimensions_give_entries_a_vector_index(graph) -> None:
    ensure_schema(graph, [MANUAL], entry_dimensions=16)
    vectors = {(row[0], row[1]): row[3] for row in indexes(graph) if row[2] == "VECTOR"}
    # EntryVector: the parts of a long entry's text after the first (entry_vectors.parts_of()).
    assert vectors == {("ManualVector", VECTOR): 8, ("Entry", VECTOR): 16, ("EntryVector", VECTOR): 16}


def test_a_graph_with_the_entries_index_alone_gets_the_parts_index(graph, changed_schema) -> None:
    changed_schema(
        graph,
        f"CREATE VECTOR INDEX FOR (n:Entry) ON (n.`{VECTOR}`) OPTIONS {{dimension: 16, similarityFunction: 'cosine'}}",
    )
    ensure_schema(graph, [], entry_dimensions=16)
    assert {row[0]: row[3] for row in indexes(graph) if row[2] == "VECTOR"} == {
        "Entry": 16,
        "EntryVector": 16,
    }


@pytest.mark.parametrize("size", [1, 4096])
def test_entry_dimensions_from_1_to_4096(graph, size) -> None:
    ensure_schema(graph, [], entry_dimensions=size)
    assert [row[3] for row in indexes(graph) if row[2] == "VECTOR"] == [size, size]  # entries and parts


@pytest.mark.parametrize("size", [None, -1, 4097, 1.5, "16", True])
def test_entry_dimensions_out_of_range_are_refused_before_anything_is_written(db, size) -> None:
    missing = db.select_graph(f"missing_{uuid.uuid4().hex}")
    with pytest.raises(Refused, match="entry_dimensions"):
        ensure_schema(missing, [], entry_dimensions=size)
    assert missing.name not in db.list_graphs()


@pytest.mark.parametrize("kinds", [DEVICE, "Device", [DEVICE, "Room"], None, {DEVICE}])
def test_kinds_must_be_a_list_of_kinds(db, kinds) -> None:
    missing = db.select_graph(f"missing_{uuid.uuid4().hex}")
    with pytest.raises(WrongType, match="list or tuple of Kind"):
        ensure_schema(missing, kinds)
    assert missing.name not in db.list_graphs()


@pytest.mark.parametrize("wait", [-1, 86_401, "5", True, None])
def test_a_wait_that_is_not_a_duration_is_refused(graph, wait) -> None:
    with pytest.raises(Refused, match="wait"):
        ensure_schema(graph, [], wait_seconds=wait)


def test_another_size_for_an_existing_vector_index_is_refused(graph) -> None:
    first = stamp_of(graph, [MANUAL], entry_dimensions=16)
    listed = indexes(graph)
    wider = Kind("Manual", key="code", text=("title", "body"), dimensions=9)
    with pytest.raises(SchemaNotReady, match="Manual already has a vector index of 8 dimensions, not 9"):
        ensure_schema(graph, [wider])
    with pytest.raises(RuntimeError, match="Entry already has a vector index of 16 dimensions, not 32"):
        ensure_schema(graph, [MANUAL], entry_dimensions=32)
    assert indexes(graph) == listed
    assert stamps(graph) == [[first, 0]]


def test_a_kind_added_later_gets_its_indexes_and_the_stamp_stays(graph) -> None:
    first = stamp_of(graph, [ROOM])
    before = indexes(graph)
    assert stamp_of(graph, [ROOM, MANUAL]) == first
    after = indexes(graph)
    added = [row for row in after if row not in before]
    assert {row[:3] for row in added} == {
        ("Manual", "key", "RANGE"),
        ("Manual", "code", "RANGE"),
        ("Manual", "words", "FULLTEXT"),
        ("ManualVector", VECTOR, "VECTOR"),
    }
    assert all(row in after for row in before)


def test_ensure_schema_at_once_from_several_callers_gives_one_stamp(db) -> None:
    chosen = db.select_graph(f"lh_{uuid.uuid4().hex[:12]}")
    found: list = []
    errors: list = []

    def run() -> None:
        try:
            found.append(stamp_of(chosen, [DEVICE, MANUAL]))
        except Exception as error:  # reported below
            errors.append(error)

    workers = [threading.Thread(target=run) for _ in range(4)]
    try:
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        assert errors == []
        assert len(set(found)) == 1 and len(found) == 4
        assert stamps(chosen) == [[found[0], 0]]
    finally:
        with schema_turn(chosen, 10.0):  # a deletion drops indexes: in the schema turn
            chosen.delete()


def test_ensure_schema_returns_once_the_text_index_answers(graph) -> None:
    # A full-text index being built answers nothing, even for nodes written after it was asked for.
    graph.query("UNWIND range(1, 50000) AS i CREATE (:Team {key: 't' + toString(i), words: 'filler'})")
    ensure_schema(graph, [TEAM])
    graph.query("CREATE (:Team {key: 'red', words: 'red team motto'})")
    found = graph.query(
        "CALL db.idx.fulltext.queryNodes('Team', 'motto') YIELD node RETURN node.key"
    ).result_set
    assert found == [["red"]]
    assert read(graph, "CALL db.indexes() YIELD status WHERE status <> 'OPERATIONAL' RETURN status") == []


def test_ensure_schema_says_when_the_indexes_are_not_built_in_time(graph) -> None:
    graph.query("UNWIND range(1, 300000) AS i CREATE (:Team {key: i, words: 'filler'})")
    # built one at a time: the first index not built at once is named
    with pytest.raises(SchemaNotReady, match="schema not ready after 0 s: .*UNDER CONSTRUCTION"):
        ensure_schema(graph, [TEAM], wait_seconds=0)
    ensure_schema(graph, [TEAM], wait_seconds=60)  # and once they are, it returns


def test_an_application_asks_its_own_range_indexes_in_the_same_turn(graph) -> None:
    ensure_schema(graph, indexes=[("app.Job", "note"), ("Ticket", "number")])
    indexed = read(graph, "CALL db.indexes() YIELD label, properties RETURN label, properties")
    assert ["app.Job", ["note"]] in indexed and ["Ticket", ["number"]] in indexed
    graph.query("CREATE (:`app.Job` {note: 'n/1'})")
    plan = "\n".join(graph.explain("MATCH (x:`app.Job` {note: 'n/1'}) RETURN x").plan)
    assert "Index" in plan
    ensure_schema(graph, indexes=[("app.Job", "note")])  # again: nothing more to do


@pytest.mark.parametrize(
    ("indexes", "error"),
    [
        ("Ticket", WrongType),
        ([("Ticket",)], WrongType),
        (["Ticket.number"], WrongType),
        ([("Ticket`) DETACH DELETE (n", "number")], Refused),
        ([("Ticket", "num ber")], Refused),
        ([("Ticket", 7)], Refused),
        ([("", "number")], Refused),
    ],
)
def test_an_index_that_is_not_a_pair_of_names_is_refused_before_anything(graph, indexes, error) -> None:
    with pytest.raises(error):
        ensure_schema(graph, indexes=indexes)
    assert read(graph, "MATCH (n) RETURN count(n)") == []  # not even the Stamp: the graph was never made


def test_each_index_and_constraint_is_built_before_the_next_is_asked_for(db) -> None:
    # FalkorDB 4.22.1's indexer crashed when a GRAPH.CONSTRAINT CREATE handed it a task while it ran the one
    # before: every change is followed by a look at db.indexes() (and the constraints) that found it built.
    from falkordb import Graph

    sent: list[str] = []

    class Recorded(Graph):
        def __init__(self, client, name):
            super().__init__(client, name)
            send = self.execute_command  # the client's own, set on the instance

            def execute_command(*args, **options):
                said = " ".join(str(arg) for arg in args[:3])
                if "INDEX FOR" in said or args[:2] == ("GRAPH.CONSTRAINT", "CREATE"):
                    sent.append("change")
                elif "db.indexes()" in said:
                    sent.append("look")
                return send(*args, **options)

            self.execute_command = execute_command

    chosen = Recorded(db, f"test_{uuid.uuid4().hex[:12]}")
    try:
        ensure_schema(chosen, [Kind("Room", key="code", text=("name",))])
        changes = [place for place, what in enumerate(sent) if what == "change"]
        assert len(changes) >= 5  # the record, stamp and text indexes, and the unique constraints
        assert all(sent[place + 1] == "look" for place in changes)
    finally:
        with contextlib.suppress(ResponseError), schema_turn(chosen, 10.0):
            chosen.delete()
