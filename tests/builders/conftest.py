"""Fixtures of the embedded builders' tests: generateEmbedURL through the GraphQL API."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.test import Client

GENERATE = """
mutation GenerateEmbedURL($eid: String!, $type: String!, $validForSeconds: Int,
  $metadata: JSON, $options: JSON, $permissions: [String!]) {
  generateEmbedURL(eid: $eid, type: $type, validForSeconds: $validForSeconds,
    metadata: $metadata, options: $options, permissions: $permissions) {
    url
    requestTokenEid
  }
}
"""


@pytest.fixture
def graphql(api_client: Client) -> Callable[..., dict[str, Any]]:
    def call(query: str, variables: dict[str, Any], client: Client | None = None):
        response = (client or api_client).post(
            "/graphql",
            data=json.dumps({"query": query, "variables": variables}),
            content_type="application/json",
        )
        return {"status": response.status_code, **response.json()}

    return call


@pytest.fixture
def embed_url(graphql: Callable[..., dict[str, Any]]) -> Callable[..., str]:
    """generateEmbedURL's url for the variables given (the path and query only)."""

    def make(client: Client | None = None, **variables: Any) -> str:
        result = graphql(GENERATE, variables, client)
        assert "errors" not in result, result
        url = result["data"]["generateEmbedURL"]["url"]
        parts = urlsplit(url)
        return parts.path

    return make
