"""wire.py: the fast parameters header and the decoded replies give what the client gives, or leave the
work to the client; both against a real FalkorDB, with the texts an attacker would send."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lighthouse import wire
from lighthouse.graphs import read
from lighthouse.wire import parameters_header, read_rows, written_rows
from redis.exceptions import ResponseError

NOW = datetime(2026, 1, 2, tzinfo=UTC)


NASTY = [
    "",
    'a"b',
    "a\\",
    '\\"',
    '"key":1',
    '{a:"b"}',
    "x\ny\rz\tw\bv\fu",
    "\\u0041",
    "é漢😀\u2028",
    "') DETACH DELETE n //",
    "`}) MATCH (n) DETACH DELETE n //",
    "$x",
    " CYPHER x=1 ",
    # No quote at all: the pass that only looks for map names carries these.
    "key:1",
    "{a:1,b:[2]}",
    "status",
    "a,b:c}]",
    "\\",
    # Control characters JSON writes as \u: sent as they are (a session's key holds \x1f).
    "user\x1fsession",
    "\x01\x1f\x7f",
    "\\\x1f",
    "\\u001f",
    "\x1f\\u0041",
]


@pytest.mark.parametrize("text", NASTY)
def test_the_fast_parameters_carry_every_text_as_it_is(graph, text):
    given = {"x": [text, {"name": text, "list": [text, 1, 1.5, True, None]}], "y": text}
    header = parameters_header(given)
    if '":' in text:  # '":' that looks like a map name that stayed quoted: the client's way
        assert header is None
        header = ""
    else:
        assert header.startswith("CYPHER ")
    found = graph.query(header + "RETURN $x, $y", None if header else given).result_set[0]
    assert found[0][0] == text and dict(found[0][1]) == {"name": text, "list": [text, 1, 1.5, True, None]}
    assert found[1] == text


@pytest.mark.parametrize("text", NASTY)
def test_a_read_carries_and_decodes_every_text_as_the_client_does(graph, text):
    graph.query("RETURN 1")
    given = {"x": [text, {"name": text}], "y": text}
    query = "RETURN $x, $y, [$y, size($y)]"
    assert _shown(read_rows(graph, query, given)) == _shown(graph.ro_query(query, given).result_set)
    assert graph.ro_query("MATCH (n) RETURN count(n)").result_set == [[0]]  # nothing was written


NAMES = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,5}", fullmatch=True) | st.sampled_from(['a"b', "a b", "a\\"])
TEXTS = st.text(alphabet=st.sampled_from('ab:{}[],"\\ \n`$'), max_size=12)
NESTED = st.recursive(
    TEXTS | st.integers(-(2**63), 2**63 - 1) | st.booleans() | st.none(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(NAMES, inner, max_size=3),
    max_leaves=8,
)


def plain_of(found: object) -> object:
    if isinstance(found, dict):
        return {name: plain_of(item) for name, item in found.items()}
    if isinstance(found, list):
        return [plain_of(item) for item in found]
    return found


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=NESTED)
def test_the_fast_parameters_read_back_as_given_or_go_the_clients_way(graph, value):
    # Whichever pass unquotes the map names (a quote inside a string or not), FalkorDB reads back what
    # was given; a map name that is not a plain identifier sends it the client's way.
    header = parameters_header({"x": value})
    if header is None:
        return
    assert plain_of(graph.query(header + "RETURN $x").result_set[0][0]) == value


@pytest.mark.parametrize(
    "given",
    [{"x": "a\x00b"}, {"x": {"not plain": 1}}, {"x": {"a`b": 1}}, {"x": NOW}, {"x": float("nan")}],
    ids=["nul", "space", "backtick", "datetime", "nan"],
)
def test_what_the_fast_parameters_cannot_carry_goes_the_clients_way(graph, given):
    assert parameters_header(given) is None


def _shown(found: object) -> str:
    """A reply as text that tells every type apart (1, 1.0 and True; a list and a map)."""
    return repr(found)


SCALARS = [
    "RETURN null, '', 'é漢😀\u2028', 'a\"b\\\\c', 0, -1, 9223372036854775807, -9223372036854775808",
    "RETURN true, false, 0.0, -0.0, 1.5, 1e300, -2.5e-300, 0.1 + 0.2, 1.0 / 3",
    "RETURN [], [1, 1.0, true, 'x', null], [[1, [2, [3]]], []], [[]]",
    "RETURN {}, {a: 1, b: [1.5, {c: 'd'}], `not plain`: null}, [{a: {b: {}}}]",
    "RETURN localdatetime('2026-11-02T16:00:00'), localdatetime('1969-07-20T20:17:40.5'), "
    "  date('2026-01-02'), localtime('12:34:56')",
    "UNWIND range(1, 300) AS n RETURN n, toString(n), n * 1.5, [n, toString(n)], n % 2 = 0",
    "RETURN 1 AS one LIMIT 0",
]


def _compact(graph, query: str) -> list:
    return graph.execute_command("GRAPH.RO_QUERY", graph.name, query, "--compact")


@pytest.mark.parametrize("query", SCALARS)
def test_a_decoded_reply_is_what_the_client_parses(graph, query):
    graph.query("RETURN 1")  # the graph exists: a read of one that does not is refused (below)
    expected = _shown(graph.ro_query(query).result_set)
    assert _shown(read_rows(graph, query)) == expected
    # decoded here, not handed to the client: every cell of the reply is one the decoder reads itself
    assert _shown([[wire.cell_value(cell) for cell in row] for row in _compact(graph, query)[1]]) == expected


ANY_VALUE = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.from_regex(r"[a-z]{1,4}", fullmatch=True), inner, max_size=3)
    ),
    max_leaves=10,
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=ANY_VALUE)
def test_any_value_read_back_decoded_is_what_the_client_parses(graph, value):
    graph.query("RETURN 1")
    query = "RETURN $x, [$x, $x]"
    try:
        expected = _shown(graph.ro_query(query, {"x": value}).result_set)
    except ResponseError as error:  # a text FalkorDB cannot read (a NUL): refused the same way
        with pytest.raises(ResponseError) as ours:
            read_rows(graph, query, {"x": value})
        assert str(ours.value) == str(error)
        return
    assert _shown(read_rows(graph, query, {"x": value})) == expected


def _entities(found: object) -> object:
    """A reply with the client's Node, Edge and Path objects as their attributes (they have no __eq__)."""
    if isinstance(found, list):
        return [_entities(one) for one in found]
    if isinstance(found, dict):
        return {name: _entities(one) for name, one in found.items()}
    if hasattr(found, "__dict__"):
        return (type(found).__name__, _entities(vars(found)))
    return repr(found)


