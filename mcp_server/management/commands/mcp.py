"""``manage.py mcp``: the MCP server on stdin/stdout for a desktop agent, acting as the API key
in ``MCP_API_KEY`` (docs/clients.md). It reads the service's settings as the service does
(config.settings: the environment, then the ``.env`` file beside manage.py), since it reads the
same database, encrypted rows and stored files."""

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
    help = (
        "Serve the MCP tools over stdio as the API key in MCP_API_KEY. Needs the service's "
        "settings, from the environment or the .env file beside manage.py: DATABASE_URL "
        "(default: SQLite in DATA_DIR), SECRET_KEY and FIELD_ENCRYPTION_KEYS (the service's "
        "values), and its storage (DATA_DIR, or S3_BUCKET and its settings)."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        raw_key = os.environ.get("MCP_API_KEY", "")
        api_key = api_key_authenticate(raw_key=raw_key) if raw_key else None
        if api_key is None:
            raise CommandError(
                "Set MCP_API_KEY to a valid API key of the organization (in the agent's "
                "configuration or the .env file beside manage.py), with the service's "
                "DATABASE_URL, SECRET_KEY, FIELD_ENCRYPTION_KEYS and storage settings."
            )
        current_identity.set(ApiIdentity(organization=api_key.organization, api_key=api_key))
        server = server_build()

        async def serve() -> None:
            async with stdio_server() as (read_stream, write_stream):
                await server.run(read_stream, write_stream, server.create_initialization_options())

        anyio.run(serve)
