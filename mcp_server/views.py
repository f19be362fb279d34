"""``/mcp``: the MCP server over Streamable HTTP for agents that reach the service over the
network, authenticated by the organization's API key (``Authorization: Bearer <key>``, or Basic
as the REST API takes it).

The SDK's transport is an ASGI application; the service runs under WSGI (gunicorn's threads).
Each POST is served on its own, statelessly with JSON answers (the SDK's ``stateless`` and
``json_response`` modes: no session to keep between requests, so any process may answer any
request), by running the SDK's session manager for that one request.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import MutableMapping
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

from accounts.authentication import key_from_authorization_header
from accounts.identity import ApiIdentity
from accounts.ratelimit import limit_for, rate_limit_hit, rate_limited
from accounts.services import api_key_authenticate
from accounts.usage import api_key_usage_count
from core.api_errors import MethodNotAllowed, error_headers, error_response
from core.errors import AuthorizationError, ServiceError
from mcp_server.server import current_identity, server_build

# JSON-RPC's range for a server's own errors: a refusal before MCP runs (the key, its limit).
REFUSED_BEFORE_MCP = -32001
MCP_CHALLENGE = 'Bearer realm="mcp"'


def _messages(body: bytes) -> list[dict[str, Any]]:
    """The JSON-RPC messages of a POST (one, or a batch); [] when it is not JSON-RPC."""
    try:
        parsed = json.loads(body)
    except ValueError:
        return []
    items = parsed if isinstance(parsed, list) else [parsed]
    return [item for item in items if isinstance(item, dict)]


def _does_work(messages: list[dict[str, Any]]) -> bool:
    """Whether a POST calls a tool. The protocol's own messages (initialize, its notification,
    tools/list, ping) are not counted against the key's rate limit: an SDK client sends three
    before its first tool call, which a development key's 2 a second would refuse."""
    return not messages or any(m.get("method") == "tools/call" for m in messages)


def _refusal(error: ServiceError, messages: list[dict[str, Any]]) -> JsonResponse:
    """A refusal before MCP, as a JSON-RPC error an MCP client reads (the SDK surfaces the error
    of a non-2xx answer's JSON-RPC body): the service's message, its wire error as ``data``."""
    request_id = messages[0].get("id") if len(messages) == 1 else None
    return JsonResponse(
        {
            "jsonrpc": "2.0",
            "id": request_id if isinstance(request_id, str | int) else None,
            "error": {
                "code": REFUSED_BEFORE_MCP,
                "message": error.message,
                "data": error.as_wire(),
            },
        },
        status=error.status,
        # The API's headers of the error (Retry-After, WWW-Authenticate). No OAuth here: the
        # realm says a key is wanted (docs/clients.md), no resource metadata that would start an
        # OAuth flow in a client.
        headers=error_headers(error, challenge=MCP_CHALLENGE),
    )


def _identity(request: HttpRequest, *, counted: bool) -> ApiIdentity:
    header = request.headers.get("Authorization", "")
    scheme, _, credentials = header.strip().partition(" ")
    raw_key = (
        credentials.strip() if scheme.lower() == "bearer" else key_from_authorization_header(header)
    )
    api_key = api_key_authenticate(raw_key=raw_key) if raw_key else None
    if api_key is None:
        raise AuthorizationError(
            "Not logged in: send the API key as 'Authorization: Bearer <key>'."
        )
    api_key_usage_count(api_key=api_key)
    if settings.RATE_LIMIT_ENABLED and counted:
        # The key's own limit, shared with its REST and GraphQL requests (the same bucket).
        decision = rate_limit_hit(
            bucket=api_key.eid,
            limit=limit_for(api_key.kind),
            interval_ms=settings.RATE_LIMIT_INTERVAL_MS,
        )
        if not decision.allowed:
            raise rate_limited(decision, api_key.kind)
    return ApiIdentity(organization=api_key.organization, api_key=api_key)


def _scope(request: HttpRequest) -> dict[str, Any]:
    headers = [
        (name.lower().encode("latin-1"), value.encode("latin-1"))
        for name, value in request.headers.items()
    ]
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": request.method,
        "scheme": request.scheme,
        "path": request.path,
        "raw_path": request.path.encode(),
        "query_string": request.META.get("QUERY_STRING", "").encode("latin-1"),
        "root_path": "",
        "headers": headers,
        "server": (request.get_host().partition(":")[0], int(request.get_port())),
        "client": (request.META.get("REMOTE_ADDR", ""), 0),
    }


async def _serve(
    scope: dict[str, Any], body: bytes
) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
    manager = StreamableHTTPSessionManager(
        app=server_build(),
        json_response=True,
        stateless=True,
        max_request_body_size=settings.API_MULTIPART_BODY_LIMIT,
    )
    received = False
    status = 500
    headers: list[tuple[bytes, bytes]] = []
    chunks: list[bytes] = []

    async def receive() -> MutableMapping[str, Any]:
        nonlocal received
        if received:
            await asyncio.Event().wait()  # the request has no more body: wait to be cancelled
        received = True
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: MutableMapping[str, Any]) -> None:
        nonlocal status, headers
        if message["type"] == "http.response.start":
            status = message["status"]
            headers = list(message.get("headers", []))
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    async with manager.run():
        await manager.handle_request(scope, receive, send)
    return status, headers, b"".join(chunks)


@csrf_exempt
def mcp_endpoint(request: HttpRequest) -> HttpResponse:
    messages = _messages(request.body) if request.method == "POST" else []
    try:
        identity = _identity(request, counted=_does_work(messages))
    except ServiceError as error:
        return _refusal(error, messages)
    if request.method != "POST":
        # Stateless: no server-sent stream to open (GET) nor session to end (DELETE).
        return error_response(MethodNotAllowed.of(request.method, ("POST",)))
    token = current_identity.set(identity)
    try:
        status, headers, body = asyncio.run(_serve(_scope(request), request.body))
    finally:
        current_identity.reset(token)
    response = HttpResponse(body, status=status)
    for name, value in headers:
        if name.lower() != b"content-length":
            response[name.decode("latin-1")] = value.decode("latin-1")
    return response