GRAPH_ENTITIES = [
    "MATCH (n:Thing) RETURN n",
    "MATCH ()-[r:TO]->() RETURN r",
    "MATCH p = (:Thing)-[:TO]->(:Thing) RETURN p",
    "MATCH (n:Thing) RETURN n.name, [n]",
    "RETURN point({latitude: 1.5, longitude: 2.5})",
    "RETURN vecf32([1.0, 2.5])",
    "RETURN duration('P1DT2H')",
]


@pytest.mark.parametrize("query", GRAPH_ENTITIES)
def test_a_reply_holding_what_needs_the_schema_is_left_to_the_client(graph, query):
    graph.query("CREATE (:Thing {name: 'a'})-[:TO {w: 1}]->(:Thing {name: 'b'})")
    assert _entities(read_rows(graph, query)) == _entities(graph.ro_query(query).result_set)
    with pytest.raises(wire._ForTheClient):  # the decoder itself does not read it
        [[wire.cell_value(cell) for cell in row] for row in _compact(graph, query)[1]]


def test_an_error_is_the_one_the_client_raises(graph):
    graph.query("RETURN 1")
    for query in ["RETURN nosuchfunction(1)", "MATCH (n) RETURN", "CREATE (:Written)"]:
        with pytest.raises(ResponseError) as client:
            graph.ro_query(query)
        with pytest.raises(ResponseError) as ours:
            read_rows(graph, query)
        assert str(ours.value) == str(client.value)
    assert graph.ro_query("MATCH (n:Written) RETURN count(n)").result_set == [[0]]


def test_a_graph_that_does_not_exist_reads_as_no_rows_and_stays_absent(graph, db):
    with pytest.raises(ResponseError, match="empty key"):
        read_rows(graph, "RETURN 1")
    assert read(graph, "MATCH (n) RETURN n") == []
    assert graph.name not in db.list_graphs()


def test_parameters_the_header_cannot_carry_go_the_clients_way(graph):
    graph.query("RETURN 1")
    for params in [{"x": NOW.isoformat(), "y": {"a b": "\x01"}}, {"x": {"not plain": 1}}]:
        assert parameters_header(params) is None
        query = "RETURN $x" + (", $y" if "y" in params else "")
        assert read_rows(graph, query, params) == graph.ro_query(query, params).result_set


class Counting:
    """A stand-in for a graph that counts its reads: it is asked by its own ro_query()."""

    def __init__(self, graph):
        self.graph, self.reads = graph, []

    def ro_query(self, query, params=None, **options):
        self.reads.append(query)
        return self.graph.ro_query(query, params, **options)

    def __getattr__(self, name):
        return getattr(self.graph, name)


def test_a_stand_in_for_a_graph_is_asked_by_its_ro_query(graph):
    graph.query("RETURN 1")
    counting = Counting(graph)
    assert read_rows(counting, "RETURN $x", {"x": [1, "a"]}) == [[[1, "a"]]]
    assert counting.reads == ["RETURN $x"]


