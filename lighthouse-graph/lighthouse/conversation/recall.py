"""said_about(), said(): a user's messages found by what they mention, or by the words of their text.

Both read the messages of one user only. said() asks the text index for the user's word (talk.user_word)
with the words of the question, and the query still checks the user, since a text can hold another user's
word. Their arguments are checked before the query: a bad one raises and nothing is written.
"""

from __future__ import annotations

from .. import values as limits
from ..errors import Refused
from ..graphs import read
from ..recall.rank import fuse
from ..references import parse
from .meaning import said_like
from .talk import how_many, message_of, own_user, reference_key, user_word

SEARCH_TIMEOUT = 5_000  # milliseconds: FalkorDB stops a read that takes longer

# The reference first: with the filter on m in the same MATCH, FalkorDB 4.22 read every Message.
# (session, seq) is one message of the user, so the order is total.
_SAID_ABOUT = (
    "MATCH (r:Reference {key: $reference_key}) WITH r "
    "MATCH (r)<-[:MENTIONS]-(m:Message) "
    "WHERE m.user = $user "
    "WITH m ORDER BY m.at DESC, m.session, m.seq DESC LIMIT $limit "
    "RETURN properties(m)"
)


def _newest_first(message: dict) -> tuple:
    return (-message["at"].timestamp(), message["session"], -message["seq"])


def said_about(graph, user, reference, limit=20) -> list[dict]:
    """The user's messages that mention a reference, newest first (at descending, then session, then
    seq descending), each as messages() gives it.

    reference: (Kind, key), (label, id) or an entry id. Raises Refused for user, for the reference ("reference:
    not a reference ...") or for limit (1 to 1,000). Nothing is written; database errors, and a search
    stopped after 5 seconds, pass as ResponseError.
    """
    user = own_user(user)
    try:
        label, key = parse(reference, entity_label=False)
    except Refused as error:
        raise Refused(f"reference: not a reference: {error}") from None
    params = {"reference_key": reference_key(label, key), "user": user, "limit": how_many(limit, "limit")}
    found = [message_of(row[0]) for row in read(graph, _SAID_ABOUT, params, timeout=SEARCH_TIMEOUT)]
    return sorted(found, key=_newest_first)


_SAID = (
    "CALL db.idx.fulltext.queryNodes('Message', $query) YIELD node, score "
    "WITH node AS m, score WHERE m.user = $user "
    "WITH m, score ORDER BY score DESC, m.at DESC, m.session, m.seq DESC LIMIT $limit "
    "RETURN properties(m), score"
)


def said(graph, user, question, limit=10, match="all", *, embedder=None, model=None) -> list[dict]:
    """The user's messages whose text holds the question's words, best first (score, then newest), each
    as messages() gives it with its "score".

    Only the letters and digits of the question go to the index, as at most 20 words: its query
    language (*, -, |, @field:) cannot be used. match="all": messages with every word; "any": with any.
    The values of messages are not searched, nor summaries. A question with no letter or digit gives []
    without a query. Raises WrongType when question is not a str, Refused for user, match or limit
    (1 to 1,000), all checked before anything is searched. Nothing is written; database errors, and a
    search stopped after 5 seconds, pass as ResponseError.
    Keyword only: embedder and model, as embed_said() takes them: the user's messages nearest in meaning
    (meaning.said_like()) fused by place with those of the words (rank.fuse()), each with the fused
    "score" and its "places"; what said_like() raises.
    """
    user = own_user(user)
    limit = how_many(limit, "limit")
    if type(match) is not str or match not in ("all", "any"):
        raise Refused('match must be "all" or "any"')
    if embedder is not None:
        return _fused(graph, user, question, limit, match, embedder, model)
    asked = limits.question(question)
    if not asked:
        return []
    words = " ".join(asked) if match == "all" else "(" + "|".join(asked) + ")"
    params = {"query": f"{user_word(user)} {words}", "user": user, "limit": limit}
    found = []
    for stored, score in read(graph, _SAID, params, timeout=SEARCH_TIMEOUT):
        message = message_of(stored)
        message["score"] = float(score)
        found.append(message)
    return sorted(found, key=lambda message: (-message["score"], *_newest_first(message)))


def _fused(graph, user: str, question, limit: int, match: str, embedder, model) -> list[dict]:
    """said() by words and said_like() by meaning, fused by place."""
    meaning = said_like(graph, user, question, embedder, model, limit)
    words = said(graph, user, question, limit, match)
    found: dict[tuple, dict] = {}
    rankings: dict[str, list] = {}
    for name, ranking in (("words", words), ("meaning", meaning)):
        for message in ranking:
            identity = (message["session"], message["seq"])
            found.setdefault(identity, message)
            rankings.setdefault(name, []).append({"key": list(found).index(identity)})
    identities = list(found)
    return [
        {**found[identities[item["key"]]], "score": item["score"], "places": item["places"]}
        for item in fuse(rankings=rankings, limit=limit)
    ]
