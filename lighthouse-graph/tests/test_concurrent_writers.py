"""Eight writers at once on a fresh graph, several rounds: the decisions a write query takes from what an
earlier write made (edges above all) hold when those writes race.

Found here (FalkorDB 4.22.1): a query that arrives while the label or relation type it names does not
exist yet in the graph, and runs after a writer created it, binds no edge of that type (the far node is
found, the edge variable is null) and finds no node of that label: OPTIONAL MATCH (s)-[t:T]->() then
"sees no edge" and the next writer duplicates it. ensure_schema() registers every label and relation type
the library uses (an index each) before any such write, and each round here starts from a graph it made.
"""

from __future__ import annotations

import threading
import uuid

from chats import ready
from devices import DEVICE, KINDS
from ended_episodes import ended
from lighthouse import close_episode, ensure_schema, open_episode, record, remember, say, tally_layout
from lighthouse.graphs import schema_turn
from lighthouse.lessons import learn, used, weigh
from lighthouse.playbooks import ran, write_playbook
from lighthouse.promotion import promote
from lighthouse.tasks import add_task, claim, complete, tasks
from racing import at_once
from test_batches import own_connection

ROUNDS = 4


def fresh(db):
    """A graph of its own for one round (deleted by the caller)."""
    return db.select_graph(f"test_{uuid.uuid4().hex[:12]}")


def rounds(db, kinds, prepare, call, check, count=ROUNDS):
    """count times: a fresh graph with its schema, prepare(graph), call(number, own) in eight threads
    released together, check(graph, answers)."""
    for _ in range(count):
        graph = fresh(db)
        try:
            ready(graph, kinds)
            prepare(graph)
            check(graph, at_once(db, graph, call))
        finally:
            with schema_turn(graph, 10.0):  # a deletion drops indexes: in the schema turn
                graph.delete()


def rows(graph, query, params=None):
    return graph.ro_query(query, params or {}).result_set


# remember(): the open relation is closed by id under the lh.rev guard (write/plans.py, "moves").


def test_eight_writers_moving_one_device_leave_one_open_relation(db):
    def prepare(graph):
        first = {"key": "d1", "t": "2026-01-01T00:00:00Z", "relations": {"LOCATED_IN": "r0"}}
        assert remember(graph, DEVICE, [first], "inventory")[0]["status"] == "created"

    def call(number, own):
        return [
            remember(
                own,
                DEVICE,
                [
                    {
                        "key": "d1",
                        "t": f"2026-01-02T{number:02d}:{i:02d}:00Z",
                        "relations": {"LOCATED_IN": f"r{number}{i}"},
                    }
                ],
                f"w{number}",
            )[0]["status"]
            for i in range(3)
        ]

    def check(graph, answers):
        assert {status for said in answers for status in said} <= {"changed", "inserted", "busy"}
        edges = rows(
            graph,
            "MATCH (:Device {key: 'd1'})-[r:LOCATED_IN]->(room) RETURN r.valid_from, r.valid_to, room.key "
            "ORDER BY r.valid_from",
        )
        assert sum(valid_to is None for _, valid_to, _ in edges) == 1
        assert edges[-1][1] is None  # the open one is the latest
        for (_, ends, _), (starts, _, _) in zip(edges, edges[1:], strict=False):
            assert ends == starts  # one after the other: no two held at once, no gap
        written = {f"r{n}{i}" for n in range(8) for i in range(3) if answers[n][i] != "busy"}
        assert {room for _, _, room in edges} == written | {"r0"}
        assert rows(
            graph, "MATCH (:Device {key: 'd1'})-[:HAS_STATE]->(s) WHERE s.valid_to IS NULL RETURN count(s)"
        ) == [[1]]

    rounds(db, [DEVICE], prepare, call, check)


# say(): the session's count, on its LH_TALLY loop edge, numbers the messages; the prior one is found by
# its key. The tally is made with the first message: the race is on a new session.


def test_eight_speakers_in_one_new_session_get_distinct_gapless_numbers(db):
    def call(number, own):
        return [say(own, "ann", "new", "user", f"t{number} m{i}", by=f"a{number}")["seq"] for i in range(3)]

    def check(graph, answers):
        assert sorted(seq for said in answers for seq in said) == list(range(1, 25))
        assert rows(graph, "MATCH (s:Session) RETURN count(s)") == [[1]]
        assert rows(graph, "MATCH (s:Session)-[t:LH_TALLY]->(s) RETURN count(t), max(t.count)") == [[1, 24]]
        chain = rows(graph, "MATCH (a:Message)-[:NEXT]->(b:Message) RETURN a.seq, b.seq ORDER BY a.seq")
        assert chain == [[n, n + 1] for n in range(1, 24)]
        assert rows(graph, "MATCH (:Session)-[h:HAS]->(:Message) RETURN count(h)") == [[24]]

    rounds(db, [], lambda graph: None, call, check)


# claim(): state, owner and claims on the Task node, in one query; complete() counts waits down through
# the AFTER edges.


