"""The operations of the table as MCP tools, through the official SDK's low-level server.

The caller's principal comes from the transport: the bearer token checked by the SDK's token
verifier over streamable HTTP, the key of LIGHTHOUSE_KEY over stdio. No tool argument names a
tenant or an agent. A key sees, and may call, only the tools its scopes allow, and of those only the
compact AGENT_TOOLS unless the operator set mcp_tools = "all": every tool listed costs the agent's
context its description and schema.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import anyio.to_thread
import mcp_types as types
from mcp.server.lowlevel import Server

from ..encoding import dumps
from ..operations import TABLE, Operation
from ..parts import Parts
from ..problems import Problem, problem_of
from .row_schemas import ROW_TOOLS, tailored

IDEMPOTENCY = {
    "type": "string",
    "description": "optional, your choice: a retry with the same key returns the first answer, stores nothing twice",
}
# What an agent needs to keep and find its facts, its work, its handoffs and its conversations.
AGENT_TOOLS = (
    "remember",
    "update_rows",
    "recall",
    "note",
    "history",
    "as_of",
    "open_episode",
    "record",
    "close_episode",
    "tasks",
    "claim",
    "complete",
    "hand_off",
    "handoffs_for",
    "say",
    "context",
)
INSTRUCTIONS = (
    "Lighthouse is a temporal graph memory. Entities belong to kinds (the row tools' schemas name them); each "
    "fact is kept with the time it became true (ISO 8601 UTC), and older versions stay readable (history, "
    "as_of). To change some facts of an entity and keep the rest, use update_rows; remember writes full "
    "pictures, and what its row leaves out ENDS. Find facts with recall; keep your work in episodes "
    "(open_episode, record, close_episode) and notes (note); share work with tasks, claim, complete and "
    "hand_off. Writes answer with receipts: a refused item says why."
)


def tool(operation: Operation) -> types.Tool:
    schema = operation.input_schema()
    if operation.writes:
        schema = {**schema, "properties": {**schema["properties"], "idempotency_key": IDEMPOTENCY}}
    description = f"{operation.description} Returns {operation.result}."
    if operation.paged:
        description += " Paged: the result is {items, next_cursor}; pass next_cursor as cursor for more."
    description += f" Scope: {operation.scope}."
    return types.Tool(
        name=operation.name,
        description=description,
        input_schema=schema,
        annotations=types.ToolAnnotations(
            title=operation.name.replace("_", " "),
            read_only_hint=operation.read_only,
            destructive_hint=operation.destructive,
            idempotent_hint=operation.idempotent,
            open_world_hint=False,
        ),
    )


def _error(problem: Problem) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=json.dumps(problem.body()))],
        structured_content=problem.body(),
        is_error=True,
    )


def shown_to(scopes: frozenset[str], every_tool: bool) -> list[str]:
    """The names of the tools a key with these scopes sees: its scopes' operations, of the compact set
    unless every_tool."""
    return [
        name
        for name, operation in TABLE.items()
        if operation.scope in scopes and (every_tool or name in AGENT_TOOLS)
    ]


def _answer(result: object) -> types.CallToolResult:
    """A result in one shape: {"result": ...} as the structured content and, the same, as text."""
    wrapped = {"result": result}
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=dumps(wrapped))], structured_content=wrapped
    )


def server(service, parts: Parts, principal_of: Callable[[object], object]) -> Server:
    """An MCP server for the service; principal_of(ctx) gives the caller's principal or raises Problem.
    Of the parts: the settings' mcp_tools, and the tenants' kinds that the row tools' schemas name."""
    tools = {name: tool(operation) for name, operation in TABLE.items()}
    chosen, tenants_kinds = parts.settings.mcp_tools, parts.kinds
    every_tool = chosen == "all"

    def listed(ctx) -> list[types.Tool]:
        principal = principal_of(ctx)
        names = shown_to(principal.scopes, every_tool)
        kinds = tenants_kinds.declared(principal.tenant)[1] if set(ROW_TOOLS) & set(names) else {}
        return [
            tools[name].model_copy(update={"input_schema": tailored(tools[name].input_schema, kinds)})
            if name in ROW_TOOLS
            else tools[name]
            for name in names
        ]

    async def list_tools(ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=await anyio.to_thread.run_sync(listed, ctx))

    async def call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        arguments = dict(params.arguments or {})
        try:
            principal = await anyio.to_thread.run_sync(principal_of, ctx)
            shown = shown_to(principal.scopes, every_tool)
            if (
                params.name not in shown
                and params.name in TABLE
                and TABLE[params.name].scope in principal.scopes
            ):
                raise Problem(
                    "not_found",
                    f"{params.name} is not among this server's MCP tools (the operator's mcp_tools setting "
                    f"is {chosen!r}); it is POST /v1/{params.name} over HTTP",
                )
            operation = TABLE.get(params.name)
            idempotency_key = (
                arguments.pop("idempotency_key", None) if operation and operation.writes else None
            )
            result = await anyio.to_thread.run_sync(
                service.run, principal, params.name, arguments, idempotency_key
            )
        except Exception as error:  # noqa: BLE001 - every refusal as the one shape
            return _error(problem_of(error))
        return _answer(result)

    return Server(
        "lighthouse",
        version="0.1.0",
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )
