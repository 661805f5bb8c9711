"""A Python client of the HTTP API: `Client(url, key).remember(...)`; see calls.py."""

from .calls import Client, ServiceError, Unreachable

__all__ = ["Client", "ServiceError", "Unreachable"]
