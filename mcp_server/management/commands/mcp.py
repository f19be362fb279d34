"""``manage.py mcp``: the MCP server on stdin/stdout for a desktop agent, acting as the API key
in ``MCP_API_KEY`` (docs/clients.md)."""

from __future__ import annotations

import os
from typing import Any

import anyio
from django.core.management.base import BaseCommand, CommandError
from mcp.server.stdio import stdio_server

from accounts.identity import ApiIdentity
from accounts.services import api_key_authenticate
from mcp_server.server import current_identity, server_build


class Command(BaseCommand):
    help = "Serve the MCP tools over stdio as the API key in MCP_API_KEY."

    def handle(self, *args: Any, **options: Any) -> None:
        raw_key = os.environ.get("MCP_API_KEY", "")
        api_key = api_key_authenticate(raw_key=raw_key) if raw_key else None
        if api_key is None:
            raise CommandError("Set MCP_API_KEY to a valid API key of the organization.")
        current_identity.set(ApiIdentity(organization=api_key.organization, api_key=api_key))
        server = server_build()

        async def serve() -> None:
            async with stdio_server() as (read_stream, write_stream):
                await server.run(read_stream, write_stream, server.create_initialization_options())

        anyio.run(serve)
