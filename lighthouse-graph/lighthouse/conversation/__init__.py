"""Conversations: what was said with each user, in order, with one summary per session, and erasure.

talk.py: say(), messages(), sessions(), context(), summarize(); recall.py: said_about(), said();
forgetting.py: forget_session(), forget_user().
"""

from .forgetting import forget_session, forget_user
from .recall import said, said_about
from .talk import context, messages, say, sessions, summarize

__all__ = [
    "context",
    "forget_session",
    "forget_user",
    "messages",
    "said",
    "said_about",
    "say",
    "sessions",
    "summarize",
]