def test_a_timeout_travels_as_the_clients_does(graph):
    graph.query("UNWIND range(1, 3) AS n CREATE (:Thing {n: n})")
    assert read_rows(graph, "MATCH (n:Thing) RETURN n.n ORDER BY n.n", timeout=5_000) == [[1], [2], [3]]
    with pytest.raises(ResponseError, match="[Tt]imeout|[Tt]imed out"):
        read_rows(
            graph,
            "UNWIND range(1, 3000) AS a UNWIND range(1, 3000) AS b WITH a WHERE a < b - 5000 RETURN count(a)",
            timeout=1,
        )
    with pytest.raises(Exception, match="Timeout argument"):
        read_rows(graph, "RETURN 1", timeout=1.5)


def test_a_nul_goes_the_clients_way():
    assert parameters_header({"x": "a\x00b"}) is None
    assert parameters_header({"x": ["ok", {"y": "\x00"}]}) is None
    assert parameters_header({"x": "a\x01b"}) == 'CYPHER x="a\x01b" '


class Writing(Counting):
    """A stand-in for a graph that records the write queries it is asked."""

    def query(self, query, params=None, **options):
        self.reads.append(query)
        return self.graph.query(query, params, **options)


@pytest.mark.parametrize("text", ["plain", "user\x1fsession", 'a"b\\', "x\ny", "\x00"])
def test_a_write_answers_what_the_client_gives_and_writes_once(graph, text):
    query = "CREATE (t:Thing {name: $name, n: $n}) RETURN t.name, t.n, [t.n, 1.5, true, null]"
    params = {"name": text, "n": 7}
    try:
        expected = graph.query(query, params).result_set
    except ResponseError as error:  # a text FalkorDB cannot read (a NUL): refused the same way
        with pytest.raises(ResponseError) as ours:
            written_rows(graph, query, params)
        assert str(ours.value) == str(error)
        return
    assert written_rows(graph, query, params) == expected == [[text, 7, [7, 1.5, True, None]]]
    assert graph.ro_query("MATCH (t:Thing) RETURN count(t)").result_set == [[2]]  # each call wrote once
    writing = Writing(graph)
    assert written_rows(writing, query, params) == expected
    assert writing.reads == [query]
    with pytest.raises(ResponseError, match="Division by zero"):  # an error inside the reply
        written_rows(graph, "CREATE (t:Thing {n: 1}) RETURN t.n / $zero", {"zero": 0})
    with pytest.raises(ResponseError):  # an error of the query itself
        written_rows(graph, "CREATE (t:Thing {n: 1}) RETURN", {"zero": 0})


# --- a reply read by its caller: read_reply() and rows_read() ------------------------------------------


def test_a_reply_read_by_its_caller_holds_the_cells_the_decoder_reads(graph):
    graph.query("UNWIND range(1, 3) AS n CREATE (:Thing {n: n, name: 'x' + toString(n)})")
    query = "MATCH (t:Thing) RETURN t.n, properties(t) ORDER BY t.n"
    reply = wire.read_reply(graph, query, {"least": 1}, timeout=5_000)
    decoded_here = wire.rows_read(reply, lambda row: [wire.cell_value(cell) for cell in row])
    assert decoded_here == read_rows(graph, query) and len(decoded_here) == 3
    assert wire.read_reply(graph, "MATCH (t:Thing) WHERE t.n > $n RETURN t", {"n": 9})[1] == []


def test_a_reply_with_what_only_the_client_reads_is_left_to_decoded(graph):
    graph.query("CREATE (:Thing {name: 'a', v: vecf32([1.0, 2.5])})")
    query = "MATCH (t:Thing) RETURN t.name, t.v"
    reply = wire.read_reply(graph, query)
    assert wire.rows_read(reply, lambda row: [wire.cell_value(cell) for cell in row]) is None
    assert _entities(wire.decoded(graph, reply)) == _entities(graph.ro_query(query).result_set)


def test_a_reply_read_by_its_caller_raises_what_the_client_raises(graph, db):
    with pytest.raises(ResponseError, match="empty key"):  # no graph yet
        wire.read_reply(graph, "RETURN 1")
    graph.query("RETURN 1")
    for query in ["RETURN nosuchfunction(1)", "MATCH (n) RETURN", "CREATE (:Written)"]:
        with pytest.raises(ResponseError) as client:
            graph.ro_query(query)
        with pytest.raises(ResponseError) as ours:
            wire.read_reply(graph, query)
        assert str(ours.value) == str(client.value)
    with pytest.raises(ResponseError, match="[Tt]imeout|[Tt]imed out"):
        wire.read_reply(
            graph,
            "UNWIND range(1, 3000) AS a UNWIND range(1, 3000) AS b WITH a WHERE a < b - 5000 RETURN count(a)",
            timeout=1,
        )


def test_a_reply_the_compact_form_cannot_ask_for_is_none(graph):
    graph.query("RETURN 1")
    assert wire.read_reply(Counting(graph), "RETURN 1") is None  # a stand-in: its own ro_query()
    assert wire.read_reply(graph, "RETURN $x", {"x": NOW.isoformat(), "y": {"a b": 1}}) is None
    assert wire.read_reply(graph, "RETURN 1", timeout=1.5) is None
