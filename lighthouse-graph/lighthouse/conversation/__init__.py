"""Conversations: what was said with each user, in order, with one summary per session, and erasure.

talk.py: say(), messages(), sessions(), context(), summarize(); recall.py: said_about(), said();
meaning.py: embed_said(), said_waiting(), said_like(); forgetting.py: forget_session(), forget_user().
"""

from .forgetting import forget_session, forget_user
from .meaning import embed_said, said_like, said_waiting
from .recall import said, said_about
from .talk import context, messages, say, sessions, summarize

__all__ = [
    "context",
    "embed_said",
    "forget_session",
    "forget_user",
    "messages",
    "said",
    "said_about",
    "said_like",
    "said_waiting",
    "say",
    "sessions",
    "summarize",
]