def test_eight_agents_claiming_the_same_tasks_take_each_once(db):
    def prepare(graph):
        for number in range(12):
            assert add_task(graph, f"job{number:02d}", "batch", number)

    def call(number, own):
        taken = []
        while (got := claim(own, f"agent{number}", "batch", lease=600)) is not None:
            taken.append(got["id"])
        return taken

    def check(graph, answers):
        every = [one for taken in answers for one in taken]
        assert sorted(every) == [f"job{number:02d}" for number in range(12)]
        listed = tasks(graph, limit=100)
        assert all(one["state"] == "claimed" and len(one["claims"]) == 1 for one in listed)
        assert rows(graph, "MATCH (:Task)-[c:CLAIMED_BY]->(:Agent) RETURN count(c)") == [[12]]

    rounds(db, [], prepare, call, check)


def test_tasks_added_after_one_that_completes_meanwhile_are_all_free(db):
    """complete(first) finds the tasks after it by their AFTER edges, made by add_task() just before."""

    def prepare(graph):
        assert add_task(graph, "first", "batch")
        assert claim(graph, "boss", "batch")["id"] == "first"

    def call(number, own):
        if number == 0:
            return complete(own, "boss", "first")
        return [add_task(own, f"later{number}-{i}", "next", after=["first"]) for i in range(3)]

    def check(graph, answers):
        assert answers[0] is True and all(all(made) for made in answers[1:])
        assert rows(graph, "MATCH (t:Task {kind: 'next'}) RETURN count(t), collect(DISTINCT t.waits)") == [
            [21, [0]]
        ]

    rounds(db, [], prepare, call, check)


# lessons and playbooks: whether the episode was counted is the edge between the two, nothing else.


def lesson_and_episodes(graph):
    remember(graph, DEVICE, [{"key": "d1", "t": "2026-01-02T00:00:00Z", "values": {"status": "hot"}}], "inv")
    ended(graph, "e1")
    ended(graph, "e2")
    open_episode(graph, "e-open", by="watcher")
    assert learn(graph, "l1", "reviewer", "d1 runs hot", ["e1"])["status"] == "learned"


def test_eight_agents_weighing_one_episode_count_it_once(db):
    def check(graph, answers):
        assert sorted(answer["status"] for answer in answers) == ["exists"] * 7 + ["weighed"]
        assert rows(graph, "MATCH (l:Lesson {id: 'l1'}) RETURN l.support + l.against") == [[2]]
        found = "MATCH (:Lesson)-[w:SUPPORTED_BY|CONTRADICTED_BY]->(:Episode {id: 'e2'}) RETURN count(w)"
        assert rows(graph, found) == [[1]]

    call = lambda number, own: weigh(own, "l1", f"agent{number}", "e2", number % 2 == 0)  # noqa: E731
    rounds(db, KINDS, lesson_and_episodes, call, check)


def test_eight_agents_using_one_lesson_in_one_episode_count_one_use(db):
    def check(graph, answers):
        assert sorted(answer["status"] for answer in answers) == ["exists"] * 7 + ["used"]
        assert rows(graph, "MATCH (l:Lesson {id: 'l1'}) RETURN l.used, l.helped + l.failed") == [[1, 0]]
        assert rows(graph, "MATCH (:Lesson)-[u:USED_IN]->(:Episode {id: 'e-open'}) RETURN count(u)") == [[1]]

    call = lambda number, own: used(own, "l1", f"agent{number}", "e-open")  # noqa: E731
    rounds(db, KINDS, lesson_and_episodes, call, check)


def test_eight_agents_recording_one_run_record_it_once(db):
    def prepare(graph):
        lesson_and_episodes(graph)
        steps = [{"do": "clean the fan"}]
        assert (
            write_playbook(graph, "hot", "reviewer", {"status": "hot"}, steps, ["e1"], needs=1)["version"]
            == 1
        )

    def check(graph, answers):
        assert sorted(answer["status"] for answer in answers) == ["exists"] * 7 + ["recorded"]
        assert rows(graph, "MATCH (p:Playbook {name: 'hot'}) RETURN p.runs") == [[1]]
        assert rows(graph, "MATCH (:Playbook)-[r:RAN_IN]->(:Episode {id: 'e2'}) RETURN count(r)") == [[1]]

    call = lambda number, own: ran(own, "hot", f"agent{number}", "e2")  # noqa: E731
    rounds(db, KINDS, prepare, call, check)


# promote(): the decision to write a playbook's next version is read in one query (_VERSIONS) and written
# in another (playbooks.write_over), which writes only while the newest version is still the one read.


def test_eight_promoters_at_once_write_a_playbook_once(db):
    def rule(episode):
        return [{"playbook": "cool-d1", "trigger": {"status": "hot"}, "steps": [{"do": "clean the fan"}]}]

    def prepare(graph):
        remember(
            graph, DEVICE, [{"key": "d1", "t": "2026-01-02T00:00:00Z", "values": {"status": "hot"}}], "inv"
        )
        for name in ("e1", "e2", "e3"):
            open_episode(graph, name, by="watcher", about=[(DEVICE, "d1")])
            record(graph, name, "observation", by="watcher", values={"status": "hot"})
            close_episode(graph, name, by="reviewer", outcome={"fixed": True})

    def check(graph, answers):
        assert rows(graph, "MATCH (p:Playbook {name: 'cool-d1'}) RETURN collect(p.version)") == [[[1]]]

    call = lambda number, own: promote(own, f"promoter{number}", rule)  # noqa: E731
    rounds(db, KINDS, prepare, call, check)


