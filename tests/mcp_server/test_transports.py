"""The MCP server's two transports with the SDK's own client: Streamable HTTP at /mcp on a live
server (the organization's API key as a Bearer token), and ``manage.py mcp`` over stdio."""

from __future__ import annotations

import base64
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from django.db import connection
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from tests.pdfcheck import page_text

ROOT = Path(__file__).resolve().parents[2]
HTML = {"type": "html", "data": {"html": "<p>Over the wire</p>"}}


def over_http(url: str, key: str | None, work: Any) -> Any:
    async def run() -> Any:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=60) as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            return await work(client)

    return anyio.run(run)


@pytest.mark.django_db(transaction=True)
def test_the_http_endpoint_lists_and_calls_tools_with_the_key(live_server, api_key) -> None:
    async def work(client: Client) -> Any:
        tools = await client.list_tools()
        made = await client.call_tool("generate_pdf", HTML)
        bad = await client.call_tool("get_packet", {"eid": "nope"})
        return tools, made, bad

    tools, made, bad = over_http(f"{live_server.url}/mcp", api_key, work)

    assert len(tools.tools) == 7
    pdf = base64.b64decode(made.structured_content["base64"])
    assert "Over the wire" in page_text(pdf)
    assert bad.is_error is True
    assert bad.structured_content["name"] == "NotFoundError"


@pytest.mark.django_db(transaction=True)
def test_the_http_endpoint_refuses_a_request_without_a_key(client) -> None:
    ping = '{"jsonrpc": "2.0", "id": 7, "method": "ping"}'
    response = client.post("/mcp", data=ping, content_type="application/json")

    assert response.status_code == 401
    # A JSON-RPC error an MCP client reads, with the service's own message and wire error.
    body = response.json()
    assert (body["jsonrpc"], body["id"], body["error"]["code"]) == ("2.0", 7, -32001)
    assert "API key" in body["error"]["message"]
    assert body["error"]["data"]["name"] == "AuthorizationError"
    assert response["WWW-Authenticate"] == 'Bearer realm="mcp"'


@pytest.mark.django_db
def test_the_http_endpoint_answers_another_method_with_drfs_405(client_for, api_key) -> None:
    # Stateless: no stream to open (GET), no session to end (DELETE).
    answer = client_for(api_key).get("/mcp")

    assert (answer.status_code, answer.json(), answer["Allow"]) == (
        405,
        {"name": "MethodNotAllowedError", "message": 'Method "GET" not allowed.'},
        "POST",
    )
    assert "WWW-Authenticate" not in answer


CALL = '{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "list_templates"}}'


@pytest.fixture
def one_call_a_minute(client_for, api_key, settings):
    """A client of the development key, whose limit is one request a minute."""
    settings.RATE_LIMIT_DEVELOPMENT = 1
    settings.RATE_LIMIT_INTERVAL_MS = 60_000
    return client_for(api_key)


@pytest.mark.django_db
def test_the_http_endpoint_keeps_the_keys_rate_limit_for_tool_calls(one_call_a_minute) -> None:
    http = one_call_a_minute

    first = http.post("/mcp", data=CALL, content_type="application/json")
    second = http.post("/mcp", data=CALL, content_type="application/json")

    assert first.status_code != 429
    assert second.status_code == 429
    body = second.json()
    assert body["id"] == 3
    assert body["error"]["data"]["name"] == "RateLimitError"
    assert "Rate limit" in body["error"]["message"]
    assert int(second["Retry-After"]) >= 1


@pytest.mark.django_db
def test_the_protocols_own_messages_do_not_use_the_keys_limit(one_call_a_minute) -> None:
    # An SDK client sends initialize, its notification and maybe tools/list before its first
    # tool call: with a development key's limit they must leave that call its place.
    http = one_call_a_minute
    for method in ("ping", "tools/list", "ping"):
        message = f'{{"jsonrpc": "2.0", "id": 1, "method": "{method}"}}'
        assert http.post("/mcp", data=message, content_type="application/json").status_code != 429

    assert http.post("/mcp", data=CALL, content_type="application/json").status_code != 429


@pytest.mark.django_db(transaction=True)
def test_the_sdk_client_reads_a_refusal_before_mcp(live_server) -> None:
    async def work(client: Client) -> Any:
        return await client.list_tools()

    with pytest.raises(Exception) as raised:  # noqa: PT011 - the SDK raises its own McpError
        over_http(f"{live_server.url}/mcp", "not-a-key", work)

    # The service's message reaches the agent, not a status-derived stand-in.
    error = innermost(raised.value)
    assert type(error).__name__ == "MCPError", error
    assert "API key" in str(error), error


def innermost(error: BaseException) -> BaseException:
    """The error inside the task groups the SDK's client raises through."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="the subprocess reads the test database: PostgreSQL's (CI), not SQLite's in memory",
)
def test_manage_py_mcp_serves_the_tools_over_stdio(api_key, demo_template) -> None:
    database = connection.settings_dict
    environment = {
        **os.environ,
        "MCP_API_KEY": api_key,
        "DATABASE_URL": (
            f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}/"
            f"{database['NAME']}"
        ),
    }
    parameters = StdioServerParameters(
        command=sys.executable, args=[str(ROOT / "manage.py"), "mcp"], env=environment, cwd=ROOT
    )

    async def run() -> Any:
        async with Client(parameters) as client:
            tools = await client.list_tools()
            listed = await client.call_tool("list_templates", {})
            bad = await client.call_tool("fill_template", {"data": {}})
            return tools, listed, bad

    tools, listed, bad = anyio.run(run)

    assert {tool.name for tool in tools.tools} >= {"list_templates", "fill_template"}
    assert listed.structured_content["templates"][0]["eid"] == demo_template.eid
    assert bad.structured_content["fields"] == [{"message": "Required", "property": "templateEid"}]


@pytest.mark.django_db(transaction=True)
def test_a_development_key_makes_its_first_tool_call_through_the_sdk(
    live_server, api_key, settings
) -> None:
    # The SDK sends initialize and its notification first: with the development limit (2 a
    # second) its first tool call used to be the third request, and a 429.
    settings.RATE_LIMIT_ENABLED = True
    settings.RATE_LIMIT_DEVELOPMENT = 2
    settings.RATE_LIMIT_INTERVAL_MS = 60_000  # the whole test in one window

    async def work(client: Client) -> Any:
        await client.list_tools()
        return await client.call_tool("list_templates", {})

    listed = over_http(f"{live_server.url}/mcp", api_key, work)

    assert listed.is_error is False, listed
