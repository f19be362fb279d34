from django.apps import AppConfig


class McpServerConfig(AppConfig):
    name = "mcp_server"
    verbose_name = "MCP server for AI agents"