# ensure_schema(): the Stamp (the serial of every entry) is MERGEd once its label is registered.


def stamps_after_eight_prepare(db) -> int:
    """Eight clients call ensure_schema() on one new graph at the same moment: how many Stamps it holds."""
    graph = fresh(db)
    start = threading.Barrier(8, timeout=60)
    errors: list = []

    def prepare(own) -> None:
        start.wait()
        try:
            ensure_schema(own, [DEVICE])
        except Exception as error:  # shown by the assertion below
            errors.append(error)

    threads = [threading.Thread(target=prepare, args=(own_connection(db, graph),)) for _ in range(8)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert not errors
        return rows(graph, "MATCH (st:Stamp) RETURN count(st)")[0][0]
    finally:
        with schema_turn(graph, 10.0):  # a deletion drops indexes: in the schema turn
            graph.delete()


def test_eight_clients_preparing_one_new_graph_make_one_stamp(db):
    # Measured: 2 or 3 Stamps in 3 of 10 rounds. With two, every record() and notes() matches both and
    # writes its entry twice (the unique constraint on Entry.id then refuses it).
    assert [stamps_after_eight_prepare(db) for _ in range(15)] == [1] * 15


# A graph prepared by the version before the tallies: LH_TALLY unknown to it, the counters on the nodes.
# The first writes make the tallies while others, queued before the type existed, read the nodes.


class PreparedBefore:
    """A graph whose ensure_schema() makes the Stamp as the version before the tallies did."""

    def __init__(self, graph):
        self.graph = graph

    def __getattr__(self, name):
        return getattr(self.graph, name)

    def query(self, query, params=None, **options):
        if query.startswith("MERGE (s:Stamp)"):
            query = "MERGE (s:Stamp) ON CREATE SET s.id = $id, s.serial = 2"
        if query in (tally_layout._MOVE_EPISODE_COUNTS, tally_layout._MOVE_STAMP_SERIALS):
            query = "RETURN 0"  # that version moved no counters (and its queries named no LH_TALLY)
        return self.graph.query(query, params, **options)


def prepared_before(db, monkeypatch):
    from lighthouse import graphs

    graph = fresh(db)
    with monkeypatch.context() as patched:
        patched.setattr(graphs, "OWNED_RELATIONS", graphs.OWNED_RELATIONS - {"LH_TALLY"})
        patched.setattr(
            graphs, "_RECORD_INDEXES", tuple(p for p in graphs._RECORD_INDEXES if p[0] != "Stamp")
        )
        ensure_schema(PreparedBefore(graph), [DEVICE])
    graph.query(
        "CREATE (s:Session {key: 'ann\x1fold', user: 'ann', id: 'old', count: 2, upto: 0, "
        "  opened_at: localdatetime(), active_at: localdatetime()}) "
        "CREATE (s)-[:HAS]->(a:Message {key: 'ann\x1fold#1', seq: 1, session: 'old', user: 'ann', text: 'a', "
        "  mentions: '[]'})-[:NEXT]->(b:Message {key: 'ann\x1fold#2', seq: 2, session: 'old', user: 'ann', "
        "  text: 'b', mentions: '[]'}) CREATE (s)-[:HAS]->(b) "
        "CREATE (:Episode {id: 'e', by: 'x', opened_at: localdatetime(), recorded_at: localdatetime(), "
        "  entry_count: 2})"
    )
    types = rows(graph, "CALL db.relationshiptypes() YIELD relationshipType RETURN collect(relationshipType)")
    assert "LH_TALLY" not in types[0][0]
    return graph


def test_writers_on_a_graph_prepared_before_the_tallies_take_distinct_numbers(db, monkeypatch):
    from lighthouse import messages

    for _ in range(3):
        graph = prepared_before(db, monkeypatch)
        try:
            said = at_once(
                db,
                graph,
                lambda n, own: [say(own, "ann", "old", "user", f"t{n}", by="a")["seq"] for _ in "ab"],
            )
            assert sorted(seq for pair in said for seq in pair) == list(range(3, 19))
            assert [m["seq"] for m in messages(graph, "ann", "old", last=100)] == list(range(1, 19))
        finally:
            with schema_turn(graph, 10.0):  # a deletion drops indexes: in the schema turn
                graph.delete()
        graph = prepared_before(db, monkeypatch)
        try:
            recorded = at_once(db, graph, lambda n, own: [record(own, "e", "seen", "a") for _ in "ab"])
            assert sorted(r["seq"] for pair in recorded for r in pair) == list(range(3, 19))
            serials = rows(graph, "MATCH (n:Entry) RETURN n.serial ORDER BY n.serial")
            assert [serial for (serial,) in serials] == list(range(3, 19))
        finally:
            with schema_turn(graph, 10.0):  # a deletion drops indexes: in the schema turn
                graph.delete()
