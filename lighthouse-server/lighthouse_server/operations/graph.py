"""Operations over the whole graph: algorithms (heavy), trust, failures, a read-only query, health."""

from __future__ import annotations

import re

from lighthouse import agent_trust, between, connection, failures, groups, important
from redis.exceptions import ResponseError

from ..problems import DatabaseError, InvalidArgument, NoGraph, Problem, problem_of
from .table import Operation, Param

KINDS = Param("kinds", "kinds", "the kinds to take part", required=True)
RELATIONS = Param("relations", "texts", "the relation types to follow; all of the kinds' if not given")
AT = Param("at", "time", "a time in the past to look at; now if not given")
LIMIT = Param("limit", "int", "how many, 1 to 1000 (default 10)")
QUERY_ROWS_MOST = 10_000


# LOAD CSV reads a file of the server's or a URL: a read key could make the database reach the network.
# A query holding both words anywhere is refused: a clause cannot be written without them, however a
# comment or a string stands around or between them (taking comments out first was fooled by '//' in a
# string). A string that holds both is refused too.
_LOAD = re.compile(r"\bLOAD\b", re.I)
_CSV = re.compile(r"\bCSV\b", re.I)
_PARAMETER_NAME = re.compile(r"\A[A-Za-z_][A-Za-z0-9_]{0,99}\Z")
_INT_RANGE = (-(2**63), 2**63 - 1)


def _checked_parameters(given: object, depth: int = 0) -> None:
    """The query's parameters as FalkorDB takes them exactly: names that are identifiers, whole numbers of
    64 bits (a larger one was sent as the largest, silently), nesting of at most 20."""
    if depth > 20:
        raise Problem("invalid_argument", "parameters are nested more than 20 deep")
    if type(given) is dict:
        for name, item in given.items():
            if depth == 0 and not _PARAMETER_NAME.match(name):
                raise Problem("invalid_argument", f"a parameter's name is a plain identifier: {name[:80]!r}")
            _checked_parameters(item, depth + 1)
    elif type(given) is list:
        for item in given:
            _checked_parameters(item, depth + 1)
    elif type(given) is int and not _INT_RANGE[0] <= given <= _INT_RANGE[1]:
        raise Problem("invalid_argument", "a whole number parameter is out of the 64-bit range")


def _cypher(call, arguments: dict) -> dict:
    query, parameters = arguments["query"], arguments.get("parameters", {})
    if len(query) > 20_000:
        raise Problem("invalid_argument", "query must be at most 20000 characters")
    if _LOAD.search(query) and _CSV.search(query):
        raise Problem("invalid_argument", "LOAD CSV is not run here: it would read files or the network")
    _checked_parameters(parameters)
    # GRAPH.RO_QUERY: the server itself refuses any write; the tenant's graph is the only one it reaches.
    try:
        result = call.graph.ro_query(query, parameters, timeout=call.parts.settings.query_timeout_ms)
    except ResponseError as error:
        problem = problem_of(error)
        if isinstance(problem, NoGraph):  # nothing was written to the tenant yet
            return {"columns": [], "rows": [], "truncated": False}
        if isinstance(problem, DatabaseError):
            # The query's own fault (its syntax, a missing parameter, a division by zero, its memory): 400.
            raise InvalidArgument(f"the database refused the query: {str(error)[:400]}") from None
        raise problem from None  # too_slow, or a write refused
    header = [column[1] if isinstance(column, list | tuple) else column for column in (result.header or [])]
    # Said, not silently cut: a caller told "truncated" knows to add a LIMIT or page with SKIP.
    return {
        "columns": header,
        "rows": result.result_set[:QUERY_ROWS_MOST],
        "truncated": len(result.result_set) > QUERY_ROWS_MOST,
    }


def _health(call, arguments: dict) -> dict:
    return call.parts.health()


OPERATIONS = [
    Operation(
        "groups",
        groups,
        "read",
        (
            KINDS,
            RELATIONS,
            Param("records", "texts", "record labels to take part: Episode, Entry, Lesson, Playbook"),
            Param("at_least", "int", "the smallest group (default 2)"),
            Param("limit", "int", "how many groups, 1 to 1000"),
            Param("show", "int", "members shown per group"),
            AT,
        ),
        '[{"size", "members": [[label, key], ...]}] largest first',
        "Groups of entities connected to each other. Heavy: limited per key and minute.",
        example={"kinds": ["Device"]},
        heavy=True,
    ),
    Operation(
        "important",
        important,
        "read",
        (KINDS, Param("relation", "text", "one relation type; all if not given"), LIMIT, AT),
        '[{"entity": [label, key], "score"}] highest first',
        "The most central entities (PageRank). Heavy: limited per key and minute.",
        example={"kinds": ["Device"]},
        heavy=True,
    ),
    Operation(
        "between",
        between,
        "read",
        (
            KINDS,
            RELATIONS,
            LIMIT,
            Param("sample", "int", "sample this many starts (faster, rougher)"),
            Param("seed", "int", "the sample's seed"),
            AT,
        ),
        '[{"entity": [label, key], "score"}] highest first',
        "The entities most often on the way between others (betweenness). Heavy: limited per key and minute.",
        example={"kinds": ["Device"]},
        heavy=True,
    ),
    Operation(
        "connection",
        connection,
        "read",
        (
            Param("start", "ref", "[kind, key] of one end", required=True),
            Param("end", "ref", "[kind, key] of the other end", required=True),
            Param("kinds", "kinds", "the kinds the way may pass through"),
            RELATIONS,
            Param("max_hops", "int", "the longest way, 1 to 10 (default 6)"),
            AT,
        ),
        '[{"from", "relation", "to", "forward", "current", "since", "until"}], [] for the same end, null for none',
        "The shortest way between two entities. Heavy: limited per key and minute.",
        example={"start": ["Device", "d1"], "end": ["Room", "r1"]},
        heavy=True,
    ),
    Operation(
        "failures",
        failures,
        "read",
        (
            Param("kind", "text", "only those of this kind label"),
            Param("reason", "text", "only those with this status"),
            Param("limit", "int", "how many, 1 to 10000 (default 100)"),
        ),
        "the stored refusals (WriteFailures), newest first: reason, message, kind, key, detail, times",
        "What was refused and why: every write that could not be stored is kept here.",
        example={},
    ),
    Operation(
        "agent_trust",
        agent_trust,
        "read",
        (Param("agent", "text", "the agent's name", required=True),),
        '{"agent", "score" (0 to 1, or null), counts of its record}',
        "How far an agent's work has held up: a score and the counts behind it.",
        example={"agent": "night-shift"},
    ),
    Operation(
        "cypher",
        None,
        "read",
        (
            Param("query", "text", "an openCypher query that reads (MATCH ... RETURN ...)", required=True),
            Param("parameters", "object", "the query's $parameters"),
        ),
        '{"columns", "rows", "truncated"} (at most 10000 rows, truncated true when there were more; nodes as '
        '{"labels", "properties"})',
        "Run a read-only openCypher query on your tenant's graph, with a time limit. Writes are refused by "
        "the database. Entities are nodes labelled Entity and their kind; their versions are State nodes.",
        example={"query": "MATCH (e:Entity) RETURN e.key ORDER BY e.key LIMIT 5"},
        answer=_cypher,
    ),
    Operation(
        "health",
        None,
        "read",
        (),
        '{"status": "ok" or "degraded", "database": "ok" or "unreachable"}',
        "Whether the service and its database answer.",
        answer=_health,
    ),
]
