"""Which messages wait for a vector, found as entities' are (recall/vector.py): say() makes each message
`MessageToEmbed`, and embed_said() takes the label off in the query that stores its vector, only while
the message still has it, so two calls at once store each vector once. A round reads only the messages
that wait, and said_waiting() counts them, in what waits, not in what the graph holds.

The Stamp keeps the model the label stands for (`said_model`). The first embed_said() of another model,
or of a graph whose messages were said before the label, marks once every message with no vector of it,
a span of node ids a query, keeping how far it came (`said_after`, `said_upto`), so a call that stops
midway goes on where it stopped; until it is done said_waiting() counts every message without a vector of
the model (a read of them all), as it does for any model the label does not stand for. A graph without a
Stamp is read whole each call.

Not a graph-wide serial of messages read past a mark per model, as entries are: its counter, an edge SET
in say()'s query, makes say() a quarter slower inside FalkorDB (0.15 ms of 0.55), where the label in the
message's CREATE costs nothing measured.
"""

from __future__ import annotations

from ..graphs import read
from ..kinds import VECTOR, VECTOR_MODEL, VECTOR_OF
from ..recall.vector import MARK_SPAN, write_chunks

MESSAGE_VECTOR = "MessageVector"  # no Kind label ends in Vector
WAITING = "MessageToEmbed"  # no Kind label ends in ToEmbed
MODEL, AFTER, UPTO = "said_model", "said_after", "said_upto"

_HELD = f"[(m)-[:{VECTOR_OF}]->(held:{MESSAGE_VECTOR}) | held.`{VECTOR_MODEL}`]"
_NO_VECTOR = f"NOT (m)-[:{VECTOR_OF}]->(:{MESSAGE_VECTOR} {{`{VECTOR_MODEL}`: $model}})"
_SWITCH = (
    f"MATCH (st:Stamp) WHERE coalesce(st.{MODEL}, '') <> $model "
    "OPTIONAL MATCH (m:Message) WITH st, max(id(m)) AS top "
    f"SET st.{MODEL} = $model, st.{AFTER} = -1, st.{UPTO} = coalesce(top, -1)"
)
_MARK = (
    "OPTIONAL MATCH (m:Message) WHERE id(m) > $after AND id(m) <= $upto "
    f"WITH m, {_HELD} AS models "
    f"FOREACH (_ IN CASE WHEN m IS NULL OR $model IN models THEN [] ELSE [1] END | SET m:{WAITING}) "
    "WITH count(m) AS marked "
    f"MATCH (st:Stamp) WHERE st.{MODEL} = $model AND st.{AFTER} = $after "
    f"SET st.{AFTER} = CASE WHEN $upto >= st.{UPTO} THEN null ELSE $upto END "
    f"RETURN st.{AFTER}, st.{UPTO}"
)
# A message that waits with a vector of this model already (marked for another in between) keeps it.
_LABELLED = f"MATCH (m:{WAITING}) WITH m LIMIT $limit RETURN m.key, m.text, $model IN {_HELD}"
_UNLABELLED = f"MATCH (m:Message) WHERE {_NO_VECTOR} WITH m LIMIT $limit RETURN m.key, m.text, false"
_LABEL_STANDS = f"MATCH (st:Stamp) RETURN st.{MODEL} = $model AND st.{AFTER} IS NULL"
COUNT_WAITING = f"MATCH (m:{WAITING}) WHERE {_NO_VECTOR} RETURN count(m)"
_COUNT_EVERY = f"MATCH (m:Message) WHERE {_NO_VECTOR} RETURN count(m)"


def follow_model(graph, model: str) -> bool:
    """Makes every message with no vector of this model wait, once after a change of model (or of a
    graph said before the label). False for a graph with no Stamp, whose messages are read whole."""
    asked = f"MATCH (st:Stamp) RETURN st.{MODEL}, st.{AFTER}, st.{UPTO}"
    stamp = read(graph, asked)
    if not stamp:
        return False
    if stamp[0][0] != model:
        graph.query(_SWITCH, {"model": model})
        stamp = read(graph, asked)
    current, after, upto = stamp[0]
    while current == model and after is not None:
        params = {"model": model, "after": after, "upto": min(after + MARK_SPAN, upto)}
        result = graph.query(_MARK, params).result_set
        if not result:  # another call marks, or another model took the label over: it goes on
            break
        after, upto = result[0]
    return True


def to_embed(graph, model: str, limit: int, labelled: bool) -> list:
    """[key, text, whether it holds a vector of the model already] of up to `limit` messages that wait."""
    return read(graph, _LABELLED if labelled else _UNLABELLED, {"model": model, "limit": limit})


def waiting(graph, model: str) -> int:
    """Messages with no vector of the model: those labelled, when the label stands for it and every
    message is marked; else every message without one, each read."""
    stamp = read(graph, _LABEL_STANDS, {"model": model})
    found = read(graph, COUNT_WAITING if stamp and stamp[0][0] is True else _COUNT_EVERY, {"model": model})
    return found[0][0] if found else 0


def _store_query(labelled: bool) -> str:
    # A vector is stored only where the text is still the one the model was asked about, and replaces the
    # one an earlier model gave (listed before the writes: FalkorDB 4.22.1 could not read a pattern
    # comprehension in a FOREACH after a write). Labelled, only while the label stands for this model
    # and the message still waits.
    head = (
        f"MATCH (st:Stamp) WHERE st.{MODEL} = $model UNWIND $rows AS r "
        f"MATCH (m:Message {{key: r.key}}) WHERE m:{WAITING} AND m.text = r.text "
        if labelled
        else "UNWIND $rows AS r MATCH (m:Message {key: r.key}) WHERE m.text = r.text "
    )
    return (
        head + f"WITH m, r, [(m)-[:{VECTOR_OF}]->(old:{MESSAGE_VECTOR}) | old] AS olds "
        "FOREACH (gone IN CASE WHEN r.kept THEN [] ELSE olds END | DELETE gone) "
        "FOREACH (making IN CASE WHEN r.kept THEN [] ELSE [1] END | "
        f"  CREATE (m)-[:{VECTOR_OF}]->(:{MESSAGE_VECTOR} {{`{VECTOR}`: vecf32(r.vector), "
        f"`{VECTOR_MODEL}`: $model}})) "
        f"REMOVE m:{WAITING} "
        "RETURN count(r.vector)"
    )


STORE = {labelled: _store_query(labelled) for labelled in (True, False)}


def store_vectors(graph, model: str, rows: list[dict], labelled: bool, dimensions: int) -> int:
    """Stores the rows ({"key", "text", "kept", "vector": None when kept}) chunk by chunk; the vectors
    written."""
    written = 0
    for chunk in write_chunks(rows, dimensions):
        found = graph.query(STORE[labelled], {"rows": chunk, "model": model}).result_set
        written += found[0][0] if found else 0
    return written
