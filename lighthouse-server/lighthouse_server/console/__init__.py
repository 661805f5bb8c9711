"""The review console: server-rendered pages at /console where a person signs in with an API key and
sees what memory holds over time, and (with the scopes) confirms, rejects or invalidates what agents
wrote."""

from .app import console_app

__all__ = ["console_app"]
