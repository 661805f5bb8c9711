"""embed_said(), said_waiting(), said_like(): a user's messages found by meaning, and by no one else.

A message's vector is kept on a node of its own, `(message)-[:LH_VECTOR]->(:MessageVector {lh.vector,
lh.model})`, not on the message: messages() and context() read properties(m), which would carry the
vector on every read. said_like() compares the question with the vectors of the one user's messages
only, reached from that user's sessions (the index on Session.user), so another user's message is never
read, let alone given; it is exact, and costs what the user said. forgetting.py deletes the vectors of a
session before its messages.

The rule of vector.py: arguments checked first (Refused, WrongType); an embedder's answer that is not
one vector per text of finite numbers raises EmbedderError and nothing is stored; what the embedder
raises passes unchanged.
"""

from __future__ import annotations

from ..errors import WrongType
from ..graphs import read
from ..kinds import VECTOR, VECTOR_MODEL, VECTOR_OF
from ..recall.vector import EmbedderError, checked_call, vectors_of
from ..values import name as checked_name
from ..values import text as checked_text
from .talk import how_many, message_of, own_user
from .waiting_messages import MESSAGE_VECTOR, follow_model, store_vectors, to_embed, waiting

MAX_EMBED = 1_000
SEARCH_TIMEOUT = 5_000  # milliseconds


def embed_said(graph, embedder, model, limit=100) -> dict:
    """Gives a vector of `model` to up to `limit` messages (of every user) that have none of it, asking
    embedder(texts) once. Returns {"embedded", "waiting"}: call again until waiting is 0.

    A message with no text gets a vector of its one space. Raises WrongType for an embedder that cannot be
    called, Refused for model (a name) or limit (1 to 1,000), EmbedderError for an answer that is not one
    vector of one size per text, all before anything is stored.
    """
    model, limit = checked_call(embedder, model, limit, MAX_EMBED)
    labelled = follow_model(graph, model)
    rows = [
        {"key": key, "text": text, "kept": kept}
        for key, text, kept in to_embed(graph, model, limit, labelled)
    ]
    asked = [row for row in rows if not row["kept"]]
    dimensions = 1
    if asked:
        texts = [
            row["text"] if isinstance(row["text"], str) and row["text"].strip() else " " for row in asked
        ]
        answer = embedder(list(texts))
        first = answer[0] if type(answer) in (list, tuple) and answer else None
        if type(first) not in (list, tuple) or not first:
            raise EmbedderError(
                "an embedder answers with one vector (a list or tuple of numbers) for each text"
            )
        dimensions = len(first)
        for row, vector in zip(asked, vectors_of(answer, len(texts), dimensions), strict=True):
            row["vector"] = vector
    embedded = store_vectors(graph, model, rows, labelled, dimensions)
    return {"embedded": embedded, "waiting": waiting(graph, model)}


def said_waiting(graph, model) -> int:
    """How many messages (of every user) have no vector of `model` yet; nothing is written. Refused for a
    model that is not a name."""
    return waiting(graph, checked_name(model, "model"))


_LIKE = (
    f"MATCH (s:Session {{user: $user}})-[:HAS]->(m:Message)-[:{VECTOR_OF}]->(v:{MESSAGE_VECTOR}) "
    f"WHERE m.user = $user AND v.`{VECTOR_MODEL}` = $model "
    f"WITH m, vec.cosineDistance(v.`{VECTOR}`, vecf32($vector)) AS far "
    "ORDER BY far, m.at DESC, m.session, m.seq DESC LIMIT $limit "
    "RETURN properties(m), 1.0 - far"
)


def question_vector(embedder, question: str) -> list[float] | None:
    """The question's vector at unit length, asked of the embedder once; None for a blank question."""
    if not question.strip():
        return None
    answer = embedder([question])
    first = answer[0] if type(answer) in (list, tuple) and len(answer) == 1 else None
    if type(first) not in (list, tuple) or not first:
        raise EmbedderError("an embedder answers with one vector (a list or tuple of numbers) for each text")
    return vectors_of(answer, 1, len(first))[0]


def said_like(graph, user, question, embedder, model, limit=10) -> list[dict]:
    """The user's messages nearest in meaning to the question, best first, each as messages() gives it
    with its "score" (the cosine similarity); ties: the newest first. Only messages with a vector of
    `model` (embed_said()) are compared, and only the user's own.

    Raises Refused for user, model or limit (1 to 1,000), WrongType for a question that is not a str or
    an embedder that cannot be called, EmbedderError for its bad answer. Nothing is written.
    """
    user = own_user(user)
    model, _ = checked_call(embedder, model, 1, 1)
    limit = how_many(limit, "limit")
    if type(question) is not str:
        raise WrongType(f"a question must be text, not {type(question).__name__}")
    vector = question_vector(embedder, checked_text(question, "a question"))
    if vector is None:
        return []
    params = {"user": user, "model": model, "vector": vector, "limit": limit}
    found = []
    for stored, score in read(graph, _LIKE, params, timeout=SEARCH_TIMEOUT):
        message = message_of(stored)
        message["score"] = float(score)
        found.append(message)
    return found
