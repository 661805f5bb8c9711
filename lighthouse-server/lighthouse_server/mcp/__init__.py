"""The MCP server: the operations of the table as tools, over streamable HTTP and stdio."""

from .transports import KeyVerifier, http_app, run_stdio

__all__ = ["KeyVerifier", "http_app", "run_stdio"]
