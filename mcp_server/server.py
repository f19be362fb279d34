"""The MCP server (the official SDK's low-level ``Server``): the tools of ``mcp_server.tools``
with their JSON Schemas, acting as the API key of the connection.

The identity is the caller's: ``manage.py mcp`` authenticates ``MCP_API_KEY`` once, the HTTP
endpoint each request's key (``mcp_server.views``); both set :data:`current_identity` before
serving. Tools run in a worker thread: Django's ORM is synchronous, the SDK's loop is not.
"""

from __future__ import annotations

import contextvars
import json
from typing import Any

import anyio.to_thread
import mcp_types as types
from django.db import close_old_connections
from mcp.server import Server, ServerRequestContext

from accounts.identity import ApiIdentity
from mcp_server.tools import TOOLS, ToolAnswer, ToolError, file_base64, tool_run

SERVER_NAME = "document-automation"

current_identity: contextvars.ContextVar[ApiIdentity] = contextvars.ContextVar("mcp_identity")


def tool_definitions() -> list[types.Tool]:
    return [
        types.Tool(name=spec.name, description=spec.description, input_schema=spec.input_schema())
        for spec in TOOLS.values()
    ]


def _in_thread(identity: ApiIdentity, name: str, arguments: dict[str, Any]) -> Any:
    close_old_connections()
    try:
        return tool_run(identity, name, arguments)
    finally:
        close_old_connections()


def call_result(answer: ToolAnswer | ToolError) -> types.CallToolResult:
    """MCP's shape: a refusal is a tool error (``isError``) whose content is the wire error."""
    if isinstance(answer, ToolError):
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=json.dumps(answer.wire))],
            structured_content=answer.wire,
            is_error=True,
        )
    content: list[Any] = [types.TextContent(type="text", text=json.dumps(answer.structured))]
    structured = dict(answer.structured)
    for tool_file in answer.files:
        encoded = file_base64(tool_file)
        structured["base64"] = encoded
        content.append(
            types.EmbeddedResource(
                type="resource",
                resource=types.BlobResourceContents(
                    uri=f"file:///{tool_file.filename}",
                    mime_type=tool_file.mime_type,
                    blob=encoded,
                ),
            )
        )
    return types.CallToolResult(content=content, structured_content=structured)


async def _list_tools(
    ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    return types.ListToolsResult(tools=tool_definitions())


async def _call_tool(
    ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
) -> types.CallToolResult:
    identity = current_identity.get()
    arguments = dict(params.arguments or {})
    answer = await anyio.to_thread.run_sync(_in_thread, identity, params.name, arguments)
    return call_result(answer)


def server_build() -> Server[Any]:
    return Server(
        SERVER_NAME,
        instructions="Fill PDF templates, generate PDFs, run e-signature packets and submit "
        "workflows of one organization (the API key's).",
        on_list_tools=_list_tools,
        on_call_tool=_call_tool,
    )
